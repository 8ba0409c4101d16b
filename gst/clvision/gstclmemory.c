/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory and its allocator; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_memory_debug);
#define GST_CAT_DEFAULT gst_cl_memory_debug

struct _GstClAllocator
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

G_DEFINE_TYPE (GstClAllocator, gst_cl_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *cl_allocator;

/* ---- Counters ------------------------------------------------------------ */

typedef struct
{
  guint64 uploads;
  guint64 downloads;
  guint64 allocations;
} Counters;

static Counters counters;
G_LOCK_DEFINE_STATIC (counters);

#define COUNT(field) G_STMT_START { G_LOCK (counters); counters.field++; \
  G_UNLOCK (counters); } G_STMT_END

void
gst_cl_memory_get_transfer_counts (guint64 * uploads, guint64 * downloads)
{
  G_LOCK (counters);
  *uploads = counters.uploads;
  *downloads = counters.downloads;
  G_UNLOCK (counters);
}

guint64
gst_cl_memory_get_allocation_count (void)
{
  guint64 n;

  G_LOCK (counters);
  n = counters.allocations;
  G_UNLOCK (counters);
  return n;
}

/* ---- Transfers ----------------------------------------------------------- */

static gboolean
upload_on (cl_command_queue queue, cl_mem mem, gsize offset, gsize size,
    const void *src, GError ** error)
{
  CLV_CHECK (clEnqueueWriteBuffer (queue, mem, CL_TRUE, offset, size, src, 0,
          NULL, NULL), error, fail);
  COUNT (uploads);
  return TRUE;
fail:
  return FALSE;
}

gboolean
gst_cl_upload (ClvDevice * dev, cl_mem mem, gsize offset, gsize size,
    const void *src, GError ** error)
{
  return upload_on (dev->queue, mem, offset, size, src, error);
}

gboolean
gst_cl_upload_unordered (ClvDevice * dev, cl_mem mem, gsize offset,
    gsize size, const void *src, GError ** error)
{
  return upload_on (dev->transfer_queue, mem, offset, size, src, error);
}

gboolean
gst_cl_upload_pinned (ClvDevice * dev, cl_mem mem, gsize offset, gsize size,
    const void *src, cl_event * done, GError ** error)
{
  cl_event ev = NULL;
  cl_int waited;

  CLV_CHECK (clEnqueueWriteBuffer (dev->transfer_queue, mem, CL_FALSE,
          offset, size, src, 0, NULL, &ev), error, fail);
  if (done) {
    CLV_CHECK (clEnqueueBarrierWithWaitList (dev->queue, 1, &ev, NULL),
        error, fail);
    CLV_CHECK (clFlush (dev->transfer_queue), error, fail);
    *done = ev;
  } else {
    waited = clv_event_wait (dev, ev);
    g_clear_pointer (&ev, clReleaseEvent);
    CLV_CHECK (waited, error, fail);
  }
  COUNT (uploads);
  return TRUE;
fail:
  if (ev) {
    clWaitForEvents (1, &ev);
    clReleaseEvent (ev);
  }
  return FALSE;
}

gboolean
gst_cl_upload_staged (ClvDevice * dev, gboolean unordered,
    ClvPinnedStage * stage, cl_mem mem, gsize offset, gsize size,
    const void *src, cl_event * done, GError ** error)
{
  if (!clv_upload_staged (dev, unordered ? dev->transfer_queue : dev->queue,
          stage, mem, offset, src, size, done, error))
    return FALSE;
  COUNT (uploads);
  return TRUE;
}

