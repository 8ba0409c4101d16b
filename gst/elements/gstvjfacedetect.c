/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-vjfacedetect
 * @title: vjfacedetect
 *
 * Detects objects with a boosted cascade (Viola–Jones: OpenCV's Haar or
 * LBP cascades) on an OpenCL device and gives the same detections as
 * OpenCV 4.6's `CascadeClassifier::detectMultiScale` with the same cascade
 * and parameters.  Its default cascade finds frontal faces; `cascadedetect`
 * is the same element under a general name.  The video passes through
 * unchanged; every detection becomes a #GstVideoRegionOfInterestMeta whose
 * type is the #GstVjFaceDetect:label ("face" for the default cascade,
 * else from the cascade's file name: "eye", "plate", "smile", ...) with a
 * `detection` parameter structure (label, label_id, confidence, neighbors
 * and the normalised box x_min, y_min, x_max, y_max; with
 * #GstVjFaceDetect:output-reject-levels also OpenCV's `reject-level` and
 * `level-weight`), and with #GstVjFaceDetect:post-messages an element
 * message named after the element is posted for every frame, shaped like
 * gst-plugins-bad's facedetect one (timestamp, stream-time, running-time,
 * duration, and a list `faces` of structures named after the label with x,
 * y, width, height, neighbors, and parent-id, reject-level, level-weight
 * where they apply).
 *
 * With #GstVjFaceDetect:parent it searches only inside the ROIs of that
 * label already on the buffer, as facedetect's eyes, nose and mouth
 * cascades or a DL Streamer second-stage detector do: eyes inside faces,
 * plates inside cars.  The parents of a frame are detected together in one
 * batch on the device; each detection's meta carries its parent's ROI id as
 * parent_id (roiexport writes it, roioverlay draws children inside their
 * parents).  The results equal OpenCV's detectMultiScale on each parent's
 * crop of the frame, mapped back.
 *
 * Gray and YUV frames are analysed on their luma plane as is; packed RGB
 * frames are converted to luma on the device with OpenCV's weights.  The
 * detector builds the image pyramid and integrals on the device and, on
 * GPUs, runs the cascade as one persistent, load-balanced kernel over all
 * scales; on CPU devices (PoCL) a kernel that evaluates 8 windows at once
 * in SIMD lanes, with local queues between its stages, is the default
 * (#GstVjFaceDetect:variant chooses).  Parents smaller than the cascade's
 * window give no detections.
 *
 * Frames are checked at negotiation: a frame smaller than the cascade's
 * window (24x24 for OpenCV's frontal face cascades), larger than 65535
 * pixels a side, or whose image pyramid the kernels cannot index or the
 * device cannot hold (a quarter of its memory) fails there with a message
 * that says which and what to change, as does a frame larger than the
 * device's largest buffer.
 *
 * The elements of a process that use one device and one cascade file
 * share one detection service: frames that arrive while a batch runs on
 * the device are detected together in the next batch, without a timer, so
 * a lone stream never waits for company; each element still gets exactly
 * its own detections.
 *
 * A cascade that cannot be read or is malformed, or a `min-size` or
 * `max-size` that is not WIDTHxHEIGHT, fails the change to PAUSED with the
 * loader's message (file, line, what is wrong); a missing default cascade
 * names Debian's `opencv-data` package.
 *
 * With `in-flight` 0 (the default) two frames are in flight on a GPU for
 * frames of 1 MiB or more while no other analyser uses the device, and for
 * smaller frames while other streams share the element's detection service
 * (the same device and cascade: their batches then overlap); one
 * otherwise, a lone stream of small frames keeping its latency low.  On
 * CPU devices the host is the device: one.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m filesrc \
 *     location=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg ! \
 *     jpegdec ! videoconvert ! vjfacedetect min-size=40x40 ! fakesink
 * ]|
 * Eyes inside faces, drawn with their faces:
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! vjfacedetect ! \
 *     vjfacedetect cascade=/usr/share/opencv4/haarcascades/haarcascade_eye.xml \
 *     parent=face ! roioverlay ! videoconvert ! autovideosink
 * ]|
 */
