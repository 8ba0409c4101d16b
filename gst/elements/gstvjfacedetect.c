/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-vjfacedetect
 * @title: vjfacedetect
 *
 * Detects faces with a Viola–Jones (Haar cascade) detector on an OpenCL
 * device and gives the same faces as OpenCV 4.6's
 * `CascadeClassifier::detectMultiScale` with the same cascade and
 * parameters.  The video passes through unchanged; every face becomes a
 * #GstVideoRegionOfInterestMeta of type "face" with a `detection` parameter
 * structure (label, label_id, confidence, neighbors and the normalised box
 * x_min, y_min, x_max, y_max), and with #GstVjFaceDetect:post-messages an
 * element message named "vjfacedetect" is posted for every frame, shaped
 * like gst-plugins-bad's facedetect one (timestamp, stream-time,
 * running-time, duration, and a list `faces` of structures with x, y,
 * width, height, neighbors).
 *
 * Gray and YUV frames are analysed on their luma plane as is; packed RGB
 * frames are converted to luma on the device with OpenCV's weights.  The
 * detector builds the image pyramid and integrals on the device and, on
 * GPUs, runs the cascade as one persistent, load-balanced kernel over all
 * scales; on CPU devices (PoCL) a plain one-work-item-per-window kernel per
 * scale is faster and is the default (#GstVjFaceDetect:variant chooses).
 *
 * Frames are checked at negotiation: a frame smaller than the cascade's
 * window (24x24 for OpenCV's frontal face cascades), larger than 65535
 * pixels a side, or whose image pyramid the kernels cannot index or the
 * device cannot hold (a quarter of its memory) fails there with a message
 * that says which and what to change, as does a frame larger than the
 * device's largest buffer.
 *
 * The vjfacedetect elements of a process that use one device and one
 * cascade file share one detection service: frames that arrive while a
 * batch runs on the device are detected together in the next batch,
 * without a timer, so a lone stream never waits for company; each element
 * still gets exactly its own faces.
 *
 * A cascade that cannot be read or is malformed, or a `min-size` or
 * `max-size` that is not WIDTHxHEIGHT, fails the change to PAUSED with the
 * loader's message (file, line, what is wrong); a missing default cascade
 * names Debian's `opencv-data` package.
 *
 * With `in-flight` 0 (the default) two frames are in flight on a GPU for
 * frames of 1 MiB or more while no other analyser uses the device, and one
 * otherwise: other streams' frames keep the device busy already, smaller
 * frames gained little, and on CPU devices the host is the device.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m filesrc \
 *     location=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg ! \
 *     jpegdec ! videoconvert ! vjfacedetect min-size=40x40 ! fakesink
 * ]|
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! vjfacedetect interval=2 ! \
 *     videoconvert ! autovideosink
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
#define DEFAULT_MIN_SIZE "0x0"
#define DEFAULT_MAX_SIZE "0x0"
#define DEFAULT_INTERVAL 1
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_VARIANT GST_VJ_FACE_DETECT_VARIANT_AUTO
#define DEFAULT_BATCH_SIZE CLV_BATCH_DEFAULT_FRAMES
/* In-flight 0 keeps two frames in flight from this size on (bytes). */
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
};

/* The detection kernel (`variant`). */
typedef enum
{
  GST_VJ_FACE_DETECT_VARIANT_AUTO,
  GST_VJ_FACE_DETECT_VARIANT_TILED,
  GST_VJ_FACE_DETECT_VARIANT_UBER,
  GST_VJ_FACE_DETECT_VARIANT_SIMPLE,
} GstVjFaceDetectVariant;

static const ClvVjVariant kernels[] = { CLV_VJ_VARIANT_AUTO,
  CLV_VJ_VARIANT_TILED, CLV_VJ_VARIANT_UBER, CLV_VJ_VARIANT_SIMPLE
};

