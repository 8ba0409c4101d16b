/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "vj-check-frame.h"

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

GstBuffer *
vj_check_frame_buffer (const Gray * g, const char *format, GstCaps ** caps)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      g->width, g->height);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 128, GST_VIDEO_INFO_SIZE (&info));
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (int y = 0; y < g->height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, 0);
    const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
    for (int x = 0; x < g->width; x++) {
      const guint8 v = g->pixels[y * g->width + x];
      if (GST_VIDEO_INFO_IS_RGB (&info)) {
        guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x * ps;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_R)] = v;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_G)] = v;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_B)] = v;
      } else {
        row[x * ps] = v;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  if (caps)
    *caps = gst_video_info_to_caps (&info);
  return buf;
}
