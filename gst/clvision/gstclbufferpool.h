/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBufferPool: video buffers of GstClMemory on one OpenCL device
 * context.  Supports GST_BUFFER_POOL_OPTION_VIDEO_META (each buffer carries a
 * GstVideoMeta with the pool's plane offsets and strides) and
 * GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <gst/clvision/clvision-prelude.h>
#include <clv-opencl.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
GST_CLVISION_API
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstBufferPool);

GST_CLVISION_API
GstBufferPool *gst_cl_buffer_pool_new (ClvDevice * dev);

/* The pool's device (no new reference). */
GST_CLVISION_API
ClvDevice *gst_cl_buffer_pool_get_device (GstClBufferPool * pool);

/* A pool of `dev` configured for `caps` with video metas, holding buffers
 * of at least *size bytes; *size is set to the pool's.  NULL if `caps`
 * can't be pooled. */
GST_CLVISION_API
GstBufferPool *gst_cl_buffer_pool_new_for_caps (ClvDevice * dev,
    GstCaps * caps, guint * size, guint min, guint max);

/* For propose_allocation: adds the video meta and, if the query needs a
 * pool and has none yet, a pool of `dev` for the query's caps. */
GST_CLVISION_API
gboolean gst_cl_buffer_pool_propose (ClvDevice * dev, GstQuery * query);

G_END_DECLS
