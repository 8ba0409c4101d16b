/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvraster
 * @title: application/x-raster
 * @short_description: Rasters whose samples video/x-raw cannot express
 *
 * Float32 and complex SAR products, signed and 32-bit integers, several
 * bands travel as application/x-raster:
 * |[
 *   application/x-raster, format=(string)Float32, width=(int)W,
 *       height=(int)H, bands=(int)B [, framerate=(fraction)F]
 *       [, nodata=(double)V]
 * ]|
 * `format` is the sample type by GDAL's name (GDALGetDataTypeName): Byte,
 * UInt16, Int16, UInt32, Int32, Float32, Float64, CInt16, CInt32, CFloat32,
 * CFloat64; a complex sample is its real part then its imaginary part.
 * Samples are little-endian (the host order of every platform clvision runs
 * on), bands interleaved by pixel (the B samples of pixel (x, y) follow each
 * other), rows of W × B samples without padding.  `nodata`, when present,
 * is the value that marks pixels without data (GDAL's band no-data value).
 *
 * The integer path keeps video/x-raw: one band of Byte is GRAY8 and one of
 * UInt16 is GRAY16_LE, and gst_clv_raster_info_from_caps() reads those caps
 * as such a raster too.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclvraster.h"

static const struct
{
  const gchar *name;
  guint sample_size;
  gboolean complex;
} formats[] = {
  [GST_CLV_RASTER_FORMAT_UNKNOWN] = {NULL, 0, FALSE},
  [GST_CLV_RASTER_FORMAT_BYTE] = {"Byte", 1, FALSE},
  [GST_CLV_RASTER_FORMAT_UINT16] = {"UInt16", 2, FALSE},
  [GST_CLV_RASTER_FORMAT_INT16] = {"Int16", 2, FALSE},
  [GST_CLV_RASTER_FORMAT_UINT32] = {"UInt32", 4, FALSE},
  [GST_CLV_RASTER_FORMAT_INT32] = {"Int32", 4, FALSE},
  [GST_CLV_RASTER_FORMAT_FLOAT32] = {"Float32", 4, FALSE},
  [GST_CLV_RASTER_FORMAT_FLOAT64] = {"Float64", 8, FALSE},
  [GST_CLV_RASTER_FORMAT_CINT16] = {"CInt16", 4, TRUE},
  [GST_CLV_RASTER_FORMAT_CINT32] = {"CInt32", 8, TRUE},
  [GST_CLV_RASTER_FORMAT_CFLOAT32] = {"CFloat32", 8, TRUE},
  [GST_CLV_RASTER_FORMAT_CFLOAT64] = {"CFloat64", 16, TRUE},
};

/**
 * gst_clv_raster_format_from_string:
 * @name: a GDAL data type name ("Float32")
 *
 * The format GDAL names @name.
 *
 * Returns: the format of that name, or %GST_CLV_RASTER_FORMAT_UNKNOWN.
 *
 * Since: 0.1
 */
GstClvRasterFormat
gst_clv_raster_format_from_string (const gchar * name)
{
  for (guint i = 1; name && i < G_N_ELEMENTS (formats); i++)
    if (strcmp (formats[i].name, name) == 0)
      return (GstClvRasterFormat) i;
  return GST_CLV_RASTER_FORMAT_UNKNOWN;
}

/**
 * gst_clv_raster_format_to_string:
 * @format: a #GstClvRasterFormat
 *
 * GDAL's name of @format.
 *
 * Returns: (nullable): GDAL's name of the type, or %NULL for
 *     %GST_CLV_RASTER_FORMAT_UNKNOWN.
 *
 * Since: 0.1
 */
const gchar *
gst_clv_raster_format_to_string (GstClvRasterFormat format)
{
  return (guint) format < G_N_ELEMENTS (formats) ? formats[format].name : NULL;
}

/**
 * gst_clv_raster_format_sample_size:
 * @format: a #GstClvRasterFormat
 *
 * The size of one sample of @format.
 *
 * Returns: the bytes of one sample (a complex sample counts both parts), 0
 *     for %GST_CLV_RASTER_FORMAT_UNKNOWN.
 *
 * Since: 0.1
 */
guint
gst_clv_raster_format_sample_size (GstClvRasterFormat format)
{
  return (guint) format < G_N_ELEMENTS (formats) ?
      formats[format].sample_size : 0;
}

/**
 * gst_clv_raster_format_is_complex:
 * @format: a #GstClvRasterFormat
 *
 * Whether samples of @format are complex.
 *
 * Returns: whether a sample is complex (its real part, then its imaginary
 *     part).
 *
 * Since: 0.1
 */
gboolean
gst_clv_raster_format_is_complex (GstClvRasterFormat format)
{
  return (guint) format < G_N_ELEMENTS (formats) && formats[format].complex;
}

/**
 * gst_clv_raster_info_init:
 * @info: (out caller-allocates): the #GstClvRasterInfo to fill
 * @format: the sample type
 * @width: pixels a row
 * @height: rows
 * @bands: samples a pixel
 *
 * Fills @info, with an unknown frame rate and no no-data value.
 *
 * Since: 0.1
 */
void
gst_clv_raster_info_init (GstClvRasterInfo * info, GstClvRasterFormat format,
    gint width, gint height, gint bands)
{
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof (*info));
  info->format = format;
  info->width = width;
  info->height = height;
  info->bands = bands;
  info->fps_d = 1;
}

