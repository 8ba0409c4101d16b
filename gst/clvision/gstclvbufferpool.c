/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvbufferpool
 * @title: GstClvBufferPool
 * @short_description: A pool of video buffers of #GstClvMemory
 *
 * Video buffers of #GstClvMemory on one device context.  The pool supports
 * %GST_BUFFER_POOL_OPTION_VIDEO_META (each buffer carries a #GstVideoMeta
 * with the pool's plane offsets and strides) and
 * %GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclv-private.h"
#include "gstclvraster.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_clv_buffer_pool_debug

/**
 * GstClvBufferPool:
 *
 * A #GstBufferPool of video buffers of #GstClvMemory.
 *
 * Since: 0.1
 */
struct _GstClvBufferPool
{
  GstBufferPool parent;

  GstClvDevice *device;
  /* The element that made the pool, which an allocation failure is an
   * error of (whoever allocates from the pool). */
  GWeakRef owner;

  /* configuration, set before the pool is active */
  GstVideoInfo info;
  gboolean add_video_meta;
  gboolean aligned;
  GstVideoAlignment align;
};

G_DEFINE_TYPE_WITH_CODE (GstClvBufferPool, gst_clv_buffer_pool,
    GST_TYPE_BUFFER_POOL, GST_DEBUG_CATEGORY_INIT (gst_clv_buffer_pool_debug,
        "clvbufferpool", 0, "clvision OpenCL buffer pool"));

/**
 * gst_clv_buffer_pool_new:
 * @device: the device whose context holds the buffers
 *
 * Makes a pool of #GstClvMemory on @device.
 *
 * Returns: (transfer full): a new pool of #GstClvMemory on @device, to be
 *     configured as every #GstBufferPool is.
 *
 * Since: 0.1
 */
GstBufferPool *
gst_clv_buffer_pool_new (GstClvDevice * device)
{
  GstClvBufferPool *pool;

  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  pool = g_object_new (GST_TYPE_CLV_BUFFER_POOL, NULL);
  gst_object_ref_sink (pool);
  pool->device = gst_object_ref (device);
  return GST_BUFFER_POOL_CAST (pool);
}

/**
 * gst_clv_buffer_pool_get_device:
 * @pool: a #GstClvBufferPool
 *
 * The device of @pool.
 *
 * Returns: (transfer none): the device whose context holds the pool's
 *     buffers.
 *
 * Since: 0.1
 */
GstClvDevice *
gst_clv_buffer_pool_get_device (GstClvBufferPool * pool)
{
  g_return_val_if_fail (GST_IS_CLV_BUFFER_POOL (pool), NULL);

  return pool->device;
}

GstBufferPool *
gst_clv_buffer_pool_new_for_caps (GstClvDevice * device, GstCaps * caps,
    guint * size, guint min, guint max, GstElement * owner)
{
  GstBufferPool *pool = gst_clv_buffer_pool_new (device);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  g_weak_ref_set (&GST_CLV_BUFFER_POOL (pool)->owner, owner);

  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (pool, "cannot pool %" GST_PTR_FORMAT, caps);
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_clv_buffer_pool_propose (GstClvDevice * device, GstQuery * query,
    GstElement * owner)
{
  GstCaps *caps;
  gboolean need_pool;
  GstVideoInfo info;
  GstBufferPool *pool;
  guint size;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !gst_clv_frame_layout_from_caps (&info, caps))
    return FALSE;
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!need_pool || gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;
  size = GST_VIDEO_INFO_SIZE (&info);
  pool = gst_clv_buffer_pool_new_for_caps (device, caps, &size, 0, 0, owner);
  if (pool == NULL)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

static const gchar **
gst_clv_buffer_pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META,
    GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT, NULL
  };
  return options;
}

