/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sarmultilook through GstHarness: caps, pixels, metas and errors. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "clv-sar.h"
#include "clv-test-util.h"
#include "sar-check-util.h"

static GstBuffer *
random_frame (GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (info));
  GstMapInfo map;
  GRand *rand = g_rand_new_with_seed (seed);
  const int bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  ClvImage im = clv_image_make (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), bpp, GST_VIDEO_INFO_PLANE_STRIDE (info,
          0));

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, 0, map.size);
  for (int y = 0; y < im.height; y++)
    for (int x = 0; x < im.width; x++)
      clv_image_set (map.data, &im, x, y, g_rand_int_range (rand, 0,
              bpp == 1 ? 256 : 65536));
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

static GstHarness *
harness_new (const gchar * launch, const gchar * format, int width,
    int height)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=10/1", format, width, height);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* Pushes one random frame and checks the output caps and pixels against
 * the C reference. */
static void
check_frame (GstHarness * h, const gchar * format, int w, int h_, int rl,
    int al, ClvMultilookDomain domain, guint32 seed)
{
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out;
  GstCaps *caps;
  GstMapInfo in_map, out_map;
  ClvImage si, di;
  guint8 *ref;
  int ow, oh;

  gst_video_info_set_format (&in_info, gst_video_format_from_string (format),
      w, h_);
  in = random_frame (&in_info, seed);
  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);

  clv_multilook_out_size (w, h_, rl, al, &ow, &oh);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), ow);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), oh);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&out_info),
      GST_VIDEO_INFO_FORMAT (&in_info));
  gst_caps_unref (caps);

  si = clv_image_make (w, h_, GST_VIDEO_INFO_COMP_PSTRIDE (&in_info, 0),
      GST_VIDEO_INFO_PLANE_STRIDE (&in_info, 0));
  di = clv_image_make (ow, oh, si.bpp, GST_VIDEO_INFO_PLANE_STRIDE (&out_info,
          0));
  ref = g_malloc0 (di.stride * oh);
  gst_buffer_map (in, &in_map, GST_MAP_READ);
  gst_buffer_map (out, &out_map, GST_MAP_READ);
  fail_unless (out_map.size >= di.stride * (oh - 1) + (gsize) ow * si.bpp);
  clv_multilook_ref (in_map.data, &si, ref, &di, rl, al, domain);
  clv_test_assert_images_equal (ref, out_map.data, &di);
  gst_buffer_unmap (out, &out_map);
  gst_buffer_unmap (in, &in_map);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (ref);
}

