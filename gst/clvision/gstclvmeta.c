/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvmeta
 * @title: Detection, recognition and tracking results
 * @short_description: Typed access to the results on region-of-interest
 *     metas
 *
 * vjfacedetect puts every face it finds on its frame as a
 * #GstVideoRegionOfInterestMeta of type "face" with a "detection"
 * parameter structure; eigenrecognise adds a "recognition" structure to
 * the same meta, roitrack a "tracking" one.  The structures are the
 * contract (their field names are those Intel DL Streamer uses); these
 * functions read and write them so that applications need no field names:
 * |[<!-- language="C" -->
 *   GList *faces = gst_clv_buffer_get_roi_metas (buffer, "face");
 *
 *   for (GList *l = faces; l; l = l->next) {
 *     GstClvDetection det;
 *
 *     if (gst_clv_roi_meta_get_detection (l->data, &det))
 *       g_print ("a face, %.0f%% sure\n", 100 * det.confidence);
 *   }
 *   g_list_free (faces);
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvmeta.h"

/* The names the setters write, as quarks looked up once: by name, every
 * field of every face takes GLib's global quark lock (with the element's
 * own names by quark too, a frame of 16 faces' metas took 3.8 µs instead
 * of 6.7 on the machine that builds). */
typedef struct
{
  GQuark detection, recognition, tracking;
  GQuark label, label_id, confidence, neighbors, distance;
  GQuark x_min, y_min, x_max, y_max;
  GQuark id, age, predicted, first_seen, last_seen, reused;
} FieldNames;

static const FieldNames *
field_names (void)
{
  static FieldNames q;
  static gsize once;

  if (g_once_init_enter (&once)) {
    q.detection = g_quark_from_static_string (GST_CLV_DETECTION_NAME);
    q.recognition = g_quark_from_static_string (GST_CLV_RECOGNITION_NAME);
    q.tracking = g_quark_from_static_string (GST_CLV_TRACKING_NAME);
    q.label = g_quark_from_static_string ("label");
    q.label_id = g_quark_from_static_string ("label_id");
    q.confidence = g_quark_from_static_string ("confidence");
    q.neighbors = g_quark_from_static_string ("neighbors");
    q.distance = g_quark_from_static_string ("distance");
    q.x_min = g_quark_from_static_string ("x_min");
    q.y_min = g_quark_from_static_string ("y_min");
    q.x_max = g_quark_from_static_string ("x_max");
    q.y_max = g_quark_from_static_string ("y_max");
    q.id = g_quark_from_static_string ("id");
    q.age = g_quark_from_static_string ("age");
    q.predicted = g_quark_from_static_string ("predicted");
    q.first_seen = g_quark_from_static_string ("first-seen");
    q.last_seen = g_quark_from_static_string ("last-seen");
    q.reused = g_quark_from_static_string ("reused");
    g_once_init_leave (&once, 1);
  }
  return &q;
}

/* The structure of `roi` named `name`, created and attached if it has
 * none. */
static GstStructure *
roi_param_for_writing (GstVideoRegionOfInterestMeta * roi, GQuark name)
{
  GstStructure *s;

  for (GList * l = roi->params; l != NULL; l = l->next)
    if (gst_structure_get_name_id (l->data) == name)
      return l->data;
  s = gst_structure_new_id_empty (name);
  /* The meta takes the structure and keeps it where it was given. */
  gst_video_region_of_interest_meta_add_param (roi, s);
  return s;
}

/**
 * gst_clv_buffer_get_roi_metas:
 * @buffer: a #GstBuffer
 * @roi_type: (nullable): the type of region wanted ("face"), or %NULL for
 *     every one
 *
 * The region-of-interest metas of @buffer, in the order they were added
 * (for languages that cannot walk a buffer's metas).
 *
 * Returns: (transfer container) (element-type GstVideo.VideoRegionOfInterestMeta):
 *     the metas; free the list with g_list_free().
 *
 * Since: 0.1
 */
GList *
gst_clv_buffer_get_roi_metas (GstBuffer * buffer, const gchar * roi_type)
{
  const GQuark type = roi_type ? g_quark_try_string (roi_type) : 0;
  GList *out = NULL;
  gpointer state = NULL;
  GstMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  if (roi_type && type == 0)
    return NULL;
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (roi_type == NULL
        || ((GstVideoRegionOfInterestMeta *) meta)->roi_type == type)
      out = g_list_prepend (out, meta);
  return g_list_reverse (out);
}

/**
 * gst_clv_roi_meta_get_detection:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @det: (out caller-allocates): the detection
 *
 * Reads the "detection" structure of @roi into @det; @det->label points
 * into the structure and is valid while the meta is.
 *
 * Returns: %TRUE, or %FALSE if @roi has no "detection" structure or one of
 *     its fields is missing or of another type.
 *
 * Since: 0.1
 */
gboolean
gst_clv_roi_meta_get_detection (GstVideoRegionOfInterestMeta * roi,
    GstClvDetection * det)
{
  GstStructure *s;

  g_return_val_if_fail (roi != NULL && det != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_DETECTION_NAME);
  if (s == NULL)
    return FALSE;
  det->label = gst_structure_get_string (s, "label");
  return det->label != NULL
      && gst_structure_get_int (s, "label_id", &det->label_id)
      && gst_structure_get_double (s, "confidence", &det->confidence)
      && gst_structure_get_int (s, "neighbors", &det->neighbors)
      && gst_structure_get_double (s, "x_min", &det->x_min)
      && gst_structure_get_double (s, "y_min", &det->y_min)
      && gst_structure_get_double (s, "x_max", &det->x_max)
      && gst_structure_get_double (s, "y_max", &det->y_max);
}

/**
 * gst_clv_roi_meta_set_detection:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @det: the detection
 *
 * Sets the "detection" structure of @roi, replacing the fields of one it
 * has already.
 *
 * Since: 0.1
 */
void
gst_clv_roi_meta_set_detection (GstVideoRegionOfInterestMeta * roi,
    const GstClvDetection * det)
{
  const FieldNames *q = field_names ();

  g_return_if_fail (roi != NULL && det != NULL && det->label != NULL);
  gst_structure_id_set (roi_param_for_writing (roi, q->detection),
      q->label, G_TYPE_STRING, det->label,
      q->label_id, G_TYPE_INT, det->label_id,
      q->confidence, G_TYPE_DOUBLE, det->confidence,
      q->neighbors, G_TYPE_INT, det->neighbors,
      q->x_min, G_TYPE_DOUBLE, det->x_min,
      q->y_min, G_TYPE_DOUBLE, det->y_min,
      q->x_max, G_TYPE_DOUBLE, det->x_max,
      q->y_max, G_TYPE_DOUBLE, det->y_max, NULL);
}

/**
 * gst_clv_roi_meta_is_reused:
 * @roi: a #GstVideoRegionOfInterestMeta
 *
 * Whether the detection of @roi is one the detector found on an earlier
 * frame and reused on this one, which it skipped (vjfacedetect's
 * `interval`): its "detection" structure has `reused` = %TRUE.  A tracker
 * predicts such frames' boxes instead.
 *
 * Returns: %TRUE if the detection is reused.
 *
 * Since: 0.1
 */
gboolean
gst_clv_roi_meta_is_reused (GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *s;
  gboolean reused = FALSE;

  g_return_val_if_fail (roi != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_DETECTION_NAME);
  return s != NULL && gst_structure_get_boolean (s, "reused", &reused)
      && reused;
}

/**
 * gst_clv_roi_meta_set_reused:
 * @roi: a #GstVideoRegionOfInterestMeta
 *
 * Marks the detection of @roi as one reused from an earlier frame.
 *
 * Since: 0.1
 */
void
gst_clv_roi_meta_set_reused (GstVideoRegionOfInterestMeta * roi)
{
  const FieldNames *q = field_names ();

  g_return_if_fail (roi != NULL);
  gst_structure_id_set (roi_param_for_writing (roi, q->detection),
      q->reused, G_TYPE_BOOLEAN, TRUE, NULL);
}

/* Copied with the buffer (the default of custom metas), and through any
 * transformation: a skipped frame stays one when scaled. */
static const GstMetaInfo *
skipped_meta_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter (&info)) {
    static const gchar *tags[] = { NULL };
    const GstMetaInfo *registered =
        gst_meta_register_custom (GST_CLV_SKIPPED_META_NAME, tags, NULL, NULL,
        NULL);

    g_once_init_leave (&info, registered);
  }
  return info;
}

