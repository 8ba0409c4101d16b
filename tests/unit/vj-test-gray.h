/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Gray pictures for the OpenCL Viola–Jones and vjfacedetect tests: the real
 * test images (vj-test-util) and smaller frames scaled from them. */
#pragma once

#include "clv-vj-ref.h"
#include "vj-test-util.h"

typedef struct
{
  guint8 *pixels;               /* width bytes per row */
  int width, height;
} Gray;

/* NAME.pgm of tests/fetch-data.sh. */
static inline Gray
load_gray (const char *name)
{
  Gray g;

  g.pixels = vj_test_load_image (name, &g.width, &g.height);
  return g;
}

/* `src` scaled to width x height with OpenCV's bilinear resize. */
static inline Gray
scaled (const Gray * src, int width, int height)
{
  Gray g = { g_malloc ((gsize) width * height), width, height };

  clv_vj_resize (src->pixels, src->width, src->height, src->width, g.pixels,
      width, height, width);
  return g;
}
