/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rasters whose samples video/x-raw cannot express: Float32 and complex
 * SAR products, signed and 32-bit integers, several bands.
 *
 *   application/x-raster, format=(string)Float32, width=(int)W,
 *       height=(int)H, bands=(int)B [, framerate=(fraction)F]
 *       [, nodata=(double)V]
 *
 * `format` is the sample type by GDAL's name (GDALGetDataTypeName):
 * Byte, UInt16, Int16, UInt32, Int32, Float32, Float64, CInt16, CInt32,
 * CFloat32, CFloat64; a complex sample is its real part then its
 * imaginary part.  Samples are little-endian (the host order of every
 * platform clvision runs on), bands interleaved by pixel (the B samples of
 * pixel (x, y) follow each other), rows of W * B samples without padding.
 * `nodata`, when present, is the value that marks pixels without data (GDAL's
 * band no-data value).
 *
 * The integer path keeps video/x-raw: one band of Byte is GRAY8 and one of
 * UInt16 is GRAY16_LE, and gst_clv_raster_info_from_caps() reads those caps
 * as such a raster too. */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

#define GST_CLV_RASTER_MEDIA_TYPE "application/x-raster"

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

/* Every format, as a caps list. */
#define GST_CLV_RASTER_FORMATS_ALL "{ Byte, UInt16, Int16, UInt32, Int32, " \
    "Float32, Float64, CInt16, CInt32, CFloat32, CFloat64 }"

/* Caps of `formats` (a string or a caps list of format names) with any
 * size, bands and frame rate. */
#define GST_CLV_RASTER_CAPS_MAKE(formats)                                 \
    GST_CLV_RASTER_MEDIA_TYPE ", format = (string) " formats ", "         \
    "width = (int) [ 1, max ], height = (int) [ 1, max ], "               \
    "bands = (int) [ 1, max ]"

typedef struct
{
  GstClvRasterFormat format;
  gint width, height, bands;
  gint fps_n, fps_d;            /* 0/1 if unknown */
  gboolean has_nodata;
  gdouble nodata;
} GstClvRasterInfo;

GST_CLVISION_API
GstClvRasterFormat gst_clv_raster_format_from_string (const gchar * name);
/* GDAL's name of the type, or NULL for UNKNOWN. */
GST_CLVISION_API
const gchar *gst_clv_raster_format_to_string (GstClvRasterFormat format);
/* Bytes of one sample (a complex sample counts both parts). */
GST_CLVISION_API
guint gst_clv_raster_format_sample_size (GstClvRasterFormat format);
GST_CLVISION_API
gboolean gst_clv_raster_format_is_complex (GstClvRasterFormat format);

GST_CLVISION_API
void gst_clv_raster_info_init (GstClvRasterInfo * info,
    GstClvRasterFormat format, gint width, gint height, gint bands);

/* Reads fixed application/x-raster caps, or video/x-raw GRAY8 / GRAY16_LE
 * as one band of Byte / UInt16.  FALSE for anything else. */
GST_CLVISION_API
gboolean gst_clv_raster_info_from_caps (GstClvRasterInfo * info,
    const GstCaps * caps);

/* application/x-raster caps (without caps features) of `info`. */
GST_CLVISION_API
GstCaps *gst_clv_raster_info_to_caps (const GstClvRasterInfo * info);

/* Bytes of one row, and of the frame; 0 if they overflow. */
GST_CLVISION_API
gsize gst_clv_raster_info_row_bytes (const GstClvRasterInfo * info);
GST_CLVISION_API
gsize gst_clv_raster_info_size (const GstClvRasterInfo * info);

/* Whether `caps` (their first structure) are application/x-raster. */
GST_CLVISION_API
gboolean gst_clv_caps_is_raster (const GstCaps * caps);

/* The memory layout of a frame of `caps`, for code that moves frames as
 * bytes (buffer pools, uploads, downloads): video caps as
 * gst_video_info_from_caps() reads them, and raster caps as one GRAY8 plane
 * of row-bytes × height, without padding.  For raster caps the result
 * describes the bytes only; its width is not the raster's. */
GST_CLVISION_API
gboolean gst_clv_frame_layout_from_caps (GstVideoInfo * layout,
    const GstCaps * caps);

G_END_DECLS