/**
 * gst_clv_buffer_set_skipped:
 * @buf: a writable #GstBuffer
 *
 * Marks @buf as a frame the detector skipped (vjfacedetect's `interval`),
 * faces or not, with a #GST_CLV_SKIPPED_META_NAME #GstCustomMeta: a
 * tracker tells such a frame from one analysed and found empty.
 *
 * Since: 0.1
 */
void
gst_clv_buffer_set_skipped (GstBuffer * buf)
{
  g_return_if_fail (GST_IS_BUFFER (buf));
  skipped_meta_info ();
  if (gst_buffer_get_custom_meta (buf, GST_CLV_SKIPPED_META_NAME) == NULL)
    gst_buffer_add_custom_meta (buf, GST_CLV_SKIPPED_META_NAME);
}

/**
 * gst_clv_buffer_is_skipped:
 * @buf: a #GstBuffer
 *
 * Whether the detector skipped @buf.
 *
 * Returns: whether the detector skipped @buf (gst_clv_buffer_set_skipped()).
 *
 * Since: 0.1
 */
gboolean
gst_clv_buffer_is_skipped (GstBuffer * buf)
{
  g_return_val_if_fail (GST_IS_BUFFER (buf), FALSE);
  skipped_meta_info ();
  return gst_buffer_get_custom_meta (buf, GST_CLV_SKIPPED_META_NAME) != NULL;
}