#define GST_TYPE_VJ_FACE_DETECT_VARIANT (gst_vj_face_detect_variant_get_type ())
static GType
gst_vj_face_detect_variant_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_VJ_FACE_DETECT_VARIANT_AUTO, "tiled on GPUs, simple on CPU devices",
        "auto"},
    {GST_VJ_FACE_DETECT_VARIANT_TILED, "One persistent kernel over tiles of "
          "windows in local memory (uber where a tile does not fit)",
        "tiled"},
    {GST_VJ_FACE_DETECT_VARIANT_UBER, "One persistent kernel over chunks of "
          "windows taken from a global counter", "uber"},
    {GST_VJ_FACE_DETECT_VARIANT_SIMPLE, "One work-item per window, one launch "
          "per scale", "simple"},
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

  /* streaming */
  ClvVjVariant kernel;          /* `variant`, when started */
  ClvCascade *cascade;
  ClvVjDetector *detector;      /* without shared batches (batch-size 0) */
  ClvBatchService *service;        /* the device's shared batches */
  ClvVjDetector *checker;       /* with batching: checks frame sizes */
  GArray *faces;                /* ClvVjFace of the last analysed frame */
  guint64 frame_count;          /* frames since a restart, as they came */
};

G_DEFINE_TYPE_WITH_CODE (GstVjFaceDetect, gst_vj_face_detect,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_vj_face_detect_debug,
        "vjfacedetect", 0, "Viola-Jones face detection on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (vjfacedetect, "vjfacedetect", GST_RANK_NONE,
    GST_TYPE_VJ_FACE_DETECT);

/* The detection parameters from the properties. */
static gboolean
get_params (GstVjFaceDetect * self, ClvVjParams * p, GError ** error)
{
  gboolean ok;
  gchar *bad = NULL;

  GST_OBJECT_LOCK (self);
  p->scale_factor = self->scale_factor;
  p->min_neighbors = self->min_neighbors;
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
  if (!get_params (self, &params, &error))
    goto bad_settings;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->cascade_path);
  GST_OBJECT_UNLOCK (self);
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
  GST_INFO_OBJECT (self, "cascade %s: %dx%d window, %d stages",
      self->cascade->path, self->cascade->window_w, self->cascade->window_h,
      self->cascade->n_stages);
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
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, NOT_FOUND, error);
    return FALSE;
  }
no_detector:
  {
    g_clear_pointer (&self->cascade, clv_cascade_free);
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
  GQuark face, x, y, width, height, neighbors;
} names;

static void
attach_metas (GstVjFaceDetect * self, GstBuffer * buf,
    const GstVideoInfo * info, gboolean reused)
{
  const gdouble w = GST_VIDEO_INFO_WIDTH (info);
  const gdouble h = GST_VIDEO_INFO_HEIGHT (info);
  gint id = first_free_roi_id (buf);
  GstClvDetection det = {.label = "face",.label_id = 0 };

  for (guint i = 0; i < self->faces->len; i++) {
    const ClvVjFace *f = &g_array_index (self->faces, ClvVjFace, i);
    GstVideoRegionOfInterestMeta *roi;

    roi = gst_buffer_add_video_region_of_interest_meta_id (buf, names.face,
        f->rect.x, f->rect.y, f->rect.width, f->rect.height);
    roi->id = id++;
    det.confidence = f->neighbors / (f->neighbors + CONFIDENCE_HALF);
    det.neighbors = f->neighbors;
    det.x_min = f->rect.x / w;
    det.y_min = f->rect.y / h;
    det.x_max = (f->rect.x + f->rect.width) / w;
    det.y_max = (f->rect.y + f->rect.height) / h;
    gst_clv_roi_meta_set_detection (roi, &det);
    if (reused)
      gst_clv_roi_meta_set_reused (roi);
  }
}

/* gst-plugins-bad facedetect's message, named after this element. */
static void
post_message (GstVjFaceDetect * self, GstBuffer * buf)
{
  GstStructure *s = gst_clv_filter_new_frame_message (GST_CLV_FILTER (self),
      "vjfacedetect", buf);
  GValue list = G_VALUE_INIT;

  g_value_init (&list, GST_TYPE_LIST);
  for (guint i = 0; i < self->faces->len; i++) {
    const ClvVjFace *f = &g_array_index (self->faces, ClvVjFace, i);
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new_id (names.face,
            names.x, G_TYPE_UINT, (guint) f->rect.x,
            names.y, G_TYPE_UINT, (guint) f->rect.y,
            names.width, G_TYPE_UINT, (guint) f->rect.width,
            names.height, G_TYPE_UINT, (guint) f->rect.height,
            names.neighbors, G_TYPE_UINT, (guint) f->neighbors, NULL));
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
 * (in-flight 0) two on a GPU only for frames of a megabyte or more, and
 * only while no other analyser uses the device: other streams' frames keep
 * it busy already, and for smaller frames the overlap gained little (one
 * stream of 640x480 on an H100: 3,600-4,000 frames/s against 3,100-3,200
 * with one in flight, but 0.72-0.82 ms from entering the element to
 * leaving it, against 0.30-0.32, where frames come faster than it takes
 * them).  On CPU devices the host is the device. */
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
  return gst_clv_filter_other_analysers (filter) == 0
      && size >= AUTO_IN_FLIGHT_MIN_BYTES ? 2 : 1;
}

