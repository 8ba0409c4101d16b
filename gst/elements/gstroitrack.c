/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-roitrack
 * @title: roitrack
 *
 * Follows the objects that a detector upstream finds (any element that
 * attaches #GstVideoRegionOfInterestMeta, such as vjfacedetect) from frame
 * to frame and gives each one an identifier that lasts: SORT (IoU
 * association by the Hungarian method, a constant-velocity Kalman filter
 * per track; common/clv-track.h has the rules).
 *
 * Every ROI of a tracked object gets a parameter structure named
 * `tracking`: `id` (guint64, from 1, never given twice by one element,
 * not even after a flush), `age` (frames since the track started, 1 on
 * its first), `predicted` (TRUE when the box is the tracker's prediction
 * rather than a detection of this frame), `first-seen` and `last-seen`
 * (timestamps of the frames where the object was first and last
 * detected).  Objects of different `roi_type` or `detection` label_id are
 * never confused.
 *
 * Boxes where the detector saw nothing:
 *  - on a frame the detector skipped (vjfacedetect `interval`), the reused
 *    boxes are replaced by every track's predicted box;
 *  - a tracked object the detector misses gets its predicted box until
 *    #GstRoiTrack:max-lost frames have passed since it was last detected;
 *    then the track ends (one the detector found on a single frame ends at
 *    its first miss, and one whose predicted box is more than half outside
 *    the frame ends at once).
 * A predicted box is a new ROI meta with the parameter structures of the
 * object's last detection (its `detection` box fields moved with it) and
 * `tracking.predicted` = TRUE.
 *
 * State is per stream: a flush, a new stream (stream-start), EOS or a
 * change of frame size (the tracks' boxes are in the old frame's pixels)
 * ends every track.  With #GstRoiTrack:post-messages, an element message named
 * "track-started" or "track-ended" tells each start and end, with the
 * track's `id`, `roi-type`, `label-id`, `first-seen`, `last-seen`, `age`
 * and the `timestamp` of the frame that started or ended it (none when a
 * flush ended it).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=franck.webm ! decodebin ! videoconvert ! \
 *     vjfacedetect min-neighbors=20 interval=5 ! roitrack ! roioverlay ! \
 *     videoconvert ! autovideosink
 * ]| Faces detected on every fifth frame and followed between, each drawn
 * with its identifier.
 * |[
 * gst-launch-1.0 -m v4l2src ! videoconvert ! vjfacedetect ! \
 *     roitrack post-messages=true ! fakesink
 * ]| Prints a message as each face comes and goes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

#include "clv-track.h"
#include "gstroitrack.h"

GST_DEBUG_CATEGORY_STATIC (gst_roi_track_debug);
#define GST_CAT_DEFAULT gst_roi_track_debug

#define DEFAULT_MAX_LOST 10
#define MAX_MAX_LOST 100000
#define DEFAULT_IOU_THRESHOLD 0.3
#define DEFAULT_POST_MESSAGES FALSE

enum
{
  PROP_0,
  PROP_MAX_LOST,
  PROP_IOU_THRESHOLD,
  PROP_POST_MESSAGES,
};

/* What a predicted box of a track carries: its object's type and the
 * parameter structures of its last detection. */
typedef struct
{
  GQuark roi_type;
  gint label_id;
  GList *params;                /* GstStructure, "tracking" left out */
} TrackInfo;

struct _GstRoiTrack
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  guint max_lost;
  gdouble iou_threshold;
  gboolean post_messages;

  /* streaming */
  ClvTracker *tracker;
  GHashTable *infos;            /* guint64 id -> TrackInfo */
  gint width, height;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

G_DEFINE_TYPE_WITH_CODE (GstRoiTrack, gst_roi_track, GST_TYPE_BASE_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_roi_track_debug, "roitrack", 0,
        "Object tracking across frames"));
GST_ELEMENT_REGISTER_DEFINE (roitrack, "roitrack", GST_RANK_NONE,
    GST_TYPE_ROI_TRACK);

static void
track_info_free (TrackInfo * info)
{
  g_list_free_full (info->params, (GDestroyNotify) gst_structure_free);
  g_free (info);
}

