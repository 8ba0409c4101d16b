/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plain description of a single-plane image in a buffer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  int width;
  int height;
  int bpp;                      /* bytes per pixel: 1 (GRAY8), 2 (GRAY16_LE),
                                 * or the sample size of ClvSample */
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

/* What a pixel of a SAR image holds (its size is the image's bpp):
 * unsigned integers, Float32, and complex pairs (real part first).  The
 * integer types are numbered by their size, the bytes per pixel that the
 * integer paths have always been given.  Kernels get the number as
 * -DSAMPLE. */
typedef enum
{
  CLV_SAMPLE_U8 = 1,
  CLV_SAMPLE_U16 = 2,
  CLV_SAMPLE_F32 = 3,
  CLV_SAMPLE_CI16 = 4,
  CLV_SAMPLE_CF32 = 5,
} ClvSample;

/* Bytes of one sample. */
static inline int
clv_sample_size (ClvSample sample)
{
  static const int sizes[] = { 0, 1, 2, 4, 4, 8 };
  return sizes[sample];
}

static inline gboolean
clv_sample_is_complex (ClvSample sample)
{
  return sample == CLV_SAMPLE_CI16 || sample == CLV_SAMPLE_CF32;
}

/* Pixel (x, y) as a complex number (*im = 0 for real samples). */
static inline void
clv_image_get_complex (const guint8 * data, const ClvImage * im,
    ClvSample sample, int x, int y, double *re, double *imag)
{
  const guint8 *p = data + im->offset + (gsize) y * im->stride +
      (gsize) x * im->bpp;

  *re = *imag = 0;
  switch (sample) {
    case CLV_SAMPLE_U8:
      *re = *p;
      break;
    case CLV_SAMPLE_U16:
      *re = *(const guint16 *) p;
      break;
    case CLV_SAMPLE_F32:
      *re = *(const float *) p;
      break;
    case CLV_SAMPLE_CI16:
      *re = ((const gint16 *) p)[0];
      *imag = ((const gint16 *) p)[1];
      break;
    case CLV_SAMPLE_CF32:
      *re = ((const float *) p)[0];
      *imag = ((const float *) p)[1];
      break;
  }
}

/* Pixel (x, y) of a real image as a double. */
static inline double
clv_image_get_real (const guint8 * data, const ClvImage * im,
    ClvSample sample, int x, int y)
{
  double re, imag;

  clv_image_get_complex (data, im, sample, x, y, &re, &imag);
  return re;
}

/* Pixel (x, y) of a Float32 image. */
static inline float *
clv_image_f32 (guint8 * data, const ClvImage * im, int x, int y)
{
  return (float *) (data + im->offset + (gsize) y * im->stride +
      (gsize) x * sizeof (float));
}

G_END_DECLS
