/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sar-check-util.h"

#include <string.h>

#include "clv-opencl.h"

int
sar_check_bpp (const gchar * format)
{
  return g_str_equal (format, "GRAY8") ? 1 : 2;
}

void
sar_check_set_caps (GstHarness * h, const gchar * format, int width,
    int height)
{
  gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
      "height=%d, framerate=0/1", format, width, height);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

GstBuffer *
sar_check_buffer_new (const guint8 * data, const ClvImage * im)
{
  /* GStreamer's GRAY strides are the row rounded up to 4 bytes. */
  g_assert_cmpuint (im->stride, ==, clv_round_up ((gsize) im->width * im->bpp,
          4));
  g_assert_cmpuint (im->offset, ==, 0);
  return gst_buffer_new_memdup (data, im->stride * im->height);
}

guint8 *
sar_check_buffer_image (GstBuffer * buf, GstCaps * caps, ClvImage * im)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *data;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  *im = clv_image_make (GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0),
      clv_round_up ((gsize) GST_VIDEO_INFO_WIDTH (&info) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0), 4));
  data = g_malloc0 (im->stride * im->height);
  for (int y = 0; y < im->height; y++)
    memcpy (data + y * im->stride, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA
        (&frame, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        (gsize) im->width * im->bpp);
  gst_video_frame_unmap (&frame);
  return data;
}

guint8 *
sar_check_push_image (GstHarness * h, const guint8 * data,
    const ClvImage * in_im, ClvImage * out_im, GstBuffer ** out_buf)
{
  GstBuffer *out = gst_harness_push_and_pull (h, sar_check_buffer_new (data,
          in_im));
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  guint8 *image;

  fail_unless (out != NULL);
  fail_unless (caps != NULL);
  image = sar_check_buffer_image (out, caps, out_im);
  gst_caps_unref (caps);
  if (out_buf)
    *out_buf = out;
  else
    gst_buffer_unref (out);
  return image;
}

GstVideoRegionOfInterestMeta *
sar_check_add_face (GstBuffer * buf, guint x, guint y, guint w, guint h,
    gint id)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", x, y, w, h);

  roi->id = id;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "face",
          "x_min", G_TYPE_DOUBLE, 0.0, "y_min", G_TYPE_DOUBLE, 0.0,
          "x_max", G_TYPE_DOUBLE, 0.0, "y_max", G_TYPE_DOUBLE, 0.0, NULL));
  return roi;
}
