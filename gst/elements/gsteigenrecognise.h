/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* eigenrecognise: Eigenface recognition of the faces found upstream. */
#pragma once

#include "gstclvfilter.h"
#include "clv-eigen-batch.h"

G_BEGIN_DECLS

#define GST_TYPE_EIGEN_RECOGNISE (gst_eigen_recognise_get_type ())
G_DECLARE_FINAL_TYPE (GstEigenRecognise, gst_eigen_recognise, GST,
    EIGEN_RECOGNISE, GstClvFilter);

GST_ELEMENT_REGISTER_DECLARE (eigenrecognise);

G_END_DECLS
