/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sarquantize: caps, pixels against the C reference, coef, metas. */
#include "sar-check-util.h"

#include "clv-sar.h"
#include "clv-test-util.h"

static void
assert_matches_reference (const guint8 * src, const ClvImage * si,
    const guint8 * out, const ClvImage * oi, double coef)
{
  guint8 *ref = g_malloc0 (oi->stride * oi->height);

  clv_quantize_ref (src, si, ref, oi, coef);
  clv_test_assert_images_equal (out, ref, oi);
  g_free (ref);
}

/* GRAY8 and GRAY16_LE in, GRAY8 of the same size out, the reference's
 * bytes. */
GST_START_TEST (test_formats_and_pixels)
{
  static const gchar *formats[] = { "GRAY8", "GRAY16_LE" };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *h = gst_harness_new ("sarquantize");
    ClvImage si, oi;
    guint8 *src = clv_test_random_image (&si, 45, 27,
        sar_check_bpp (formats[f]), 10 + f), *out;

    sar_check_set_caps (h, formats[f], 45, 27);
    out = sar_check_push_image (h, src, &si, &oi, NULL);
    fail_unless_equals_int (oi.width, 45);
    fail_unless_equals_int (oi.height, 27);
    fail_unless_equals_int (oi.bpp, 1);
    assert_matches_reference (src, &si, out, &oi, 35);
    g_free (out);
    g_free (src);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Upstream of GRAY8 output, both input formats are offered; GRAY16 is not
 * an output. */
GST_START_TEST (test_caps_query)
{
  GstHarness *h = gst_harness_new ("sarquantize");
  GstCaps *caps, *gray16;

  gst_harness_set_sink_caps_str (h, "video/x-raw, format=GRAY8, width=64, "
      "height=48, framerate=0/1");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  gray16 = gst_caps_from_string ("video/x-raw, format=GRAY16_LE, width=64, "
      "height=48, framerate=0/1");
  fail_unless (gst_caps_can_intersect (caps, gray16));
  gst_caps_unref (caps);

  caps = gst_pad_query_caps (GST_BASE_TRANSFORM_SRC_PAD (h->element), NULL);
  fail_if (gst_caps_can_intersect (caps, gray16));
  gst_caps_unref (caps);
  gst_caps_unref (gray16);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flat image maps to coef; a new coef applies to the next frame. */
GST_START_TEST (test_constant_and_coef)
{
  GstHarness *h = gst_harness_new ("sarquantize");
  ClvImage si = clv_image_make (20, 9, 2, 40), oi;
  guint8 *src = g_malloc (si.stride * si.height), *out;

  for (int y = 0; y < 9; y++)
    for (int x = 0; x < 20; x++)
      clv_image_set (src, &si, x, y, 1234);
  sar_check_set_caps (h, "GRAY16_LE", 20, 9);
  for (int round = 0; round < 2; round++) {
    const guint want = round ? 100 : 35;
    if (round)
      g_object_set (h->element, "coef", 100.0, NULL);
    out = sar_check_push_image (h, src, &si, &oi, NULL);
    for (int y = 0; y < 9; y++)
      for (int x = 0; x < 20; x++)
        fail_unless_equals_int (clv_image_get (out, &oi, x, y), want);
    g_free (out);
  }
  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ROI metas pass unchanged (same geometry). */
GST_START_TEST (test_roi_passes)
{
  GstHarness *h = gst_harness_new ("sarquantize");
  ClvImage si;
  guint8 *src = clv_test_random_image (&si, 16, 16, 1, 3);
  GstBuffer *in = sar_check_buffer_new (src, &si), *out;
  GstVideoRegionOfInterestMeta *roi;

  sar_check_set_caps (h, "GRAY8", 16, 16);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 3, 4, 5, 6);
  out = gst_harness_push_and_pull (h, in);
  roi = (GstVideoRegionOfInterestMeta *) gst_buffer_get_meta (out,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  fail_unless (roi != NULL);
  fail_unless (roi->x == 3 && roi->y == 4 && roi->w == 5 && roi->h == 6);
  gst_buffer_unref (out);
  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
sarquantize_suite (void)
{
  Suite *s = suite_create ("sarquantize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_and_pixels);
  tcase_add_test (tc, test_caps_query);
  tcase_add_test (tc, test_constant_and_coef);
  tcase_add_test (tc, test_roi_passes);
  return s;
}

GST_CHECK_MAIN (sarquantize);