gboolean
gst_cl_download (ClvDevice * dev, cl_mem mem, gsize offset, gsize size,
    void *dst, GError ** error)
{
  if (!clv_read_buffer (dev, mem, offset, size, dst, error))
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

gboolean
gst_cl_upload_frame (ClvDevice * dev, const GstVideoFrame * frame, cl_mem mem,
    const GstVideoInfo * info, GError ** error)
{
  return gst_cl_upload_frame_staged (dev, frame, mem, info, NULL, error);
}

gboolean
gst_cl_upload_frame_staged (ClvDevice * dev, const GstVideoFrame * frame,
    cl_mem mem, const GstVideoInfo * info, ClvPinnedStage * stage,
    GError ** error)
{
  const GstVideoInfo *src = &frame->info;
  guint n_planes = GST_VIDEO_INFO_N_PLANES (src);
  const guint8 *base = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0)
      - GST_VIDEO_INFO_PLANE_OFFSET (src, 0);
  gboolean one_block = TRUE;

  /* One plain copy when both sides lay the frame out alike (the usual case:
   * both follow the caps) and the planes are one block of memory. */
  for (guint i = 1; i < n_planes; i++)
    one_block &= (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, i) ==
        base + GST_VIDEO_INFO_PLANE_OFFSET (src, i);
  if (one_block && same_layout (src, info))
    return stage ? gst_cl_upload_staged (dev, FALSE, stage, mem, 0,
        GST_VIDEO_INFO_SIZE (info), base, NULL, error) : gst_cl_upload (dev,
        mem, 0, GST_VIDEO_INFO_SIZE (info), base, error);

  if (GST_VIDEO_FORMAT_INFO_IS_TILED (src->finfo))
    goto tiled;
  for (guint i = 0; i < n_planes; i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows;
    gsize row_bytes;
    size_t buf_origin[3] = { GST_VIDEO_INFO_PLANE_OFFSET (info, i), 0, 0 };
    size_t host_origin[3] = { 0, 0, 0 };
    size_t region[3];

    gst_video_format_info_component (src->finfo, i, comp);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
    /* The pixels of a row never extend past the smaller stride. */
    row_bytes = MIN (GST_VIDEO_INFO_PLANE_STRIDE (src, i),
        GST_VIDEO_INFO_PLANE_STRIDE (info, i));
    region[0] = row_bytes;
    region[1] = rows;
    region[2] = 1;
    CLV_CHECK (clEnqueueWriteBufferRect (dev->queue, mem, CL_TRUE, buf_origin,
            host_origin, region, GST_VIDEO_INFO_PLANE_STRIDE (info, i), 0,
            GST_VIDEO_INFO_PLANE_STRIDE (src, i), 0,
            GST_VIDEO_FRAME_PLANE_DATA (frame, i), 0, NULL, NULL), error, fail);
  }
  COUNT (uploads);
  return TRUE;

tiled:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Cannot re-stride the tiled format %s on upload",
      GST_VIDEO_INFO_NAME (src));
fail:
  return FALSE;
}

/* ---- The memory ---------------------------------------------------------- */

gboolean
gst_is_cl_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL
      && GST_IS_CL_ALLOCATOR (mem->allocator);
}

GstMemory *
gst_cl_memory_alloc (ClvDevice * dev, gsize size, GError ** error)
{
  GstClMemory *mem;
  cl_mem buffer = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, error);

  if (buffer == NULL)
    return NULL;
  mem = g_new0 (GstClMemory, 1);
  mem->device = clv_device_ref (dev);
  mem->buffer = buffer;
  g_mutex_init (&mem->lock);
  gst_memory_init (GST_MEMORY_CAST (mem), 0, cl_allocator, NULL, size, 0, 0,
      size);
  COUNT (allocations);
  GST_LOG ("allocated %" G_GSIZE_FORMAT " bytes on %s", size,
      dev->device_name);
  return GST_MEMORY_CAST (mem);
}

GstClMemory *
gst_cl_buffer_peek_device_memory (GstBuffer * buf, ClvDevice * dev)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buf) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_is_cl_memory (mem) || mem->offset != 0
      || !gst_cl_device_same_context (((GstClMemory *) mem)->device, dev))
    return NULL;
  return (GstClMemory *) mem;
}

/* Called with the memory lock. */
static gboolean
ensure_staging (GstClMemory * mem, GError ** error)
{
  /* Mapped once for the memory's life: a pinned host copy to transfer
   * from and to at full speed. */
  if (mem->staging_data == NULL)
    mem->staging_data = clv_pinned_new (mem->device,
        GST_MEMORY_CAST (mem)->maxsize, &mem->staging, error);
  return mem->staging_data != NULL;
}

