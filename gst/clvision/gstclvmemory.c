/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvmemory
 * @title: GstClvMemory
 * @short_description: memory:OpenCL, a GstMemory holding an OpenCL buffer
 *
 * #GstClvMemory holds an OpenCL buffer of one #GstClvDevice's context.
 * Buffers of it carry the caps feature #GST_CAPS_FEATURE_MEMORY_OPENCL,
 * and a chain of clvision elements that negotiates it keeps frames on the
 * device.
 *
 * Mapping with #GST_MAP_OPENCL gives the `cl_mem` itself as the map's
 * `data`.  A plain CPU map downloads the device contents lazily into a
 * pinned host copy (made on the first CPU map and kept); after a CPU write
 * map, the next #GST_MAP_OPENCL map uploads it again.  The memory flags
 * #GstClvMemoryTransfer record which side is newer.  Every copy between
 * host and device is enqueued on the device's in-order queue unless asked
 * otherwise, so it is ordered after the kernels that other elements
 * enqueued before it.
 *
 * The allocator, registered as #GST_CLV_MEMORY_TYPE_NAME, counts copies
 * and allocations in its read-only properties "uploads", "downloads" and
 * "allocations" (#guint64), for tests and benchmarks:
 * |[<!-- language="C" -->
 *   GstAllocator *a = gst_allocator_find (GST_CLV_MEMORY_TYPE_NAME);
 *   guint64 uploads;
 *
 *   g_object_get (a, "uploads", &uploads, NULL);
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclv-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_memory_debug);
#define GST_CAT_DEFAULT gst_clv_memory_debug

struct _GstClvMemoryPrivate
{
  GMutex lock;
  ClvDevice *runtime;           /* the device's, for the transfers */
  cl_mem buffer;                /* `mem.maxsize` bytes on the device */
  cl_mem host_buffer;           /* pinned host copy, made on the first CPU map */
  gpointer host_data;           /* where `host_buffer` is mapped */
  GError *map_error;            /* why the last map failed, until taken */
};

/**
 * GstClvAllocator:
 *
 * The allocator of #GstClvMemory.  Memory belongs to a device: allocate it
 * with gst_clv_memory_alloc() or a #GstClvBufferPool, not
 * gst_allocator_alloc().
 *
 * Since: 0.1
 */
struct _GstClvAllocator
{
  GstAllocator parent;
};

enum
{
  PROP_0,
  PROP_UPLOADS,
  PROP_DOWNLOADS,
  PROP_ALLOCATIONS,
};

G_DEFINE_TYPE (GstClvAllocator, gst_clv_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *clv_allocator;

/* ---- Counted transfers --------------------------------------------------- */

static struct
{
  guint64 uploads;
  guint64 downloads;
  guint64 allocations;
} counters;

G_LOCK_DEFINE_STATIC (counters);

#define COUNT(field) G_STMT_START { G_LOCK (counters); counters.field++; \
  G_UNLOCK (counters); } G_STMT_END

gboolean
gst_clv_upload (ClvDevice * dev, cl_mem dst, gsize offset, const void *src,
    gsize size, ClvTransferFlags flags, ClvStager * stager, cl_event * done,
    GError ** error)
{
  if (!clv_upload (dev, dst, offset, src, size, flags, stager, done, error))
    return FALSE;
  COUNT (uploads);
  return TRUE;
}

gboolean
gst_clv_download (ClvDevice * dev, cl_mem src, gsize offset, void *dst,
    gsize size, GError ** error)
{
  if (!clv_read_buffer (dev, src, offset, size, dst, error))
    return FALSE;
  COUNT (downloads);
  return TRUE;
}

static gboolean
same_layout (const GstVideoInfo * a, const GstVideoInfo * b)
{
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (a); i++)
    if (GST_VIDEO_INFO_PLANE_OFFSET (a, i) != GST_VIDEO_INFO_PLANE_OFFSET (b,
            i)
        || GST_VIDEO_INFO_PLANE_STRIDE (a, i) != GST_VIDEO_INFO_PLANE_STRIDE (b,
            i))
      return FALSE;
  return GST_VIDEO_INFO_SIZE (a) == GST_VIDEO_INFO_SIZE (b);
}

