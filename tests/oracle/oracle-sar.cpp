// SPDX-License-Identifier: LGPL-2.1-or-later
// OpenCV's SAR peers for the benchmark report (tests/bench/report.sh):
// cv::resize with INTER_AREA (the block mean a multilook computes: our
// output must equal it) and cv::warpAffine (bilinear, the rotation and
// scaling of sarrotscale, same map), on a square GRAY16 frame.
//
//   oracle-sar bench [--size N] [--looks 2,4,16] [--angle 30] [--scale 1.5]
//       [--threads 16] [--repeat 10] [--write-dir DIR]
//
// The frame is the benchmarks' synthetic pattern (pixel i is the top 16
// bits of the 32-bit product i * 2654435761, as bench-sar fills it).  With
// --write-dir the input (in.raw) and OpenCV's outputs (area-L.raw,
// warp.raw) are written there, raw little-endian 16-bit rows, so that a
// script can compare them with our elements' outputs.  Prints one JSON
// object: median milliseconds of each operation.  Needs only OpenCV's core
// and imgproc (tests/oracle/bundle-oracle.sh carries them).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace
{

[[noreturn]] void
usage ()
{
  std::cerr << "usage: oracle-sar bench [--size N] [--looks 2,4,16] "
      "[--angle DEG] [--scale S] [--threads N] [--repeat N] "
      "[--write-dir DIR]" << std::endl;
  std::exit (2);
}

void
write_raw (const std::string & path, const cv::Mat & m)
{
  std::ofstream f (path, std::ios::binary);
  for (int y = 0; y < m.rows; y++)
    f.write (reinterpret_cast<const char *> (m.ptr (y)),
        m.cols * m.elemSize ());
  if (!f) {
    std::cerr << "oracle-sar: cannot write " << path << std::endl;
    std::exit (1);
  }
}

template <typename F> double
median_ms (int repeat, F op)
{
  std::vector<double> t;
  op ();                        // warm-up: allocations, thread pool
  for (int i = 0; i < repeat; i++) {
    auto a = std::chrono::steady_clock::now ();
    op ();
    auto b = std::chrono::steady_clock::now ();
    t.push_back (std::chrono::duration<double, std::milli> (b - a).count ());
  }
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}

}                               // namespace

int
main (int argc, char **argv)
{
  int size = 4096, threads = 16, repeat = 10;
  double angle = 30, scale = 1.5;
  std::string looks_arg = "2,4,16", dir;

  if (argc < 2 || std::string (argv[1]) != "bench")
    usage ();
  for (int i = 2; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      usage ();
    std::string v = argv[++i];
    if (a == "--size")
      size = std::atoi (v.c_str ());
    else if (a == "--looks")
      looks_arg = v;
    else if (a == "--angle")
      angle = std::atof (v.c_str ());
    else if (a == "--scale")
      scale = std::atof (v.c_str ());
    else if (a == "--threads")
      threads = std::atoi (v.c_str ());
    else if (a == "--repeat")
      repeat = std::atoi (v.c_str ());
    else if (a == "--write-dir")
      dir = v;
    else
      usage ();
  }
  if (size < 16 || repeat < 1 || threads < 1 || !(scale > 0))
    usage ();
  cv::setNumThreads (threads);

  cv::Mat src (size, size, CV_16UC1);
  for (size_t i = 0; i < (size_t) size * size; i++)
    src.ptr<uint16_t> ()[i] = (uint16_t) ((uint32_t) i * 2654435761u >> 16);
  if (!dir.empty ())
    write_raw (dir + "/in.raw", src);

  std::ostringstream json;
  json << "{\"opencv_version\": \"" << CV_VERSION << "\", \"threads\": "
      << threads << ", \"size\": " << size << ", \"repeat\": " << repeat
      << ", \"resize_area\": [";
  std::stringstream ls (looks_arg);
  std::string item;
  bool first = true;
  while (std::getline (ls, item, ',')) {
    int l = std::atoi (item.c_str ());
    if (l < 1)
      usage ();
    cv::Mat dst;
    cv::Size out (size / l, size / l);
    double ms = median_ms (repeat, [&] {
          cv::resize (src, dst, out, 0, 0, cv::INTER_AREA);});
    if (!dir.empty ())
      write_raw (dir + "/area-" + std::to_string (l) + ".raw", dst);
    json << (first ? "" : ", ") << "{\"looks\": " << l << ", \"ms_median\": "
        << ms << "}";
    first = false;
  }

  // sarrotscale's sampling map (clv-sar.h), output pixel -> input pixel.
  const double a = angle * M_PI / 180, c = std::cos (a) / scale,
      s = std::sin (a) / scale, ctr = (size - 1) / 2.0;
  cv::Mat m = (cv::Mat_<double> (2, 3) << c, -s, ctr - (c * ctr - s * ctr),
      s, c, ctr - (s * ctr + c * ctr));
  cv::Mat warped;
  double wms = median_ms (repeat, [&] {
        cv::warpAffine (src, warped, m, src.size (),
            cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, 0);});
  if (!dir.empty ())
    write_raw (dir + "/warp.raw", warped);
  json << "], \"warp_affine\": {\"interpolation\": \"bilinear\", \"angle\": "
      << angle << ", \"scale\": " << scale << ", \"ms_median\": " << wms
      << "}}";
  std::cout << json.str () << std::endl;
  return 0;
}