/* The faces of one frame; safe from several threads at once with the
 * service. */
static GstFlowReturn
detect_faces (GstVjFaceDetect * self, cl_mem frame, const GstVideoInfo * info,
    GArray ** faces)
{
  const ClvLumaImage f = gst_clv_filter_luma_image (info);
  ClvVjParams params;
  GError *error = NULL;
  guint batch = 1;

  if (!get_params (self, &params, &error))
    goto bad_settings;
  if (self->service)
    *faces = clv_vj_service_detect (self->service, frame, &f, &params, &batch,
        &error);
  else
    *faces = clv_vj_detector_detect (self->detector, frame, &f, &params,
        &error);
  if (*faces == NULL)
    goto failed;
  GST_LOG_OBJECT (self, "%u faces, batch of %u frames", (*faces)->len, batch);
  return GST_FLOW_OK;

  /* ERRORS */
bad_settings:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return GST_FLOW_ERROR;
  }
failed:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
gst_vj_face_detect_analyse (GstClvFilter * filter, GstBuffer * buf,
    cl_mem frame, const GstVideoInfo * info, gpointer data)
{
  return detect_faces (GST_VJ_FACE_DETECT (filter), frame, info,
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
  G_OBJECT_CLASS (gst_vj_face_detect_parent_class)->finalize (object);
}

static void
gst_vj_face_detect_class_init (GstVjFaceDetectClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  names.face = g_quark_from_static_string ("face");
  names.x = g_quark_from_static_string ("x");
  names.y = g_quark_from_static_string ("y");
  names.width = g_quark_from_static_string ("width");
  names.height = g_quark_from_static_string ("height");
  names.neighbors = g_quark_from_static_string ("neighbors");

  gobject_class->set_property = gst_vj_face_detect_set_property;
  gobject_class->get_property = gst_vj_face_detect_get_property;
  gobject_class->finalize = gst_vj_face_detect_finalize;

  /**
   * GstVjFaceDetect:cascade:
   *
   * An OpenCV Haar cascade XML file (new or old format).  The default is
   * haarcascade_frontalface_default.xml in $CLVISION_CASCADE_DIR, else in the
   * build's cascade-dir (Debian's opencv-data installs it there).
   */
  g_object_class_install_property (gobject_class, PROP_CASCADE,
      g_param_spec_string ("cascade", "Cascade",
          "OpenCV Haar cascade XML file", DEFAULT_CASCADE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
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
          "Post a \"vjfacedetect\" element message with the faces of every "
          "frame", DEFAULT_POST_MESSAGES, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstVjFaceDetect:variant:
   *
   * The detection kernel.  "tiled": one persistent, load-balanced kernel
   * over all scales whose work-groups take tiles of windows from a global
   * counter and copy their integrals into local memory (where a tile does
   * not fit the device's local memory, "uber").  "uber": the same over
   * chunks of windows read from global memory.  "simple": one work-item
   * per window, one launch per scale.  "auto": tiled on GPUs, simple on
   * CPU devices, where it is faster.  Every variant finds the same faces.
   * Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_VARIANT,
      g_param_spec_enum ("variant", "Variant", "The detection kernel",
          GST_TYPE_VJ_FACE_DETECT_VARIANT, DEFAULT_VARIANT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstVjFaceDetect:batch-size:
   *
   * The vjfacedetect elements of a process that use one device, one
   * cascade file, one variant and one batch size detect their frames
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
      "Finds faces with an OpenCV Haar cascade on an OpenCL device, as "
      "OpenCV's detectMultiScale does, and attaches them as ROI metas",
      "clvision developers");
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
  self->max_size = g_strdup (DEFAULT_MAX_SIZE);
  self->interval = DEFAULT_INTERVAL;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->variant = DEFAULT_VARIANT;
  self->batch_size = DEFAULT_BATCH_SIZE;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
