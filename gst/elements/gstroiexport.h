/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_ROI_EXPORT (gst_roi_export_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiExport, gst_roi_export, GST, ROI_EXPORT,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (roiexport);

G_END_DECLS
