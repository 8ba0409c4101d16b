/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_GDAL_SINK (gst_gdal_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstGdalSink, gst_gdal_sink, GST, GDAL_SINK, GstBaseSink);

GST_ELEMENT_REGISTER_DECLARE (gdalsink);

G_END_DECLS
