/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_ROTSCALE (gst_sar_rotscale_get_type ())
G_DECLARE_FINAL_TYPE (GstSarRotscale, gst_sar_rotscale, GST, SAR_ROTSCALE,
    GstClvFilter);

#define GST_TYPE_SAR_ROTSCALE_INTERPOLATION \
  (gst_sar_rotscale_interpolation_get_type ())
GType gst_sar_rotscale_interpolation_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (sarrotscale);

G_END_DECLS
