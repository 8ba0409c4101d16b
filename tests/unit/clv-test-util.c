/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>

#include "clv-test-util.h"

#include <string.h>

ClvDevice *
clv_test_device (void)
{
  GError *error = NULL;
  ClvDevice *dev = clv_device_open (NULL, &error);

  if (dev == NULL)
    g_error ("no OpenCL device for tests: %s", error->message);
  return dev;
}

guint8 *
clv_test_random_image (ClvImage * im, int width, int height, int bpp,
    guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *data;
  const guint max = bpp == 1 ? 256 : 65536;

  *im = clv_image_make (width, height, bpp, clv_round_up ((gsize) width * bpp,
          4));
  data = g_malloc0 (im->stride * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      clv_image_set (data, im, x, y, g_rand_int_range (rand, 0, max));
  g_rand_free (rand);
  return data;
}

guint8 *
clv_test_padded_copy (const guint8 * src, const ClvImage * im, gsize pad,
    gsize offset, ClvImage * padded)
{
  guint8 *data;

  *padded = *im;
  padded->stride = im->stride + pad;
  padded->offset = offset;
  data = g_malloc0 (offset + padded->stride * im->height);
  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++)
      clv_image_set (data, padded, x, y, clv_image_get (src, im, x, y));
  return data;
}

char *
clv_test_data_path (const char *name)
{
  const char *dir = g_getenv ("CLV_SOURCE_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

void
clv_test_read_buffer (ClvDevice * dev, cl_mem mem, guint8 * dst, gsize size)
{
  g_assert_cmpint (clEnqueueReadBuffer (dev->queue, mem, CL_TRUE, 0, size,
          dst, 0, NULL, NULL), ==, CL_SUCCESS);
}

void
clv_test_assert_images_equal (const guint8 * a, const guint8 * b,
    const ClvImage * im)
{
  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++) {
      guint va = clv_image_get (a, im, x, y), vb = clv_image_get (b, im, x, y);
      if (va != vb)
        g_error ("%dx%d image differs at (%d,%d): %u != %u", im->width,
            im->height, x, y, va, vb);
    }
}

guint
clv_test_assert_images_close (const guint8 * a, const guint8 * b,
    const ClvImage * im)
{
  guint off = 0;

  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++) {
      guint va = clv_image_get (a, im, x, y), vb = clv_image_get (b, im, x, y);
      if (va == vb)
        continue;
      if (va + 1 != vb && vb + 1 != va)
        g_error ("%dx%d image differs at (%d,%d): %u != %u", im->width,
            im->height, x, y, va, vb);
      off++;
    }
  if (off)
    g_test_message ("%u pixels differ by one level", off);
  g_assert_cmpuint (off * 1000, <=, (guint) (im->width * im->height));
  return off;
}

float *
clv_test_speckled_scene (int looks, int *w, int *h)
{
  GRand *rand = g_rand_new_with_seed (1981 + looks);
  float *f;

  *w = 300;
  *h = 200;
  f = g_new (float, (gsize) * w * *h);
  for (int y = 0; y < *h; y++)
    for (int x = 0; x < *w; x++) {
      double r = x < 150 ? (y < 100 ? 1 : 0.05) : (y < 100 ? 10 : 40);
      double g = 0;

      if (x >= 60 && x < 70 && y >= 40 && y < 50)
        r = 500;
      if (y == 150)
        r = 200;
      for (int k = 0; k < looks; k++)
        g -= log (1 - g_rand_double (rand));
      f[y * *w + x] = (float) (r * g / looks);
    }
  g_rand_free (rand);
  return f;
}

guint8 *
clv_test_random_samples (ClvImage * im, int width, int height,
    ClvSample sample, guint32 seed)
{
  const int bpp = clv_sample_size (sample);
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *data;

  *im = clv_image_make (width, height, bpp, clv_round_up ((gsize) width * bpp,
          4));
  data = g_malloc0 (im->stride * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      guint8 *p = data + (gsize) y * im->stride + (gsize) x * bpp;
      /* Exponential speckle over reflectivities from 1e-3 to 1e3. */
      const double v = -log (1 - g_rand_double (rand)) *
          pow (10, g_rand_double_range (rand, -3, 3));
      const gboolean zero = g_rand_int_range (rand, 0, 50) == 0;

      switch (sample) {
        case CLV_SAMPLE_U8:
          *p = zero ? 0 : (guint8) MIN (v * 20, 255);
          break;
        case CLV_SAMPLE_U16:
          *(guint16 *) p = zero ? 0 : (guint16) MIN (v * 200, 65535);
          break;
        case CLV_SAMPLE_F32:
          *(float *) p = zero ? 0 : (float) v;
          break;
        case CLV_SAMPLE_CI16:
          ((gint16 *) p)[0] = (gint16) g_rand_int_range (rand, -30000, 30000);
          ((gint16 *) p)[1] = (gint16) g_rand_int_range (rand, -30000, 30000);
          break;
        case CLV_SAMPLE_CF32:
          ((float *) p)[0] = (float) (v - 1);
          ((float *) p)[1] = (float) g_rand_double_range (rand, -5, 5);
          break;
      }
    }
  g_rand_free (rand);
  return data;
}

gboolean
clv_test_float_close (float got, float want, double rel, double abs)
{
  const double d = fabs ((double) got - want);

  return (isnan (got) && isnan (want)) || d <= abs || d <= rel * fabs (want);
}

void
clv_test_assert_floats_close (const guint8 * a, const guint8 * b,
    const ClvImage * im, double rel, double abs)
{
  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++) {
      const float va = *clv_image_f32 ((guint8 *) a, im, x, y);
      const float vb = *clv_image_f32 ((guint8 *) b, im, x, y);

      if (!clv_test_float_close (va, vb, rel, abs))
        g_error ("%dx%d image differs at (%d,%d): %.9g != %.9g", im->width,
            im->height, x, y, va, vb);
    }
}