/**
 * SECTION:element-cascadedetect
 * @title: cascadedetect
 *
 * vjfacedetect under a general name, for cascades that find other things
 * than faces: the same properties, metas and results; its messages are
 * named "cascadedetect".  The label comes from the cascade's file name
 * unless #GstVjFaceDetect:label says otherwise.
 *
 * ## Example launch lines
 * Russian number plates, scored as OpenCV's
 * detectMultiScale3 scores them:
 * |[
 * gst-launch-1.0 filesrc location=cars.mp4 ! decodebin ! videoconvert ! \
 *     cascadedetect cascade=/usr/share/opencv4/haarcascades/haarcascade_russian_plate_number.xml \
 *     output-reject-levels=true ! roiexport location=plates.jsonl ! fakesink
 * ]|
 * Faces with an LBP cascade, then smiles inside them:
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! \
 *     cascadedetect cascade=/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml ! \
 *     cascadedetect cascade=/usr/share/opencv4/haarcascades/haarcascade_smile.xml \
 *     parent=face min-neighbors=20 ! roioverlay ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "gstvjfacedetect.h"

GST_DEBUG_CATEGORY_STATIC (gst_vj_face_detect_debug);
#define GST_CAT_DEFAULT gst_vj_face_detect_debug

#define DEFAULT_CASCADE CLV_CASCADE_DIR "/" CLV_CASCADE_DEFAULT_NAME
#define DEFAULT_SCALE_FACTOR 1.1
#define MIN_SCALE_FACTOR 1.001
#define MAX_SCALE_FACTOR 10.0
#define DEFAULT_MIN_NEIGHBORS 3
#define DEFAULT_LABEL NULL
#define DEFAULT_PARENT NULL
#define DEFAULT_OUTPUT_REJECT_LEVELS FALSE
#define DEFAULT_MIN_SIZE "0x0"
#define DEFAULT_MAX_SIZE "0x0"
#define DEFAULT_INTERVAL 1
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_VARIANT GST_VJ_FACE_DETECT_VARIANT_AUTO
#define DEFAULT_BATCH_SIZE CLV_BATCH_DEFAULT_FRAMES
/* In-flight 0: the size (bytes) from which a frame counts as large. */
#define AUTO_IN_FLIGHT_MIN_BYTES ((gsize) 1 << 20)

/* confidence = neighbors / (neighbors + CONFIDENCE_HALF): 0.5 when this
 * many raw windows agree. */
#define CONFIDENCE_HALF 5.0

#define FORMATS "{ GRAY8, I420, YV12, NV12, NV21, Y42B, Y444, RGB, BGR, " \
    "RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR }"

enum
{
  PROP_0,
  PROP_CASCADE,
  PROP_SCALE_FACTOR,
  PROP_MIN_NEIGHBORS,
  PROP_MIN_SIZE,
  PROP_MAX_SIZE,
  PROP_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_VARIANT,
  PROP_BATCH_SIZE,
  PROP_LABEL,
  PROP_PARENT,
  PROP_OUTPUT_REJECT_LEVELS,
};

/* A detection: the cascade's, and the id of the ROI it was found in (its
 * parent) or -1. */
typedef struct
{
  ClvVjFace face;
  gint parent_id;
} Found;

/* The detection kernel (`variant`). */
typedef enum
{
  GST_VJ_FACE_DETECT_VARIANT_AUTO,
  GST_VJ_FACE_DETECT_VARIANT_TILED,
  GST_VJ_FACE_DETECT_VARIANT_UBER,
  GST_VJ_FACE_DETECT_VARIANT_SIMPLE,
  GST_VJ_FACE_DETECT_VARIANT_CPU,
} GstVjFaceDetectVariant;

static const ClvVjVariant kernels[] = { CLV_VJ_VARIANT_AUTO,
  CLV_VJ_VARIANT_TILED, CLV_VJ_VARIANT_UBER, CLV_VJ_VARIANT_SIMPLE,
  CLV_VJ_VARIANT_CPU
};

#define GST_TYPE_VJ_FACE_DETECT_VARIANT (gst_vj_face_detect_variant_get_type ())
static GType
gst_vj_face_detect_variant_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_VJ_FACE_DETECT_VARIANT_AUTO, "tiled on GPUs, cpu on CPU devices "
          "(simple where they lack doubles)", "auto"},
    {GST_VJ_FACE_DETECT_VARIANT_TILED, "One persistent kernel over tiles of "
          "windows in local memory (uber where a tile does not fit)",
        "tiled"},
    {GST_VJ_FACE_DETECT_VARIANT_UBER, "One persistent kernel over chunks of "
          "windows taken from a global counter", "uber"},
    {GST_VJ_FACE_DETECT_VARIANT_SIMPLE, "One work-item per window, one launch "
          "per scale", "simple"},
    {GST_VJ_FACE_DETECT_VARIANT_CPU, "For CPU devices: 8 windows at once in "
          "SIMD lanes, local queues between stages (needs doubles)", "cpu"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVjFaceDetectVariant", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

struct _GstVjFaceDetect
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gchar *cascade_path;
  gdouble scale_factor;
  gint min_neighbors;
  gchar *min_size;
  gchar *max_size;
  guint interval;
  gboolean post_messages;
  GstVjFaceDetectVariant variant;
  guint batch_size;
  gchar *label;                 /* NULL: from the cascade's file name */
  gchar *parent_label;          /* NULL: whole frames */
  gboolean output_reject_levels;

  /* streaming */
  ClvVjVariant kernel;          /* `variant`, when started */
  ClvCascade *cascade;
  gchar *roi_label;             /* the label in use */
  GQuark roi_type;              /* and as a quark */
  GQuark parent_type;           /* 0: whole frames */
  gboolean scores;              /* output-reject-levels, as started */
  ClvVjDetector *detector;      /* without shared batches (batch-size 0) */
  ClvBatchService *service;        /* the device's shared batches */
  ClvVjDetector *checker;       /* with batching: checks frame sizes */
  GArray *faces;                /* Found of the last analysed frame */
  guint64 frame_count;          /* frames since a restart, as they came */
};