static gpointer
cl_mem_map_full (GstMemory * gmem, GstMapInfo * info, gsize maxsize)
{
  GstClMemory *mem = (GstClMemory *) gmem;
  GstMapFlags flags = info->flags;
  GError *error = NULL;
  gpointer data = NULL;

  g_mutex_lock (&mem->lock);
  if ((flags & GST_MAP_OPENCL) == GST_MAP_OPENCL) {
    /* GstMemory adds the offset to what we return: a cl_mem can't take it. */
    if (gmem->offset != 0)
      goto offset_map;
    if (GST_MEMORY_FLAG_IS_SET (gmem, GST_CL_MEMORY_NEED_UPLOAD)) {
      if (!gst_cl_upload (mem->device, mem->buffer, 0, gmem->maxsize,
              mem->staging_data, &error))
        goto failed;
      GST_MEMORY_FLAG_UNSET (gmem, GST_CL_MEMORY_NEED_UPLOAD);
    }
    if (flags & GST_MAP_WRITE)
      GST_MINI_OBJECT_FLAG_SET (gmem, GST_CL_MEMORY_NEED_DOWNLOAD);
    data = mem->buffer;
  } else {
    if (!ensure_staging (mem, &error))
      goto failed;
    if (GST_MEMORY_FLAG_IS_SET (gmem, GST_CL_MEMORY_NEED_DOWNLOAD)) {
      if (!gst_cl_download (mem->device, mem->buffer, 0, gmem->maxsize,
              mem->staging_data, &error))
        goto failed;
      GST_MEMORY_FLAG_UNSET (gmem, GST_CL_MEMORY_NEED_DOWNLOAD);
    }
    if (flags & GST_MAP_WRITE)
      GST_MINI_OBJECT_FLAG_SET (gmem, GST_CL_MEMORY_NEED_UPLOAD);
    data = mem->staging_data;
  }
  g_mutex_unlock (&mem->lock);
  return data;

  /* ERRORS */
offset_map:
  {
    GST_ERROR ("cannot map memory with offset %" G_GSIZE_FORMAT
        " for OpenCL; map it for the CPU", gmem->offset);
    g_mutex_unlock (&mem->lock);
    return NULL;
  }
failed:
  {
    GST_ERROR ("cannot map OpenCL memory: %s", error->message);
    g_clear_error (&error);
    g_mutex_unlock (&mem->lock);
    return NULL;
  }
}

static void
cl_mem_unmap_full (GstMemory * gmem, GstMapInfo * info)
{
  GstClMemory *mem = (GstClMemory *) gmem;

  /* The flags were set at map time, so concurrent maps see them already;
   * set them again in case a map of the other side cleared them meanwhile. */
  g_mutex_lock (&mem->lock);
  if (info->flags & GST_MAP_WRITE)
    GST_MINI_OBJECT_FLAG_SET (gmem,
        (info->flags & GST_MAP_OPENCL) == GST_MAP_OPENCL ?
        GST_CL_MEMORY_NEED_DOWNLOAD : GST_CL_MEMORY_NEED_UPLOAD);
  g_mutex_unlock (&mem->lock);
}

/* A copy of bytes [offset, offset + size) of `gmem`, made on whichever side
 * is current, so that it crosses neither way. */
