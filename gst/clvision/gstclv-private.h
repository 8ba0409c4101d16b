/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the clvision plugin and tests use of libgstclvision-1.0 beyond its
 * installed API: the runtime device behind a GstClvDevice, and the counted
 * frame transfers of the elements.  Not installed; no stability promise. */
#pragma once

#include <gst/clvision/clvision.h>

#include "clv-opencl.h"

G_BEGIN_DECLS

#ifndef GST_CLVISION_PRIVATE_API
#define GST_CLVISION_PRIVATE_API __attribute__ ((visibility ("default"))) extern
#endif

/* A GstClvDevice for `runtime` (which it references). */
GST_CLVISION_PRIVATE_API
GstClvDevice *gst_clv_device_new_for_runtime (ClvDevice * runtime);
/* The runtime device behind `device`: valid while `device` is. */
GST_CLVISION_PRIVATE_API
ClvDevice *gst_clv_device_get_runtime (GstClvDevice * device);

/* clv_upload() of one frame, counted in the allocator's "uploads". */
GST_CLVISION_PRIVATE_API
gboolean gst_clv_upload (ClvDevice * dev, cl_mem dst, gsize offset,
    const void *src, gsize size, ClvTransferFlags flags, ClvStager * stager,
    cl_event * done, GError ** error);
/* One counted upload of every plane of a CPU-mapped `frame` into `dst`,
 * laid out as `layout` says (strides may differ): one clv_upload() with
 * `flags` when both lay the frame out alike as one block, else a
 * clv_upload_rect() per plane. */
GST_CLVISION_PRIVATE_API
gboolean gst_clv_upload_frame (ClvDevice * dev, const GstVideoFrame * frame,
    cl_mem dst, const GstVideoInfo * layout, ClvTransferFlags flags,
    ClvStager * stager, GError ** error);
/* clv_read_buffer() of one frame, counted in the allocator's "downloads". */
GST_CLVISION_PRIVATE_API
gboolean gst_clv_download (ClvDevice * dev, cl_mem src, gsize offset,
    void *dst, gsize size, GError ** error);

/* Why the last map of `mem` (any memory) failed, if it is clvision
 * memory and one did since the last call: a GstMemory map cannot say.
 * Free with g_error_free. */
GST_CLVISION_PRIVATE_API
GError *gst_clv_memory_take_map_error (GstMemory * mem);

/* `info` with the plane offsets and strides of `buf`'s GstVideoMeta, if it
 * has one. */
GST_CLVISION_PRIVATE_API
void gst_clv_buffer_get_video_info (GstBuffer * buf, const GstVideoInfo * info,
    GstVideoInfo * out);

/* `caps` (taken) with its memory:OpenCL structures first, the others after
 * in their order. */
GST_CLVISION_PRIVATE_API
GstCaps *gst_clv_caps_prefer_opencl (GstCaps * caps);

/* A pool of `device` configured for `caps` with video metas, holding
 * buffers of at least *size bytes; *size is set to the pool's.  NULL if
 * `caps` can't be pooled.  A frame it cannot allocate is an error of
 * `owner` (nullable; held weakly), whoever asked for the frame. */
GST_CLVISION_PRIVATE_API
GstBufferPool *gst_clv_buffer_pool_new_for_caps (GstClvDevice * device,
    GstCaps * caps, guint * size, guint min, guint max, GstElement * owner);

/* For propose_allocation: adds the video meta and, if the query needs a
 * pool and has none yet, a pool of `device` for the query's caps, owned by
 * `owner`. */
GST_CLVISION_PRIVATE_API
gboolean gst_clv_buffer_pool_propose (GstClvDevice * device,
    GstQuery * query, GstElement * owner);

G_END_DECLS