G_DEFINE_TYPE_WITH_CODE (GstVjFaceDetect, gst_vj_face_detect,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_vj_face_detect_debug,
        "vjfacedetect", 0, "Viola-Jones face detection on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (vjfacedetect, "vjfacedetect", GST_RANK_NONE,
    GST_TYPE_VJ_FACE_DETECT);

/* cascadedetect: the element under its general name, its own metadata. */
G_DEFINE_TYPE (GstCascadeDetect, gst_cascade_detect,
    GST_TYPE_VJ_FACE_DETECT);
GST_ELEMENT_REGISTER_DEFINE (cascadedetect, "cascadedetect", GST_RANK_NONE,
    GST_TYPE_CASCADE_DETECT);

static void
gst_cascade_detect_class_init (GstCascadeDetectClass * klass)
{
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Cascade object detection", "Filter/Analyzer/Video",
      "Finds objects with an OpenCV Haar or LBP cascade on an OpenCL device, "
      "as OpenCV's detectMultiScale does, optionally inside ROIs found "
      "upstream, and attaches them as ROI metas", "clvision developers");
}

static void
gst_cascade_detect_init (GstCascadeDetect * self)
{
}

/* The detection parameters from the properties. */
static gboolean
get_params (GstVjFaceDetect * self, ClvVjParams * p, GError ** error)
{
  gboolean ok;
  gchar *bad = NULL;

  GST_OBJECT_LOCK (self);
  p->scale_factor = self->scale_factor;
  p->min_neighbors = self->min_neighbors;
  p->output_reject_levels = self->scores;
  ok = clv_vj_parse_size (self->min_size, &p->min_width, &p->min_height);
  if (!ok)
    bad = g_strdup_printf ("min-size \"%s\"", self->min_size);
  else if (!(ok = clv_vj_parse_size (self->max_size, &p->max_width,
              &p->max_height)))
    bad = g_strdup_printf ("max-size \"%s\"", self->max_size);
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "Invalid %s: write "
        "WIDTHxHEIGHT in pixels, e.g. 40x40 (0x0: no limit)", bad);
    g_free (bad);
  } else if ((p->max_width > 0 && p->min_width > p->max_width)
      || (p->max_height > 0 && p->min_height > p->max_height)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "min-size %dx%d is "
        "larger than max-size %dx%d: no face can be both", p->min_width,
        p->min_height, p->max_width, p->max_height);
    ok = FALSE;
  }
  return ok;
}

static gboolean
gst_vj_face_detect_start (GstBaseTransform * trans)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);
  ClvVjParams params;
  GError *error = NULL;
  ClvDevice *dev;
  gchar *path;
  guint batch_size;

  if (!GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->start
      (trans))
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->scores = self->output_reject_levels;
  GST_OBJECT_UNLOCK (self);
  if (!get_params (self, &params, &error))
    goto bad_settings;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->cascade_path);
  self->roi_label = self->label && *self->label ? g_strdup (self->label)
      : clv_cascade_label_for_path (path);
  self->parent_type = self->parent_label && *self->parent_label ?
      g_quark_from_string (self->parent_label) : 0;
  GST_OBJECT_UNLOCK (self);
  self->roi_type = g_quark_from_string (self->roi_label);
  self->cascade = clv_cascade_load (path, &error);
  g_free (path);
  if (self->cascade == NULL)
    goto no_cascade;
  dev = gst_clv_filter_get_device (GST_CLV_FILTER (self));
  GST_OBJECT_LOCK (self);
  self->kernel = kernels[self->variant];
  batch_size = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (batch_size > 0)
    self->service = clv_vj_service_get (dev, self->cascade, self->kernel,
        batch_size, &error);
  else
    self->detector = clv_vj_detector_new_for_variant (dev, self->cascade,
        self->kernel, &error);
  if (self->detector == NULL && self->service == NULL)
    goto no_detector;
  GST_INFO_OBJECT (self, "cascade %s: %s, %dx%d window, %d stages, label "
      "\"%s\"%s%s", self->cascade->path,
      self->cascade->feature_type == CLV_CASCADE_LBP ? "LBP" : "Haar",
      self->cascade->window_w, self->cascade->window_h,
      self->cascade->n_stages, self->roi_label,
      self->parent_type ? ", inside " : "",
      self->parent_type ? g_quark_to_string (self->parent_type) : "");
  self->frame_count = 0;
  return TRUE;

  /* ERRORS */
bad_settings:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return FALSE;
  }
no_cascade:
  {
    g_clear_pointer (&self->roi_label, g_free);
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, NOT_FOUND, error);
    return FALSE;
  }
no_detector:
  {
    g_clear_pointer (&self->cascade, clv_cascade_free);
    g_clear_pointer (&self->roi_label, g_free);
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
}

static gboolean
gst_vj_face_detect_stop (GstBaseTransform * trans)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);

  g_clear_pointer (&self->detector, clv_vj_detector_free);
  g_clear_pointer (&self->checker, clv_vj_detector_free);
  g_clear_pointer (&self->service, clv_batch_service_unref);
  g_clear_pointer (&self->cascade, clv_cascade_free);
  g_clear_pointer (&self->faces, g_array_unref);
  g_clear_pointer (&self->roi_label, g_free);
  return GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->stop
      (trans);
}

