/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Typed access to the results clvision attaches to
 * GstVideoRegionOfInterestMeta: the parameter structures "detection"
 * (vjfacedetect) and "recognition" (eigenrecognise).  The structures are the
 * contract (field names as Intel DL Streamer uses them, README "Metadata");
 * these functions read and write them so that applications need no field
 * names, and the elements write them in one place. */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

#define GST_CLV_DETECTION_NAME "detection"
#define GST_CLV_RECOGNITION_NAME "recognition"

/* The "detection" structure: what was found and how sure the detector is.
 * The box itself is the meta's x, y, w, h (frame pixels); x_min .. y_max is
 * the same box normalised to 0..1 by the frame size. */
typedef struct
{
  const gchar *label;           /* "face" */
  gint label_id;                /* 0 for faces */
  gdouble confidence;           /* 0..1 */
  gint neighbors;               /* raw windows merged into this one */
  gdouble x_min, y_min, x_max, y_max;
} GstClvDetection;

/* The "recognition" structure: who it is. */
typedef struct
{
  const gchar *label;           /* the name, or "unknown" */
  gint label_id;                /* -1 when unknown */
  gdouble distance;             /* Euclidean, in PCA space */
  gdouble confidence;           /* 0..1 */
} GstClvRecognition;

/* Fills `det` from `roi`'s "detection" structure; FALSE if it has none or a
 * field is missing or of another type.  `det->label` points into the
 * structure (valid while the meta is). */
GST_CLVISION_API
gboolean gst_clv_roi_meta_get_detection (GstVideoRegionOfInterestMeta * roi,
    GstClvDetection * det);

/* Sets the "detection" structure of `roi` (replacing its fields if it has
 * one already). */
GST_CLVISION_API
void gst_clv_roi_meta_set_detection (GstVideoRegionOfInterestMeta * roi,
    const GstClvDetection * det);

/* As above, for the "recognition" structure. */
GST_CLVISION_API
gboolean gst_clv_roi_meta_get_recognition (GstVideoRegionOfInterestMeta * roi,
    GstClvRecognition * rec);

GST_CLVISION_API
void gst_clv_roi_meta_set_recognition (GstVideoRegionOfInterestMeta * roi,
    const GstClvRecognition * rec);

G_END_DECLS
