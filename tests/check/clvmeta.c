/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgstclvision-1.0's typed ROI results (gstclvmeta.h): what applications
 * read, and what the analysers write. */
#include <gst/check/gstcheck.h>
#include <gst/clvision/clvision.h>

static GstVideoRegionOfInterestMeta *
new_roi (GstBuffer ** buf)
{
  *buf = gst_buffer_new ();
  return gst_buffer_add_video_region_of_interest_meta (*buf, "face", 10, 20,
      30, 40);
}

GST_START_TEST (test_detection_round_trip)
{
  GstBuffer *buf;
  GstVideoRegionOfInterestMeta *roi = new_roi (&buf);
  const GstClvDetection in = {.label = "face",.label_id = 0,
    .confidence = 0.75,.neighbors = 15,.x_min = 0.1,.y_min = 0.2,
    .x_max = 0.4,.y_max = 0.6
  };
  GstClvDetection out;
  GstStructure *s;
  gint n;

  fail_if (gst_clv_roi_meta_get_detection (roi, &out));
  gst_clv_roi_meta_set_detection (roi, &in);
  fail_unless (gst_clv_roi_meta_get_detection (roi, &out));
  fail_unless_equals_string (out.label, "face");
  fail_unless_equals_int (out.label_id, 0);
  fail_unless_equals_float (out.confidence, 0.75);
  fail_unless_equals_int (out.neighbors, 15);
  fail_unless_equals_float (out.x_min, 0.1);
  fail_unless_equals_float (out.y_min, 0.2);
  fail_unless_equals_float (out.x_max, 0.4);
  fail_unless_equals_float (out.y_max, 0.6);

  /* The contract's structure, field names and types (element-roiexport). */
  s = gst_video_region_of_interest_meta_get_param (roi, "detection");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_int (s, "neighbors", &n) && n == 15);
  fail_unless_equals_string (gst_structure_get_string (s, "label"), "face");
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_set_replaces)
{
  GstBuffer *buf;
  GstVideoRegionOfInterestMeta *roi = new_roi (&buf);
  GstClvRecognition rec = {.label = "ada",.label_id = 3,.distance = 12.5,
    .confidence = 0.5
  };
  GstClvRecognition out;

  gst_clv_roi_meta_set_recognition (roi, &rec);
  rec.label = "unknown";
  rec.label_id = -1;
  rec.distance = 99.0;
  rec.confidence = 0.0;
  gst_clv_roi_meta_set_recognition (roi, &rec);
  /* One structure, with the second values. */
  fail_unless_equals_int (g_list_length (roi->params), 1);
  fail_unless (gst_clv_roi_meta_get_recognition (roi, &out));
  fail_unless_equals_string (out.label, "unknown");
  fail_unless_equals_int (out.label_id, -1);
  fail_unless_equals_float (out.distance, 99.0);
  fail_unless_equals_float (out.confidence, 0.0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_foreign_structures_refused)
{
  GstBuffer *buf;
  GstVideoRegionOfInterestMeta *roi = new_roi (&buf);
  GstClvDetection det;
  GstClvRecognition rec;

  /* Someone else's "detection" without our fields, and a "recognition"
   * whose label_id has another type: neither reads as ours. */
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "car",
          "confidence", G_TYPE_FLOAT, 0.5f, NULL));
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("recognition", "label", G_TYPE_STRING, "x",
          "label_id", G_TYPE_STRING, "3", "distance", G_TYPE_DOUBLE, 1.0,
          "confidence", G_TYPE_DOUBLE, 1.0, NULL));
  fail_if (gst_clv_roi_meta_get_detection (roi, &det));
  fail_if (gst_clv_roi_meta_get_recognition (roi, &rec));
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_tracking_round_trip)
{
  GstBuffer *buf;
  GstVideoRegionOfInterestMeta *roi = new_roi (&buf);
  const GstClvTracking in = {.id = G_GUINT64_CONSTANT (1) << 40,.age = 7,
    .predicted = TRUE,.first_seen = 40 * GST_MSECOND,
    .last_seen = 280 * GST_MSECOND
  };
  GstClvTracking out;
  GstStructure *s;
  guint64 id;

  gst_clv_roi_meta_set_tracking (roi, &in);
  fail_unless (gst_clv_roi_meta_get_tracking (roi, &out));
  fail_unless (out.id == in.id && out.age == 7 && out.predicted);
  fail_unless_equals_uint64 (out.first_seen, in.first_seen);
  fail_unless_equals_uint64 (out.last_seen, in.last_seen);
  /* The contract is the structure, readable without this library. */
  s = gst_video_region_of_interest_meta_get_param (roi, "tracking");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, "id", &id) && id == in.id);
  fail_unless (gst_structure_has_field_typed (s, "first-seen",
          G_TYPE_UINT64));
  gst_buffer_unref (buf);
}

GST_END_TEST;

static Suite *
clvmeta_suite (void)
{
  Suite *s = suite_create ("clvmeta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_detection_round_trip);
  tcase_add_test (tc, test_set_replaces);
  tcase_add_test (tc, test_foreign_structures_refused);
  tcase_add_test (tc, test_tracking_round_trip);
  return s;
}

GST_CHECK_MAIN (clvmeta);