/* Each plane of `frame` to where `layout` puts it, row by row. */
static gboolean
upload_planes (ClvDevice * dev, const GstVideoFrame * frame, cl_mem dst,
    const GstVideoInfo * layout, GError ** error)
{
  const GstVideoInfo *src = &frame->info;

  if (GST_VIDEO_FORMAT_INFO_IS_TILED (src->finfo))
    goto tiled;
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (src); i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (src->finfo, i, comp);
    /* The pixels of a row never extend past the smaller stride. */
    if (!clv_upload_rect (dev, dst, GST_VIDEO_INFO_PLANE_OFFSET (layout, i),
            GST_VIDEO_INFO_PLANE_STRIDE (layout, i),
            GST_VIDEO_FRAME_PLANE_DATA (frame, i),
            GST_VIDEO_INFO_PLANE_STRIDE (src, i),
            MIN (GST_VIDEO_INFO_PLANE_STRIDE (src, i),
                GST_VIDEO_INFO_PLANE_STRIDE (layout, i)),
            GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]), error))
      return FALSE;
  }
  return TRUE;

tiled:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Cannot re-stride the tiled format %s on upload",
      GST_VIDEO_INFO_NAME (src));
  return FALSE;
}

gboolean
gst_clv_upload_frame (ClvDevice * dev, const GstVideoFrame * frame,
    cl_mem dst, const GstVideoInfo * layout, ClvTransferFlags flags,
    ClvStager * stager, GError ** error)
{
  const GstVideoInfo *src = &frame->info;
  const guint8 *base = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0)
      - GST_VIDEO_INFO_PLANE_OFFSET (src, 0);
  gboolean one_block = TRUE;

  /* One plain copy when both sides lay the frame out alike (the usual case:
   * both follow the caps) and the planes are one block of memory. */
  for (guint i = 1; i < GST_VIDEO_INFO_N_PLANES (src); i++)
    one_block &= (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, i) ==
        base + GST_VIDEO_INFO_PLANE_OFFSET (src, i);
  if (one_block && same_layout (src, layout))
    return gst_clv_upload (dev, dst, 0, base, GST_VIDEO_INFO_SIZE (layout),
        flags, stager, NULL, error);
  if (!upload_planes (dev, frame, dst, layout, error))
    return FALSE;
  COUNT (uploads);
  return TRUE;
}

/* ---- The memory ---------------------------------------------------------- */

/**
 * gst_is_clv_memory:
 * @mem: (nullable): a #GstMemory
 *
 * Whether @mem is a #GstClvMemory.
 *
 * Returns: whether @mem is a #GstClvMemory.
 *
 * Since: 0.1
 */
gboolean
gst_is_clv_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL
      && GST_IS_CLV_ALLOCATOR (mem->allocator);
}

/**
 * gst_clv_memory_alloc:
 * @device: the device whose context holds the memory
 * @size: its size in bytes
 * @error: return location for a #GError, or %NULL
 *
 * Allocates a #GstClvMemory of @size bytes on @device; its contents are
 * undefined.  gst_clv_memory_init_once() must have been called.
 *
 * Returns: (transfer full) (nullable): the memory, or %NULL with @error
 *     set when the device cannot allocate it.
 *
 * Since: 0.1
 */
GstMemory *
gst_clv_memory_alloc (GstClvDevice * device, gsize size, GError ** error)
{
  ClvDevice *dev;
  GstClvMemory *mem;
  cl_mem buffer;

  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);
  g_return_val_if_fail (clv_allocator != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dev = gst_clv_device_get_runtime (device);
  buffer = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, error);
  if (buffer == NULL)
    return NULL;
  mem = g_new0 (GstClvMemory, 1);
  mem->priv = g_new0 (GstClvMemoryPrivate, 1);
  mem->device = gst_object_ref (device);
  mem->priv->runtime = dev;
  mem->priv->buffer = buffer;
  g_mutex_init (&mem->priv->lock);
  gst_memory_init (GST_MEMORY_CAST (mem), 0, clv_allocator, NULL, size, 0, 0,
      size);
  COUNT (allocations);
  GST_LOG ("allocated %" G_GSIZE_FORMAT " bytes on %s", size,
      dev->device_name);
  return GST_MEMORY_CAST (mem);
}

