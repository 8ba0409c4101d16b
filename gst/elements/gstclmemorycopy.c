/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemoryCopy; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmemorycopy.h"
#include <gst/clvision/clvision.h>

/* Rasters move as their bytes: every format and number of bands. */
#define RASTER_FIELDS "format = (string) " GST_CLV_RASTER_FORMATS_ALL \
    ", bands = (int) [ 1, MAX ]"

G_DEFINE_ABSTRACT_TYPE (GstClMemoryCopy, gst_cl_memory_copy,
    GST_TYPE_CLV_FILTER);

/* Each pad prefers the memory of its side of the copy (clupload: system
 * memory in, OpenCL out; cldownload the other way), then the caps as they
 * are (passthrough). */
static GstCaps *
gst_cl_memory_copy_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  gboolean to_device = GST_CL_MEMORY_COPY_GET_CLASS (trans)->to_device;
  const gchar *feature = (direction == GST_PAD_SINK) == to_device ?
      GST_CAPS_FEATURE_MEMORY_OPENCL : GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY;
  GstCaps *ret = gst_caps_copy (caps);

  for (guint i = 0; i < gst_caps_get_size (ret); i++)
    gst_caps_set_features (ret, i, gst_caps_features_new (feature, NULL));
  ret = gst_caps_merge (ret, gst_caps_ref (caps));
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

/* Only the memory changes: every meta that doesn't describe the memory
 * (ROIs included) goes to the output as it is. */
static gboolean
gst_cl_memory_copy_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  return !gst_meta_api_type_has_tag (meta->info->api,
      g_quark_from_static_string (GST_META_TAG_MEMORY_STR));
}

static void
gst_cl_memory_copy_class_init (GstClMemoryCopyClass * klass)
{
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_clv_filter_class_add_raster_pad_templates (GST_CLV_FILTER_CLASS
      (klass), GST_VIDEO_FORMATS_ALL, RASTER_FIELDS, GST_VIDEO_FORMATS_ALL,
      RASTER_FIELDS);
  trans_class->passthrough_on_same_caps = TRUE;
  /* There is nothing to analyse in passthrough. */
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->transform_caps = gst_cl_memory_copy_transform_caps;
  trans_class->transform_meta = gst_cl_memory_copy_transform_meta;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_MEMORY_COPY, 0);
}

static void
gst_cl_memory_copy_init (GstClMemoryCopy * self)
{
}
