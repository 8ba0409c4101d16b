/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plain description of a single-plane image in a buffer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  int width;
  int height;
  int bpp;                      /* bytes per pixel: 1 (GRAY8) or 2 (GRAY16_LE) */
  gsize stride;                 /* bytes from one row to the next */
  gsize offset;                 /* bytes from the buffer start to pixel (0,0) */
} ClvImage;

static inline ClvImage
clv_image_make (int width, int height, int bpp, gsize stride)
{
  ClvImage im = { width, height, bpp, stride, 0 };
  return im;
}

/* Where the luma of a frame's pixel is: the byte at `offset` + y·`stride` +
 * x·`bpp` for gray and planar YUV (r = g = b = −1), or OpenCV 4.6's RGB→gray
 * (cvtColor, as clv_rgb_to_gray_ref) of the three bytes at offsets r, g, b
 * there for packed RGB (bpp 3 or 4). */
typedef struct
{
  ClvImage image;
  int r, g, b;                  /* byte offsets in a packed RGB pixel, or −1 */
} ClvLumaImage;

/* A luma plane of one byte per pixel. */
static inline ClvLumaImage
clv_luma_image_gray (int width, int height, gsize offset, gsize stride)
{
  ClvLumaImage l = { clv_image_make (width, height, 1, stride), -1, -1, -1 };
  l.image.offset = offset;
  return l;
}

/* Pixel (x, y) of a GRAY8 or GRAY16 image as an integer. */
static inline guint
clv_image_get (const guint8 * data, const ClvImage * im, int x, int y)
{
  const guint8 *row = data + im->offset + (gsize) y * im->stride;
  return im->bpp == 1 ? row[x] : ((const guint16 *) row)[x];
}

static inline void
clv_image_set (guint8 * data, const ClvImage * im, int x, int y, guint v)
{
  guint8 *row = data + im->offset + (gsize) y * im->stride;
  if (im->bpp == 1)
    row[x] = (guint8) v;
  else
    ((guint16 *) row)[x] = (guint16) v;
}

G_END_DECLS