/**
 * gst_clv_buffer_peek_memory:
 * @buffer: a #GstBuffer
 * @device: a #GstClvDevice
 *
 * The memory of @buffer if kernels on @device can use it where it is: a
 * single #GstClvMemory of @device's context, whole (at offset 0).
 *
 * Returns: (transfer none) (nullable): the memory, or %NULL.
 *
 * Since: 0.1
 */
GstClvMemory *
gst_clv_buffer_peek_memory (GstBuffer * buffer, GstClvDevice * device)
{
  GstMemory *mem;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_clv_memory (mem) || mem->offset != 0
      || !gst_clv_device_is_same_context (((GstClvMemory *) mem)->device,
          device))
    return NULL;
  return (GstClvMemory *) mem;
}

/* Called with the memory lock. */
static gboolean
ensure_host_copy (GstClvMemory * mem, GError ** error)
{
  GstClvMemoryPrivate *priv = mem->priv;

  /* Mapped once for the memory's life: a pinned host copy to transfer
   * from and to at full speed. */
  if (priv->host_data == NULL)
    priv->host_data = clv_pinned_new (priv->runtime,
        GST_MEMORY_CAST (mem)->maxsize, &priv->host_buffer, error);
  return priv->host_data != NULL;
}

/* Brings the device copy up to date.  Called with the memory lock. */
static gboolean
sync_device (GstClvMemory * mem, GError ** error)
{
  GstMemory *gmem = GST_MEMORY_CAST (mem);

  if (!GST_MEMORY_FLAG_IS_SET (gmem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD))
    return TRUE;
  if (!gst_clv_upload (mem->priv->runtime, mem->priv->buffer, 0,
          mem->priv->host_data, gmem->maxsize, 0, NULL, NULL, error))
    return FALSE;
  GST_MEMORY_FLAG_UNSET (gmem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD);
  return TRUE;
}

/* Brings the host copy up to date.  Called with the memory lock. */
static gboolean
sync_host (GstClvMemory * mem, GError ** error)
{
  GstMemory *gmem = GST_MEMORY_CAST (mem);

  if (!ensure_host_copy (mem, error))
    return FALSE;
  if (!GST_MEMORY_FLAG_IS_SET (gmem, GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD))
    return TRUE;
  if (!gst_clv_download (mem->priv->runtime, mem->priv->buffer, 0,
          mem->priv->host_data, gmem->maxsize, error))
    return FALSE;
  GST_MEMORY_FLAG_UNSET (gmem, GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD);
  return TRUE;
}

static gboolean
check_range (GstClvMemory * mem, gsize offset, gsize size, GError ** error)
{
  const gsize maxsize = GST_MEMORY_CAST (mem)->maxsize;

  if (offset <= maxsize && size <= maxsize - offset)
    return TRUE;
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "Bytes %" G_GSIZE_FORMAT
      " to %" G_GSIZE_FORMAT " are outside an OpenCL memory of %"
      G_GSIZE_FORMAT " bytes", offset, offset + size, maxsize);
  return FALSE;
}

static ClvTransferFlags
transfer_flags (GstClvTransferFlags flags)
{
  return ((flags & GST_CLV_TRANSFER_FLAG_UNORDERED) ? CLV_TRANSFER_UNORDERED :
      0) | ((flags & GST_CLV_TRANSFER_FLAG_STAGED) ? CLV_TRANSFER_STAGED : 0);
}

/**
 * gst_clv_memory_upload:
 * @mem: a #GstClvMemory
 * @offset: where in @mem the bytes go
 * @data: (array length=size) (element-type guint8): the bytes
 * @size: how many
 * @flags: how to copy them
 * @error: return location for a #GError, or %NULL
 *
 * Copies @size bytes of host memory into the device copy of @mem from
 * @offset on, and returns once @data may change; kernels enqueued on the
 * device's queue afterwards see them.  The host copy, if any, is updated
 * too when the copy is staged through it, and is otherwise downloaded
 * again by the next CPU map.
 *
 * Returns: %TRUE, or %FALSE with @error set.
 *
 * Since: 0.1
 */
