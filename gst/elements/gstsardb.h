/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-sar.h"

G_BEGIN_DECLS

#define GST_TYPE_SAR_DB (gst_sar_db_get_type ())
G_DECLARE_FINAL_TYPE (GstSarDb, gst_sar_db, GST, SAR_DB, GstClvFilter);

#define GST_TYPE_SAR_DB_INPUT (gst_sar_db_input_get_type ())
GType gst_sar_db_input_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (sardb);

G_END_DECLS
