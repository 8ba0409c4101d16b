/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_INTENSITY (gst_sar_intensity_get_type ())
G_DECLARE_FINAL_TYPE (GstSarIntensity, gst_sar_intensity, GST, SAR_INTENSITY,
    GstClvFilter);

#define GST_TYPE_SAR_INTENSITY_OUTPUT (gst_sar_intensity_output_get_type ())
GType gst_sar_intensity_output_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (sarintensity);

G_END_DECLS
