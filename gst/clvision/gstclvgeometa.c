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
  geo->has_geotransform = FALSE;
  geo->n_gcps = 0;
  geo->gcps = NULL;
  geo->gcp_wkt = NULL;
  return TRUE;
}

static void
clear_gcps (GstClvGeoMeta * geo)
{
  for (guint i = 0; i < geo->n_gcps; i++)
    g_free (geo->gcps[i].id);
  g_clear_pointer (&geo->gcps, g_free);
  g_clear_pointer (&geo->gcp_wkt, g_free);
  geo->n_gcps = 0;
}

static void
gst_clv_geo_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstClvGeoMeta *geo = (GstClvGeoMeta *) meta;

  g_free (geo->wkt);
  clear_gcps (geo);
}

/* A copy of `geo` on `dest`. */
static GstClvGeoMeta *
copy_geo_meta (GstBuffer * dest, const GstClvGeoMeta * geo)
{
  GstClvGeoMeta *out = gst_buffer_add_clv_geo_meta (dest,
      geo->has_geotransform ? geo->geotransform : NULL, geo->wkt);

  gst_clv_geo_meta_set_gcps (out, geo->gcps, geo->n_gcps, geo->gcp_wkt);
  return out;
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
    return copy_geo_meta (dest, geo) != NULL;
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
  geo->has_geotransform = geotransform != NULL;
  for (int i = 0; geotransform && i < 6; i++)
    geo->geotransform[i] = geotransform[i];
  geo->wkt = g_strdup (wkt ? wkt : "");
  geo->gcp_wkt = g_strdup ("");
  return geo;
}

void
gst_clv_geo_meta_set_gcps (GstClvGeoMeta * geo, const GstClvGcp * gcps,
    guint n, const gchar * wkt)
{
  GstClvGcp *copy = g_new (GstClvGcp, n);

  for (guint i = 0; i < n; i++) {
    copy[i] = gcps[i];
    copy[i].id = g_strdup (gcps[i].id ? gcps[i].id : "");
  }
  clear_gcps (geo);
  geo->gcps = copy;
  geo->n_gcps = n;
  geo->gcp_wkt = g_strdup (wkt ? wkt : "");
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
  /* GCPs go forward, from input to output: the inverse of m. */
  const gdouble det = m[1] * m[5] - m[2] * m[4];
  GstClvGeoMeta *out = gst_buffer_add_clv_geo_meta (buffer,
      in->has_geotransform ? gt : NULL, in->wkt);
  GstClvGcp *gcps;

  if (in->n_gcps == 0 || det == 0)
    return out;
  gcps = g_new (GstClvGcp, in->n_gcps);
  for (guint i = 0; i < in->n_gcps; i++) {
    const gdouble dc = in->gcps[i].pixel - m[0];
    const gdouble dr = in->gcps[i].line - m[3];

    gcps[i] = in->gcps[i];
    gcps[i].pixel = (m[5] * dc - m[2] * dr) / det;
    gcps[i].line = (m[1] * dr - m[4] * dc) / det;
  }
  gst_clv_geo_meta_set_gcps (out, gcps, in->n_gcps, in->gcp_wkt);
  g_free (gcps);
  return out;
}
