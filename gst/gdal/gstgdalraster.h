/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What gdalsrc and gdalsink share: GDAL's data types as clvision frames,
 * and the georeferencing of a dataset as a GstClvGeoMeta. */
#pragma once

#include <gdal.h>
#include <gst/clvision/clvision.h>

G_BEGIN_DECLS

/* Whether `location` is a printf pattern of one integer (multifilesrc's
 * and multifilesink's rule): a '%' that is not "%%". */
gboolean gst_gdal_is_printf_pattern (const gchar * location);

/* The raster format of a GDAL data type (same name), or UNKNOWN. */
GstClvRasterFormat gst_gdal_raster_format (GDALDataType type);

/* The GDAL data type of a raster format. */
GDALDataType gst_gdal_data_type (GstClvRasterFormat format);

/* The caps of frames holding `info`: one band of Byte or UInt16 is GRAY8
 * or GRAY16_LE video, anything else application/x-raster. */
GstCaps *gst_gdal_frame_caps (const GstClvRasterInfo * info);

/* Attaches the geotransform, GCPs and their reference systems of `ds` to
 * `buf`, if it has any. */
void gst_gdal_add_geo_meta (GstBuffer * buf, GDALDatasetH ds);

/* Writes the georeferencing of `geo` into `ds`.  FALSE: GDAL's error is in
 * CPLGetLastErrorMsg. */
gboolean gst_gdal_set_georeferencing (GDALDatasetH ds,
    const GstClvGeoMeta * geo);

G_END_DECLS
