#pragma once

#include "gstclvfilter.h"
#include "clv-overlay.h"

G_BEGIN_DECLS

#define GST_TYPE_ROI_OVERLAY (gst_roi_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiOverlay, gst_roi_overlay, GST, ROI_OVERLAY,
    GstClvFilter);

GST_ELEMENT_REGISTER_DECLARE (roioverlay);

G_END_DECLS