/**
 * gst_clv_roi_meta_get_recognition:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @rec: (out caller-allocates): the recognition
 *
 * Reads the "recognition" structure of @roi into @rec; @rec->label points
 * into the structure and is valid while the meta is.
 *
 * Returns: %TRUE, or %FALSE if @roi has no "recognition" structure or one
 *     of its fields is missing or of another type.
 *
 * Since: 0.1
 */
gboolean
gst_clv_roi_meta_get_recognition (GstVideoRegionOfInterestMeta * roi,
    GstClvRecognition * rec)
{
  GstStructure *s;

  g_return_val_if_fail (roi != NULL && rec != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_RECOGNITION_NAME);
  if (s == NULL)
    return FALSE;
  rec->label = gst_structure_get_string (s, "label");
  return rec->label != NULL
      && gst_structure_get_int (s, "label_id", &rec->label_id)
      && gst_structure_get_double (s, "distance", &rec->distance)
      && gst_structure_get_double (s, "confidence", &rec->confidence);
}

/**
 * gst_clv_roi_meta_set_recognition:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @rec: the recognition
 *
 * Sets the "recognition" structure of @roi, replacing the fields of one it
 * has already.
 *
 * Since: 0.1
 */
void
gst_clv_roi_meta_set_recognition (GstVideoRegionOfInterestMeta * roi,
    const GstClvRecognition * rec)
{
  const FieldNames *q = field_names ();

  g_return_if_fail (roi != NULL && rec != NULL && rec->label != NULL);
  gst_structure_id_set (roi_param_for_writing (roi, q->recognition),
      q->label, G_TYPE_STRING, rec->label,
      q->label_id, G_TYPE_INT, rec->label_id,
      q->distance, G_TYPE_DOUBLE, rec->distance,
      q->confidence, G_TYPE_DOUBLE, rec->confidence, NULL);
}

/**
 * gst_clv_roi_meta_get_tracking:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @tracking: (out caller-allocates): the tracking
 *
 * Reads the "tracking" structure of @roi (fields id, age, predicted,
 * first-seen, last-seen) into @tracking.
 *
 * Returns: %TRUE, or %FALSE if @roi has no "tracking" structure or one of
 *     its fields is missing or of another type.
 *
 * Since: 0.1
 */
gboolean
gst_clv_roi_meta_get_tracking (GstVideoRegionOfInterestMeta * roi,
    GstClvTracking * tracking)
{
  GstStructure *s;

  g_return_val_if_fail (roi != NULL && tracking != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_TRACKING_NAME);
  return s != NULL
      && gst_structure_get_uint64 (s, "id", &tracking->id)
      && gst_structure_get_uint (s, "age", &tracking->age)
      && gst_structure_get_boolean (s, "predicted", &tracking->predicted)
      && gst_structure_get_uint64 (s, "first-seen", &tracking->first_seen)
      && gst_structure_get_uint64 (s, "last-seen", &tracking->last_seen);
}

/**
 * gst_clv_roi_meta_set_tracking:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @tracking: the tracking
 *
 * Sets the "tracking" structure of @roi, replacing the fields of one it
 * has already.
 *
 * Since: 0.1
 */
void
gst_clv_roi_meta_set_tracking (GstVideoRegionOfInterestMeta * roi,
    const GstClvTracking * tracking)
{
  const FieldNames *q = field_names ();

  g_return_if_fail (roi != NULL && tracking != NULL);
  gst_structure_id_set (roi_param_for_writing (roi, q->tracking),
      q->id, G_TYPE_UINT64, tracking->id,
      q->age, G_TYPE_UINT, tracking->age,
      q->predicted, G_TYPE_BOOLEAN, tracking->predicted,
      q->first_seen, G_TYPE_UINT64, tracking->first_seen,
      q->last_seen, G_TYPE_UINT64, tracking->last_seen, NULL);
}
