/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Quantization: known values, and the kernels equal the C reference bit for
 * bit. */
#include "clv-sar.h"
#include "clv-test-util.h"

#include <string.h>

static ClvDevice *dev;

static guint8 *
run_reference (const guint8 * src, const ClvImage * si, ClvImage * di,
    double coef)
{
  guint8 *out;

  *di = clv_image_make (si->width, si->height, 1,
      clv_round_up (si->width, 4));
  out = g_malloc0 (di->stride * di->height);
  clv_quantize_ref (src, si, out, di, coef);
  return out;
}

/* Runs `q` (or a default one) and asserts it equals the reference. */
static guint8 *
checked_kernel_output (ClvQuantize * q, const guint8 * src,
    const ClvImage * si, double coef)
{
  GError *error = NULL;
  ClvImage di;
  guint8 *ref = run_reference (src, si, &di, coef);
  guint8 *out = g_malloc0 (di.stride * di.height);
  const gsize in_size = si->offset + si->stride * si->height;
  ClvQuantize *own = NULL;
  cl_mem in_mem, out_mem;

  if (q == NULL)
    q = own = clv_quantize_new (dev, si->bpp, &error);
  g_assert_no_error (error);
  in_mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, in_size, &error);
  g_assert_no_error (error);
  out_mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, di.stride * di.height,
      &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, in_mem, CL_TRUE, 0,
          in_size, src, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clv_quantize_enqueue (q, in_mem, si, out_mem, &di, coef,
          NULL, &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, out_mem, out, di.stride * di.height);
  clv_test_assert_images_equal (ref, out, &di);

  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  clv_quantize_free (own);
  g_free (ref);
  return out;
}

/* A speckle-like image: random values around a level that varies by row
 * and column, so that the normalisation matters. */
static guint8 *
textured_image (ClvImage * im, int width, int height, int bpp, guint32 seed)
{
  guint8 *data = clv_test_random_image (im, width, height, bpp, seed);
  const guint max = bpp == 1 ? 255 : 65535;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const guint v = clv_image_get (data, im, x, y);
      clv_image_set (data, im, x, y, v * (1 + (x % 7) + (y % 5)) / 11 % max);
    }
  return data;
}

/* Sizes around the vector width, the tile and the band: 1x1, thin, odd. */
static const int sizes[][2] = {
  {1, 1}, {7, 5}, {17, 33}, {100, 3}, {3, 100}, {129, 65}, {257, 130},
  {1000, 37},
};

static void
test_kernel_matches_reference (gconstpointer data)
{
  const int bpp = GPOINTER_TO_INT (data);
  GError *error = NULL;
  ClvQuantize *q = clv_quantize_new (dev, bpp, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    ClvImage si;
    guint8 *src = textured_image (&si, sizes[i][0], sizes[i][1], bpp, i + 1);
    g_free (checked_kernel_output (q, src, &si, i % 2 ? 35 : 2.75));
    g_free (src);
  }
  clv_quantize_free (q);
}

/* The unfused passes and other tunings give the same bytes. */
static void
test_variants (void)
{
  static const char *tunings[] = {
    "SAR_Q_VARIANT=naive",
    "SAR_Q_VEC=1,SAR_Q_K=3,SAR_Q_WG=4,SAR_Q_BAND=5",
    "SAR_Q_ATOMIC=1",
    "SAR_Q_ATOMIC=1,SAR_Q_VEC=2,SAR_Q_K=3,SAR_Q_WG=6,SAR_Q_BAND=5",
    /* Row sums in segments (the last one short), several work-items per
     * line in pass 2, more group sums than pass 3's work-group size. */
    "SAR_Q_WG=16,SAR_Q_BAND=5,SAR_Q_FS=4,SAR_Q_APPLY_WG=24",
    "SAR_Q_ATOMIC=1,SAR_Q_K=2,SAR_Q_WG=16,SAR_Q_BAND=5",
  };

  for (guint t = 0; t < G_N_ELEMENTS (tunings); t++) {
    GError *error = NULL;
    ClvQuantize *q;

    g_setenv ("CLVISION_TUNE", tunings[t], TRUE);
    q = clv_quantize_new (dev, 2, &error);
    g_unsetenv ("CLVISION_TUNE");
    g_assert_no_error (error);
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i += 3) {
      ClvImage si;
      guint8 *src = textured_image (&si, sizes[i][0], sizes[i][1], 2, i + 9);
      g_free (checked_kernel_output (q, src, &si, 35));
      g_free (src);
    }
    clv_quantize_free (q);
  }
}

/* SAR_Q_ATOMIC=1: pass 1's last work-group leaves the totals zero for
 * the next frame of the same size (frames of other sizes get new ones), and
 * a frame wider than a uint total allows goes through the three passes. */
static void
test_atomic_finish_frame_after_frame (void)
{
  GError *error = NULL;
  ClvQuantize *q;
  ClvImage si;
  guint8 *src;

  g_setenv ("CLVISION_TUNE", "SAR_Q_ATOMIC=1", TRUE);
  q = clv_quantize_new (dev, 2, &error);
  g_unsetenv ("CLVISION_TUNE");
  g_assert_no_error (error);
  for (guint32 seed = 1; seed <= 3; seed++) {
    src = textured_image (&si, 300, 200, 2, seed);
    g_free (checked_kernel_output (q, src, &si, 35));
    g_free (src);
  }
  /* 65538 pixels of 65535 per row: more than a uint row total holds. */
  si = clv_image_make (65538, 2, 2, 65538 * 2);
  src = g_malloc (si.stride * si.height);
  for (int y = 0; y < si.height; y++)
    for (int x = 0; x < si.width; x++)
      clv_image_set (src, &si, x, y, x ? 65535 : 65534 + y);
  g_free (checked_kernel_output (q, src, &si, 35));
  g_free (src);
  clv_quantize_free (q);
}

