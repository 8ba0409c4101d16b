// SPDX-License-Identifier: LGPL-2.1-or-later
// OpenCV's answer for the Viola-Jones tests and the benchmark: runs
// CascadeClassifier::detectMultiScale (CPU path, OpenCL off) on a gray PGM.
//
//   oracle-detect --cascade FILE --image FILE.pgm [--scale-factor 1.1]
//       [--min-neighbors 3] [--min-size WxH] [--max-size WxH]
//       [--reject-levels] [--parent-cascade FILE]
//       [--threads N] [--repeat N]
//
// Without --repeat it prints one detection per line, "x y width height
// neighbors", sorted, after '#' comment lines.  --reject-levels runs
// detectMultiScale with outputRejectLevels = true (Python's
// detectMultiScale3) and prints "x y width height reject_level
// level_weight" instead, the weight with 17 significant digits.
// --parent-cascade first finds the objects of that cascade (scale 1.1,
// 3 neighbours), then runs --cascade on each one's crop of the image and
// maps its detections back, printing "parent x y width height neighbors"
// (parent: the index of the parent in the sorted list, which comes first as
// "# parent i x y width height").  With --repeat N it runs N timed
// detections and prints one JSON object with the times in milliseconds.
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "clv-pgm.h"

static void
usage (const char *prog)
{
  std::fprintf (stderr, "usage: %s --cascade FILE --image FILE.pgm "
      "[--scale-factor F] [--min-neighbors N] [--min-size WxH] "
      "[--max-size WxH] [--reject-levels] [--parent-cascade FILE] "
      "[--threads N] [--repeat N]\n", prog);
  std::exit (2);
}

static cv::Size
parse_size (const char *s, const char *prog)
{
  int w, h;
  char end;
  if (std::sscanf (s, "%dx%d%c", &w, &h, &end) != 2 || w < 0 || h < 0)
    usage (prog);
  return cv::Size (w, h);
}

struct Options
{
  std::string cascade_path, image_path, parent_path;
  double scale_factor = 1.1;
  int min_neighbors = 3, threads = 1, repeat = 0;
  bool reject_levels = false;
  cv::Size min_size, max_size;
};

static Options
parse_options (int argc, char **argv)
{
  Options o;

  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--reject-levels") {
      o.reject_levels = true;
      continue;
    }
    if (i + 1 >= argc)
      usage (argv[0]);
    const char *v = argv[++i];
    if (a == "--cascade")
      o.cascade_path = v;
    else if (a == "--image")
      o.image_path = v;
    else if (a == "--parent-cascade")
      o.parent_path = v;
    else if (a == "--scale-factor")
      o.scale_factor = std::atof (v);
    else if (a == "--min-neighbors")
      o.min_neighbors = std::atoi (v);
    else if (a == "--min-size")
      o.min_size = parse_size (v, argv[0]);
    else if (a == "--max-size")
      o.max_size = parse_size (v, argv[0]);
    else if (a == "--threads")
      o.threads = std::atoi (v);
    else if (a == "--repeat")
      o.repeat = std::atoi (v);
    else
      usage (argv[0]);
  }
  if (o.cascade_path.empty () || o.image_path.empty ()
      || o.scale_factor <= 1.0 || o.threads < 1 || o.repeat < 0)
    usage (argv[0]);
  return o;
}

// One detection: with --reject-levels `score` is the reject level and
// `weight` the level weight, else `score` is the neighbour count.
typedef std::tuple<int, int, int, int, int, double> Detection;

static std::vector<Detection>
detect (cv::CascadeClassifier & cascade, const cv::Mat & image,
    const Options & o)
{
  std::vector<cv::Rect> found;
  std::vector<int> scores;
  std::vector<double> weights;
  std::vector<Detection> out;

  if (o.reject_levels)
    cascade.detectMultiScale (image, found, scores, weights, o.scale_factor,
        o.min_neighbors, 0, o.min_size, o.max_size, true);
  else
    cascade.detectMultiScale (image, found, scores, o.scale_factor,
        o.min_neighbors, 0, o.min_size, o.max_size);
  for (size_t i = 0; i < found.size (); i++)
    out.emplace_back (found[i].x, found[i].y, found[i].width,
        found[i].height, scores[i], o.reject_levels ? weights[i] : 0.0);
  std::sort (out.begin (), out.end ());
  return out;
}

static void
print_detection (const Detection & d, bool reject_levels)
{
  std::printf ("%d %d %d %d %d", std::get<0> (d), std::get<1> (d),
      std::get<2> (d), std::get<3> (d), std::get<4> (d));
  if (reject_levels)
    std::printf (" %.17g", std::get<5> (d));
  std::printf ("\n");
}

static cv::CascadeClassifier
load_cascade (const std::string & path)
{
  cv::CascadeClassifier cascade;
  if (!cascade.load (path)) {
    std::fprintf (stderr, "cannot load cascade %s\n", path.c_str ());
    std::exit (1);
  }
  return cascade;
}

