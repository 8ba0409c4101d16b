/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvgeometa
 * @title: GstClvGeoMeta
 * @short_description: Where on the ground a frame lies
 *
 * #GstClvGeoMeta carries the georeferencing of a frame through a
 * pipeline: GDAL's affine geotransform and its spatial reference system,
 * or ground control points.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvgeometa.h"

/**
 * gst_clv_geo_meta_api_get_type:
 *
 * The API type of #GstClvGeoMeta.
 *
 * Returns: the API type of #GstClvGeoMeta.
 *
 * Since: 0.1
 */
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

/**
 * gst_clv_geo_meta_get_info:
 *
 * The #GstMetaInfo of #GstClvGeoMeta, registered on first use.
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstClvGeoMeta.
 *
 * Since: 0.1
 */
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

/**
 * gst_buffer_add_clv_geo_meta:
 * @buffer: a writable #GstBuffer
 * @geotransform: (nullable) (array fixed-size=6): the geotransform, or
 *     %NULL for a frame georeferenced by GCPs only
 * @wkt: (nullable): its spatial reference system as WKT (%NULL: unknown)
 *
 * Attaches georeferencing without GCPs (gst_clv_geo_meta_set_gcps() adds
 * them).
 *
 * Returns: (transfer none): the meta.
 *
 * Since: 0.1
 */
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

/**
 * gst_buffer_get_clv_geo_meta:
 * @buffer: a #GstBuffer
 *
 * The georeferencing of @buffer.
 *
 * Returns: (transfer none) (nullable): the georeferencing of @buffer, or
 *     %NULL if it has none.
 *
 * Since: 0.1
 */
GstClvGeoMeta *
gst_buffer_get_clv_geo_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstClvGeoMeta *) gst_buffer_get_meta (buffer,
      GST_CLV_GEO_META_API_TYPE);
}

/**
 * gst_clv_geo_meta_get_geotransform:
 * @geo: a #GstClvGeoMeta
 * @geotransform: (out caller-allocates) (array fixed-size=6): the
 *     geotransform
 *
 * Copies the geotransform of @geo (for languages that cannot read the
 * field).
 *
 * Returns: %TRUE, or %FALSE (and zeros) when @geo has GCPs only.
 *
 * Since: 0.1
 */
gboolean
gst_clv_geo_meta_get_geotransform (GstClvGeoMeta * geo,
    gdouble geotransform[6])
{
  g_return_val_if_fail (geo != NULL && geotransform != NULL, FALSE);

  for (int i = 0; i < 6; i++)
    geotransform[i] = geo->has_geotransform ? geo->geotransform[i] : 0;
  return geo->has_geotransform;
}

/**
 * gst_clv_geo_meta_get_gcp:
 * @geo: a #GstClvGeoMeta
 * @index: which ground control point, below @geo->n_gcps
 *
 * One ground control point of @geo.
 *
 * Returns: (transfer none) (nullable): the ground control point, or %NULL
 *     past the last one.
 *
 * Since: 0.1
 */
const GstClvGcp *
gst_clv_geo_meta_get_gcp (GstClvGeoMeta * geo, guint index)
{
  g_return_val_if_fail (geo != NULL, NULL);

  return index < geo->n_gcps ? &geo->gcps[index] : NULL;
}

/**
 * gst_clv_geo_meta_set_gcps:
 * @geo: a #GstClvGeoMeta
 * @gcps: (array length=n): the ground control points
 * @n: how many
 * @wkt: (nullable): their spatial reference system as WKT (%NULL: none)
 *
 * Replaces the ground control points of @geo by a copy of @gcps.
 *
 * Since: 0.1
 */
void
gst_clv_geo_meta_set_gcps (GstClvGeoMeta * geo, const GstClvGcp * gcps,
    guint n, const gchar * wkt)
{
  GstClvGcp *copy;

  g_return_if_fail (geo != NULL && (gcps != NULL || n == 0));

  copy = g_new (GstClvGcp, n);

  for (guint i = 0; i < n; i++) {
    copy[i] = gcps[i];
    copy[i].id = g_strdup (gcps[i].id ? gcps[i].id : "");
  }
  clear_gcps (geo);
  geo->gcps = copy;
  geo->n_gcps = n;
  geo->gcp_wkt = g_strdup (wkt ? wkt : "");
}

/**
 * gst_clv_geo_meta_add_mapped:
 * @buffer: a writable #GstBuffer, the output of a change of geometry
 * @in: the georeferencing of its input
 * @m: (array fixed-size=6): the map from output to input pixel
 *     coordinates (edge coordinates):
 *     in_col = m[0] + col m[1] + row m[2], in_row = m[3] + col m[4] +
 *     row m[5]; e.g. { 0, looks_x, 0, 0, 0, looks_y } for a multilook
 *
 * Attaches to @buffer the georeferencing of @in composed with @m.  GCPs
 * move to their output position (through the inverse of @m, which must be
 * invertible); those outside the output frame are kept, since they still
 * tie the frame to the ground.
 *
 * Returns: (transfer none): the new meta.
 *
 * Since: 0.1
 */
GstClvGeoMeta *
gst_clv_geo_meta_add_mapped (GstBuffer * buffer, const GstClvGeoMeta * in,
    const gdouble m[6])
{
  const gdouble *g;
  gdouble gt[6], det;
  GstClvGeoMeta *out;
  GstClvGcp *gcps;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (in != NULL && m != NULL, NULL);

  g = in->geotransform;
  gt[0] = g[0] + g[1] * m[0] + g[2] * m[3];
  gt[1] = g[1] * m[1] + g[2] * m[4];
  gt[2] = g[1] * m[2] + g[2] * m[5];
  gt[3] = g[3] + g[4] * m[0] + g[5] * m[3];
  gt[4] = g[4] * m[1] + g[5] * m[4];
  gt[5] = g[4] * m[2] + g[5] * m[5];
  /* GCPs go forward, from input to output: the inverse of m. */
  det = m[1] * m[5] - m[2] * m[4];
  out = gst_buffer_add_clv_geo_meta (buffer, in->has_geotransform ? gt :
      NULL, in->wkt);
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
