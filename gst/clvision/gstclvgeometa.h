/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Georeferencing of a frame: GDAL's affine geotransform and the spatial
 * reference system as WKT.  A frame pixel (col, row), in edge coordinates
 * (pixel i spans [i, i + 1)), lies at
 *   X = gt[0] + col gt[1] + row gt[2],  Y = gt[3] + col gt[4] + row gt[5]
 * in that reference system (GDALGetGeoTransform's convention).
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
  GstMeta meta;

  gdouble geotransform[6];
  gchar *wkt;                   /* the spatial reference; "" if unknown */
} GstClvGeoMeta;

GST_CLVISION_API
GType gst_clv_geo_meta_api_get_type (void);
GST_CLVISION_API
const GstMetaInfo *gst_clv_geo_meta_get_info (void);

/* Attaches a copy of `geotransform` and `wkt` (NULL: ""). */
GST_CLVISION_API
GstClvGeoMeta *gst_buffer_add_clv_geo_meta (GstBuffer * buffer,
    const gdouble geotransform[6], const gchar * wkt);

#define gst_buffer_get_clv_geo_meta(b) \
  ((GstClvGeoMeta *) gst_buffer_get_meta ((b), GST_CLV_GEO_META_API_TYPE))

/* Attaches to `buffer` the georeferencing of `in` composed with the map
 * from output to input pixel coordinates (edge coordinates)
 *   in_col = m[0] + col m[1] + row m[2],  in_row = m[3] + col m[4] + row m[5]
 * e.g. { 0, looks_x, 0, 0, 0, looks_y } for a multilook. */
GST_CLVISION_API
GstClvGeoMeta *gst_clv_geo_meta_add_mapped (GstBuffer * buffer,
    const GstClvGeoMeta * in, const gdouble m[6]);

G_END_DECLS
