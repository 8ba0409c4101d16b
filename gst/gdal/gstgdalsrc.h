/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_GDAL_SRC (gst_gdal_src_get_type ())
G_DECLARE_FINAL_TYPE (GstGdalSrc, gst_gdal_src, GST, GDAL_SRC, GstBaseSrc);

typedef enum
{
  GST_GDAL_SRC_SCALING_LINEAR,
  GST_GDAL_SRC_SCALING_DB,
} GstGdalSrcScaling;

#define GST_TYPE_GDAL_SRC_SCALING (gst_gdal_src_scaling_get_type ())
GType gst_gdal_src_scaling_get_type (void);

typedef enum
{
  GST_GDAL_SRC_DETECTION_AMPLITUDE,
  GST_GDAL_SRC_DETECTION_INTENSITY,
} GstGdalSrcDetection;

#define GST_TYPE_GDAL_SRC_DETECTION (gst_gdal_src_detection_get_type ())
GType gst_gdal_src_detection_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (gdalsrc);

G_END_DECLS
