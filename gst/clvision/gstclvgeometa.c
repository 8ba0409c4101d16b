/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvgeometa.h"

GType
gst_clv_geo_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, gst_meta_api_type_register ("GstClvGeoMetaAPI",
            tags));
  return type;
}

static gboolean
gst_clv_geo_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstClvGeoMeta *geo = (GstClvGeoMeta *) meta;

  for (int i = 0; i < 6; i++)
    geo->geotransform[i] = 0;
  geo->wkt = NULL;
  return TRUE;
}

static void
gst_clv_geo_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  g_free (((GstClvGeoMeta *) meta)->wkt);
}

static gboolean
gst_clv_geo_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstClvGeoMeta *geo = (GstClvGeoMeta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* A region of the buffer's bytes is no longer a known frame geometry. */
    if (copy->region)
      return FALSE;
    return gst_buffer_add_clv_geo_meta (dest, geo->geotransform,
        geo->wkt) != NULL;
  }
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *scale = data;
    const gdouble m[6] = { 0,
      (gdouble) GST_VIDEO_INFO_WIDTH (scale->in_info) /
          GST_VIDEO_INFO_WIDTH (scale->out_info), 0, 0, 0,
      (gdouble) GST_VIDEO_INFO_HEIGHT (scale->in_info) /
          GST_VIDEO_INFO_HEIGHT (scale->out_info)
    };

    return gst_clv_geo_meta_add_mapped (dest, geo, m) != NULL;
  }
  /* Any other change of the pixels' geometry is unknown here. */
  return FALSE;
}

const GstMetaInfo *
gst_clv_geo_meta_get_info (void)
{
  static gsize info = 0;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *registered =
        gst_meta_register (GST_CLV_GEO_META_API_TYPE, "GstClvGeoMeta",
        sizeof (GstClvGeoMeta), gst_clv_geo_meta_init,
        gst_clv_geo_meta_free, gst_clv_geo_meta_transform);
    g_once_init_leave (&info, (gsize) registered);
  }
  return (const GstMetaInfo *) info;
}

GstClvGeoMeta *
gst_buffer_add_clv_geo_meta (GstBuffer * buffer,
    const gdouble geotransform[6], const gchar * wkt)
{
  GstClvGeoMeta *geo;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  geo = (GstClvGeoMeta *) gst_buffer_add_meta (buffer,
      GST_CLV_GEO_META_INFO, NULL);
  for (int i = 0; i < 6; i++)
    geo->geotransform[i] = geotransform[i];
  geo->wkt = g_strdup (wkt ? wkt : "");
  return geo;
}

GstClvGeoMeta *
gst_clv_geo_meta_add_mapped (GstBuffer * buffer, const GstClvGeoMeta * in,
    const gdouble m[6])
{
  const gdouble *g = in->geotransform;
  const gdouble gt[6] = {
    g[0] + g[1] * m[0] + g[2] * m[3], g[1] * m[1] + g[2] * m[4],
    g[1] * m[2] + g[2] * m[5],
    g[3] + g[4] * m[0] + g[5] * m[3], g[4] * m[1] + g[5] * m[4],
    g[4] * m[2] + g[5] * m[5],
  };

  return gst_buffer_add_clv_geo_meta (buffer, gt, in->wkt);
}
