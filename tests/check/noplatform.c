/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* With no OpenCL platform installed (OCL_ICD_VENDORS points at an empty
 * folder), an element fails in READY->PAUSED with a message naming the fix. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

GST_START_TEST (test_no_platform_error_names_fix)
{
  const gchar *dir = g_getenv ("CLV_EMPTY_ICD_DIR");
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;

  fail_unless (dir != NULL);
  fail_unless_equals_int (g_mkdir_with_parents (dir, 0755), 0);
  pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=64 ! sarmultilook ! fakesink",
      &error);
  fail_unless (pipeline != NULL);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (error->message, "No OpenCL platform") != NULL,
      "message: %s", error->message);
  fail_unless (strstr (error->message, "pocl-opencl-icd") != NULL);
  g_error_free (error);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
noplatform_suite (void)
{
  Suite *s = suite_create ("noplatform");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform_error_names_fix);
  return s;
}

GST_CHECK_MAIN (noplatform);