static GstMemory *
cl_mem_copy (GstMemory * gmem, gssize offset, gssize size)
{
  GstClMemory *mem = (GstClMemory *) gmem;
  GstClMemory *copy;
  GError *error = NULL;
  gsize from = gmem->offset + offset;

  if (size == -1)
    size = gmem->size > (gsize) offset ? gmem->size - offset : 0;
  copy = (GstClMemory *) gst_cl_memory_alloc (mem->device, size, &error);
  if (copy == NULL)
    goto failed;

  g_mutex_lock (&mem->lock);
  if (GST_MEMORY_FLAG_IS_SET (gmem, GST_CL_MEMORY_NEED_UPLOAD)) {
    if (!ensure_staging (copy, &error)) {
      g_mutex_unlock (&mem->lock);
      goto failed;
    }
    memcpy (copy->staging_data, (guint8 *) mem->staging_data + from, size);
    GST_MINI_OBJECT_FLAG_SET (copy, GST_CL_MEMORY_NEED_UPLOAD);
  } else {
    cl_int st = clEnqueueCopyBuffer (mem->device->queue, mem->buffer,
        copy->buffer, from, 0, size, 0, NULL, NULL);
    if (st != CL_SUCCESS) {
      g_mutex_unlock (&mem->lock);
      clv_set_cl_error (&error, st, "clEnqueueCopyBuffer", __FILE__, __LINE__);
      goto failed;
    }
    GST_MINI_OBJECT_FLAG_SET (copy, GST_CL_MEMORY_NEED_DOWNLOAD);
  }
  g_mutex_unlock (&mem->lock);
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
cl_mem_share (GstMemory * gmem, gssize offset, gssize size)
{
  return NULL;
}

static GstMemory *
gst_cl_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  /* Memory belongs to a device: use gst_cl_memory_alloc() or the pool. */
  GST_WARNING_OBJECT (allocator, "OpenCL memory needs a device; use "
      "gst_cl_memory_alloc() or a GstClBufferPool");
  return NULL;
}

static void
gst_cl_allocator_free (GstAllocator * allocator, GstMemory * gmem)
{
  GstClMemory *mem = (GstClMemory *) gmem;

  clv_pinned_free (mem->device, mem->staging, mem->staging_data);
  clReleaseMemObject (mem->buffer);
  clv_device_unref (mem->device);
  g_mutex_clear (&mem->lock);
  g_free (mem);
}

static void
gst_cl_allocator_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  guint64 up, down;

  gst_cl_memory_get_transfer_counts (&up, &down);
  switch (prop_id) {
    case PROP_UPLOADS:
      g_value_set_uint64 (value, up);
      break;
    case PROP_DOWNLOADS:
      g_value_set_uint64 (value, down);
      break;
    case PROP_ALLOCATIONS:
      g_value_set_uint64 (value, gst_cl_memory_get_allocation_count ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_allocator_class_init (GstClAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->get_property = gst_cl_allocator_get_property;
  allocator_class->alloc = gst_cl_allocator_alloc;
  allocator_class->free = gst_cl_allocator_free;

  g_object_class_install_property (gobject_class, PROP_UPLOADS,
      g_param_spec_uint64 ("uploads", "Uploads",
          "Frames and memories copied from the host to a device so far",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DOWNLOADS,
      g_param_spec_uint64 ("downloads", "Downloads",
          "Frames and memories copied from a device to the host so far",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ALLOCATIONS,
      g_param_spec_uint64 ("allocations", "Allocations",
          "OpenCL memories allocated so far", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
gst_cl_allocator_init (GstClAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_CL_MEMORY_TYPE_NAME;
  allocator->mem_map_full = cl_mem_map_full;
  allocator->mem_unmap_full = cl_mem_unmap_full;
  allocator->mem_copy = cl_mem_copy;
  allocator->mem_share = cl_mem_share;
  GST_OBJECT_FLAG_SET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

void
gst_cl_memory_init_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_cl_memory_debug, "clmemory", 0,
        "clvision OpenCL memory");
    cl_allocator = g_object_new (GST_TYPE_CL_ALLOCATOR, NULL);
    gst_object_ref_sink (cl_allocator);
    /* The registry keeps a reference; ours stays for the process. */
    gst_allocator_register (GST_CL_MEMORY_TYPE_NAME,
        gst_object_ref (cl_allocator));
    g_once_init_leave (&done, 1);
  }
}

/* ---- Buffers and caps ---------------------------------------------------- */

void
gst_cl_buffer_video_info (GstBuffer * buf, const GstVideoInfo * info,
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
gst_cl_caps_prefer_opencl (GstCaps * caps)
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
