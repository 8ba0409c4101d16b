/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sarrotscale: caps, pixels against the C reference, ROI metas. */
#include "sar-check-util.h"

#include "clv-sar.h"
#include "clv-test-util.h"

/* The element's output for `src` equals the reference's (within the
 * one-level tolerance that test-rotscale.c explains). */
static void
assert_matches_reference (const guint8 * src, const ClvImage * si,
    const guint8 * out, const ClvImage * oi, double angle, double scale,
    ClvInterpolation interp, guint background)
{
  ClvRotscaleGeometry g;
  guint8 *ref = g_malloc0 (oi->stride * oi->height);

  clv_rotscale_geometry_init (&g, angle, scale, si->width, si->height,
      oi->width, oi->height);
  clv_rotscale_ref (src, si, ref, oi, &g, interp, background);
  clv_test_assert_images_close (out, ref, oi);
  g_free (ref);
}

GST_START_TEST (test_defaults_are_identity)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  ClvImage si, oi;
  guint8 *src = clv_test_random_image (&si, 31, 19, 2, 1), *out;

  sar_check_set_caps (h, "GRAY16_LE", 31, 19);
  out = sar_check_push_image (h, src, &si, &oi, NULL);
  fail_unless_equals_int (oi.width, 31);
  fail_unless_equals_int (oi.height, 19);
  fail_unless_equals_int (oi.bpp, 2);
  clv_test_assert_images_equal (src, out, &si);
  g_free (out);
  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_output_size_and_format)
{
  static const gchar *formats[] = { "GRAY8", "GRAY16_LE" };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *h = gst_harness_new ("sarrotscale");
    const int bpp = sar_check_bpp (formats[f]);
    ClvImage si, oi;
    guint8 *src = clv_test_random_image (&si, 33, 21, bpp, 2), *out;

    g_object_set (h->element, "width", 40, "height", 17, "angle", 30.0,
        "scale", 1.5, NULL);
    sar_check_set_caps (h, formats[f], 33, 21);
    out = sar_check_push_image (h, src, &si, &oi, NULL);
    fail_unless_equals_int (oi.width, 40);
    fail_unless_equals_int (oi.height, 17);
    fail_unless_equals_int (oi.bpp, bpp);
    assert_matches_reference (src, &si, out, &oi, 30, 1.5,
        CLV_INTERP_BILINEAR, 0);
    g_free (out);
    g_free (src);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Only width set: height follows the input. */
GST_START_TEST (test_one_dimension_set)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  ClvImage si, oi;
  guint8 *src = clv_test_random_image (&si, 20, 10, 1, 3), *out;

  g_object_set (h->element, "width", 7, NULL);
  sar_check_set_caps (h, "GRAY8", 20, 10);
  out = sar_check_push_image (h, src, &si, &oi, NULL);
  fail_unless_equals_int (oi.width, 7);
  fail_unless_equals_int (oi.height, 10);
  g_free (out);
  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream, downstream's size with the size properties set accepts any
 * input size; with them unset, only its own. */
GST_START_TEST (test_caps_query_upstream)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  GstCaps *caps, *other_size;

  gst_harness_set_sink_caps_str (h, "video/x-raw, format=GRAY8, width=64, "
      "height=48, framerate=0/1");
  other_size = gst_caps_from_string ("video/x-raw, format=GRAY8, "
      "width=100, height=3, framerate=0/1");
  g_object_set (h->element, "width", 64, "height", 48, NULL);
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  fail_unless (gst_caps_can_intersect (caps, other_size));
  gst_caps_unref (caps);

  g_object_set (h->element, "width", 0, "height", 0, NULL);
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  fail_if (gst_caps_can_intersect (caps, other_size));
  gst_caps_unref (caps);
  gst_caps_unref (other_size);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New properties while playing: a new size renegotiates, a new angle,
 * interpolation and background apply to the next frame. */
GST_START_TEST (test_renegotiation_and_live_properties)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  ClvImage si, si2, oi;
  guint8 *src = clv_test_random_image (&si, 24, 16, 1, 4), *out;
  guint8 *src2 = clv_test_random_image (&si2, 13, 29, 1, 5);

  sar_check_set_caps (h, "GRAY8", 24, 16);
  out = sar_check_push_image (h, src, &si, &oi, NULL);
  fail_unless_equals_int (oi.width, 24);
  g_free (out);

  g_object_set (h->element, "width", 30, "height", 12, "angle", -75.0,
      "interpolation", CLV_INTERP_NEAREST, "background", 99, NULL);
  out = sar_check_push_image (h, src, &si, &oi, NULL);
  fail_unless_equals_int (oi.width, 30);
  fail_unless_equals_int (oi.height, 12);
  assert_matches_reference (src, &si, out, &oi, -75, 1, CLV_INTERP_NEAREST,
      99);
  g_free (out);

  /* New input caps: the fixed output size stays. */
  sar_check_set_caps (h, "GRAY8", 13, 29);
  out = sar_check_push_image (h, src2, &si2, &oi, NULL);
  fail_unless_equals_int (oi.width, 30);
  fail_unless_equals_int (oi.height, 12);
  assert_matches_reference (src2, &si2, out, &oi, -75, 1,
      CLV_INTERP_NEAREST, 99);
  g_free (out);

  g_object_set (h->element, "width", 0, "height", 0, NULL);
  out = sar_check_push_image (h, src2, &si2, &oi, NULL);
  fail_unless_equals_int (oi.width, 13);
  fail_unless_equals_int (oi.height, 29);
  g_free (out);
  g_free (src);
  g_free (src2);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_quarter_turn_pixels)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  ClvImage si, oi;
  guint8 *src = clv_test_random_image (&si, 12, 7, 2, 6), *out;

  /* 90 degrees counter-clockwise into the transposed size: the top-right
   * pixel ends up top-left. */
  g_object_set (h->element, "angle", 90.0, "width", 7, "height", 12, NULL);
  sar_check_set_caps (h, "GRAY16_LE", 12, 7);
  out = sar_check_push_image (h, src, &si, &oi, NULL);
  for (int y = 0; y < 12; y++)
    for (int x = 0; x < 7; x++)
      fail_unless_equals_int (clv_image_get (out, &oi, x, y),
          clv_image_get (src, &si, 11 - y, x));
  g_free (out);
  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstVideoRegionOfInterestMeta *
