/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cldownload
 * @title: cldownload
 *
 * Makes raw video of any format in OpenCL device memory (the `memory:OpenCL`
 * caps feature) available in system memory: each frame is downloaded once,
 * into the buffer's own pinned host copy, and the same buffer goes on, so
 * the elements after it map it on the CPU without further copies.  If the
 * buffer's layout differs from the caps' and downstream can't read video
 * metas, the frame is copied into a buffer laid out as the caps say.
 * Frames already in system memory pass through.  A frame larger than the
 * device's largest buffer (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`) fails at
 * negotiation with a message that gives both sizes.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     video/x-raw,format=GRAY8,width=1024,height=1024 ! clupload ! \
 *     sarmultilook looks=2 ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcldownload.h"
#include <gst/clvision/clvision.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_download_debug);
#define GST_CAT_DEFAULT gst_cl_download_debug

struct _GstClDownload
{
  GstClMemoryCopy parent;

  gboolean downstream_video_meta;       /* streaming thread */
};

G_DEFINE_TYPE_WITH_CODE (GstClDownload, gst_cl_download, GST_TYPE_CL_MEMORY_COPY,
    GST_DEBUG_CATEGORY_INIT (gst_cl_download_debug, "cldownload", 0,
        "Download from OpenCL memory"));
GST_ELEMENT_REGISTER_DEFINE (cldownload, "cldownload", GST_RANK_NONE,
    GST_TYPE_CL_DOWNLOAD);

static gboolean
gst_cl_download_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClDownload *self = GST_CL_DOWNLOAD (trans);

  self->downstream_video_meta = gst_query_find_allocation_meta (query,
      GST_VIDEO_META_API_TYPE, NULL);
  return GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->
      decide_allocation (trans, query);
}

/* Whether downstream can read `buf` as it is laid out. */
static gboolean
layout_readable (GstClDownload * self, GstBuffer * buf)
{
  const GstVideoInfo *info =
      gst_clv_filter_get_out_info (GST_CLV_FILTER (self));
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (buf);

  if (self->downstream_video_meta || vmeta == NULL)
    return TRUE;
  for (guint i = 0; i < vmeta->n_planes; i++)
    if (vmeta->offset[i] != GST_VIDEO_INFO_PLANE_OFFSET (info, i)
        || vmeta->stride[i] != GST_VIDEO_INFO_PLANE_STRIDE (info, i))
      return FALSE;
  return TRUE;
}

static GstFlowReturn
gst_cl_download_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstClDownload *self = GST_CL_DOWNLOAD (trans);

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->
        prepare_output_buffer (trans, inbuf, outbuf);

  /* A CPU map of each memory downloads what a device wrote into its pinned
   * host copy; memories are mapped one by one, never merged. */
  for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, i);
    GstMapInfo map;

    if (!gst_memory_map (mem, &map, GST_MAP_READ))
      goto map_failed;
    gst_memory_unmap (mem, &map);
  }
  if (!layout_readable (self, inbuf))
    return GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->
        prepare_output_buffer (trans, inbuf, outbuf);
  *outbuf = inbuf;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_CLV_FILTER_POST_MAP_ERROR (trans, inbuf, "Could not download a "
        "buffer from the OpenCL device");
    return GST_FLOW_ERROR;
  }
}

/* Only for buffers downstream couldn't read as they are: re-stride. */
static GstFlowReturn
gst_cl_download_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClvFilter *filter = GST_CLV_FILTER (trans);
  GstVideoFrame in, out;
  gboolean ok;

  if (outbuf == inbuf)
    return GST_FLOW_OK;
  if (!gst_video_frame_map (&in, gst_clv_filter_get_in_info (filter), inbuf,
          GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&out, gst_clv_filter_get_out_info (filter),
          outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    goto map_failed;
  }
  ok = gst_video_frame_copy (&out, &in);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  if (!ok)
    goto map_failed;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    /* The device side is the one whose map can fail for a reason. */
    GST_CLV_FILTER_POST_MAP_ERROR (trans, inbuf, "Could not copy a video "
        "frame");
    return GST_FLOW_ERROR;
  }
}

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_set_static_metadata (element_class,
      "OpenCL downloader", "Filter/Video",
      "Moves raw video from OpenCL device memory to system memory",
      "clvision developers");

  GST_CL_MEMORY_COPY_CLASS (klass)->to_device = FALSE;
  trans_class->decide_allocation = gst_cl_download_decide_allocation;
  trans_class->prepare_output_buffer = gst_cl_download_prepare_output_buffer;
  trans_class->transform = gst_cl_download_transform;
}

static void
gst_cl_download_init (GstClDownload * self)
{
}
