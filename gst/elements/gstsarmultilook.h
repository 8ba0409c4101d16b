/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_MULTILOOK (gst_sar_multilook_get_type ())
G_DECLARE_FINAL_TYPE (GstSarMultilook, gst_sar_multilook, GST, SAR_MULTILOOK,
    GstClvFilter);

#define GST_TYPE_SAR_MULTILOOK_DOMAIN (gst_sar_multilook_domain_get_type ())
GType gst_sar_multilook_domain_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (sarmultilook);

G_END_DECLS
