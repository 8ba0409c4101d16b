// SPDX-License-Identifier: LGPL-2.1-or-later
// OpenCV's answer for the Viola-Jones tests and the benchmark: runs
// CascadeClassifier::detectMultiScale (CPU path, OpenCL off) on a gray PGM.
//
//   oracle-detect --cascade FILE --image FILE.pgm [--scale-factor 1.1]
//       [--min-neighbors 3] [--min-size WxH] [--max-size WxH]
//       [--threads N] [--repeat N]
//
// Without --repeat it prints one face per line, "x y width height neighbors",
// sorted, after '#' comment lines.  With --repeat N it runs N timed
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
      "[--max-size WxH] [--threads N] [--repeat N]\n", prog);
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

int
main (int argc, char **argv)
{
  std::string cascade_path, image_path;
  double scale_factor = 1.1;
  int min_neighbors = 3, threads = 1, repeat = 0;
  cv::Size min_size, max_size;

  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      usage (argv[0]);
    const char *v = argv[++i];
    if (a == "--cascade")
      cascade_path = v;
    else if (a == "--image")
      image_path = v;
    else if (a == "--scale-factor")
      scale_factor = std::atof (v);
    else if (a == "--min-neighbors")
      min_neighbors = std::atoi (v);
    else if (a == "--min-size")
      min_size = parse_size (v, argv[0]);
    else if (a == "--max-size")
      max_size = parse_size (v, argv[0]);
    else if (a == "--threads")
      threads = std::atoi (v);
    else if (a == "--repeat")
      repeat = std::atoi (v);
    else
      usage (argv[0]);
  }
  if (cascade_path.empty () || image_path.empty () || scale_factor <= 1.0
      || threads < 1 || repeat < 0)
    usage (argv[0]);

  cv::ocl::setUseOpenCL (false);
  cv::setNumThreads (threads);

  cv::CascadeClassifier cascade;
  if (!cascade.load (cascade_path)) {
    std::fprintf (stderr, "cannot load cascade %s\n", cascade_path.c_str ());
    return 1;
  }
  // Our own PGM reader: no imgcodecs (and its libraries) to carry to the
  // benchmark machine.
  GError *error = NULL;
  int width, height;
  guint8 *pixels = clv_pgm_read (image_path.c_str (), &width, &height, &error);
  if (pixels == NULL) {
    std::fprintf (stderr, "%s\n", error->message);
    return 1;
  }
  std::unique_ptr<guint8, void (*) (gpointer)> owned (pixels, g_free);
  cv::Mat image (height, width, CV_8UC1, pixels);

  std::vector<cv::Rect> faces;
  std::vector<int> neighbors;
  if (repeat > 0) {
    std::vector<double> ms;
    // One untimed run: OpenCV allocates its buffers on the first call.
    cascade.detectMultiScale (image, faces, neighbors, scale_factor,
        min_neighbors, 0, min_size, max_size);
    for (int r = 0; r < repeat; r++) {
      auto t0 = std::chrono::steady_clock::now ();
      cascade.detectMultiScale (image, faces, neighbors, scale_factor,
          min_neighbors, 0, min_size, max_size);
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
        "\"repeat\": %d, \"faces\": %zu, \"ms_min\": %.3f, "
        "\"ms_median\": %.3f, \"ms_mean\": %.3f}\n", CV_VERSION, threads,
        image_path.c_str (), image.cols, image.rows, cascade_path.c_str (),
        scale_factor, min_neighbors, repeat, faces.size (), sorted.front (),
        sorted[sorted.size () / 2], mean);
    return 0;
  }

  cascade.detectMultiScale (image, faces, neighbors, scale_factor,
      min_neighbors, 0, min_size, max_size);
  std::vector<std::tuple<int, int, int, int, int>> rows;
  for (size_t i = 0; i < faces.size (); i++)
    rows.emplace_back (faces[i].x, faces[i].y, faces[i].width,
        faces[i].height, neighbors[i]);
  std::sort (rows.begin (), rows.end ());

  const char *cascade_name = std::strrchr (cascade_path.c_str (), '/');
  const char *image_name = std::strrchr (image_path.c_str (), '/');
  std::printf ("# OpenCV %s detectMultiScale, CPU\n", CV_VERSION);
  std::printf ("# cascade %s image %s %dx%d\n",
      cascade_name ? cascade_name + 1 : cascade_path.c_str (),
      image_name ? image_name + 1 : image_path.c_str (), image.cols,
      image.rows);
  std::printf ("# scale-factor %g min-neighbors %d min-size %dx%d "
      "max-size %dx%d\n", scale_factor, min_neighbors, min_size.width,
      min_size.height, max_size.width, max_size.height);
  std::printf ("# x y width height neighbors\n");
  for (auto &r : rows)
    std::printf ("%d %d %d %d %d\n", std::get<0> (r), std::get<1> (r),
        std::get<2> (r), std::get<3> (r), std::get<4> (r));
  return 0;
}
