/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_SPECKLE (gst_sar_speckle_get_type ())
G_DECLARE_FINAL_TYPE (GstSarSpeckle, gst_sar_speckle, GST, SAR_SPECKLE,
    GstClvFilter);

#define GST_TYPE_SAR_SPECKLE_FILTER (gst_sar_speckle_filter_get_type ())
GType gst_sar_speckle_filter_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (sarspeckle);

G_END_DECLS