/* New caps: the detector must take frames of that size (said now, not at
 * the first frame), and faces of frames of another size must not be
 * reused.  Frames in flight are done: serialized events wait for them. */
static gboolean
gst_vj_face_detect_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (filter);
  ClvVjParams params;
  GError *error = NULL;

  g_clear_pointer (&self->faces, g_array_unref);
  self->frame_count = 0;
  if (!get_params (self, &params, &error))
    goto bad_settings;
  /* With batching the service's detectors are busy with other streams. */
  if (self->detector == NULL && self->checker == NULL
      && !(self->checker = clv_vj_detector_new_for_variant
          (gst_clv_filter_get_device (filter), self->cascade, self->kernel,
              &error)))
    goto no_detector;
  if (!clv_vj_detector_check_frame (self->detector ? self->detector :
          self->checker, GST_VIDEO_INFO_WIDTH (in_info),
          GST_VIDEO_INFO_HEIGHT (in_info), &params, &error))
    goto bad_frame;
  return TRUE;

  /* ERRORS */
bad_settings:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return FALSE;
  }
no_detector:
  {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
bad_frame:
  {
    GST_CLV_FILTER_POST_ERROR (self, STREAM, FORMAT, error);
    return FALSE;
  }
}

/* After a flush (a flushing seek) or a segment change the next frame is
 * not the one after the last: analyse it instead of reusing old faces.  A
 * repeated, equal segment changes nothing. */
static gboolean
gst_vj_face_detect_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);
  const GstSegment *segment;
  gboolean restart = FALSE;

  /* The frames in flight before the event have left (GstClvFilter). */
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      restart = TRUE;
      break;
    case GST_EVENT_SEGMENT:{
      GstSegment current = trans->segment;

      /* The position moves with every buffer: not a change. */
      gst_event_parse_segment (event, &segment);
      current.position = segment->position;
      restart = !gst_segment_is_equal (segment, &current);
      break;
    }
    default:
      break;
  }
  if (restart) {
    GST_DEBUG_OBJECT (self, "%s: the next frame is analysed",
        GST_EVENT_TYPE_NAME (event));
    g_clear_pointer (&self->faces, g_array_unref);
    self->frame_count = 0;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->sink_event
      (trans, event);
}

/* The first ROI id free in `buf`: ours must be unique within it. */
static gint
first_free_roi_id (GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint id = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    id = MAX (id, ((GstVideoRegionOfInterestMeta *) meta)->id + 1);
  return id;
}

/* The names of every face's meta and message fields as quarks, set in
 * class_init: by name, each would take GLib's global quark lock. */
static struct
{
  GQuark x, y, width, height, neighbors, parent_id, reject_level,
      level_weight;
} names;

static void
attach_metas (GstVjFaceDetect * self, GstBuffer * buf,
    const GstVideoInfo * info, gboolean reused)
{
  const gdouble w = GST_VIDEO_INFO_WIDTH (info);
  const gdouble h = GST_VIDEO_INFO_HEIGHT (info);
  gint id = first_free_roi_id (buf);
  GstClvDetection det = {.label = self->roi_label,.label_id = 0 };

  for (guint i = 0; i < self->faces->len; i++) {
    const Found *found = &g_array_index (self->faces, Found, i);
    const ClvVjFace *f = &found->face;
    GstVideoRegionOfInterestMeta *roi;

    roi = gst_buffer_add_video_region_of_interest_meta_id (buf,
        self->roi_type, f->rect.x, f->rect.y, f->rect.width, f->rect.height);
    roi->id = id++;
    roi->parent_id = found->parent_id;
    det.confidence = f->neighbors / (f->neighbors + CONFIDENCE_HALF);
    det.neighbors = f->neighbors;
    det.x_min = f->rect.x / w;
    det.y_min = f->rect.y / h;
    det.x_max = (f->rect.x + f->rect.width) / w;
    det.y_max = (f->rect.y + f->rect.height) / h;
    gst_clv_roi_meta_set_detection (roi, &det);
    if (reused)
      gst_clv_roi_meta_set_reused (roi);
    if (self->scores)
      gst_structure_id_set (gst_video_region_of_interest_meta_get_param (roi,
              GST_CLV_DETECTION_NAME), names.reject_level, G_TYPE_INT,
          f->reject_level, names.level_weight, G_TYPE_DOUBLE,
          f->level_weight, NULL);
  }
}

/* gst-plugins-bad facedetect's message, named after this element: a list
 * "faces" of structures named after the label. */
