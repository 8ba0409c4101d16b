/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CLV_RASTER_MEDIA_TYPE:
 *
 * The media type of rasters: "application/x-raster".
 *
 * Since: 0.1
 */
#define GST_CLV_RASTER_MEDIA_TYPE "application/x-raster"

/**
 * GstClvRasterFormat:
 * @GST_CLV_RASTER_FORMAT_UNKNOWN: not a raster format
 * @GST_CLV_RASTER_FORMAT_BYTE: unsigned 8-bit
 * @GST_CLV_RASTER_FORMAT_UINT16: unsigned 16-bit
 * @GST_CLV_RASTER_FORMAT_INT16: signed 16-bit
 * @GST_CLV_RASTER_FORMAT_UINT32: unsigned 32-bit
 * @GST_CLV_RASTER_FORMAT_INT32: signed 32-bit
 * @GST_CLV_RASTER_FORMAT_FLOAT32: 32-bit float
 * @GST_CLV_RASTER_FORMAT_FLOAT64: 64-bit float
 * @GST_CLV_RASTER_FORMAT_CINT16: complex of two signed 16-bit parts
 * @GST_CLV_RASTER_FORMAT_CINT32: complex of two signed 32-bit parts
 * @GST_CLV_RASTER_FORMAT_CFLOAT32: complex of two 32-bit floats
 * @GST_CLV_RASTER_FORMAT_CFLOAT64: complex of two 64-bit floats
 *
 * The sample types of rasters, GDAL's data types.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CLV_RASTER_FORMAT_UNKNOWN,
  GST_CLV_RASTER_FORMAT_BYTE,
  GST_CLV_RASTER_FORMAT_UINT16,
  GST_CLV_RASTER_FORMAT_INT16,
  GST_CLV_RASTER_FORMAT_UINT32,
  GST_CLV_RASTER_FORMAT_INT32,
  GST_CLV_RASTER_FORMAT_FLOAT32,
  GST_CLV_RASTER_FORMAT_FLOAT64,
  GST_CLV_RASTER_FORMAT_CINT16,
  GST_CLV_RASTER_FORMAT_CINT32,
  GST_CLV_RASTER_FORMAT_CFLOAT32,
  GST_CLV_RASTER_FORMAT_CFLOAT64,
} GstClvRasterFormat;

/**
 * GST_CLV_RASTER_FORMATS_ALL:
 *
 * Every format, as a caps list.
 *
 * Since: 0.1
 */
#define GST_CLV_RASTER_FORMATS_ALL "{ Byte, UInt16, Int16, UInt32, Int32, " \
    "Float32, Float64, CInt16, CInt32, CFloat32, CFloat64 }"

/**
 * GST_CLV_RASTER_CAPS_MAKE:
 * @formats: a format name or a caps list of them, as a string literal
 *
 * Caps of @formats with any size, bands and frame rate.
 *
 * Since: 0.1
 */
#define GST_CLV_RASTER_CAPS_MAKE(formats)                                 \
    GST_CLV_RASTER_MEDIA_TYPE ", format = (string) " formats ", "         \
    "width = (int) [ 1, max ], height = (int) [ 1, max ], "               \
    "bands = (int) [ 1, max ]"

/**
 * GstClvRasterInfo:
 * @format: the sample type
 * @width: pixels a row
 * @height: rows
 * @bands: samples a pixel
 * @fps_n: frame rate numerator (0/1 if unknown)
 * @fps_d: frame rate denominator
 * @has_nodata: whether @nodata marks pixels without data
 * @nodata: the value of pixels without data
 *
 * What a raster frame holds.
 *
 * Since: 0.1
 */
typedef struct
{
  GstClvRasterFormat format;
  gint width, height, bands;
  gint fps_n, fps_d;
  gboolean has_nodata;
  gdouble nodata;
} GstClvRasterInfo;

GST_CLVISION_API
GstClvRasterFormat gst_clv_raster_format_from_string (const gchar * name);
GST_CLVISION_API
const gchar *gst_clv_raster_format_to_string (GstClvRasterFormat format);
GST_CLVISION_API
guint gst_clv_raster_format_sample_size (GstClvRasterFormat format);
GST_CLVISION_API
gboolean gst_clv_raster_format_is_complex (GstClvRasterFormat format);

GST_CLVISION_API
void gst_clv_raster_info_init (GstClvRasterInfo * info,
    GstClvRasterFormat format, gint width, gint height, gint bands);

GST_CLVISION_API
gboolean gst_clv_raster_info_from_caps (GstClvRasterInfo * info,
    const GstCaps * caps);

GST_CLVISION_API
GstCaps *gst_clv_raster_info_to_caps (const GstClvRasterInfo * info);

GST_CLVISION_API
gsize gst_clv_raster_info_row_bytes (const GstClvRasterInfo * info);
GST_CLVISION_API
gsize gst_clv_raster_info_size (const GstClvRasterInfo * info);

GST_CLVISION_API
gboolean gst_clv_caps_is_raster (const GstCaps * caps);

GST_CLVISION_API
gboolean gst_clv_frame_layout_from_caps (GstVideoInfo * layout,
    const GstCaps * caps);

G_END_DECLS
