/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_QUANTIZE (gst_sar_quantize_get_type ())
G_DECLARE_FINAL_TYPE (GstSarQuantize, gst_sar_quantize, GST, SAR_QUANTIZE,
    GstClvFilter);

GST_ELEMENT_REGISTER_DECLARE (sarquantize);

G_END_DECLS
