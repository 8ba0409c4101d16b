/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclvfilter.h"
#include "clv-vj.h"
#include "clv-vj-batch.h"

G_BEGIN_DECLS

#define GST_TYPE_VJ_FACE_DETECT (gst_vj_face_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstVjFaceDetect, gst_vj_face_detect, GST,
    VJ_FACE_DETECT, GstClvFilter);

GST_ELEMENT_REGISTER_DECLARE (vjfacedetect);

/* cascadedetect: vjfacedetect under a general name (its own metadata). */
typedef GstVjFaceDetect GstCascadeDetect;
typedef GstVjFaceDetectClass GstCascadeDetectClass;
#define GST_TYPE_CASCADE_DETECT (gst_cascade_detect_get_type ())
GType gst_cascade_detect_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cascadedetect);

G_END_DECLS
