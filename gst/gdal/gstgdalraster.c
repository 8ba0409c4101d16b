/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstgdalraster.h"

gboolean
gst_gdal_is_printf_pattern (const gchar * location)
{
  for (const gchar * p = strchr (location, '%'); p; p = strchr (p + 2, '%'))
    if (p[1] != '%')
      return TRUE;
  return FALSE;
}

GstClvRasterFormat
gst_gdal_raster_format (GDALDataType type)
{
  return gst_clv_raster_format_from_string (GDALGetDataTypeName (type));
}

GDALDataType
gst_gdal_data_type (GstClvRasterFormat format)
{
  return GDALGetDataTypeByName (gst_clv_raster_format_to_string (format));
}

GstCaps *
gst_gdal_frame_caps (const GstClvRasterInfo * info)
{
  if (info->bands == 1 && (info->format == GST_CLV_RASTER_FORMAT_BYTE
          || info->format == GST_CLV_RASTER_FORMAT_UINT16))
    return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
        info->format == GST_CLV_RASTER_FORMAT_BYTE ? "GRAY8" : "GRAY16_LE",
        "width", G_TYPE_INT, info->width, "height", G_TYPE_INT, info->height,
        "framerate", GST_TYPE_FRACTION, info->fps_n, info->fps_d, NULL);
  return gst_clv_raster_info_to_caps (info);
}

void
gst_gdal_add_geo_meta (GstBuffer * buf, GDALDatasetH ds)
{
  const int n = GDALGetGCPCount (ds);
  const GDAL_GCP *gcps = GDALGetGCPs (ds);
  gdouble gt[6];
  const gboolean has_gt = GDALGetGeoTransform (ds, gt) == CE_None;
  GstClvGeoMeta *geo;
  GstClvGcp *copy;

  if (!has_gt && n == 0)
    return;
  geo = gst_buffer_add_clv_geo_meta (buf, has_gt ? gt : NULL,
      GDALGetProjectionRef (ds));
  if (n == 0)
    return;
  copy = g_new (GstClvGcp, n);
  for (int i = 0; i < n; i++) {
    copy[i].id = gcps[i].pszId;
    copy[i].pixel = gcps[i].dfGCPPixel;
    copy[i].line = gcps[i].dfGCPLine;
    copy[i].x = gcps[i].dfGCPX;
    copy[i].y = gcps[i].dfGCPY;
    copy[i].z = gcps[i].dfGCPZ;
  }
  gst_clv_geo_meta_set_gcps (geo, copy, n, GDALGetGCPProjection (ds));
  g_free (copy);
}

gboolean
gst_gdal_set_georeferencing (GDALDatasetH ds, const GstClvGeoMeta * geo)
{
  GDAL_GCP *gcps;
  gboolean ok = TRUE;

  if (geo->has_geotransform)
    ok = GDALSetGeoTransform (ds, (double *) geo->geotransform) == CE_None;
  if (ok && geo->has_geotransform && geo->wkt[0])
    ok = GDALSetProjection (ds, geo->wkt) == CE_None;
  if (!ok || geo->n_gcps == 0)
    return ok;
  gcps = g_new0 (GDAL_GCP, geo->n_gcps);
  for (guint i = 0; i < geo->n_gcps; i++) {
    gcps[i].pszId = geo->gcps[i].id;
    gcps[i].pszInfo = (char *) "";
    gcps[i].dfGCPPixel = geo->gcps[i].pixel;
    gcps[i].dfGCPLine = geo->gcps[i].line;
    gcps[i].dfGCPX = geo->gcps[i].x;
    gcps[i].dfGCPY = geo->gcps[i].y;
    gcps[i].dfGCPZ = geo->gcps[i].z;
  }
  ok = GDALSetGCPs (ds, geo->n_gcps, gcps, geo->gcp_wkt) == CE_None;
  g_free (gcps);
  return ok;
}
