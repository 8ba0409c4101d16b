/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory: a GstMemory holding an OpenCL buffer (cl_mem) of one device
 * context, and its allocator ("OpenCLMemory").
 *
 * Mapping with GST_MAP_OPENCL gives the cl_mem itself as `info.data` (cast it
 * back: `cl_mem m = (cl_mem) info.data`).  A plain CPU map downloads the
 * device contents lazily into a pinned host copy (CL_MEM_ALLOC_HOST_PTR,
 * mapped once); after a CPU write map the next GST_MAP_OPENCL map uploads it
 * again.  Two flags record which side is newer, as GstCudaMemory does.
 * Every host/device transfer is enqueued on the device's in-order queue, so
 * it is ordered after the kernels that other elements enqueued before. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <gst/clvision/clvision-prelude.h>
#include <clv-opencl.h>

G_BEGIN_DECLS

/* The caps feature of buffers whose memory is GstClMemory. */
#define GST_CAPS_FEATURE_MEMORY_OPENCL "memory:OpenCL"

/* The memory type (and registered allocator name). */
#define GST_CL_MEMORY_TYPE_NAME "OpenCLMemory"

/* Map flag: `info.data` is the cl_mem, not host memory.  The same bit as
 * GST_MAP_GL and GST_MAP_CUDA: it means something to GstClMemory only, so
 * check gst_is_cl_memory() first. */
#define GST_MAP_OPENCL ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

/* Which side is newer. */
typedef enum
{
  /* The device copy was written: a CPU map must download it first. */
  GST_CL_MEMORY_NEED_DOWNLOAD = GST_MEMORY_FLAG_LAST << 0,
  /* The host copy was written: a device map must upload it first. */
  GST_CL_MEMORY_NEED_UPLOAD = GST_MEMORY_FLAG_LAST << 1,
} GstClMemoryTransferFlags;

typedef struct _GstClMemory GstClMemory;

struct _GstClMemory
{
  GstMemory mem;

  /* read-only */
  ClvDevice *device;            /* holds a reference */
  cl_mem buffer;                /* `mem.maxsize` bytes on the device */

  /*< private >*/
  GMutex lock;
  cl_mem staging;               /* pinned host copy, created on the first CPU map */
  gpointer staging_data;        /* where `staging` is mapped */
};

#define GST_TYPE_CL_ALLOCATOR (gst_cl_allocator_get_type ())
GST_CLVISION_API
G_DECLARE_FINAL_TYPE (GstClAllocator, gst_cl_allocator, GST, CL_ALLOCATOR,
    GstAllocator);

/* Creates and registers the allocator; call before using the functions
 * below (plugin_init does). */
GST_CLVISION_API
void gst_cl_memory_init_once (void);

GST_CLVISION_API
gboolean gst_is_cl_memory (GstMemory * mem);

/* A new memory of `size` bytes on `dev`; its contents are undefined. */
GST_CLVISION_API
GstMemory *gst_cl_memory_alloc (ClvDevice * dev, gsize size, GError ** error);

/* Whether `a` and `b` share one OpenCL context (memory of one can be used by
 * kernels of the other without going through the host). */
static inline gboolean
gst_cl_device_same_context (const ClvDevice * a, const ClvDevice * b)
{
  return a->context == b->context;
}

/* The memory of `buf` if it is a single GstClMemory in `dev`'s context,
 * whole (offset 0), so that its cl_mem can be used directly; else NULL. */
GST_CLVISION_API
GstClMemory *gst_cl_buffer_peek_device_memory (GstBuffer * buf,
    ClvDevice * dev);

/* Counted, blocking host<->device copies of `size` bytes at `offset` in
 * `mem`; every frame that crosses between host and device in this plugin
 * goes through one of these (or the rectangle variants below). */
GST_CLVISION_API
gboolean gst_cl_upload (ClvDevice * dev, cl_mem mem, gsize offset, gsize size,
    const void *src, GError ** error);
/* gst_cl_upload on the device's transfer queue: it does not wait for the
 * kernels queued before it (other pipelines' work), so `mem` must be a
 * buffer no queued kernel still uses. */
GST_CLVISION_API
gboolean gst_cl_upload_unordered (ClvDevice * dev, cl_mem mem, gsize offset,
    gsize size, const void *src, GError ** error);
/* gst_cl_upload_unordered of `src` in pinned memory (a GstClMemory's host
 * copy): one DMA.  Without `done` it waits for it with clv_event_wait(), so
 * that beside other analysers the thread polls instead of blocking in the
 * driver; with `done` it returns at once, the device's queue waits for the
 * DMA (a barrier: what is queued there next reads `mem` after it), and
 * *done is its event, after which `src` may change. */
GST_CLVISION_API
gboolean gst_cl_upload_pinned (ClvDevice * dev, cl_mem mem, gsize offset,
    gsize size, const void *src, cl_event * done, GError ** error);
/* gst_cl_upload (`unordered`: gst_cl_upload_unordered) of pageable `src`
 * through the pinned memory of `stage`, copied there by several threads;
 * with `done`, it returns before the DMAs end (clv_upload_staged). */
GST_CLVISION_API
gboolean gst_cl_upload_staged (ClvDevice * dev, gboolean unordered,
    ClvPinnedStage * stage, cl_mem mem, gsize offset, gsize size,
    const void *src, cl_event * done, GError ** error);
GST_CLVISION_API
gboolean gst_cl_download (ClvDevice * dev, cl_mem mem, gsize offset,
    gsize size, void *dst, GError ** error);

/* Copies every plane of a CPU-mapped `frame` to `mem`, laid out as `info`
 * says (strides may differ); one counted upload. */
GST_CLVISION_API
gboolean gst_cl_upload_frame (ClvDevice * dev, const GstVideoFrame * frame,
    cl_mem mem, const GstVideoInfo * info, GError ** error);
/* gst_cl_upload_frame through the pinned memory of `stage`
 * (gst_cl_upload_staged) where the frame is one block laid out as `info`
 * says; `stage` NULL: gst_cl_upload_frame. */
GST_CLVISION_API
gboolean gst_cl_upload_frame_staged (ClvDevice * dev,
    const GstVideoFrame * frame, cl_mem mem, const GstVideoInfo * info,
    ClvPinnedStage * stage, GError ** error);

/* Host<->device transfers and GstClMemory allocations since the process
 * started.  Tests and benchmarks read them through the allocator's
 * read-only properties "uploads", "downloads" and "allocations":
 *   GstAllocator *a = gst_allocator_find (GST_CL_MEMORY_TYPE_NAME);
 *   g_object_get (a, "uploads", &uploads, NULL);   (guint64) */
GST_CLVISION_API
void gst_cl_memory_get_transfer_counts (guint64 * uploads,
    guint64 * downloads);
GST_CLVISION_API
guint64 gst_cl_memory_get_allocation_count (void);

/* `info` with the plane offsets and strides of `buf`'s GstVideoMeta, if it
 * has one. */
GST_CLVISION_API
void gst_cl_buffer_video_info (GstBuffer * buf, const GstVideoInfo * info,
    GstVideoInfo * out);

/* `caps` (taken) with its memory:OpenCL structures first, the others after
 * in their order. */
GST_CLVISION_API
GstCaps *gst_cl_caps_prefer_opencl (GstCaps * caps);


G_END_DECLS
