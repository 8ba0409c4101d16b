/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include "caps-check-util.h"

guint
clv_check_late_caps_errors (const gchar * element, const gchar * caps,
    GError ** det_error)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! capsfilter "
      "name=late ! %s name=det ! fakesink", element);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *late = gst_bin_get_by_name (GST_BIN (pipe), "late");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  guint n = 0;

  gst_util_set_object_arg (G_OBJECT (late), "caps", caps);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, n ? GST_SECOND / 5 :
              60 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    GError *err = NULL;

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s passed", caps);
    gst_message_parse_error (msg, &err, NULL);
    if (g_strcmp0 (GST_MESSAGE_SRC_NAME (msg), "det") == 0 && n++ == 0)
      *det_error = g_error_copy (err);
    else
      fail_unless_equals_string (err->message, "Internal data stream error.");
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (late);
  gst_object_unref (pipe);
  g_free (desc);
  return n;
}
