/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The multilook kernel equals the C reference bit for bit. */
#include "clv-sar.h"
#include "clv-test-util.h"

typedef struct
{
  int w, h, rl, al;
} Case;

/* Awkward sizes: 1x1, odd, not a multiple of any vector width, large. */
static const Case cases[] = {
  {1, 1, 1, 1}, {7, 5, 1, 1}, {7, 5, 2, 3}, {7, 5, 7, 5}, {7, 5, 3, 2},
  {33, 17, 4, 4}, {101, 77, 5, 3}, {130, 64, 16, 16}, {200, 150, 64, 64},
  {1023, 769, 4, 4}, {1023, 769, 2, 8}, {1023, 769, 16, 4},
  {1023, 769, 3, 7}, {1023, 769, 8, 8}, {517, 300, 6, 6}, {999, 333, 9, 1},
};

static void
check_case (ClvDevice * dev, const Case * c, int bpp, ClvMultilookDomain d)
{
  ClvImage si, di;
  guint8 *src = clv_test_random_image (&si, c->w, c->h, bpp,
      c->w * 31 + c->h + bpp);
  guint8 *ref, *out;
  int ow, oh;
  cl_mem in_mem, out_mem;
  GError *error = NULL;
  ClvMultilook *ml;

  clv_multilook_out_size (c->w, c->h, c->rl, c->al, &ow, &oh);
  di = clv_image_make (ow, oh, bpp, clv_round_up ((gsize) ow * bpp, 4));
  ref = g_malloc0 (di.stride * oh);
  out = g_malloc0 (di.stride * oh);
  clv_multilook_ref (src, &si, ref, &di, c->rl, c->al, d);

  ml = clv_multilook_new (dev, bpp, c->rl, c->al, d, NULL, ow, oh, &error);
  g_assert_no_error (error);
  in_mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, si.stride * c->h, &error);
  g_assert_no_error (error);
  out_mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, di.stride * oh, &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, in_mem, CL_TRUE, 0,
          si.stride * c->h, src, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clv_multilook_enqueue (ml, in_mem, &si, out_mem, &di, NULL,
          &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, out_mem, out, di.stride * oh);
  clv_test_assert_images_equal (ref, out, &di);

  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  clv_multilook_free (ml);
  g_free (src);
  g_free (ref);
  g_free (out);
}

static void
test_kernel_matches_reference (gconstpointer data)
{
  const int *params = data;     /* bpp, domain */
  ClvDevice *dev = clv_test_device ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (dev, &cases[i], params[0], params[1]);
  clv_device_unref (dev);
}

/* The GPU launch shapes (rows split across work-items, one output per
 * work-item) must give the same bytes; on a CPU they are not the defaults. */
static void
test_kernel_launch_shapes (void)
{
  static const char *tunes[] = { "SAR_ML_SPLIT=4,SAR_ML_WG=16",
    "SAR_ML_SPLIT=2,SAR_ML_OUT_X=1,SAR_ML_WG=8"
  };
  static const Case shape_cases[] = {
    {1023, 769, 4, 4}, {130, 64, 16, 16}, {101, 77, 5, 3}, {7, 5, 2, 3},
  };
  ClvDevice *dev = clv_test_device ();

  for (guint t = 0; t < G_N_ELEMENTS (tunes); t++) {
    g_setenv ("CLVISION_TUNE", tunes[t], TRUE);
    for (guint i = 0; i < G_N_ELEMENTS (shape_cases); i++) {
      check_case (dev, &shape_cases[i], 2, CLV_MULTILOOK_INTENSITY);
      check_case (dev, &shape_cases[i], 1, CLV_MULTILOOK_AMPLITUDE);
    }
  }
  g_unsetenv ("CLVISION_TUNE");
  clv_device_unref (dev);
}

/* Float32 (with and without a no-data value) and complex samples: the
 * device's Float32 output within one rounding of the C reference's (both
 * sum in double, in other orders). */
static void
check_float_case (ClvDevice * dev, const Case * c, ClvSample sample,
    ClvMultilookDomain d, const ClvNodata * nodata)
{
  ClvImage si, di;
  guint8 *src = clv_test_random_samples (&si, c->w, c->h, sample,
      c->w * 7 + c->h + sample);
  guint8 *ref, *out;
  int ow, oh;
  cl_mem in_mem, out_mem;
  GError *error = NULL;
  ClvMultilook *ml;

  clv_multilook_out_size (c->w, c->h, c->rl, c->al, &ow, &oh);
  di = clv_image_make (ow, oh, 4, (gsize) ow * 4);
  ref = g_malloc0 (di.stride * oh);
  out = g_malloc0 (di.stride * oh);
  clv_multilook_ref_float (src, &si, sample, ref, &di, c->rl, c->al, d,
      nodata);
  ml = clv_multilook_new (dev, sample, c->rl, c->al, d, nodata, ow, oh,
      &error);
  g_assert_no_error (error);
  in_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
      src, si.stride * c->h, &error);
  g_assert_no_error (error);
  out_mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, di.stride * oh, &error);
  g_assert_no_error (error);
  g_assert_true (clv_multilook_enqueue (ml, in_mem, &si, out_mem, &di, NULL,
          &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, out_mem, out, di.stride * oh);
  clv_test_assert_floats_close (out, ref, &di, 1.2e-7, 0);

  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  clv_multilook_free (ml);
  g_free (src);
  g_free (ref);
  g_free (out);
}