find_roi (GstBuffer * buf, gint id)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (((GstVideoRegionOfInterestMeta *) meta)->id == id)
      return (GstVideoRegionOfInterestMeta *) meta;
  return NULL;
}

static void
assert_roi (GstBuffer * buf, gint id, guint x, guint y, guint w, guint h)
{
  GstVideoRegionOfInterestMeta *roi = find_roi (buf, id);
  GstStructure *s;
  gdouble x_max;

  fail_unless (roi != NULL, "ROI %d missing", id);
  fail_unless (roi->x == x && roi->y == y && roi->w == w && roi->h == h,
      "ROI %d is %u,%u %ux%u, want %u,%u %ux%u", id, roi->x, roi->y, roi->w,
      roi->h, x, y, w, h);
  fail_unless_equals_int (roi->roi_type, g_quark_from_string ("face"));
  s = gst_video_region_of_interest_meta_get_param (roi, "detection");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_double (s, "x_max", &x_max));
  fail_unless_equals_float (x_max, (x + w) / 40.0);
}

/* ROIs on a 40x40 frame go through the forward map: a quarter turn moves
 * a box exactly; 45 degrees gives the bounding box of the turned corners;
 * zooming in clips boxes at the edge and drops those pushed outside. */
GST_START_TEST (test_roi_metas)
{
  GstHarness *h = gst_harness_new ("sarrotscale");
  ClvImage si;
  guint8 *src = clv_test_random_image (&si, 40, 40, 1, 7);
  GstBuffer *in, *out;

  sar_check_set_caps (h, "GRAY8", 40, 40);

  /* 90 degrees: (x, y) -> (y, 40 - x). */
  g_object_set (h->element, "angle", 90.0, NULL);
  in = sar_check_buffer_new (src, &si);
  sar_check_add_face (in, 0, 0, 10, 5, 1);
  sar_check_add_face (in, 22, 8, 6, 30, 2);
  out = gst_harness_push_and_pull (h, in);
  assert_roi (out, 1, 0, 30, 5, 10);
  assert_roi (out, 2, 8, 12, 30, 6);
  gst_buffer_unref (out);

  /* 45 degrees about the centre: a centred 10x10 box spans +-5 sqrt 2. */
  g_object_set (h->element, "angle", 45.0, NULL);
  in = sar_check_buffer_new (src, &si);
  sar_check_add_face (in, 15, 15, 10, 10, 3);
  out = gst_harness_push_and_pull (h, in);
  assert_roi (out, 3, 12, 12, 16, 16);
  gst_buffer_unref (out);

  /* Scale 2: x -> 2x - 20. */
  g_object_set (h->element, "angle", 0.0, "scale", 2.0, NULL);
  in = sar_check_buffer_new (src, &si);
  sar_check_add_face (in, 0, 0, 5, 5, 4);  /* -20..-10: outside, dropped */
  sar_check_add_face (in, 0, 0, 15, 15, 5);  /* -20..10: clipped to 0..10 */
  sar_check_add_face (in, 18, 19, 4, 2, 6);  /* 16..24 x 18..22 */
  out = gst_harness_push_and_pull (h, in);
  fail_unless (find_roi (out, 4) == NULL);
  assert_roi (out, 5, 0, 0, 10, 10);
  assert_roi (out, 6, 16, 18, 8, 4);
  gst_buffer_unref (out);

  g_free (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
sarrotscale_suite (void)
{
  Suite *s = suite_create ("sarrotscale");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_defaults_are_identity);
  tcase_add_test (tc, test_output_size_and_format);
  tcase_add_test (tc, test_one_dimension_set);
  tcase_add_test (tc, test_caps_query_upstream);
  tcase_add_test (tc, test_renegotiation_and_live_properties);
  tcase_add_test (tc, test_quarter_turn_pixels);
  tcase_add_test (tc, test_roi_metas);
  return s;
}

GST_CHECK_MAIN (sarrotscale);