static void
post_message (GstVjFaceDetect * self, GstBuffer * buf)
{
  GstStructure *s = gst_clv_filter_new_frame_message (GST_CLV_FILTER (self),
      GST_OBJECT_NAME (gst_element_get_factory (GST_ELEMENT (self))), buf);
  GValue list = G_VALUE_INIT;

  g_value_init (&list, GST_TYPE_LIST);
  for (guint i = 0; i < self->faces->len; i++) {
    const Found *found = &g_array_index (self->faces, Found, i);
    const ClvVjFace *f = &found->face;
    GstStructure *e = gst_structure_new_id (self->roi_type,
        names.x, G_TYPE_UINT, (guint) f->rect.x,
        names.y, G_TYPE_UINT, (guint) f->rect.y,
        names.width, G_TYPE_UINT, (guint) f->rect.width,
        names.height, G_TYPE_UINT, (guint) f->rect.height,
        names.neighbors, G_TYPE_UINT, (guint) f->neighbors, NULL);
    GValue v = G_VALUE_INIT;

    if (self->parent_type)
      gst_structure_id_set (e, names.parent_id, G_TYPE_INT, found->parent_id,
          NULL);
    if (self->scores)
      gst_structure_id_set (e, names.reject_level, G_TYPE_INT,
          f->reject_level, names.level_weight, G_TYPE_DOUBLE,
          f->level_weight, NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, e);
    gst_value_list_append_and_take_value (&list, &v);
  }
  gst_structure_take_value (s, "faces", &list);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Metas and message for the current frame with the current faces, those
 * of an earlier frame when `reused`. */
static void
finish_frame (GstVjFaceDetect * self, GstBuffer * buf,
    const GstVideoInfo * info, gboolean reused)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  attach_metas (self, buf, info, reused);
  if (reused)
    gst_clv_buffer_set_skipped (buf);
  if (post)
    post_message (self, buf);
}

/* Every interval-th frame (since a restart) is analysed; the ones between
 * reuse its faces and are not even copied to the device.  Counts the
 * frame. */
static gboolean
next_frame_analysed (GstVjFaceDetect * self)
{
  guint interval;

  GST_OBJECT_LOCK (self);
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  return self->frame_count++ % interval == 0;
}

/* The faces an analysed frame found, until its turn to finish. */
typedef struct
{
  GArray *faces;
} AnalysedFrame;

static void
analysed_frame_free (gpointer data)
{
  AnalysedFrame *f = data;

  g_clear_pointer (&f->faces, g_array_unref);
  g_free (f);
}

static gboolean
gst_vj_face_detect_prepare_frame (GstClvFilter * filter, GstBuffer * buf,
    gpointer * data)
{
  if (!next_frame_analysed (GST_VJ_FACE_DETECT (filter)))
    return FALSE;
  *data = g_new0 (AnalysedFrame, 1);
  return TRUE;
}

/* In order: an analysed frame's faces become the current ones, which the
 * frames between take. */
static void
gst_vj_face_detect_finish_frame (GstClvFilter * filter, GstBuffer * buf,
    gpointer data)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (filter);
  AnalysedFrame *f = data;

  if (f) {
    g_clear_pointer (&self->faces, g_array_unref);
    self->faces = g_steal_pointer (&f->faces);
  }
  if (self->faces)
    finish_frame (self, buf, gst_clv_filter_get_in_info (filter), f == NULL);
}

/* How many frames of `size` bytes may be in flight now.  By default
 * (in-flight 0) on a GPU:
 * - a lone stream: two for frames of a megabyte or more, whose upload
 *   then overlaps the detection; one for smaller frames, for which the
 *   overlap gained little throughput and cost latency (where frames come
 *   faster than the element takes them);
 * - beside other streams: two for small frames while other elements share
 *   the detection service, so that each stream keeps a frame waiting for
 *   the next batch while one is in a batch (the service's batches overlap
 *   instead of the device waiting on the streams' host work between
 *   them); one for large ones beside any other analyser, their batches
 *   filling the device already.
 * On CPU devices the host is the device. */
static guint
gst_vj_face_detect_frames_in_flight (GstClvFilter * filter, guint requested,
    gsize size)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (filter);

  /* A detector of its own (without batching) serves one frame at a time. */
  if (self->service == NULL)
    return 1;
  if (requested)
    return requested;
  if (gst_clv_filter_get_device (filter)->type & CL_DEVICE_TYPE_CPU)
    return 1;
  if (size >= AUTO_IN_FLIGHT_MIN_BYTES)
    return gst_clv_filter_other_analysers (filter) == 0 ? 2 : 1;
  return clv_batch_service_shared (self->service) ? 2 : 1;
}

/* The parents in `buf`: the ROIs of the parent label, clipped to the
 * frame (those left empty dropped), as regions of it; their ids in
 * `ids`. */
static GArray *
parent_regions (GstVjFaceDetect * self, GstBuffer * buf,
    const ClvLumaImage * frame, GArray * ids)
{
  GArray *regions = g_array_new (FALSE, FALSE, sizeof (ClvRect));
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const GstVideoRegionOfInterestMeta *roi =
        (GstVideoRegionOfInterestMeta *) meta;
    const gint64 x0 = MIN (roi->x, (guint) frame->image.width);
    const gint64 y0 = MIN (roi->y, (guint) frame->image.height);
    const gint64 x1 = MIN ((gint64) roi->x + roi->w, frame->image.width);
    const gint64 y1 = MIN ((gint64) roi->y + roi->h, frame->image.height);
    const ClvRect r = { (int) x0, (int) y0, (int) (x1 - x0), (int) (y1 - y0) };

    if (roi->roi_type != self->parent_type || x1 <= x0 || y1 <= y0)
      continue;
    g_array_append_val (regions, r);
    g_array_append_val (ids, roi->id);
  }
  return regions;
}

