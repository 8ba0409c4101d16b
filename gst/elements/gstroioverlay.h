/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-overlay.h"

G_BEGIN_DECLS

/* What roioverlay does to the regions it acts on. */
typedef enum
{
  GST_ROI_OVERLAY_MODE_DRAW,
  GST_ROI_OVERLAY_MODE_BLUR,
  GST_ROI_OVERLAY_MODE_PIXELATE,
  GST_ROI_OVERLAY_MODE_FILL,
} GstRoiOverlayMode;

#define GST_TYPE_ROI_OVERLAY_MODE (gst_roi_overlay_mode_get_type ())
GType gst_roi_overlay_mode_get_type (void);

#define GST_TYPE_ROI_OVERLAY (gst_roi_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiOverlay, gst_roi_overlay, GST, ROI_OVERLAY,
    GstClvFilter);

GST_ELEMENT_REGISTER_DECLARE (roioverlay);

/* The layout of frames as `info` lays them out, component by component
 * (also what the tests draw their reference with). */
static inline void
gst_roi_overlay_layout (const GstVideoInfo * info, ClvOverlayLayout * layout)
{
  static const ClvOverlayCompKind yuv[] = { CLV_OVERLAY_Y, CLV_OVERLAY_U,
    CLV_OVERLAY_V
  };
  static const ClvOverlayCompKind rgb[] = { CLV_OVERLAY_R, CLV_OVERLAY_G,
    CLV_OVERLAY_B, CLV_OVERLAY_A
  };
  const GstVideoFormatInfo *finfo = info->finfo;

  layout->width = GST_VIDEO_INFO_WIDTH (info);
  layout->height = GST_VIDEO_INFO_HEIGHT (info);
  layout->n_comps = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (int c = 0; c < layout->n_comps; c++) {
    ClvOverlayComp *comp = &layout->comp[c];

    comp->kind = GST_VIDEO_INFO_IS_GRAY (info) ? CLV_OVERLAY_GRAY
        : GST_VIDEO_INFO_IS_YUV (info) ? yuv[c] : rgb[c];
    comp->plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
    comp->offset = GST_VIDEO_INFO_COMP_POFFSET (info, c);
    comp->stride = GST_VIDEO_INFO_COMP_STRIDE (info, c);
    comp->pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
    comp->xsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    comp->ysub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  }
}

G_END_DECLS