/* Remembers what `roi` carries for the predicted boxes of track `id`. */
static void
track_info_store (GstRoiTrack * self, guint64 id,
    GstVideoRegionOfInterestMeta * roi, gint label_id)
{
  TrackInfo *info = g_new0 (TrackInfo, 1);

  info->roi_type = roi->roi_type;
  info->label_id = label_id;
  for (GList * l = roi->params; l != NULL; l = l->next)
    if (!gst_structure_has_name (l->data, GST_CLV_TRACKING_NAME))
      info->params = g_list_prepend (info->params, gst_structure_copy
          (l->data));
  info->params = g_list_reverse (info->params);
  g_hash_table_insert (self->infos, g_memdup2 (&id, sizeof id), info);
}

/* The class key of a ROI: type and detection label_id. */
static guint64
roi_class (GstVideoRegionOfInterestMeta * roi, gint * label_id)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_DETECTION_NAME);

  *label_id = 0;
  if (s != NULL)
    gst_structure_get_int (s, "label_id", label_id);
  return ((guint64) roi->roi_type << 32) | (guint32) * label_id;
}

static void
post_track_message (GstRoiTrack * self, const gchar * name,
    const ClvTrack * track, GstClockTime timestamp)
{
  const TrackInfo *info = g_hash_table_lookup (self->infos, &track->id);
  GstStructure *s;

  if (info == NULL)
    return;
  s = gst_structure_new (name,
      "id", G_TYPE_UINT64, track->id,
      "roi-type", G_TYPE_STRING, g_quark_to_string (info->roi_type),
      "label-id", G_TYPE_INT, info->label_id,
      "first-seen", G_TYPE_UINT64, track->first_seen,
      "last-seen", G_TYPE_UINT64, track->last_seen,
      "age", G_TYPE_UINT, track->age,
      "timestamp", G_TYPE_UINT64, timestamp, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Tells of the tracks the last step ended, and forgets them. */
static void
tracks_ended (GstRoiTrack * self, GstClockTime timestamp, gboolean post)
{
  guint n;
  const ClvTrack *ended = clv_tracker_ended (self->tracker, &n);

  for (guint i = 0; i < n; i++) {
    GST_LOG_OBJECT (self, "track %" G_GUINT64_FORMAT " ended", ended[i].id);
    if (post)
      post_track_message (self, "track-ended", &ended[i], timestamp);
    g_hash_table_remove (self->infos, &ended[i].id);
  }
}

/* Ends every track (a flush, a new stream, EOS, a new frame size). */
static void
end_all_tracks (GstRoiTrack * self)
{
  gboolean post;

  if (self->tracker == NULL)
    return;
  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  clv_tracker_reset (self->tracker);
  tracks_ended (self, GST_CLOCK_TIME_NONE, post);
}

static void
set_tracking (GstVideoRegionOfInterestMeta * roi, const ClvTrack * track,
    gboolean predicted)
{
  const GstClvTracking t = {.id = track->id,.age = track->age,
    .predicted = predicted,.first_seen = track->first_seen,
    .last_seen = track->last_seen
  };

  gst_clv_roi_meta_set_tracking (roi, &t);
}

/* Adds the predicted box of `track` as a new ROI with id `roi_id`, unless
 * nothing of it is inside the frame. */
static void
add_predicted_roi (GstRoiTrack * self, GstBuffer * buf,
    const ClvTrack * track, gint roi_id)
{
  const TrackInfo *info = g_hash_table_lookup (self->infos, &track->id);
  const gint x0 = CLAMP (lround (track->box.x), 0, self->width);
  const gint y0 = CLAMP (lround (track->box.y), 0, self->height);
  const gint x1 = CLAMP (lround (track->box.x + track->box.w), 0,
      self->width);
  const gint y1 = CLAMP (lround (track->box.y + track->box.h), 0,
      self->height);
  GstVideoRegionOfInterestMeta *roi;

  if (info == NULL || x1 <= x0 || y1 <= y0)
    return;
  roi = gst_buffer_add_video_region_of_interest_meta_id (buf, info->roi_type,
      x0, y0, x1 - x0, y1 - y0);
  roi->id = roi_id;
  for (GList * l = info->params; l != NULL; l = l->next) {
    GstStructure *s = gst_structure_copy (l->data);

    if (gst_structure_has_name (s, GST_CLV_DETECTION_NAME)) {
      gst_structure_remove_field (s, "reused");
      if (gst_structure_has_field (s, "x_min"))
        gst_structure_set (s, "x_min", G_TYPE_DOUBLE,
            (gdouble) x0 / self->width, "y_min", G_TYPE_DOUBLE,
            (gdouble) y0 / self->height, "x_max", G_TYPE_DOUBLE,
            (gdouble) x1 / self->width, "y_max", G_TYPE_DOUBLE,
            (gdouble) y1 / self->height, NULL);
    }
    gst_video_region_of_interest_meta_add_param (roi, s);
  }
  set_tracking (roi, track, TRUE);
}

typedef struct
{
  GArray *detections;           /* ClvTrackDetection */
  GPtrArray *rois;              /* their metas */
  GArray *label_ids;            /* gint */
  gint next_roi_id;
} FrameRois;

/* Collects the detections of `buf`, removing the boxes a detector reused
 * on a frame it skipped (their tracks' predictions replace them). */
static gboolean
collect_roi (GstBuffer * buf, GstMeta ** meta, gpointer user_data)
{
  FrameRois *f = user_data;
  GstVideoRegionOfInterestMeta *roi;
  ClvTrackDetection det;
  gint label_id;

  if ((*meta)->info->api != GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)
    return TRUE;
  roi = (GstVideoRegionOfInterestMeta *) * meta;
  if (gst_clv_roi_meta_is_reused (roi)) {
    *meta = NULL;
    return TRUE;
  }
  f->next_roi_id = MAX (f->next_roi_id, roi->id + 1);
  det.box = (ClvTrackBox) {
  roi->x, roi->y, roi->w, roi->h};
  det.label = roi_class (roi, &label_id);
  g_array_append_val (f->detections, det);
  g_ptr_array_add (f->rois, roi);
  g_array_append_val (f->label_ids, label_id);
  return TRUE;
}

/* Marks the matched ROIs, adds the predicted ones, tells of the new
 * tracks. */
static void
output_tracks (GstRoiTrack * self, GstBuffer * buf, FrameRois * f,
    gboolean post)
{
  guint n;
  const ClvTrack *tracks = clv_tracker_tracks (self->tracker, &n);

  for (guint i = 0; i < n; i++) {
    const ClvTrack *track = &tracks[i];

    if (track->detection < 0) {
      add_predicted_roi (self, buf, track, f->next_roi_id++);
      continue;
    }
    set_tracking (g_ptr_array_index (f->rois, track->detection), track,
        FALSE);
    track_info_store (self, track->id, g_ptr_array_index (f->rois,
            track->detection), g_array_index (f->label_ids, gint,
            track->detection));
    if (track->age == 1) {
      GST_LOG_OBJECT (self, "track %" G_GUINT64_FORMAT " started", track->id);
      if (post)
        post_track_message (self, "track-started", track, GST_BUFFER_PTS
            (buf));
    }
  }
}

static GstFlowReturn
gst_roi_track_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  ClvTrackerParams params;
  gboolean post;
  FrameRois f;

  GST_OBJECT_LOCK (self);
  params.max_lost = self->max_lost;
  params.iou_threshold = self->iou_threshold;
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  clv_tracker_set_params (self->tracker, &params);

  f.detections = g_array_new (FALSE, FALSE, sizeof (ClvTrackDetection));
  f.rois = g_ptr_array_new ();
  f.label_ids = g_array_new (FALSE, FALSE, sizeof (gint));
  f.next_roi_id = 0;
  gst_buffer_foreach_meta (buf, collect_roi, &f);
  if (gst_clv_buffer_is_skipped (buf)) {
    /* Boxes another detector found on this frame are left as they are. */
    g_array_set_size (f.detections, 0);
    clv_tracker_predict (self->tracker, self->width, self->height);
  } else {
    clv_tracker_update (self->tracker,
        (const ClvTrackDetection *) f.detections->data, f.detections->len,
        GST_BUFFER_PTS (buf), self->width, self->height);
  }
  /* Ended first: an ended track's info goes, a new one's is stored. */
  tracks_ended (self, GST_BUFFER_PTS (buf), post);
  output_tracks (self, buf, &f, post);
  g_array_unref (f.detections);
  g_ptr_array_unref (f.rois);
  g_array_unref (f.label_ids);
  return GST_FLOW_OK;
}

static gboolean
gst_roi_track_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, incaps))
    goto bad_caps;
  if (GST_VIDEO_INFO_WIDTH (&info) != self->width
      || GST_VIDEO_INFO_HEIGHT (&info) != self->height)
    end_all_tracks (self);
  self->width = GST_VIDEO_INFO_WIDTH (&info);
  self->height = GST_VIDEO_INFO_HEIGHT (&info);
  return TRUE;

  /* ERRORS */
