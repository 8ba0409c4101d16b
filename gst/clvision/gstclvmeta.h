/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Typed access to the results clvision attaches to
 * GstVideoRegionOfInterestMeta: the parameter structures "detection"
 * (vjfacedetect), "recognition" (eigenrecognise) and "tracking"
 * (roitrack).  The structures are the
 * contract (field names as Intel DL Streamer uses them, README "Metadata");
 * these functions read and write them so that applications need no field
 * names, and the elements write them in one place. */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

#define GST_CLV_DETECTION_NAME "detection"
#define GST_CLV_RECOGNITION_NAME "recognition"
#define GST_CLV_TRACKING_NAME "tracking"

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

/* The "tracking" structure (roitrack): which object this is across
 * frames. */
typedef struct
{
  guint64 id;                   /* from 1, never reused by one roitrack */
  guint age;                    /* frames since the track started, 1 on its
                                 * first */
  gboolean predicted;           /* the box is the tracker's prediction, not
                                 * a detection of this frame */
  GstClockTime first_seen;      /* timestamps of the frames where it was */
  GstClockTime last_seen;       /* first and last detected */
} GstClvTracking;

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

/* Whether the detection of `roi` is one the detector found on an earlier
 * frame and reused on this one, which it skipped (vjfacedetect's
 * `interval`): its "detection" structure has `reused` = TRUE.  A tracker
 * predicts such frames' boxes instead. */
GST_CLVISION_API
gboolean gst_clv_roi_meta_is_reused (GstVideoRegionOfInterestMeta * roi);

/* Marks the detection of `roi` as reused (its "detection" structure must be
 * set). */
GST_CLVISION_API
void gst_clv_roi_meta_set_reused (GstVideoRegionOfInterestMeta * roi);

/* A frame the detector skipped (vjfacedetect's `interval`), faces or not:
 * a #GstCustomMeta named GST_CLV_SKIPPED_META_NAME on the buffer.  A
 * tracker tells such a frame from one analysed and found empty by it. */
#define GST_CLV_SKIPPED_META_NAME "GstClvSkippedMeta"

GST_CLVISION_API
void gst_clv_buffer_set_skipped (GstBuffer * buf);

GST_CLVISION_API
gboolean gst_clv_buffer_is_skipped (GstBuffer * buf);

/* As above, for the "recognition" structure. */
GST_CLVISION_API
gboolean gst_clv_roi_meta_get_recognition (GstVideoRegionOfInterestMeta * roi,
    GstClvRecognition * rec);

GST_CLVISION_API
void gst_clv_roi_meta_set_recognition (GstVideoRegionOfInterestMeta * roi,
    const GstClvRecognition * rec);

/* As above, for the "tracking" structure (fields id, age, predicted,
 * first-seen, last-seen). */
GST_CLVISION_API
gboolean gst_clv_roi_meta_get_tracking (GstVideoRegionOfInterestMeta * roi,
    GstClvTracking * tracking);

GST_CLVISION_API
void gst_clv_roi_meta_set_tracking (GstVideoRegionOfInterestMeta * roi,
    const GstClvTracking * tracking);

G_END_DECLS