static void
test_bad_tuning (void)
{
  GError *error = NULL;

  g_setenv ("CLVISION_TUNE", "SAR_Q_VARIANT=fast", TRUE);
  g_assert_null (clv_quantize_new (dev, 1, &error));
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_clear_error (&error);
  g_setenv ("CLVISION_TUNE", "SAR_Q_VEC=3", TRUE);
  g_assert_null (clv_quantize_new (dev, 1, &error));
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_clear_error (&error);
  g_unsetenv ("CLVISION_TUNE");
}

/* A source with an offset and padded rows. */
static void
test_offset_and_stride (void)
{
  ClvImage packed, padded;
  guint8 *src = textured_image (&packed, 45, 23, 2, 77), *big, *a, *b;
  ClvImage di;

  big = clv_test_padded_copy (src, &packed, 14, 10, &padded);
  a = checked_kernel_output (NULL, src, &packed, 35);
  b = checked_kernel_output (NULL, big, &padded, 35);
  di = clv_image_make (45, 23, 1, clv_round_up (45, 4));
  clv_test_assert_images_equal (a, b, &di);
  g_free (a);
  g_free (b);
  g_free (big);
  g_free (src);
}

/* A constant image maps every pixel to coef (clamped to 255). */
static void
test_constant (gconstpointer data)
{
  const int bpp = GPOINTER_TO_INT (data);
  static const double coefs[] = { 35, 1, 254.6, 300 };
  static const guint want[] = { 35, 1, 255, 255 };
  ClvImage si = clv_image_make (50, 31, bpp, clv_round_up (50 * bpp, 4)), di;
  guint8 *src = g_malloc0 (si.stride * si.height);

  for (int y = 0; y < si.height; y++)
    for (int x = 0; x < si.width; x++)
      clv_image_set (src, &si, x, y, bpp == 1 ? 201 : 40000);
  for (guint c = 0; c < G_N_ELEMENTS (coefs); c++) {
    guint8 *out = checked_kernel_output (NULL, src, &si, coefs[c]);
    di = clv_image_make (50, 31, 1, clv_round_up (50, 4));
    for (int y = 0; y < di.height; y++)
      for (int x = 0; x < di.width; x++)
        g_assert_cmpuint (clv_image_get (out, &di, x, y), ==, want[c]);
    g_free (out);
  }
  g_free (src);
}

/* A zero row and a zero column (and an all-zero image) give 0 there and
 * finite values elsewhere: no NaN reaches the rounding. */
static void
test_zero_lines (void)
{
  ClvImage si, di;
  guint8 *src = textured_image (&si, 40, 30, 2, 5), *out;
  guint8 *zero = g_malloc0 (si.stride * si.height);

  for (int x = 0; x < 40; x++)
    clv_image_set (src, &si, x, 7, 0);
  for (int y = 0; y < 30; y++)
    clv_image_set (src, &si, 13, y, 0);
  out = checked_kernel_output (NULL, src, &si, 35);
  di = clv_image_make (40, 30, 1, clv_round_up (40, 4));
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 40; x++)
      if (x == 13 || y == 7)
        g_assert_cmpuint (clv_image_get (out, &di, x, y), ==, 0);
  g_free (out);

  out = checked_kernel_output (NULL, zero, &si, 35);
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 40; x++)
      g_assert_cmpuint (clv_image_get (out, &di, x, y), ==, 0);
  g_free (out);
  g_free (zero);
  g_free (src);
}

/* I(x, y) = x + y on 3x2: row sums 3, 6; column sums 1, 3, 5; total 9.
 * With coef 10, F = I * 90 / (R * C):
 *   0*90/3    1*90/9   2*90/15     =   0 10 12
 *   1*90/6    2*90/18  3*90/30         15 10  9
 * and at GRAY16 with I scaled by 1000 the same (F is scale-free). */
static void
test_gradient (void)
{
  static const guint8 want[2][3] = { {0, 10, 12}, {15, 10, 9} };

  for (int bpp = 1; bpp <= 2; bpp++) {
    ClvImage si = clv_image_make (3, 2, bpp, 8), di;
    guint8 src[16] = { 0 }, *out;
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 3; x++)
        clv_image_set (src, &si, x, y, (x + y) * (bpp == 1 ? 1 : 1000));
    out = checked_kernel_output (NULL, src, &si, 10);
    di = clv_image_make (3, 2, 1, 4);
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 3; x++)
        g_assert_cmpuint (clv_image_get (out, &di, x, y), ==, want[y][x]);
    g_free (out);
  }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("CLVISION_TUNE");
  dev = clv_test_device ();
  g_test_add_func ("/quantize/gradient", test_gradient);
  g_test_add_data_func ("/quantize/constant/gray8", GINT_TO_POINTER (1),
      test_constant);
  g_test_add_data_func ("/quantize/constant/gray16", GINT_TO_POINTER (2),
      test_constant);
  g_test_add_func ("/quantize/zero-lines", test_zero_lines);
  g_test_add_data_func ("/quantize/kernel/gray8", GINT_TO_POINTER (1),
      test_kernel_matches_reference);
  g_test_add_data_func ("/quantize/kernel/gray16", GINT_TO_POINTER (2),
      test_kernel_matches_reference);
  g_test_add_func ("/quantize/offset-and-stride", test_offset_and_stride);
  g_test_add_func ("/quantize/variants", test_variants);
  g_test_add_func ("/quantize/atomic-finish-frame-after-frame",
      test_atomic_finish_frame_after_frame);
  g_test_add_func ("/quantize/bad-tuning", test_bad_tuning);
  ret = g_test_run ();
  clv_device_unref (dev);
  return ret;
}
