/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>
#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CLV_DETECTION_NAME:
 *
 * The name of the parameter structure of a #GstVideoRegionOfInterestMeta
 * that says what a detector found (#GstClvDetection).
 *
 * Since: 0.1
 */
#define GST_CLV_DETECTION_NAME "detection"

/**
 * GST_CLV_RECOGNITION_NAME:
 *
 * The name of the parameter structure that says who a face is
 * (#GstClvRecognition).
 *
 * Since: 0.1
 */
#define GST_CLV_RECOGNITION_NAME "recognition"

/**
 * GST_CLV_TRACKING_NAME:
 *
 * The name of the parameter structure that says which object a region is
 * across frames (#GstClvTracking).
 *
 * Since: 0.1
 */
#define GST_CLV_TRACKING_NAME "tracking"

/**
 * GstClvDetection:
 * @label: what was found ("face"); points into the meta's structure
 * @label_id: its number (0 for faces)
 * @confidence: how sure the detector is, 0 to 1
 * @neighbors: raw windows merged into this one
 * @x_min: the left of the box, 0 to 1 of the frame's width
 * @y_min: its top, 0 to 1 of the frame's height
 * @x_max: its right
 * @y_max: its bottom
 *
 * The "detection" structure: what was found and how sure the detector is.
 * The box itself is the meta's x, y, w, h in frame pixels; @x_min to
 * @y_max is the same box normalised to 0..1 by the frame size.  The field
 * names are those Intel DL Streamer uses.
 *
 * Since: 0.1
 */
typedef struct
{
  const gchar *label;
  gint label_id;
  gdouble confidence;
  gint neighbors;
  gdouble x_min, y_min, x_max, y_max;
} GstClvDetection;

/**
 * GstClvRecognition:
 * @label: the name, or "unknown"; points into the meta's structure
 * @label_id: its number, -1 when unknown
 * @distance: to the nearest training face, Euclidean in PCA space
 * @confidence: 0 to 1
 *
 * The "recognition" structure: who a face is.
 *
 * Since: 0.1
 */
typedef struct
{
  const gchar *label;
  gint label_id;
  gdouble distance;
  gdouble confidence;
} GstClvRecognition;

/**
 * GstClvTracking:
 * @id: the track, from 1, never reused by one roitrack
 * @age: frames since the track started, 1 on its first
 * @predicted: the box is the tracker's prediction, not a detection of
 *     this frame
 * @first_seen: the timestamp of the frame where it was first detected
 * @last_seen: the timestamp of the frame where it was last detected
 *
 * The "tracking" structure (roitrack): which object a region is across
 * frames.
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 id;
  guint age;
  gboolean predicted;
  GstClockTime first_seen;
  GstClockTime last_seen;
} GstClvTracking;

GST_CLVISION_API
GList *gst_clv_buffer_get_roi_metas (GstBuffer * buffer,
    const gchar * roi_type);

GST_CLVISION_API
gboolean gst_clv_roi_meta_get_detection (GstVideoRegionOfInterestMeta * roi,
    GstClvDetection * det);

GST_CLVISION_API
void gst_clv_roi_meta_set_detection (GstVideoRegionOfInterestMeta * roi,
    const GstClvDetection * det);

GST_CLVISION_API
gboolean gst_clv_roi_meta_is_reused (GstVideoRegionOfInterestMeta * roi);

GST_CLVISION_API
void gst_clv_roi_meta_set_reused (GstVideoRegionOfInterestMeta * roi);

/**
 * GST_CLV_SKIPPED_META_NAME:
 *
 * The name of the #GstCustomMeta that marks a frame the detector skipped
 * (vjfacedetect's `interval`), faces or not: see
 * gst_clv_buffer_set_skipped().
 *
 * Since: 0.1
 */
#define GST_CLV_SKIPPED_META_NAME "GstClvSkippedMeta"

GST_CLVISION_API
void gst_clv_buffer_set_skipped (GstBuffer * buf);

GST_CLVISION_API
gboolean gst_clv_buffer_is_skipped (GstBuffer * buf);

GST_CLVISION_API
gboolean gst_clv_roi_meta_get_recognition (GstVideoRegionOfInterestMeta * roi,
    GstClvRecognition * rec);

GST_CLVISION_API
void gst_clv_roi_meta_set_recognition (GstVideoRegionOfInterestMeta * roi,
    const GstClvRecognition * rec);

GST_CLVISION_API
gboolean gst_clv_roi_meta_get_tracking (GstVideoRegionOfInterestMeta * roi,
    GstClvTracking * tracking);

GST_CLVISION_API
void gst_clv_roi_meta_set_tracking (GstVideoRegionOfInterestMeta * roi,
    const GstClvTracking * tracking);

G_END_DECLS