static void
test_float_kernel_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const ClvNodata zero = { 0 };
  static const Case float_cases[] = {
    {1, 1, 1, 1}, {7, 5, 2, 3}, {33, 17, 4, 4}, {130, 64, 16, 16},
    {1023, 769, 4, 4}, {517, 300, 6, 6},
  };

  for (guint i = 0; i < G_N_ELEMENTS (float_cases); i++)
    for (int d = CLV_MULTILOOK_INTENSITY; d <= CLV_MULTILOOK_AMPLITUDE; d++) {
      check_float_case (dev, &float_cases[i], CLV_SAMPLE_F32, d, NULL);
      check_float_case (dev, &float_cases[i], CLV_SAMPLE_F32, d, &zero);
      check_float_case (dev, &float_cases[i], CLV_SAMPLE_CI16, d, NULL);
      check_float_case (dev, &float_cases[i], CLV_SAMPLE_CF32, d, NULL);
    }
  clv_device_unref (dev);
}

/* Hand-computed blocks, including the rounding rules. */
static void
test_reference_known_values (void)
{
  /* 4x2 GRAY8, looks 2x2: blocks {1,2,3,4} and {10,20,30,41}. */
  guint8 src[8] = { 1, 2, 10, 20, 3, 4, 30, 41 };
  guint8 dst[4] = { 0 };
  ClvImage si = clv_image_make (4, 2, 1, 4), di = clv_image_make (2, 1, 1, 4);

  clv_multilook_ref (src, &si, dst, &di, 2, 2, CLV_MULTILOOK_INTENSITY);
  g_assert_cmpuint (dst[0], ==, 3);     /* 10/4 = 2.5 rounds up */
  g_assert_cmpuint (dst[1], ==, 25);    /* 101/4 = 25.25 */
  clv_multilook_ref (src, &si, dst, &di, 2, 2, CLV_MULTILOOK_AMPLITUDE);
  g_assert_cmpuint (dst[0], ==, 3);     /* sqrt(30/4) = 2.74 */
  g_assert_cmpuint (dst[1], ==, 28);    /* sqrt(3081/4) = 27.75 */
}

static void
test_amplitude_16bit_extremes (void)
{
  /* The largest sums must not overflow: 64x64 blocks of 65535. */
  ClvImage si = clv_image_make (64, 64, 2, 128), di = clv_image_make (1, 1, 2,
      4);
  guint16 *src = g_new (guint16, 64 * 64);
  guint16 dst[2] = { 0 };

  for (int i = 0; i < 64 * 64; i++)
    src[i] = 65535;
  clv_multilook_ref ((guint8 *) src, &si, (guint8 *) dst, &di, 64, 64,
      CLV_MULTILOOK_AMPLITUDE);
  g_assert_cmpuint (dst[0], ==, 65535);
  clv_multilook_ref ((guint8 *) src, &si, (guint8 *) dst, &di, 64, 64,
      CLV_MULTILOOK_INTENSITY);
  g_assert_cmpuint (dst[0], ==, 65535);
  g_free (src);
}

int
main (int argc, char **argv)
{
  static const int p8i[] = { 1, CLV_MULTILOOK_INTENSITY };
  static const int p8a[] = { 1, CLV_MULTILOOK_AMPLITUDE };
  static const int p16i[] = { 2, CLV_MULTILOOK_INTENSITY };
  static const int p16a[] = { 2, CLV_MULTILOOK_AMPLITUDE };

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/multilook/reference-known-values",
      test_reference_known_values);
  g_test_add_func ("/multilook/amplitude-16bit-extremes",
      test_amplitude_16bit_extremes);
  g_test_add_func ("/multilook/kernel/float",
      test_float_kernel_matches_reference);
  g_test_add_func ("/multilook/kernel/launch-shapes",
      test_kernel_launch_shapes);
  g_test_add_data_func ("/multilook/kernel/gray8-intensity", p8i,
      test_kernel_matches_reference);
  g_test_add_data_func ("/multilook/kernel/gray8-amplitude", p8a,
      test_kernel_matches_reference);
  g_test_add_data_func ("/multilook/kernel/gray16-intensity", p16i,
      test_kernel_matches_reference);
  g_test_add_data_func ("/multilook/kernel/gray16-amplitude", p16a,
      test_kernel_matches_reference);
  return g_test_run ();
}