gboolean
gst_clv_memory_upload (GstClvMemory * mem, gsize offset, gconstpointer data,
    gsize size, GstClvTransferFlags flags, GError ** error)
{
  const gboolean staged = (flags & GST_CLV_TRANSFER_FLAG_STAGED) != 0;
  GstClvMemoryPrivate *priv;
  ClvStager *stager = NULL;
  gboolean ok;

  g_return_val_if_fail (gst_is_clv_memory (GST_MEMORY_CAST (mem)), FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  priv = mem->priv;
  if (!check_range (mem, offset, size, error))
    return FALSE;
  g_mutex_lock (&priv->lock);
  /* Bytes outside the range keep the newer side's value. */
  ok = sync_device (mem, error);
  if (ok && staged) {
    ok = ensure_host_copy (mem, error);
    if (ok)
      stager = clv_stager_new_for_pinned (priv->runtime, priv->host_buffer,
          (guint8 *) priv->host_data + offset, size);
  }
  ok = ok && gst_clv_upload (priv->runtime, priv->buffer, offset, data, size,
      transfer_flags (flags), stager, NULL, error);
  /* Waits for the DMAs that read the host copy. */
  clv_stager_free (stager);
  if (ok && !staged)
    GST_MINI_OBJECT_FLAG_SET (mem, GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD);
  g_mutex_unlock (&priv->lock);
  return ok;
}

/**
 * gst_clv_memory_download:
 * @mem: a #GstClvMemory
 * @offset: where in @mem the bytes are
 * @data: (out caller-allocates) (array length=size) (element-type guint8):
 *     where they go
 * @size: how many
 * @flags: how to copy them: %GST_CLV_TRANSFER_FLAG_STAGED reads them
 *     into the memory's pinned host copy first
 * @error: return location for a #GError, or %NULL
 *
 * Copies @size bytes of @mem from @offset on into host memory, once the
 * kernels enqueued on the device's queue before have written them
 * (%GST_CLV_TRANSFER_FLAG_UNORDERED: without waiting for those), and
 * returns once they are there.  When the host copy is newer, they come
 * from there.
 *
 * Returns: %TRUE, or %FALSE with @error set.
 *
 * Since: 0.1
 */
gboolean
gst_clv_memory_download (GstClvMemory * mem, gsize offset, gpointer data,
    gsize size, GstClvTransferFlags flags, GError ** error)
{
  GstClvMemoryPrivate *priv;
  gboolean ok = TRUE;

  g_return_val_if_fail (gst_is_clv_memory (GST_MEMORY_CAST (mem)), FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  priv = mem->priv;
  if (!check_range (mem, offset, size, error))
    return FALSE;
  g_mutex_lock (&priv->lock);
  if (GST_MEMORY_FLAG_IS_SET (mem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD)) {
    memcpy (data, (guint8 *) priv->host_data + offset, size);
  } else {
    const gboolean staged = (flags & GST_CLV_TRANSFER_FLAG_STAGED) != 0;
    cl_command_queue queue = (flags & GST_CLV_TRANSFER_FLAG_UNORDERED) ?
        priv->runtime->transfer_queue : priv->runtime->queue;

    ok = (!staged || ensure_host_copy (mem, error))
        && clv_read_buffer_after (priv->runtime, queue, NULL, priv->buffer,
        offset, size, staged ? (guint8 *) priv->host_data + offset : data,
        error);
    if (ok && staged)
      memcpy (data, (guint8 *) priv->host_data + offset, size);
  }
  if (ok && !GST_MEMORY_FLAG_IS_SET (mem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD))
    COUNT (downloads);
  g_mutex_unlock (&priv->lock);
  return ok;
}

static gpointer
clv_mem_map_full (GstMemory * gmem, GstMapInfo * info, gsize maxsize)
{
  GstClvMemory *mem = (GstClvMemory *) gmem;
  GstClvMemoryPrivate *priv = mem->priv;
  GstMapFlags flags = info->flags;
  const gboolean device = (flags & GST_MAP_OPENCL) == GST_MAP_OPENCL;
  GError *error = NULL;
  gpointer data = NULL;

  g_mutex_lock (&priv->lock);
  /* GstMemory adds the offset to what we return: a cl_mem can't take it. */
  if (device && gmem->offset != 0)
    goto offset_map;
  if (!(device ? sync_device (mem, &error) : sync_host (mem, &error)))
    goto failed;
  if (flags & GST_MAP_WRITE)
    GST_MINI_OBJECT_FLAG_SET (gmem, device ?
        GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD :
        GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD);
  data = device ? (gpointer) priv->buffer : priv->host_data;
  g_mutex_unlock (&priv->lock);
  return data;

  /* ERRORS */
offset_map:
  {
    GST_ERROR ("cannot map memory with offset %" G_GSIZE_FORMAT
        " for OpenCL; map it for the CPU", gmem->offset);
    g_mutex_unlock (&priv->lock);
    return NULL;
  }
failed:
  {
    GST_ERROR ("cannot map OpenCL memory: %s", error->message);
    g_clear_error (&priv->map_error);
    priv->map_error = error;
    g_mutex_unlock (&priv->lock);
    return NULL;
  }
}

GError *
gst_clv_memory_take_map_error (GstMemory * gmem)
{
  GstClvMemoryPrivate *priv;
  GError *error;

  if (!gst_is_clv_memory (gmem))
    return NULL;
  priv = ((GstClvMemory *) gmem)->priv;
  g_mutex_lock (&priv->lock);
  error = g_steal_pointer (&priv->map_error);
  g_mutex_unlock (&priv->lock);
  return error;
}

static void
clv_mem_unmap_full (GstMemory * gmem, GstMapInfo * info)
{
  GstClvMemory *mem = (GstClvMemory *) gmem;

  /* The flags were set at map time, so concurrent maps see them already;
   * set them again in case a map of the other side cleared them meanwhile. */
  g_mutex_lock (&mem->priv->lock);
  if (info->flags & GST_MAP_WRITE)
    GST_MINI_OBJECT_FLAG_SET (gmem,
        (info->flags & GST_MAP_OPENCL) == GST_MAP_OPENCL ?
        GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD :
        GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD);
  g_mutex_unlock (&mem->priv->lock);
}

/* Called with the locks of both. */
static gboolean
copy_newer_side (GstClvMemory * mem, GstClvMemory * copy, gsize from,
    gsize size, GError ** error)
{
  GstMemory *gmem = GST_MEMORY_CAST (mem);

  if (GST_MEMORY_FLAG_IS_SET (gmem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD)) {
    if (!ensure_host_copy (copy, error))
      return FALSE;
    memcpy (copy->priv->host_data, (guint8 *) mem->priv->host_data + from,
        size);
    GST_MINI_OBJECT_FLAG_SET (copy, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD);
    return TRUE;
  }
  CLV_CHECK (clEnqueueCopyBuffer (mem->priv->runtime->queue, mem->priv->buffer,
          copy->priv->buffer, from, 0, size, 0, NULL, NULL), error, fail);
  GST_MINI_OBJECT_FLAG_SET (copy, GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD);
  return TRUE;

fail:
  return FALSE;
}

/* A copy of bytes [offset, offset + size) of `gmem`, made on whichever side
 * is current, so that it crosses neither way. */
static GstMemory *
clv_mem_copy (GstMemory * gmem, gssize offset, gssize size)
{
  GstClvMemory *mem = (GstClvMemory *) gmem;
  GstClvMemory *copy;
  GError *error = NULL;
  gboolean ok;

  if (size == -1)
    size = gmem->size > (gsize) offset ? gmem->size - offset : 0;
  copy = (GstClvMemory *) gst_clv_memory_alloc (mem->device, size, &error);
  if (copy == NULL)
    goto failed;
  g_mutex_lock (&mem->priv->lock);
  ok = copy_newer_side (mem, copy, gmem->offset + offset, size, &error);
  g_mutex_unlock (&mem->priv->lock);
  if (!ok)
    goto failed;
  return GST_MEMORY_CAST (copy);

failed:
  GST_ERROR ("cannot copy OpenCL memory: %s", error->message);
  g_clear_error (&error);
  if (copy)
    gst_memory_unref (GST_MEMORY_CAST (copy));
  return NULL;
}

/* Parts of a memory are copied (gst_buffer_copy_region), not shared: a
 * sub-memory would need the parent's transfer state. */
static GstMemory *
clv_mem_share (GstMemory * gmem, gssize offset, gssize size)
{
  return NULL;
}

static GstMemory *
gst_clv_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GST_WARNING_OBJECT (allocator, "OpenCL memory needs a device; use "
      "gst_clv_memory_alloc() or a GstClvBufferPool");
  return NULL;
}

static void
gst_clv_allocator_free (GstAllocator * allocator, GstMemory * gmem)
{
  GstClvMemory *mem = (GstClvMemory *) gmem;
  GstClvMemoryPrivate *priv = mem->priv;

  clv_pinned_free (priv->runtime, priv->host_buffer, priv->host_data);
  clReleaseMemObject (priv->buffer);
  g_clear_error (&priv->map_error);
  g_mutex_clear (&priv->lock);
  gst_object_unref (mem->device);
  g_free (priv);
  g_free (mem);
}

static void
gst_clv_allocator_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  guint64 n = 0;

  G_LOCK (counters);
  switch (prop_id) {
    case PROP_UPLOADS:
      n = counters.uploads;
      break;
    case PROP_DOWNLOADS:
      n = counters.downloads;
      break;
    case PROP_ALLOCATIONS:
      n = counters.allocations;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  G_UNLOCK (counters);
  g_value_set_uint64 (value, n);
}

static void
gst_clv_allocator_class_init (GstClvAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->get_property = gst_clv_allocator_get_property;
  allocator_class->alloc = gst_clv_allocator_alloc;
  allocator_class->free = gst_clv_allocator_free;

  /**
   * GstClvAllocator:uploads:
   *
   * Frames and memories copied from the host to a device so far, in the
   * whole process.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_UPLOADS,
      g_param_spec_uint64 ("uploads", "Uploads",
          "Frames and memories copied from the host to a device so far",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstClvAllocator:downloads:
   *
   * Frames and memories copied from a device to the host so far, in the
   * whole process.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DOWNLOADS,
      g_param_spec_uint64 ("downloads", "Downloads",
          "Frames and memories copied from a device to the host so far",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstClvAllocator:allocations:
   *
   * #GstClvMemory allocated so far, in the whole process.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOCATIONS,
      g_param_spec_uint64 ("allocations", "Allocations",
          "OpenCL memories allocated so far", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
gst_clv_allocator_init (GstClvAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_CLV_MEMORY_TYPE_NAME;
  allocator->mem_map_full = clv_mem_map_full;
  allocator->mem_unmap_full = clv_mem_unmap_full;
  allocator->mem_copy = clv_mem_copy;
  allocator->mem_share = clv_mem_share;
  GST_OBJECT_FLAG_SET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/**
 * gst_clv_memory_init_once:
 *
 * Creates and registers the #GstClvAllocator; call it before the other
 * functions of #GstClvMemory (the clvision plugin does when it loads).
 *
 * Since: 0.1
 */
void
gst_clv_memory_init_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_clv_memory_debug, "clvmemory", 0,
        "clvision OpenCL memory");
    clv_allocator = g_object_new (GST_TYPE_CLV_ALLOCATOR, NULL);
    gst_object_ref_sink (clv_allocator);
    /* The registry keeps a reference; ours stays for the process. */
    gst_allocator_register (GST_CLV_MEMORY_TYPE_NAME,
        gst_object_ref (clv_allocator));
    g_once_init_leave (&done, 1);
  }
}

/* ---- Buffers and caps ---------------------------------------------------- */

void
gst_clv_buffer_get_video_info (GstBuffer * buf, const GstVideoInfo * info,
    GstVideoInfo * out)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (buf);

  *out = *info;
  if (vmeta == NULL)
    return;
  for (guint i = 0; i < vmeta->n_planes; i++) {
    GST_VIDEO_INFO_PLANE_OFFSET (out, i) = vmeta->offset[i];
    GST_VIDEO_INFO_PLANE_STRIDE (out, i) = vmeta->stride[i];
  }
  GST_VIDEO_INFO_SIZE (out) = gst_buffer_get_size (buf);
}

GstCaps *
gst_clv_caps_prefer_opencl (GstCaps * caps)
{
  GstCaps *first, *rest;

  if (gst_caps_is_any (caps))
    return caps;
  first = gst_caps_new_empty ();
  rest = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean cl = f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_OPENCL);

    gst_caps_append_structure_full (cl ? first : rest,
        gst_structure_copy (gst_caps_get_structure (caps, i)),
        f ? gst_caps_features_copy (f) : NULL);
  }
  gst_caps_unref (caps);
  return gst_caps_merge (first, rest);
}