/* Every region's faces, in one batch. */
static GPtrArray *
detect_regions (GstVjFaceDetect * self, cl_mem frame, const ClvLumaImage * f,
    GArray * regions, const ClvVjParams * params, GError ** error)
{
  const ClvRect *r = (const ClvRect *) regions->data;
  guint batch = 1;
  GPtrArray *faces = self->service ?
      clv_vj_service_detect_regions (self->service, frame, f, r,
      regions->len, params, &batch, error) :
      clv_vj_detector_detect_regions (self->detector, frame, f, r,
      regions->len, params, error);

  GST_LOG_OBJECT (self, "%u regions, batch of %u frames", regions->len,
      batch);
  return faces;
}

/* The faces of one frame (inside the parents' ROIs with `parent`); safe
 * from several threads at once with the service. */
static GstFlowReturn
detect_faces (GstVjFaceDetect * self, GstBuffer * buf, cl_mem frame,
    const GstVideoInfo * info, GArray ** faces)
{
  const ClvLumaImage f = gst_clv_filter_luma_image (info);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint)), *regions;
  GPtrArray *found;
  ClvVjParams params;
  GError *error = NULL;

  if (!get_params (self, &params, &error))
    goto bad_settings;
  if (self->parent_type) {
    regions = parent_regions (self, buf, &f, ids);
  } else {
    const ClvRect whole = { 0, 0, 0, 0 };
    const gint none = -1;
    regions = g_array_new (FALSE, FALSE, sizeof (ClvRect));
    g_array_append_val (regions, whole);
    g_array_append_val (ids, none);
  }
  found = detect_regions (self, frame, &f, regions, &params, &error);
  if (found == NULL)
    goto failed;
  /* Back to frame coordinates, with the parent of each. */
  *faces = g_array_new (FALSE, FALSE, sizeof (Found));
  for (guint i = 0; i < found->len; i++) {
    const GArray *in = found->pdata[i];
    const ClvRect *r = &g_array_index (regions, ClvRect, i);
    for (guint k = 0; k < in->len; k++) {
      Found d = { g_array_index (in, ClvVjFace, k),
        g_array_index (ids, gint, i)
      };
      d.face.rect.x += r->x;
      d.face.rect.y += r->y;
      g_array_append_val (*faces, d);
    }
  }
  GST_LOG_OBJECT (self, "%u detections in %u regions", (*faces)->len,
      regions->len);
  g_ptr_array_unref (found);
  g_array_unref (regions);
  g_array_unref (ids);
  return GST_FLOW_OK;

  /* ERRORS */
bad_settings:
  {
    g_array_unref (ids);
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return GST_FLOW_ERROR;
  }
failed:
  {
    g_array_unref (regions);
    g_array_unref (ids);
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
gst_vj_face_detect_analyse (GstClvFilter * filter, GstBuffer * buf,
    cl_mem frame, const GstVideoInfo * info, gpointer data)
{
  return detect_faces (GST_VJ_FACE_DETECT (filter), buf, frame, info,
      &((AnalysedFrame *) data)->faces);
}

static void
gst_vj_face_detect_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CASCADE:
      g_free (self->cascade_path);
      self->cascade_path = g_value_dup_string (value);
      if (self->cascade_path == NULL)
        self->cascade_path = clv_cascade_default_path (NULL);
      break;
    case PROP_SCALE_FACTOR:
      self->scale_factor = g_value_get_double (value);
      break;
    case PROP_MIN_NEIGHBORS:
      self->min_neighbors = g_value_get_int (value);
      break;
    case PROP_MIN_SIZE:
      g_free (self->min_size);
      self->min_size = g_value_dup_string (value);
      if (self->min_size == NULL)
        self->min_size = g_strdup (DEFAULT_MIN_SIZE);
      break;
    case PROP_MAX_SIZE:
      g_free (self->max_size);
      self->max_size = g_value_dup_string (value);
      if (self->max_size == NULL)
        self->max_size = g_strdup (DEFAULT_MAX_SIZE);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_VARIANT:
      self->variant = g_value_get_enum (value);
      break;
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      break;
    case PROP_LABEL:
      g_free (self->label);
      self->label = g_value_dup_string (value);
      break;
    case PROP_PARENT:
      g_free (self->parent_label);
      self->parent_label = g_value_dup_string (value);
      break;
    case PROP_OUTPUT_REJECT_LEVELS:
      self->output_reject_levels = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vj_face_detect_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CASCADE:
      g_value_set_string (value, self->cascade_path);
      break;
    case PROP_SCALE_FACTOR:
      g_value_set_double (value, self->scale_factor);
      break;
    case PROP_MIN_NEIGHBORS:
      g_value_set_int (value, self->min_neighbors);
      break;
    case PROP_MIN_SIZE:
      g_value_set_string (value, self->min_size);
      break;
    case PROP_MAX_SIZE:
      g_value_set_string (value, self->max_size);
      break;
    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_VARIANT:
      g_value_set_enum (value, self->variant);
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      break;
    case PROP_LABEL:
      g_value_set_string (value, self->label);
      break;
    case PROP_PARENT:
      g_value_set_string (value, self->parent_label);
      break;
    case PROP_OUTPUT_REJECT_LEVELS:
      g_value_set_boolean (value, self->output_reject_levels);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vj_face_detect_finalize (GObject * object)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (object);

  g_free (self->cascade_path);
  g_free (self->min_size);
  g_free (self->max_size);
  g_free (self->label);
  g_free (self->parent_label);
  G_OBJECT_CLASS (gst_vj_face_detect_parent_class)->finalize (object);
}