/**
 * gst_clv_caps_is_raster:
 * @caps: (nullable): caps
 *
 * Whether @caps describe rasters.
 *
 * Returns: whether the first structure of @caps is application/x-raster.
 *
 * Since: 0.1
 */
gboolean
gst_clv_caps_is_raster (const GstCaps * caps)
{
  return caps != NULL && gst_caps_get_size (caps) > 0
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
      GST_CLV_RASTER_MEDIA_TYPE);
}

/* One band of GRAY8 or GRAY16_LE video as a raster. */
static gboolean
raster_info_from_video_caps (GstClvRasterInfo * info, const GstCaps * caps)
{
  GstVideoInfo vinfo;
  GstClvRasterFormat format;

  if (!gst_video_info_from_caps (&vinfo, caps))
    return FALSE;
  switch (GST_VIDEO_INFO_FORMAT (&vinfo)) {
    case GST_VIDEO_FORMAT_GRAY8:
      format = GST_CLV_RASTER_FORMAT_BYTE;
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      format = GST_CLV_RASTER_FORMAT_UINT16;
      break;
    default:
      return FALSE;
  }
  gst_clv_raster_info_init (info, format, GST_VIDEO_INFO_WIDTH (&vinfo),
      GST_VIDEO_INFO_HEIGHT (&vinfo), 1);
  info->fps_n = GST_VIDEO_INFO_FPS_N (&vinfo);
  info->fps_d = GST_VIDEO_INFO_FPS_D (&vinfo);
  return TRUE;
}

/**
 * gst_clv_raster_info_from_caps:
 * @info: (out caller-allocates): the #GstClvRasterInfo to fill
 * @caps: fixed caps
 *
 * Reads application/x-raster caps, or GRAY8 and GRAY16_LE video as one band
 * of Byte and UInt16.
 *
 * Returns: %TRUE, or %FALSE for other caps.
 *
 * Since: 0.1
 */
gboolean
gst_clv_raster_info_from_caps (GstClvRasterInfo * info, const GstCaps * caps)
{
  const GstStructure *s;
  GstClvRasterFormat format;
  gint width, height, bands;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (caps == NULL || !gst_caps_is_fixed (caps))
    return FALSE;
  if (!gst_clv_caps_is_raster (caps))
    return raster_info_from_video_caps (info, caps);
  s = gst_caps_get_structure (caps, 0);
  format = gst_clv_raster_format_from_string (gst_structure_get_string (s,
          "format"));
  if (format == GST_CLV_RASTER_FORMAT_UNKNOWN
      || !gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)
      || !gst_structure_get_int (s, "bands", &bands)
      || width < 1 || height < 1 || bands < 1)
    return FALSE;
  gst_clv_raster_info_init (info, format, width, height, bands);
  if (gst_structure_has_field (s, "framerate")
      && !gst_structure_get_fraction (s, "framerate", &info->fps_n,
          &info->fps_d))
    return FALSE;
  info->has_nodata = gst_structure_get_double (s, "nodata", &info->nodata);
  return gst_clv_raster_info_size (info) > 0;
}