static const char *
base_name (const std::string & path)
{
  const char *slash = std::strrchr (path.c_str (), '/');
  return slash ? slash + 1 : path.c_str ();
}

static int
run_timed (cv::CascadeClassifier & cascade, const cv::Mat & image,
    const Options & o)
{
  std::vector<double> ms;
  std::vector<Detection> faces;

  // One untimed run: OpenCV allocates its buffers on the first call.
  faces = detect (cascade, image, o);
  for (int r = 0; r < o.repeat; r++) {
    auto t0 = std::chrono::steady_clock::now ();
    faces = detect (cascade, image, o);
    auto t1 = std::chrono::steady_clock::now ();
    ms.push_back (std::chrono::duration<double, std::milli> (t1 - t0).count ());
  }
  std::vector<double> sorted = ms;
  std::sort (sorted.begin (), sorted.end ());
  double mean = 0;
  for (double m : ms)
    mean += m / ms.size ();
  std::printf ("{\"implementation\": \"opencv\", \"opencv_version\": \"%s\", "
      "\"threads\": %d, \"image\": \"%s\", \"width\": %d, \"height\": %d, "
      "\"cascade\": \"%s\", \"scale_factor\": %g, \"min_neighbors\": %d, "
      "\"reject_levels\": %s, \"repeat\": %d, \"faces\": %zu, "
      "\"ms_min\": %.3f, \"ms_median\": %.3f, \"ms_mean\": %.3f}\n",
      CV_VERSION, o.threads, o.image_path.c_str (), image.cols, image.rows,
      o.cascade_path.c_str (), o.scale_factor, o.min_neighbors,
      o.reject_levels ? "true" : "false", o.repeat, faces.size (),
      sorted.front (), sorted[sorted.size () / 2], mean);
  return 0;
}

// --parent-cascade: the parents as OpenCV finds them, then --cascade on
// each parent's crop, mapped back to the image.
static void
print_in_parents (cv::CascadeClassifier & cascade, const cv::Mat & image,
    const Options & o)
{
  cv::CascadeClassifier parent_cascade = load_cascade (o.parent_path);
  Options parent_options;
  parent_options.reject_levels = false;
  std::vector<Detection> parents = detect (parent_cascade, image,
      parent_options);

  std::printf ("# parents %s scale-factor 1.1 min-neighbors 3\n",
      base_name (o.parent_path));
  for (size_t i = 0; i < parents.size (); i++) {
    std::printf ("# parent %zu ", i);
    print_detection (parents[i], false);
  }
  std::printf ("# parent x y width height %s\n",
      o.reject_levels ? "reject_level level_weight" : "neighbors");
  for (size_t i = 0; i < parents.size (); i++) {
    const Detection & p = parents[i];
    cv::Rect r (std::get<0> (p), std::get<1> (p), std::get<2> (p),
        std::get<3> (p));
    for (Detection d : detect (cascade, image (r), o)) {
      std::get<0> (d) += r.x;
      std::get<1> (d) += r.y;
      std::printf ("%zu ", i);
      print_detection (d, o.reject_levels);
    }
  }
}

int
main (int argc, char **argv)
{
  Options o = parse_options (argc, argv);

  cv::ocl::setUseOpenCL (false);
  cv::setNumThreads (o.threads);

  cv::CascadeClassifier cascade = load_cascade (o.cascade_path);
  // Our own PGM reader: no imgcodecs (and its libraries) to carry to the
  // benchmark machine.
  GError *error = NULL;
  int width, height;
  guint8 *pixels = clv_pgm_read (o.image_path.c_str (), &width, &height,
      &error);
  if (pixels == NULL) {
    std::fprintf (stderr, "%s\n", error->message);
    return 1;
  }
  std::unique_ptr<guint8, void (*) (gpointer)> owned (pixels, g_free);
  cv::Mat image (height, width, CV_8UC1, pixels);

  if (o.repeat > 0)
    return run_timed (cascade, image, o);

  std::printf ("# OpenCV %s detectMultiScale%s, CPU\n", CV_VERSION,
      o.reject_levels ? " with outputRejectLevels" : "");
  std::printf ("# cascade %s image %s %dx%d\n", base_name (o.cascade_path),
      base_name (o.image_path), image.cols, image.rows);
  std::printf ("# scale-factor %g min-neighbors %d min-size %dx%d "
      "max-size %dx%d\n", o.scale_factor, o.min_neighbors, o.min_size.width,
      o.min_size.height, o.max_size.width, o.max_size.height);
  if (!o.parent_path.empty ()) {
    print_in_parents (cascade, image, o);
    return 0;
  }
  std::printf ("# x y width height %s\n",
      o.reject_levels ? "reject_level level_weight" : "neighbors");
  for (const Detection & d : detect (cascade, image, o))
    print_detection (d, o.reject_levels);
  return 0;
}
