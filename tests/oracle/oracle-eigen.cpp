// SPDX-License-Identifier: LGPL-2.1-or-later
// OpenCV's EigenFaceRecognizer as the test oracle for clvision's Eigenfaces
// and its baseline for the benchmark.
//
//   oracle-eigen train LIST MODEL [--components K] [--threshold T]
//       LIST: one "path label [name]" per line (# comments; the name is
//       the rest of the line); the images (8-bit binary PGM) must share one
//       size.
//   oracle-eigen predict MODEL [--threshold T] (--list LIST | IMAGE...)
//       one "path label distance" line per image (%.17g).
//   oracle-eigen eigenvalues MODEL
//       the model's eigenvalues, one per line (%.17g).
//   oracle-eigen version
//       OpenCV's version.
//   oracle-eigen crop-resize IMAGE X Y W H OUT_W OUT_H OUT.pgm [--inexact]
//       cv::resize (INTER_LINEAR_EXACT, or INTER_LINEAR with --inexact) of
//       the ROI, written as binary PGM.
//   oracle-eigen bench [--threads N] [--size S] [--faces M1,M2,...]
//       [--components K] [--predict N] [--raw FILE]
//       trains on M faces of S×S for every M (K = 0: M / 5, the setting
//       of Li, Yan and Zhang, "Optimization of GPU-based Eigenface
//       Algorithm") and predicts N faces; prints one JSON object.  The faces
//       are synthetic, or with --raw the S×S-byte images packed in FILE
//       (training takes the first M, probes the N after the largest M,
//       wrapping around), so a GPU benchmark can time the same data.
//
// Images are PGM files read and written here, not through imgcodecs, so
// the oracle needs only OpenCV's core, imgproc and face libraries (and what
// they pull in) on a GPU server.
#include <opencv2/core.hpp>
#include <opencv2/face.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace
{

struct Sample
{
  std::string path;
  int label;
  std::string name;
};

[[noreturn]] void
die (const std::string & msg)
{
  std::cerr << "oracle-eigen: " << msg << std::endl;
  std::exit (1);
}

std::vector<Sample>
read_list (const std::string & path)
{
  std::ifstream in (path);
  if (!in)
    die ("cannot open list " + path);
  std::vector<Sample> samples;
  std::string line;
  while (std::getline (in, line)) {
    if (line.empty () || line[0] == '#')
      continue;
    std::istringstream ls (line);
    Sample s;
    if (!(ls >> s.path >> s.label))
      die ("bad line in " + path + ": " + line);
    std::getline (ls >> std::ws, s.name);
    samples.push_back (s);
  }
  return samples;
}

// An 8-bit binary PGM (P5), header comments allowed.
cv::Mat
read_gray (const std::string & path)
{
  std::ifstream in (path, std::ios::binary);
  std::string magic;
  int dims[3], n = 0;
  if (!(in >> magic) || magic != "P5")
    die ("not a binary PGM: " + path);
  while (n < 3) {
    in >> std::ws;
    if (in.peek () == '#') {
      std::string comment;
      std::getline (in, comment);
    } else if (!(in >> dims[n++])) {
      die ("bad PGM header: " + path);
    }
  }
  if (dims[0] < 1 || dims[1] < 1 || dims[2] != 255)
    die ("not an 8-bit PGM: " + path);
  in.get ();
  cv::Mat im (dims[1], dims[0], CV_8UC1);
  if (!in.read ((char *) im.data, (std::streamsize) im.total ()))
    die ("truncated PGM: " + path);
  return im;
}

void
write_gray (const std::string & path, const cv::Mat & im)
{
  std::ofstream out (path, std::ios::binary);
  out << "P5\n" << im.cols << " " << im.rows << "\n255\n";
  for (int y = 0; y < im.rows; y++)
    out.write ((const char *) im.ptr (y), im.cols);
  if (!out)
    die ("cannot write " + path);
}

double
seconds_since (std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double> (std::chrono::steady_clock::now () -
      t0).count ();
}

// "--name value" options after the positional arguments.
const char *
option (int argc, char **argv, const char *name, const char *fallback)
{
  for (int i = 0; i + 1 < argc; i++)
    if (std::strcmp (argv[i], name) == 0)
      return argv[i + 1];
  return fallback;
}

cv::Ptr<cv::face::EigenFaceRecognizer>
read_model (const char *path)
{
  cv::Ptr<cv::face::EigenFaceRecognizer> model =
      cv::face::EigenFaceRecognizer::create ();
  model->read (std::string (path));
  return model;
}

int
cmd_train (int argc, char **argv)
{
  if (argc < 2)
    die ("usage: train LIST MODEL [--components K] [--threshold T]");
  std::vector<Sample> samples = read_list (argv[0]);
  std::vector<cv::Mat> images;
  std::vector<int> labels;
  for (const Sample & s : samples) {
    images.push_back (read_gray (s.path));
    labels.push_back (s.label);
  }
  int k = std::atoi (option (argc, argv, "--components", "0"));
  double threshold = std::atof (option (argc, argv, "--threshold", "0"));
  cv::Ptr<cv::face::EigenFaceRecognizer> model =
      cv::face::EigenFaceRecognizer::create (k);
  if (threshold > 0)
    model->setThreshold (threshold);
  model->train (images, labels);
  for (const Sample & s : samples)
    if (!s.name.empty ())
      model->setLabelInfo (s.label, s.name);
  model->write (std::string (argv[1]));
  return 0;
}

int
cmd_predict (int argc, char **argv)
{
  if (argc < 2)
    die ("usage: predict MODEL [--threshold T] (--list LIST | IMAGE...)");
  cv::Ptr<cv::face::EigenFaceRecognizer> model = read_model (argv[0]);
  const char *threshold = option (argc, argv, "--threshold", nullptr);
  if (threshold)
    model->setThreshold (std::atof (threshold));

  std::vector<std::string> paths;
  const char *list = option (argc, argv, "--list", nullptr);
  if (list) {
    for (const Sample & s : read_list (list))
      paths.push_back (s.path);
  } else {
    for (int i = 1; i < argc; i++) {
      if (std::strcmp (argv[i], "--threshold") == 0) {
        i++;
        continue;
      }
      paths.push_back (argv[i]);
    }
  }
  for (const std::string & p : paths) {
    int label;
    double dist;
    model->predict (read_gray (p), label, dist);
    std::printf ("%s %d %.17g\n", p.c_str (), label, dist);
  }
  return 0;
}

int
cmd_eigenvalues (int argc, char **argv)
{
  if (argc < 1)
    die ("usage: eigenvalues MODEL");
  cv::Ptr<cv::face::EigenFaceRecognizer> model = read_model (argv[0]);
  cv::Mat values = model->getEigenValues ();
  for (int i = 0; i < (int) values.total (); i++)
    std::printf ("%.17g\n", values.at<double> (i));
  return 0;
}

int
cmd_crop_resize (int argc, char **argv)
{
  if (argc < 8)
    die ("usage: crop-resize IMAGE X Y W H OUT_W OUT_H OUT.pgm [--inexact]");
  bool inexact = argc > 8 && std::strcmp (argv[8], "--inexact") == 0;
  cv::Mat im = read_gray (argv[0]);
  cv::Rect roi (std::atoi (argv[1]), std::atoi (argv[2]), std::atoi (argv[3]),
      std::atoi (argv[4]));
  cv::Mat out;
  cv::resize (im (roi), out, cv::Size (std::atoi (argv[5]),
          std::atoi (argv[6])), 0, 0,
      inexact ? cv::INTER_LINEAR : cv::INTER_LINEAR_EXACT);
  write_gray (argv[7], out);
  return 0;
}

// Smooth random "faces": a few Gaussian blobs on a gradient, so the
// spectrum decays like real faces' and eigen() works as hard as on them.
cv::Mat
synthetic_face (int size, cv::RNG & rng)
{
  cv::Mat f (size, size, CV_32F);
  double gx = rng.uniform (-1.0, 1.0), gy = rng.uniform (-1.0, 1.0);
  for (int y = 0; y < size; y++)
    for (int x = 0; x < size; x++)
      f.at<float> (y, x) = (float) (128 + 30 * (gx * x + gy * y) / size);
  for (int b = 0; b < 6; b++) {
    double cx = rng.uniform (0.0, (double) size), cy = rng.uniform (0.0,
        (double) size), r = rng.uniform (size / 16.0, size / 4.0), a =
        rng.uniform (-60.0, 60.0);
    for (int y = 0; y < size; y++)
      for (int x = 0; x < size; x++) {
        double d2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (r * r);
        f.at<float> (y, x) += (float) (a * std::exp (-d2));
      }
  }
  cv::Mat noise (size, size, CV_32F);
  rng.fill (noise, cv::RNG::NORMAL, 0, 4);
  f += noise;
  cv::Mat out;
  f.convertTo (out, CV_8U);
  return out;
}

int
cmd_bench (int argc, char **argv)
{
  int threads = std::atoi (option (argc, argv, "--threads", "16"));
  int size = std::atoi (option (argc, argv, "--size", "128"));
  int k_opt = std::atoi (option (argc, argv, "--components", "0"));
  int n_predict = std::atoi (option (argc, argv, "--predict", "100"));
  std::vector<int> counts;
  std::istringstream cs (option (argc, argv, "--faces",
          "320,640,960,1280,1600,1920"));
  for (std::string tok; std::getline (cs, tok, ',');)
    counts.push_back (std::atoi (tok.c_str ()));

  int max_m = 0;
  for (int m : counts)
    max_m = std::max (max_m, m);
  std::vector<cv::Mat> pool;    // max_m training faces, then the probes
  const char *raw = option (argc, argv, "--raw", nullptr);
  if (raw) {
    std::ifstream in (raw, std::ios::binary);
    std::vector<cv::Mat> file;
    for (;;) {
      cv::Mat f (size, size, CV_8UC1);
      if (!in.read ((char *) f.data, (std::streamsize) f.total ()))
        break;
      file.push_back (f);
    }
    if (file.empty ())
      die (std::string ("no ") + std::to_string (size) + "x" +
          std::to_string (size) + " faces in " + raw);
    for (int i = 0; i < max_m + n_predict; i++)
      pool.push_back (file[i % file.size ()]);
  } else {
    cv::RNG rng (12345);
    for (int i = 0; i < max_m + n_predict; i++)
      pool.push_back (synthetic_face (size, rng));
  }

  cv::setNumThreads (threads);
  std::printf ("{\"impl\": \"opencv %s EigenFaceRecognizer\", \"threads\": %d,"
      " \"size\": %d, \"faces_from\": \"%s\", \"runs\": [", CV_VERSION,
      cv::getNumThreads (), size, raw ? raw : "synthetic");
  for (size_t c = 0; c < counts.size (); c++) {
    int m = counts[c];
    int k = k_opt > 0 ? k_opt : std::max (1, m / 5);
    std::vector<cv::Mat> faces (pool.begin (), pool.begin () + m);
    std::vector<int> labels;
    for (int i = 0; i < m; i++)
      labels.push_back (i / 8);
    cv::Ptr<cv::face::EigenFaceRecognizer> model =
        cv::face::EigenFaceRecognizer::create (k);
    auto t0 = std::chrono::steady_clock::now ();
    model->train (faces, labels);
    double train_s = seconds_since (t0);

    std::vector<cv::Mat> probes (pool.begin () + max_m, pool.end ());
    t0 = std::chrono::steady_clock::now ();
    long checksum = 0;
    for (const cv::Mat & p : probes)
      checksum += model->predict (p);
    double predict_s = seconds_since (t0);
    std::printf ("%s{\"faces\": %d, \"components\": %d, \"train_s\": %.6f, "
        "\"predict_ms_per_face\": %.6f, \"label_sum\": %ld}",
        c ? ", " : "", m, k, train_s, 1e3 * predict_s / n_predict, checksum);
    std::fflush (stdout);
  }
  std::printf ("]}\n");
  return 0;
}

}                               // namespace

int
main (int argc, char **argv)
{
  if (argc < 2)
    die ("usage: oracle-eigen train|predict|eigenvalues|version|crop-resize|"
        "bench ...");
  std::string cmd = argv[1];
  try {
    if (cmd == "train")
      return cmd_train (argc - 2, argv + 2);
    if (cmd == "predict")
      return cmd_predict (argc - 2, argv + 2);
    if (cmd == "eigenvalues")
      return cmd_eigenvalues (argc - 2, argv + 2);
    if (cmd == "version") {
      std::printf ("%s\n", CV_VERSION);
      return 0;
    }
    if (cmd == "crop-resize")
      return cmd_crop_resize (argc - 2, argv + 2);
    if (cmd == "bench")
      return cmd_bench (argc - 2, argv + 2);
  }
  catch (const cv::Exception & e) {
    die (e.what ());
  }
  die ("unknown command " + cmd);
}
