/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CLV_GEO_META_API_TYPE:
 *
 * The API type of #GstClvGeoMeta.
 *
 * Since: 0.1
 */
#define GST_CLV_GEO_META_API_TYPE (gst_clv_geo_meta_api_get_type ())

/**
 * GST_CLV_GEO_META_INFO:
 *
 * The #GstMetaInfo of #GstClvGeoMeta.
 *
 * Since: 0.1
 */
#define GST_CLV_GEO_META_INFO (gst_clv_geo_meta_get_info ())

/**
 * GstClvGcp:
 * @id: GDAL's pszId, "" if none
 * @pixel: where in the frame, in edge coordinates: the column
 * @line: the row
 * @x: where on the ground, in the GCPs' reference system
 * @y: the second coordinate
 * @z: the height
 *
 * A ground control point (GDAL_GCP's convention).
 *
 * Since: 0.1
 */
typedef struct
{
  gchar *id;
  gdouble pixel, line;
  gdouble x, y, z;
} GstClvGcp;

/**
 * GstClvGeoMeta:
 * @meta: the parent #GstMeta
 * @geotransform: GDAL's affine geotransform (unused without
 *     @has_geotransform)
 * @wkt: the spatial reference system of @geotransform as WKT, "" if
 *     unknown
 * @has_geotransform: %FALSE when the frame is georeferenced by GCPs only
 * @n_gcps: how many ground control points
 * @gcps: (array length=n_gcps): the ground control points
 * @gcp_wkt: the spatial reference system of the GCPs, "" if none
 *
 * The georeferencing of a frame.  A frame pixel (col, row), in edge
 * coordinates (pixel i spans [i, i + 1)), lies at
 * |[
 *   X = gt[0] + col gt[1] + row gt[2],  Y = gt[3] + col gt[4] + row gt[5]
 * ]|
 * in @wkt's reference system (GDALGetGeoTransform's convention).  A GCP
 * ties a frame position, in the same edge coordinates, to a point of
 * @gcp_wkt's reference system: Sentinel-1 GRD and SLC products are
 * georeferenced by a grid of them, which no single affine transform
 * matches.
 *
 * gdalsrc attaches it and gdalsink writes it.  Elements that change the
 * geometry compose it with their output-to-input pixel map
 * (gst_clv_geo_meta_add_mapped()); its transform function handles plain
 * copies and the "gst-video-scale" transform of videoscale-like size
 * changes.  Its tags are video, size and orientation, so that elements
 * which know neither drop it rather than pass on wrong coordinates.
 *
 * Since: 0.1
 */
typedef struct
{
  GstMeta meta;

  gdouble geotransform[6];
  gchar *wkt;
  gboolean has_geotransform;
  guint n_gcps;
  GstClvGcp *gcps;
  gchar *gcp_wkt;
} GstClvGeoMeta;

GST_CLVISION_API
GType gst_clv_geo_meta_api_get_type (void);
GST_CLVISION_API
const GstMetaInfo *gst_clv_geo_meta_get_info (void);

GST_CLVISION_API
GstClvGeoMeta *gst_buffer_add_clv_geo_meta (GstBuffer * buffer,
    const gdouble geotransform[6], const gchar * wkt);

GST_CLVISION_API
GstClvGeoMeta *gst_buffer_get_clv_geo_meta (GstBuffer * buffer);

GST_CLVISION_API
gboolean gst_clv_geo_meta_get_geotransform (GstClvGeoMeta * geo,
    gdouble geotransform[6]);

GST_CLVISION_API
const GstClvGcp *gst_clv_geo_meta_get_gcp (GstClvGeoMeta * geo, guint index);

GST_CLVISION_API
void gst_clv_geo_meta_set_gcps (GstClvGeoMeta * geo, const GstClvGcp * gcps,
    guint n, const gchar * wkt);

GST_CLVISION_API
GstClvGeoMeta *gst_clv_geo_meta_add_mapped (GstBuffer * buffer,
    const GstClvGeoMeta * in, const gdouble m[6]);

G_END_DECLS