bad_caps:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Caps %" GST_PTR_FORMAT " are not a video format with a frame size",
            incaps), (NULL));
    return FALSE;
  }
}

static gboolean
gst_roi_track_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
    case GST_EVENT_EOS:
      end_all_tracks (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_roi_track_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_roi_track_start (GstBaseTransform * trans)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  ClvTrackerParams params;

  GST_OBJECT_LOCK (self);
  params.max_lost = self->max_lost;
  params.iou_threshold = self->iou_threshold;
  GST_OBJECT_UNLOCK (self);
  self->tracker = clv_tracker_new (&params);
  return TRUE;
}

static gboolean
gst_roi_track_stop (GstBaseTransform * trans)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);

  g_clear_pointer (&self->tracker, clv_tracker_free);
  g_hash_table_remove_all (self->infos);
  return TRUE;
}

static void
gst_roi_track_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MAX_LOST:
      self->max_lost = g_value_get_uint (value);
      break;
    case PROP_IOU_THRESHOLD:
      self->iou_threshold = g_value_get_double (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_track_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MAX_LOST:
      g_value_set_uint (value, self->max_lost);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_double (value, self->iou_threshold);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_track_finalize (GObject * object)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);

  clv_tracker_free (self->tracker);
  g_hash_table_unref (self->infos);
  G_OBJECT_CLASS (gst_roi_track_parent_class)->finalize (object);
}