GST_START_TEST (test_output_caps_and_pixels_gray16)
{
  GstHarness *h = harness_new ("sarmultilook looks=4", "GRAY16_LE", 1023,
      769);

  check_frame (h, "GRAY16_LE", 1023, 769, 4, 4, CLV_MULTILOOK_INTENSITY, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames from pageable memory staged through pinned memory by several
 * threads (upload=staged; by default only on GPUs): a 4 MiB frame in
 * three chunks, the last one short, through each of the two stages in turn
 * and the first one again. */
GST_START_TEST (test_staged_upload)
{
  GstHarness *h;

  h = harness_new ("sarmultilook looks=3 upload=staged", "GRAY16_LE", 1501,
      1403);
  for (guint32 seed = 5; seed < 8; seed++)
    check_frame (h, "GRAY16_LE", 1501, 1403, 3, 3, CLV_MULTILOOK_INTENSITY,
        seed);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_odd_sizes_gray8_amplitude)
{
  GstHarness *h = harness_new ("sarmultilook range-looks=3 azimuth-looks=2 "
      "input-domain=amplitude", "GRAY8", 7, 5);

  check_frame (h, "GRAY8", 7, 5, 3, 2, CLV_MULTILOOK_AMPLITUDE, 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation_mid_stream)
{
  GstHarness *h = harness_new ("sarmultilook range-looks=2 azimuth-looks=5",
      "GRAY8", 101, 77);

  check_frame (h, "GRAY8", 101, 77, 2, 5, CLV_MULTILOOK_INTENSITY, 3);
  /* New size and format: the output follows. */
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY16_LE,width=64,height=48,framerate=10/1");
  check_frame (h, "GRAY16_LE", 64, 48, 2, 5, CLV_MULTILOOK_INTENSITY, 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* One look in a direction is a valid choice (the caps of that side are a
 * single size, not a range). */
GST_START_TEST (test_one_look)
{
  GstHarness *h = harness_new ("sarmultilook range-looks=1 azimuth-looks=3",
      "GRAY8", 50, 40);

  check_frame (h, "GRAY8", 50, 40, 1, 3, CLV_MULTILOOK_INTENSITY, 7);
  gst_harness_teardown (h);
  h = harness_new ("sarmultilook looks=1", "GRAY16_LE", 9, 4);
  check_frame (h, "GRAY16_LE", 9, 4, 1, 1, CLV_MULTILOOK_INTENSITY, 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New looks that keep the output size change no caps, and still apply. */
GST_START_TEST (test_looks_change_same_size)
{
  GstHarness *h = harness_new ("sarmultilook range-looks=34 azimuth-looks=1",
      "GRAY8", 100, 10);
  GstElement *ml = gst_harness_find_element (h, "sarmultilook");

  check_frame (h, "GRAY8", 100, 10, 34, 1, CLV_MULTILOOK_INTENSITY, 9);
  g_object_set (ml, "range-looks", 49, NULL);
  gst_object_unref (ml);
  check_frame (h, "GRAY8", 100, 10, 49, 1, CLV_MULTILOOK_INTENSITY, 10);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_transform_caps_both_ways)
{
  GstElement *ml = gst_element_factory_make ("sarmultilook", NULL);
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (ml);
  GstCaps *filter, *caps;
  GstStructure *s;
  gint v;

  g_object_set (ml, "range-looks", 4, "azimuth-looks", 2, NULL);
  /* Downstream 10x10 output needs 40..43 x 20..21 input. */
  filter = gst_caps_from_string ("video/x-raw,format=GRAY8,width=10,"
      "height=10");
  {
    caps = klass->transform_caps (GST_BASE_TRANSFORM (ml), GST_PAD_SRC, filter,
        NULL);
    s = gst_caps_get_structure (caps, 0);
    fail_unless_equals_int (gst_value_get_int_range_min
        (gst_structure_get_value (s, "width")), 40);
    fail_unless_equals_int (gst_value_get_int_range_max
        (gst_structure_get_value (s, "width")), 43);
    fail_unless_equals_int (gst_value_get_int_range_min
        (gst_structure_get_value (s, "height")), 20);
    fail_unless_equals_int (gst_value_get_int_range_max
        (gst_structure_get_value (s, "height")), 21);
    gst_caps_unref (caps);

    caps = klass->transform_caps (GST_BASE_TRANSFORM (ml), GST_PAD_SINK,
        filter, NULL);
    s = gst_caps_get_structure (caps, 0);
    fail_unless (gst_structure_get_int (s, "width", &v));
    fail_unless_equals_int (v, 2);
    fail_unless (gst_structure_get_int (s, "height", &v));
    fail_unless_equals_int (v, 5);
    gst_caps_unref (caps);
  }
  gst_caps_unref (filter);
  gst_object_unref (ml);
}

GST_END_TEST;

GST_START_TEST (test_roi_metas_scaled)
{
  GstHarness *h = harness_new ("sarmultilook looks=4", "GRAY8", 42, 40);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *det;
  gdouble d;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 42, 40);
  in = random_frame (&info, 5);
  sar_check_add_face (in, 8, 4, 16, 12, 7);  /* block aligned: 2,1 4x3 */
  sar_check_add_face (in, 5, 5, 6, 6, 8);    /* 1.25..2.75 -> 1..3 */
  sar_check_add_face (in, 40, 0, 2, 8, 9);   /* in the dropped columns */
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);

  fail_unless_equals_int (gst_buffer_get_n_meta (out,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 2);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 7);
  fail_unless (roi != NULL);
  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "face");
  fail_unless_equals_int (roi->x, 2);
  fail_unless_equals_int (roi->y, 1);
  fail_unless_equals_int (roi->w, 4);
  fail_unless_equals_int (roi->h, 3);
  det = gst_video_region_of_interest_meta_get_param (roi, "detection");
  fail_unless (det != NULL);
  fail_unless_equals_string (gst_structure_get_string (det, "label"), "face");
  fail_unless (gst_structure_get_double (det, "x_min", &d));
  fail_unless_equals_float (d, 2.0 / 10);
  fail_unless (gst_structure_get_double (det, "y_max", &d));
  fail_unless_equals_float (d, 4.0 / 10);

  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 8);
  fail_unless (roi != NULL);
  fail_unless_equals_int (roi->x, 1);
  fail_unless_equals_int (roi->w, 2);
  fail_unless_equals_int (roi->y, 1);
  fail_unless_equals_int (roi->h, 2);
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          9) == NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_looks_larger_than_frame)
{
  GstHarness *h = gst_harness_new_parse ("sarmultilook looks=8");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstMessage *msg;
  GError *error = NULL;

  /* The caps are refused once, with one error, when they are set. */
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=7,"
      "height=5,framerate=10/1");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 7, 5);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info, 6)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION));
  fail_unless (strstr (error->message, "7x5 frame is smaller than one 8x8")
      != NULL, "message: %s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
value_refused (GObject * obj, const gchar * prop, const GValue * value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      prop);
  GValue v = G_VALUE_INIT;
  gboolean refused;

  fail_unless (pspec != NULL);
  g_value_init (&v, pspec->value_type);
  fail_unless (g_value_transform (value, &v));
  refused = g_param_value_validate (pspec, &v);
  g_value_unset (&v);
  return refused;
}

