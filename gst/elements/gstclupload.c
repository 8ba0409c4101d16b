/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clupload
 * @title: clupload
 *
 * Moves raw video of any format from system memory to OpenCL device memory
 * (the `memory:OpenCL` caps feature), so that the clvision elements after it
 * work on the device without copying frames through the host.  Buffers that
 * are already on the device pass through untouched; so do buffers allocated
 * from the pool clupload proposes upstream (their pinned host copy is
 * uploaded once, here).  The `device` property picks the OpenCL device; the
 * pipeline's elements share one context through `gst.opencl.context`.
 * A frame larger than the device's largest buffer
 * (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`) fails at negotiation with a
 * message that gives both sizes.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     video/x-raw,format=GRAY16_LE,width=1024,height=1024 ! clupload ! \
 *     sarmultilook looks=4 ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclupload.h"
#include "gstclv-private.h"
#include <gst/clvision/clvision.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_upload_debug);
#define GST_CAT_DEFAULT gst_cl_upload_debug

struct _GstClUpload
{
  GstClMemoryCopy parent;
};

G_DEFINE_TYPE_WITH_CODE (GstClUpload, gst_cl_upload, GST_TYPE_CL_MEMORY_COPY,
    GST_DEBUG_CATEGORY_INIT (gst_cl_upload_debug, "clupload", 0,
        "Upload to OpenCL memory"));
GST_ELEMENT_REGISTER_DEFINE (clupload, "clupload", GST_RANK_NONE,
    GST_TYPE_CL_UPLOAD);

/* Upstream may write its frames straight into memory of ours: pinned host
 * copies that we upload from without staging. */
static gboolean
gst_cl_upload_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClvDevice *dev = gst_clv_filter_get_gst_device (GST_CLV_FILTER (trans));

  if (!GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->
      propose_allocation (trans, decide_query, query))
    return FALSE;
  if (decide_query == NULL || dev == NULL)
    return TRUE;
  return gst_clv_buffer_pool_propose (dev, query, GST_ELEMENT (trans));
}

static GstFlowReturn
gst_cl_upload_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstMapInfo map;

  if (gst_base_transform_is_passthrough (trans)
      || !gst_clv_filter_buffer_on_device (GST_CLV_FILTER (trans), inbuf))
    return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->
        prepare_output_buffer (trans, inbuf, outbuf);

  /* Memory of our context (from the pool we proposed): a device map brings
   * the device copy up to date, and the buffer itself goes on. */
  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ | GST_MAP_OPENCL))
    goto map_failed;
  gst_buffer_unmap (inbuf, &map);
  *outbuf = inbuf;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_CLV_FILTER_POST_MAP_ERROR (trans, inbuf, "Could not upload a buffer "
        "to the OpenCL device");
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
gst_cl_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClvFilter *filter = GST_CLV_FILTER (trans);
  GstVideoFrame frame;
  GstVideoInfo layout;
  GstMapInfo map;
  GError *error = NULL;
  gboolean ok;

  if (outbuf == inbuf)
    return GST_FLOW_OK;
  if (!gst_clv_filter_buffer_on_device (filter, outbuf))
    goto not_device;
  if (!gst_video_frame_map (&frame, gst_clv_filter_get_in_info (filter), inbuf,
          GST_MAP_READ))
    goto map_failed;
  if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE | GST_MAP_OPENCL)) {
    gst_video_frame_unmap (&frame);
    goto map_failed;
  }
  gst_clv_buffer_get_video_info (outbuf, gst_clv_filter_get_out_info (filter),
      &layout);
  ok = gst_clv_filter_upload_frame (filter, &frame, (cl_mem) map.data,
      &layout, &error);
  gst_buffer_unmap (outbuf, &map);
  gst_video_frame_unmap (&frame);
  if (!ok)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
not_device:
  {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
        ("The output buffer is not OpenCL memory of this element's device"),
        (NULL));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    /* The device side is the one whose map can fail for a reason. */
    GST_CLV_FILTER_POST_MAP_ERROR (trans, outbuf, "Could not map a video "
        "frame");
    return GST_FLOW_ERROR;
  }
failed:
  {
    GST_CLV_FILTER_POST_ERROR (trans, RESOURCE, WRITE, error);
    return GST_FLOW_ERROR;
  }
}

static void
gst_cl_upload_class_init (GstClUploadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_set_static_metadata (element_class,
      "OpenCL uploader", "Filter/Video",
      "Moves raw video from system memory to OpenCL device memory",
      "clvision developers");

  GST_CL_MEMORY_COPY_CLASS (klass)->to_device = TRUE;
  trans_class->propose_allocation = gst_cl_upload_propose_allocation;
  trans_class->prepare_output_buffer = gst_cl_upload_prepare_output_buffer;
  trans_class->transform = gst_cl_upload_transform;
}

static void
gst_cl_upload_init (GstClUpload * self)
{
}