static void
gst_roi_track_class_init (GstRoiTrackClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_roi_track_set_property;
  gobject_class->get_property = gst_roi_track_get_property;
  gobject_class->finalize = gst_roi_track_finalize;

  /**
   * GstRoiTrack:max-lost:
   *
   * How many frames after its last detection a track the detector missed
   * survives, its box predicted; the box is gone on the next.  Frames the
   * detector skipped count as well, so a box lingers as long at any
   * `interval`, but a track detected on the last analysed frame never ends
   * on a skipped one.  The default bridges a face hidden by another for a
   * third of a second at 30 frames/s, and a face that leaves is boxed no
   * longer than that.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_LOST,
      g_param_spec_uint ("max-lost", "Maximum lost",
          "Frames a missed track survives after its last detection", 0,
          MAX_MAX_LOST, DEFAULT_MAX_LOST, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_IOU_THRESHOLD,
      g_param_spec_double ("iou-threshold", "IoU threshold",
          "Least overlap (intersection over union) of a detection with a "
          "track's predicted box for them to match", 0.01, 1.0,
          DEFAULT_IOU_THRESHOLD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post \"track-started\" and \"track-ended\" element messages",
          DEFAULT_POST_MESSAGES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "ROI tracker",
      "Filter/Analyzer/Video",
      "Follows regions of interest across frames (SORT: IoU and Kalman "
      "filters), giving each object an identifier and predicting its box "
      "on the frames a detector skipped", "clvision developers");

  trans_class->start = gst_roi_track_start;
  trans_class->stop = gst_roi_track_stop;
  trans_class->set_caps = gst_roi_track_set_caps;
  trans_class->sink_event = gst_roi_track_sink_event;
  trans_class->transform_ip = gst_roi_track_transform_ip;
}

static void
gst_roi_track_init (GstRoiTrack * self)
{
  self->max_lost = DEFAULT_MAX_LOST;
  self->iou_threshold = DEFAULT_IOU_THRESHOLD;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->infos = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      (GDestroyNotify) track_info_free);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