GST_START_TEST (test_invalid_property_values_refused)
{
  GstElement *ml = gst_element_factory_make ("sarmultilook", NULL);
  GValue v = G_VALUE_INIT;
  gint looks;

  g_value_init (&v, G_TYPE_INT);
  for (int bad = -1; bad <= 65; bad += 66) {
    g_value_set_int (&v, bad == -1 ? 0 : bad);
    fail_unless (value_refused (G_OBJECT (ml), "looks", &v));
    fail_unless (value_refused (G_OBJECT (ml), "range-looks", &v));
    fail_unless (value_refused (G_OBJECT (ml), "azimuth-looks", &v));
  }
  g_value_set_int (&v, 64);
  fail_if (value_refused (G_OBJECT (ml), "looks", &v));
  g_value_unset (&v);

  /* Strings that name no domain are refused by the enum. */
  {
    GValue d = G_VALUE_INIT;
    g_value_init (&d, G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property (G_OBJECT_GET_CLASS (ml), "input-domain")));
    fail_if (gst_value_deserialize (&d, "power"));
    fail_unless (gst_value_deserialize (&d, "amplitude"));
    g_value_unset (&d);
  }
  g_object_get (ml, "range-looks", &looks, NULL);
  fail_unless_equals_int (looks, 4);
  gst_util_set_object_arg (G_OBJECT (ml), "input-domain", "amplitude");
  {
    gint domain;
    g_object_get (ml, "input-domain", &domain, NULL);
    fail_unless_equals_int (domain, CLV_MULTILOOK_AMPLITUDE);
  }
  g_object_set (ml, "looks", 3, NULL);
  g_object_get (ml, "azimuth-looks", &looks, NULL);
  fail_unless_equals_int (looks, 3);
  gst_object_unref (ml);
}

GST_END_TEST;

static Suite *
sarmultilook_suite (void)
{
  Suite *s = suite_create ("sarmultilook");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_output_caps_and_pixels_gray16);
  tcase_add_test (tc, test_staged_upload);
  tcase_add_test (tc, test_odd_sizes_gray8_amplitude);
  tcase_add_test (tc, test_renegotiation_mid_stream);
  tcase_add_test (tc, test_one_look);
  tcase_add_test (tc, test_looks_change_same_size);
  tcase_add_test (tc, test_transform_caps_both_ways);
  tcase_add_test (tc, test_roi_metas_scaled);
  tcase_add_test (tc, test_looks_larger_than_frame);
  tcase_add_test (tc, test_invalid_property_values_refused);
  return s;
}

GST_CHECK_MAIN (sarmultilook);
