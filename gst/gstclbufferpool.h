/* GstClBufferPool: video buffers of GstClMemory on one OpenCL device
 * context.  Supports GST_BUFFER_POOL_OPTION_VIDEO_META (each buffer carries a
 * GstVideoMeta with the pool's plane offsets and strides) and
 * GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "clv-opencl.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstBufferPool);

GstBufferPool *gst_cl_buffer_pool_new (ClvDevice * dev);

/* The pool's device (no new reference). */
ClvDevice *gst_cl_buffer_pool_get_device (GstClBufferPool * pool);

G_END_DECLS
