/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_ROI_TRACK (gst_roi_track_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiTrack, gst_roi_track, GST, ROI_TRACK,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (roitrack);

G_END_DECLS