/* What the cascade finds and where: label, parent, output-reject-levels. */
static void
install_cascade_properties (GObjectClass * gobject_class)
{
  /**
   * GstVjFaceDetect:label:
   *
   * What the cascade finds: the ROI metas' type and their detection's
   * label.  By default the cascade file's name says:
   * haarcascade_/lbpcascade_ and ".xml" dropped, then "face" for frontal
   * and profile faces, "cat-face", "eye" for every eye cascade, "plate"
   * for number plates, "full-body", "upper-body", "lower-body", else the
   * rest of the name ("smile", "silverware").
   */
  g_object_class_install_property (gobject_class, PROP_LABEL,
      g_param_spec_string ("label", "Label",
          "What the cascade finds, the ROI metas' type (NULL: from the "
          "cascade's file name, e.g. face, eye, plate)", DEFAULT_LABEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstVjFaceDetect:parent:
   *
   * Search only inside the ROI metas of this type already on the buffer
   * (from a detector upstream), each clipped to the frame, all of a frame
   * in one batch on the device: every one is searched as OpenCV's
   * detectMultiScale searches that crop of the frame (min-size and
   * max-size apply to the crop), and what is found is mapped back to the
   * frame with the ROI's id as its meta's parent_id.  With `interval`, the
   * frames between reuse the analysed frame's detections and their
   * parent_ids.  NULL: whole frames.
   */
  g_object_class_install_property (gobject_class, PROP_PARENT,
      g_param_spec_string ("parent", "Parent",
          "Search only inside the ROI metas of this type on the buffer "
          "(e.g. face), all in one batch; results carry the ROI's id as "
          "parent_id (NULL: whole frames)", DEFAULT_PARENT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstVjFaceDetect:output-reject-levels:
   *
   * Scores as OpenCV's detectMultiScale with outputRejectLevels = true
   * (Python's detectMultiScale3) gives them: each detection's
   * `reject-level` (int: the stages passed, the cascade's stage count)
   * and `level-weight` (double: its last stage's sum, the largest in its
   * group) in the ROI meta's "detection" structure and in the element
   * message.  The detections themselves are the same as without.
   */
  g_object_class_install_property (gobject_class, PROP_OUTPUT_REJECT_LEVELS,
      g_param_spec_boolean ("output-reject-levels", "Output reject levels",
          "Add OpenCV's reject-level and level-weight (detectMultiScale3) "
          "to every detection", DEFAULT_OUTPUT_REJECT_LEVELS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

static void
gst_vj_face_detect_class_init (GstVjFaceDetectClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  names.x = g_quark_from_static_string ("x");
  names.y = g_quark_from_static_string ("y");
  names.width = g_quark_from_static_string ("width");
  names.height = g_quark_from_static_string ("height");
  names.neighbors = g_quark_from_static_string ("neighbors");
  names.parent_id = g_quark_from_static_string ("parent-id");
  names.reject_level = g_quark_from_static_string ("reject-level");
  names.level_weight = g_quark_from_static_string ("level-weight");

  gobject_class->set_property = gst_vj_face_detect_set_property;
  gobject_class->get_property = gst_vj_face_detect_get_property;
  gobject_class->finalize = gst_vj_face_detect_finalize;

  /**
   * GstVjFaceDetect:cascade:
   *
   * An OpenCV cascade XML file: Haar (new or old format) or LBP.  The
   * default is haarcascade_frontalface_default.xml in
   * $CLVISION_CASCADE_DIR, else in the build's cascade-dir (Debian's
   * opencv-data installs it there, its other Haar cascades beside it and
   * its LBP cascades in ../lbpcascades).
   */
  g_object_class_install_property (gobject_class, PROP_CASCADE,
      g_param_spec_string ("cascade", "Cascade",
          "OpenCV cascade XML file (Haar or LBP)", DEFAULT_CASCADE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  install_cascade_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_SCALE_FACTOR,
      g_param_spec_double ("scale-factor", "Scale factor",
          "How much the window grows from one scale to the next (> 1)",
          MIN_SCALE_FACTOR, MAX_SCALE_FACTOR, DEFAULT_SCALE_FACTOR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_NEIGHBORS,
      g_param_spec_int ("min-neighbors", "Minimum neighbours",
          "A face is kept when more than this many raw windows merge into "
          "it (0: every raw window, ungrouped)", 0, G_MAXINT, DEFAULT_MIN_NEIGHBORS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstVjFaceDetect:min-size:
   *
   * The smallest face searched for, "WIDTHxHEIGHT" in pixels of the
   * frame; "0x0" means the cascade's window.
   */
  g_object_class_install_property (gobject_class, PROP_MIN_SIZE,
      g_param_spec_string ("min-size", "Minimum size",
          "Smallest face, WIDTHxHEIGHT pixels (0x0: the cascade's window)",
          DEFAULT_MIN_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstVjFaceDetect:max-size:
   *
   * The largest face searched for, "WIDTHxHEIGHT" in pixels of the frame;
   * a 0 means no limit.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_SIZE,
      g_param_spec_string ("max-size", "Maximum size",
          "Largest face, WIDTHxHEIGHT pixels (0x0: no limit)",
          DEFAULT_MAX_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstVjFaceDetect:interval:
   *
   * Analyse every Nth frame.  The frames between carry the faces of the
   * last analysed one, their `detection` structures marked `reused` =
   * TRUE, and a #GstCustomMeta named "GstClvSkippedMeta", so that a
   * tracker after (roitrack) puts its predicted boxes there instead.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint ("interval", "Interval",
          "Analyse every Nth frame; the frames between get its faces", 1,
          G_MAXUINT, DEFAULT_INTERVAL, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message named after the element with the "
          "detections of every frame", DEFAULT_POST_MESSAGES, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstVjFaceDetect:variant:
   *
   * The detection kernel.  "tiled": one persistent, load-balanced kernel
   * over all scales whose work-groups take tiles of windows from a global
   * counter and copy their integrals into local memory (where a tile does
   * not fit the device's local memory, "uber").  "uber": the same over
   * chunks of windows read from global memory.  "simple": one work-item
   * per window, one launch per scale.  "cpu": for CPU devices, the same
   * load balancing with a CPU's SIMD lanes in the place of a warp's
   * work-items (8 windows of a row evaluated at once as vectors, local
   * queues between the later stages, the first stages compiled in);
   * it needs double precision.  "auto": tiled on GPUs, cpu on CPU devices
   * (simple on those without doubles).  Every variant finds the same
   * objects.  Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_VARIANT,
      g_param_spec_enum ("variant", "Variant", "The detection kernel",
          GST_TYPE_VJ_FACE_DETECT_VARIANT, DEFAULT_VARIANT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstVjFaceDetect:batch-size:
   *
   * The elements of a process that use one device, one cascade file, one
   * variant and one batch size detect their frames
   * together: frames that arrive while a batch runs go into the next one,
   * up to this many.  Larger batches keep a GPU busier across many
   * streams; a lone stream's frames never wait for company.  0: the
   * element detects its own frames, one at a time (and has one frame in
   * flight).  Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Frames of all the streams on the device detected together, at "
          "most (0: this element's frames alone, one at a time)", 0,
          CLV_BATCH_MAX_FRAMES, DEFAULT_BATCH_SIZE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Viola-Jones face detection",
      "Filter/Analyzer/Video",
      "Finds faces (or what its cascade finds) with an OpenCV Haar or LBP "
      "cascade on an OpenCL device, as OpenCV's detectMultiScale does, and "
      "attaches them as ROI metas", "clvision developers");
  gst_clv_filter_class_set_max_side (filter_class, CLV_VJ_MAX_SIDE);
  gst_clv_filter_class_add_pad_templates (filter_class, FORMATS, FORMATS);

  trans_class->start = gst_vj_face_detect_start;
  trans_class->stop = gst_vj_face_detect_stop;
  trans_class->sink_event = gst_vj_face_detect_sink_event;
  filter_class->set_info = gst_vj_face_detect_set_info;
  filter_class->prepare_frame = gst_vj_face_detect_prepare_frame;
  filter_class->analyse = gst_vj_face_detect_analyse;
  filter_class->finish_frame = gst_vj_face_detect_finish_frame;
  filter_class->free_frame_data = analysed_frame_free;
  filter_class->frames_in_flight = gst_vj_face_detect_frames_in_flight;

  gst_type_mark_as_plugin_api (GST_TYPE_VJ_FACE_DETECT_VARIANT, 0);
}

static void
gst_vj_face_detect_init (GstVjFaceDetect * self)
{
  self->cascade_path = clv_cascade_default_path (NULL);
  self->scale_factor = DEFAULT_SCALE_FACTOR;
  self->min_neighbors = DEFAULT_MIN_NEIGHBORS;
  self->min_size = g_strdup (DEFAULT_MIN_SIZE);
  self->output_reject_levels = DEFAULT_OUTPUT_REJECT_LEVELS;
  self->max_size = g_strdup (DEFAULT_MAX_SIZE);
  self->interval = DEFAULT_INTERVAL;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->variant = DEFAULT_VARIANT;
  self->batch_size = DEFAULT_BATCH_SIZE;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
