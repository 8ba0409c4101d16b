/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Makes the gray test images: decodes a picture or one frame of a video with
 * GStreamer to RGB, converts it with OpenCV's RGB->GRAY weights (the C
 * reference) and writes a PGM that our detectors and OpenCV's oracle read.
 *
 *   clv-gray-pgm INPUT OUTPUT.pgm [FRAME]     (FRAME counts from 0) */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "clv-pgm.h"
#include "clv-vj-ref.h"

int
main (int argc, char **argv)
{
  GError *error = NULL;
  GstElement *pipeline, *src, *sink;
  GstSample *sample = NULL;
  gint64 frame = argc > 3 ? g_ascii_strtoll (argv[3], NULL, 10) : 0;
  int ret = 1;

  gst_init (&argc, &argv);
  if (argc < 3 || argc > 4 || frame < 0) {
    g_printerr ("usage: %s INPUT OUTPUT.pgm [FRAME]\n", argv[0]);
    return 2;
  }
  pipeline = gst_parse_launch ("filesrc name=src ! decodebin ! videoconvert "
      "! video/x-raw,format=RGB ! appsink name=sink sync=false", &error);
  if (pipeline == NULL) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (src, "location", argv[1], NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  for (gint64 i = 0; i <= frame; i++) {
    if (sample != NULL)
      gst_sample_unref (sample);
    sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    if (sample == NULL)
      break;
  }
  if (sample == NULL) {
    GstMessage *msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_MESSAGE_ERROR);
    if (msg != NULL) {
      gst_message_parse_error (msg, &error, NULL);
      g_printerr ("%s: %s\n", argv[1], error->message);
      gst_message_unref (msg);
    } else {
      g_printerr ("%s: no frame %" G_GINT64_FORMAT "\n", argv[1], frame);
    }
  } else {
    GstVideoInfo info;
    GstVideoFrame vf;

    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
        && gst_video_frame_map (&vf, &info, gst_sample_get_buffer (sample),
            GST_MAP_READ)) {
      int w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
      guint8 *gray = g_malloc ((gsize) w * h);

      clv_rgb_to_gray_ref (GST_VIDEO_FRAME_PLANE_DATA (&vf, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0), 3, 0, 1, 2, w, h, gray, w);
      gst_video_frame_unmap (&vf);
      if (clv_pgm_write (argv[2], gray, w, h, w, &error))
        ret = 0;
      else
        g_printerr ("%s\n", error->message);
      g_free (gray);
    } else {
      g_printerr ("%s: cannot map the decoded frame\n", argv[1]);
    }
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ret;
}
