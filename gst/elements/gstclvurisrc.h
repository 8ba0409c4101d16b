/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CLV_URI_SRC (gst_clv_uri_src_get_type ())
G_DECLARE_FINAL_TYPE (GstClvUriSrc, gst_clv_uri_src, GST, CLV_URI_SRC,
    GstBin);

GST_ELEMENT_REGISTER_DECLARE (clvurisrc);

G_END_DECLS