/**
 * gst_clv_raster_info_to_caps:
 * @info: a #GstClvRasterInfo
 *
 * The caps of rasters of @info.
 *
 * Returns: (transfer full): application/x-raster caps of @info, without caps
 *     features.
 *
 * Since: 0.1
 */
GstCaps *
gst_clv_raster_info_to_caps (const GstClvRasterInfo * info)
{
  GstCaps *caps;

  g_return_val_if_fail (info != NULL, NULL);

  caps = gst_caps_new_simple (GST_CLV_RASTER_MEDIA_TYPE,
      "format", G_TYPE_STRING, gst_clv_raster_format_to_string (info->format),
      "width", G_TYPE_INT, info->width, "height", G_TYPE_INT, info->height,
      "bands", G_TYPE_INT, info->bands,
      "framerate", GST_TYPE_FRACTION, info->fps_n, info->fps_d, NULL);
  if (info->has_nodata)
    gst_caps_set_simple (caps, "nodata", G_TYPE_DOUBLE, info->nodata, NULL);
  return caps;
}

/**
 * gst_clv_raster_info_row_bytes:
 * @info: a #GstClvRasterInfo
 *
 * The size of one row of a raster of @info.
 *
 * Returns: the bytes of one row, 0 if they overflow.
 *
 * Since: 0.1
 */
gsize
gst_clv_raster_info_row_bytes (const GstClvRasterInfo * info)
{
  guint64 n;

  g_return_val_if_fail (info != NULL, 0);

  n = (guint64) info->width * info->bands *
      gst_clv_raster_format_sample_size (info->format);
  return n <= G_MAXINT ? (gsize) n : 0;
}

/**
 * gst_clv_raster_info_size:
 * @info: a #GstClvRasterInfo
 *
 * The size of one frame of a raster of @info.
 *
 * Returns: the bytes of one frame, 0 if they overflow.
 *
 * Since: 0.1
 */
gsize
gst_clv_raster_info_size (const GstClvRasterInfo * info)
{
  guint64 n;

  g_return_val_if_fail (info != NULL, 0);

  n = (guint64) gst_clv_raster_info_row_bytes (info) * info->height;
  return n <= G_MAXSSIZE ? (gsize) n : 0;
}

/**
 * gst_clv_frame_layout_from_caps:
 * @layout: (out caller-allocates): the layout
 * @caps: fixed caps
 *
 * The memory layout of a frame of @caps, for code that moves frames as bytes
 * (buffer pools, uploads, downloads): video caps as gst_video_info_from_caps()
 * reads them, and raster caps as one GRAY8 plane of row bytes × height,
 * without padding.  For raster caps @layout describes the bytes only; its
 * width is not the raster's.
 *
 * Returns: %TRUE, or %FALSE for caps that are neither.
 *
 * Since: 0.1
 */
gboolean
gst_clv_frame_layout_from_caps (GstVideoInfo * layout, const GstCaps * caps)
{
  GstClvRasterInfo info;
  gsize row;

  g_return_val_if_fail (layout != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (!gst_clv_caps_is_raster (caps))
    return gst_video_info_from_caps (layout, caps);
  if (!gst_clv_raster_info_from_caps (&info, caps))
    return FALSE;
  row = gst_clv_raster_info_row_bytes (&info);
  if (row == 0 || !gst_video_info_set_format (layout, GST_VIDEO_FORMAT_GRAY8,
          (guint) row, info.height))
    return FALSE;
  GST_VIDEO_INFO_PLANE_STRIDE (layout, 0) = (gint) row;
  GST_VIDEO_INFO_SIZE (layout) = gst_clv_raster_info_size (&info);
  GST_VIDEO_INFO_FPS_N (layout) = info.fps_n;
  GST_VIDEO_INFO_FPS_D (layout) = info.fps_d;
  return GST_VIDEO_INFO_SIZE (layout) > 0;
}
