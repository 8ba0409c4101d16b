/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

#define GST_TYPE_GDAL_SRC (gst_gdal_src_get_type ())
G_DECLARE_FINAL_TYPE (GstGdalSrc, gst_gdal_src, GST, GDAL_SRC, GstBaseSrc);

GST_ELEMENT_REGISTER_DECLARE (gdalsrc);

G_END_DECLS
