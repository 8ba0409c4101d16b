/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Georeferencing of a frame: GDAL's affine geotransform and the spatial
 * reference system as WKT, and ground control points (GCPs) with theirs.
 * A frame pixel (col, row), in edge coordinates (pixel i spans [i, i + 1)),
 * lies at
 *   X = gt[0] + col gt[1] + row gt[2],  Y = gt[3] + col gt[4] + row gt[5]
 * in that reference system (GDALGetGeoTransform's convention).  A GCP ties
 * the frame position (pixel, line), in the same edge coordinates, to the
 * point (x, y, z) of the GCPs' reference system (GDAL_GCP's convention):
 * Sentinel-1 GRD and SLC products are georeferenced by a grid of them, which
 * no single affine transform matches.
 *
 * gdalsrc attaches it and gdalsink writes it.  Elements that change the
 * geometry compose it with their output-to-input pixel map
 * (gst_clv_geo_meta_add_mapped); its transform_func handles plain copies
 * and the GstVideoMetaTransform "gst-video-scale" of videoscale-like size
 * changes.  Its tags are video, size and orientation, so that elements
 * which know neither drop it rather than pass on wrong coordinates. */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

#define GST_CLV_GEO_META_API_TYPE (gst_clv_geo_meta_api_get_type ())
#define GST_CLV_GEO_META_INFO (gst_clv_geo_meta_get_info ())

typedef struct
{
  gchar *id;                    /* GDAL's pszId; "" if none */
  gdouble pixel, line;          /* where in the frame */
  gdouble x, y, z;              /* where on the ground */
} GstClvGcp;

typedef struct
{
  GstMeta meta;

  gdouble geotransform[6];
  gchar *wkt;                   /* the spatial reference; "" if unknown */
  gboolean has_geotransform;    /* FALSE: only GCPs; geotransform unused */
  guint n_gcps;
  GstClvGcp *gcps;
  gchar *gcp_wkt;               /* the GCPs' spatial reference; "" if none */
} GstClvGeoMeta;

GST_CLVISION_API
GType gst_clv_geo_meta_api_get_type (void);
GST_CLVISION_API
const GstMetaInfo *gst_clv_geo_meta_get_info (void);

/* Attaches a copy of `geotransform` (NULL: none, for GCPs only) and `wkt`
 * (NULL: ""), without GCPs. */
GST_CLVISION_API
GstClvGeoMeta *gst_buffer_add_clv_geo_meta (GstBuffer * buffer,
    const gdouble geotransform[6], const gchar * wkt);

/* Replaces the GCPs of `geo` by a copy of `gcps` (n of them) in the
 * reference system `wkt` (NULL: ""). */
GST_CLVISION_API
void gst_clv_geo_meta_set_gcps (GstClvGeoMeta * geo, const GstClvGcp * gcps,
    guint n, const gchar * wkt);

#define gst_buffer_get_clv_geo_meta(b) \
  ((GstClvGeoMeta *) gst_buffer_get_meta ((b), GST_CLV_GEO_META_API_TYPE))

/* Attaches to `buffer` the georeferencing of `in` composed with the map
 * from output to input pixel coordinates (edge coordinates)
 *   in_col = m[0] + col m[1] + row m[2],  in_row = m[3] + col m[4] + row m[5]
 * e.g. { 0, looks_x, 0, 0, 0, looks_y } for a multilook; GCPs move to the
 * output position of theirs (through the inverse of `m`, which must be
 * invertible).  GCPs outside the output frame are kept: they still tie the
 * frame to the ground. */
GST_CLVISION_API
GstClvGeoMeta *gst_clv_geo_meta_add_mapped (GstBuffer * buffer,
    const GstClvGeoMeta * in, const gdouble m[6]);

G_END_DECLS
