/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <gst/clvision/clvision-prelude.h>
#include <gst/clvision/gstclvdevice.h>

G_BEGIN_DECLS

/**
 * GST_CAPS_FEATURE_MEMORY_OPENCL:
 *
 * The caps feature of buffers whose memory is #GstClvMemory.
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_MEMORY_OPENCL "memory:OpenCL"

/**
 * GST_CLV_MEMORY_TYPE_NAME:
 *
 * The memory type of #GstClvMemory, and the name its allocator is
 * registered under (gst_allocator_find()).
 *
 * Since: 0.1
 */
#define GST_CLV_MEMORY_TYPE_NAME "OpenCLMemory"

/**
 * GST_MAP_OPENCL:
 *
 * Map flag: the map's `data` is the memory's OpenCL buffer (a `cl_mem`),
 * not host memory.  The same bit as GST_MAP_GL and GST_MAP_CUDA: it means
 * something to #GstClvMemory only, so check gst_is_clv_memory() first.
 *
 * Since: 0.1
 */
#define GST_MAP_OPENCL ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

/**
 * GstClvMemoryTransfer:
 * @GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD: the device copy was written: a
 *     CPU map downloads it first
 * @GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD: the host copy was written: a map
 *     with #GST_MAP_OPENCL uploads it first
 *
 * Memory flags of a #GstClvMemory that say which of its copies is newer.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD = GST_MEMORY_FLAG_LAST << 0,
  GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD = GST_MEMORY_FLAG_LAST << 1,
} GstClvMemoryTransfer;

/**
 * GstClvTransferFlags:
 * @GST_CLV_TRANSFER_FLAG_NONE: on the device's in-order queue, after the
 *     kernels queued before it, from pageable memory by the driver
 * @GST_CLV_TRANSFER_FLAG_UNORDERED: on the device's transfer queue, beside
 *     the kernels queued before it: only for memory that no queued kernel
 *     uses
 * @GST_CLV_TRANSFER_FLAG_STAGED: copied by several threads, in chunks,
 *     through the memory's pinned host copy (faster than the driver's copy
 *     from pageable memory on devices with memory of their own)
 *
 * How gst_clv_memory_upload() and gst_clv_memory_download() copy.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CLV_TRANSFER_FLAG_NONE = 0,
  GST_CLV_TRANSFER_FLAG_UNORDERED = (1 << 0),
  GST_CLV_TRANSFER_FLAG_STAGED = (1 << 1),
} GstClvTransferFlags;

typedef struct _GstClvMemory GstClvMemory;
typedef struct _GstClvMemoryPrivate GstClvMemoryPrivate;

/**
 * GstClvMemory:
 * @device: the device whose context holds the memory
 *
 * A #GstMemory holding an OpenCL buffer of @device's context.
 *
 * Since: 0.1
 */
struct _GstClvMemory
{
  GstMemory mem;

  /*< public >*/
  GstClvDevice *device;

  /*< private >*/
  GstClvMemoryPrivate *priv;
  gpointer _gst_reserved[GST_PADDING];
};

#define GST_TYPE_CLV_ALLOCATOR (gst_clv_allocator_get_type ())
GST_CLVISION_API
G_DECLARE_FINAL_TYPE (GstClvAllocator, gst_clv_allocator, GST,
    CLV_ALLOCATOR, GstAllocator);

GST_CLVISION_API
void gst_clv_memory_init_once (void);

GST_CLVISION_API
gboolean gst_is_clv_memory (GstMemory * mem);

GST_CLVISION_API
GstMemory *gst_clv_memory_alloc (GstClvDevice * device, gsize size,
    GError ** error);

GST_CLVISION_API
gboolean gst_clv_memory_upload (GstClvMemory * mem, gsize offset,
    gconstpointer data, gsize size, GstClvTransferFlags flags,
    GError ** error);

GST_CLVISION_API
gboolean gst_clv_memory_download (GstClvMemory * mem, gsize offset,
    gpointer data, gsize size, GstClvTransferFlags flags, GError ** error);

GST_CLVISION_API
GstClvMemory *gst_clv_buffer_peek_memory (GstBuffer * buffer,
    GstClvDevice * device);

G_END_DECLS
