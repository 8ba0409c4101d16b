// SPDX-License-Identifier: LGPL-2.1-or-later
// The pieces of the Viola-Jones C reference equal OpenCV's own functions on
// random images of random sizes: cv::resize (INTER_LINEAR_EXACT, what
// cascadedetect uses), cv::integral (CV_32S sum, squared sum and tilted
// sum, wrapping past 2^31 like OpenCV's int) and cv::cvtColor to gray.
// Built and run only where OpenCV is installed.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstring>

#include "clv-vj-ref.h"

static int failures = 0;

static void
check (bool ok, const char *what, int w, int h)
{
  if (!ok) {
    std::printf ("not equal: %s on %dx%d\n", what, w, h);
    failures++;
  }
}

static bool
same (const cv::Mat & a, const cv::Mat & b)
{
  return a.size () == b.size () && a.type () == b.type ()
      && cv::norm (a, b, cv::NORM_INF) == 0;
}

int
main ()
{
  cv::RNG rng (7);

  for (int t = 0; t < 300; t++) {
    int sw = rng.uniform (1, 400), sh = rng.uniform (1, 300);
    int dw = rng.uniform (1, sw + 1), dh = rng.uniform (1, sh + 1);
    cv::Mat src (sh, sw, CV_8U);
    rng.fill (src, cv::RNG::UNIFORM, 0, 256);
    if (t % 3 == 0)
      cv::GaussianBlur (src, src, cv::Size (7, 7), 2);

    cv::Mat expect, mine (dh, dw, CV_8U);
    cv::resize (src, expect, cv::Size (dw, dh), 0, 0, cv::INTER_LINEAR_EXACT);
    clv_vj_resize (src.data, sw, sh, src.step, mine.data, dw, dh, mine.step);
    check (same (expect, mine), "resize", sw, sh);

    cv::Mat sum, sqsum, tilted;
    cv::integral (src, sum, sqsum, tilted, CV_32S, CV_32S);
    ClvVjIntegrals *in = clv_vj_integrals_new (sw, sh, TRUE);
    clv_vj_integrals_compute (in, src.data, sw, sh, src.step);
    check (same (sum, cv::Mat (sh + 1, sw + 1, CV_32S, in->sum)), "sum", sw, sh);
    check (same (sqsum, cv::Mat (sh + 1, sw + 1, CV_32S, in->sqsum)),
        "squared sum", sw, sh);
    check (same (tilted, cv::Mat (sh + 1, sw + 1, CV_32S, in->tilted)),
        "tilted sum", sw, sh);
    clv_vj_integrals_free (in);

    cv::Mat rgb (sh, sw, CV_8UC3), bgra (sh, sw, CV_8UC4), gray,
        gray_mine (sh, sw, CV_8U);
    rng.fill (rgb, cv::RNG::UNIFORM, 0, 256);
    rng.fill (bgra, cv::RNG::UNIFORM, 0, 256);
    cv::cvtColor (rgb, gray, cv::COLOR_RGB2GRAY);
    clv_rgb_to_gray_ref (rgb.data, rgb.step, 3, 0, 1, 2, sw, sh,
        gray_mine.data, gray_mine.step);
    check (same (gray, gray_mine), "RGB to gray", sw, sh);
    cv::cvtColor (bgra, gray, cv::COLOR_BGRA2GRAY);
    clv_rgb_to_gray_ref (bgra.data, bgra.step, 4, 2, 1, 0, sw, sh,
        gray_mine.data, gray_mine.step);
    check (same (gray, gray_mine), "BGRA to gray", sw, sh);
  }

  // 3000x3000 white: the squared sum passes 2^31 and wraps.
  cv::Mat white (3000, 3000, CV_8U, cv::Scalar (255)), sum, sqsum;
  cv::integral (white, sum, sqsum, CV_32S, CV_32S);
  ClvVjIntegrals *in = clv_vj_integrals_new (3000, 3000, FALSE);
  clv_vj_integrals_compute (in, white.data, 3000, 3000, white.step);
  check (std::memcmp (sqsum.data, in->sqsum, sizeof (guint32) * 3001 * 3001)
      == 0, "wrapping squared sum", 3000, 3000);
  clv_vj_integrals_free (in);

  std::printf ("%s\n", failures ? "FAILED" : "all equal");
  return failures ? 1 : 0;
}