static gboolean
gst_clv_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstClvBufferPool *self = GST_CLV_BUFFER_POOL (pool);
  GstCaps *caps = NULL;
  guint size, min_buffers, max_buffers;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min_buffers,
          &max_buffers) || caps == NULL)
    goto wrong_config;
  if (!gst_clv_frame_layout_from_caps (&info, caps))
    goto wrong_caps;

  /* Raster rows are never padded, and have no video meta. */
  self->add_video_meta = !gst_clv_caps_is_raster (caps)
      && gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  self->aligned = !gst_clv_caps_is_raster (caps)
      && gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  if (self->aligned) {
    gst_buffer_pool_config_get_video_alignment (config, &self->align);
    if (!gst_video_info_align (&info, &self->align))
      goto wrong_alignment;
    gst_buffer_pool_config_set_video_alignment (config, &self->align);
  }
  self->info = info;
  /* A larger size that a peer asked for is kept. */
  size = MAX (size, GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
      max_buffers);
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT ", %u bytes on %s", caps, size,
      gst_clv_device_get_name (self->device));
  return GST_BUFFER_POOL_CLASS (gst_clv_buffer_pool_parent_class)->set_config
      (pool, config);

  /* ERRORS */
wrong_config:
  {
    GST_WARNING_OBJECT (pool, "invalid config %" GST_PTR_FORMAT, config);
    return FALSE;
  }
wrong_caps:
  {
    GST_WARNING_OBJECT (pool, "no video caps in config %" GST_PTR_FORMAT,
        config);
    return FALSE;
  }
wrong_alignment:
  {
    GST_WARNING_OBJECT (pool, "cannot align %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
}

static GstFlowReturn
gst_clv_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstClvBufferPool *self = GST_CLV_BUFFER_POOL (pool);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo *info = &self->info;
  guint size;
  GstMemory *mem;
  GError *error = NULL;

  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  mem = gst_clv_memory_alloc (self->device, size, &error);
  if (mem == NULL)
    goto no_memory;
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  if (self->add_video_meta) {
    GstVideoMeta *vmeta = gst_buffer_add_video_meta_full (*buffer,
        GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info), info->offset, info->stride);
    if (self->aligned)
      gst_video_meta_set_alignment (vmeta, self->align);
  }
  return GST_FLOW_OK;

  /* ERRORS */
no_memory:
  {
    GstElement *owner = g_weak_ref_get (&self->owner);

    GST_ERROR_OBJECT (self, "%s", error->message);
    if (owner != NULL) {
      GST_ELEMENT_ERROR (owner, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate a frame on the device: %s", error->message),
          ("in %" GST_PTR_FORMAT, self));
      gst_object_unref (owner);
    }
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
}

/* A released buffer's contents are undefined for the next user, so neither
 * side needs to be brought up to date for it. */
static void
gst_clv_buffer_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (gst_is_clv_memory (mem))
      GST_MINI_OBJECT_FLAG_UNSET (mem, GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD |
          GST_CLV_MEMORY_TRANSFER_NEED_DOWNLOAD);
  }
  GST_BUFFER_POOL_CLASS (gst_clv_buffer_pool_parent_class)->reset_buffer (pool,
      buffer);
}

static void
gst_clv_buffer_pool_finalize (GObject * object)
{
  GstClvBufferPool *self = GST_CLV_BUFFER_POOL (object);

  gst_clear_object (&self->device);
  g_weak_ref_clear (&self->owner);
  G_OBJECT_CLASS (gst_clv_buffer_pool_parent_class)->finalize (object);
}

static void
gst_clv_buffer_pool_class_init (GstClvBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_clv_buffer_pool_finalize;
  pool_class->get_options = gst_clv_buffer_pool_get_options;
  pool_class->set_config = gst_clv_buffer_pool_set_config;
  pool_class->alloc_buffer = gst_clv_buffer_pool_alloc_buffer;
  pool_class->reset_buffer = gst_clv_buffer_pool_reset_buffer;
}

static void
gst_clv_buffer_pool_init (GstClvBufferPool * self)
{
  g_weak_ref_init (&self->owner, NULL);
}
