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
 * scale is faster and is the default (`CLVISION_TUNE=VJ_VARIANT=uber` or
 * `simple` chooses).
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
/* 0: see frames_in_flight () */
#define DEFAULT_IN_FLIGHT 0
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
  PROP_IN_FLIGHT,
};

/* A frame between the streaming thread and its push. */
typedef struct
{
  GstBuffer *buf;
  gboolean analyse;             /* FALSE: it gets the faces before it */
  GArray *faces;                /* its own, once analysed */
  GstFlowReturn ret;
  gboolean done;
} Frame;

typedef struct
{
  GstVjFaceDetect *self;
  guint slot;                   /* its device copy in GstClvFilter */
  GThread *thread;
} Worker;

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
  guint in_flight;

  /* streaming */
  ClvCascade *cascade;
  ClvVjDetector *detector;      /* without batching (VJ_BATCH=0) */
  ClvBatchService *service;        /* the device's shared batches */
  ClvVjDetector *checker;       /* with batching: checks frame sizes */
  GArray *faces;                /* ClvVjFace of the last analysed frame */
  guint64 frame_count;          /* frames since a restart, as they came */

  /* Frames in flight (in-flight > 1): the streaming thread queues them and
   * returns; the workers analyse them, and whichever thread finishes the
   * oldest pushes it and the finished ones after it, so that they leave
   * in order as soon as they can.  Under `lock`; `cond` tells of a frame
   * finished, pushed or queued, and of flushing and stopping. */
  GMutex lock;
  GCond cond;
  Worker workers[GST_CLV_FILTER_MAX_IN_FLIGHT];
  guint n_workers;
  gboolean in_flight_auto;      /* in-flight 0: see frames_in_flight () */
  guint extra_analysers;        /* ours in clv_device_analysers (), beyond
                                 * GstClvFilter's one */
  GQueue frames;                /* Frame, in order, until pushed */
  GQueue todo;                  /* Frame, not yet taken by a worker */
  gboolean pushing;             /* a thread is pushing frames */
  gboolean flushing;
  gboolean stopping;
  GstFlowReturn flow;           /* the last push's, or an analysis error */
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

static void
frame_free (Frame * f)
{
  gst_clear_buffer (&f->buf);
  g_clear_pointer (&f->faces, g_array_unref);
  g_free (f);
}

static void finish_frame (GstVjFaceDetect * self, GstBuffer * buf,
    const GstVideoInfo * info, gboolean reused);

/* Pushes the finished frames at the head, in order, one thread at a time.
 * Frames after an analysis error and while flushing are dropped.  Called
 * and returns with the lock. */
static void
push_finished_locked (GstVjFaceDetect * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  Frame *f;

  if (self->pushing)
    return;
  self->pushing = TRUE;
  while ((f = g_queue_peek_head (&self->frames)) != NULL && f->done) {
    GstFlowReturn ret = f->ret;

    g_queue_pop_head (&self->frames);
    if (ret == GST_FLOW_OK && !self->flushing
        && self->flow != GST_FLOW_ERROR) {
      g_mutex_unlock (&self->lock);
      if (f->analyse) {
        g_clear_pointer (&self->faces, g_array_unref);
        self->faces = g_steal_pointer (&f->faces);
      }
      finish_frame (self, f->buf,
          gst_clv_filter_get_in_info (GST_CLV_FILTER (self)), !f->analyse);
      ret = gst_pad_push (trans->srcpad, g_steal_pointer (&f->buf));
      g_mutex_lock (&self->lock);
    }
    if (ret != GST_FLOW_OK && self->flow == GST_FLOW_OK && !self->flushing)
      self->flow = ret;
    frame_free (f);
    g_cond_broadcast (&self->cond);
  }
  self->pushing = FALSE;
}

static GstFlowReturn detect_faces (GstVjFaceDetect * self, cl_mem frame,
    const GstVideoInfo * info, GArray ** faces);

static GstFlowReturn
detect_frame_faces (GstClvFilter * filter, GstBuffer * buf, cl_mem frame,
    const GstVideoInfo * info, gpointer data)
{
  return detect_faces (GST_VJ_FACE_DETECT (filter), frame, info,
      &((Frame *) data)->faces);
}

static gpointer
worker_loop (gpointer data)
{
  Worker *w = data;
  GstVjFaceDetect *self = w->self;
  Frame *f;

  g_mutex_lock (&self->lock);
  for (;;) {
    while (!self->stopping && g_queue_is_empty (&self->todo))
      g_cond_wait (&self->cond, &self->lock);
    if (self->stopping)
      break;
    f = g_queue_pop_head (&self->todo);
    g_mutex_unlock (&self->lock);
    f->ret = gst_clv_filter_analyse_frame (GST_CLV_FILTER (self), f->buf,
        w->slot, detect_frame_faces, f);
    g_mutex_lock (&self->lock);
    f->done = TRUE;
    push_finished_locked (self);
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* Each frame in flight counts as an analyser of the device
 * (clv_device_analysers): like other streams' frames, they go up through
 * pinned stages and wait for the device outside the driver, so that one's
 * upload and waits do not hold up the other's kernels (the driver's do). */
static void
set_extra_analysers (GstVjFaceDetect * self, guint n)
{
  if (n == self->extra_analysers)
    return;
  clv_device_analysers_add (gst_clv_filter_get_device (GST_CLV_FILTER
          (self)), (gint) n - (gint) self->extra_analysers);
  self->extra_analysers = n;
}

/* Frames in flight need the shared service: a detector of its own serves
 * one frame at a time. */
static void
start_workers (GstVjFaceDetect * self)
{
  ClvDevice *dev = gst_clv_filter_get_device (GST_CLV_FILTER (self));
  guint n;

  GST_OBJECT_LOCK (self);
  n = self->in_flight;
  GST_OBJECT_UNLOCK (self);
  self->in_flight_auto = n == 0;
  if (n == 0)
    n = dev->type & CL_DEVICE_TYPE_CPU ? 1 : 2;
  if (self->service == NULL)
    n = 1;
  self->flow = GST_FLOW_OK;
  self->flushing = self->stopping = self->pushing = FALSE;
  self->n_workers = n > 1 ? n : 0;
  for (guint i = 0; i < self->n_workers; i++) {
    self->workers[i].self = self;
    self->workers[i].slot = i;
    self->workers[i].thread = g_thread_new ("vjfacedetect", worker_loop,
        &self->workers[i]);
  }
}

static void
stop_workers (GstVjFaceDetect * self)
{
  Frame *f;

  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < self->n_workers; i++)
    g_thread_join (self->workers[i].thread);
  set_extra_analysers (self, 0);
  self->n_workers = 0;
  g_queue_clear (&self->todo);
  while ((f = g_queue_pop_head (&self->frames)) != NULL)
    frame_free (f);
}

/* Waits until every frame in flight has been pushed (or dropped); the flow
 * they left. */
static GstFlowReturn
drain (GstVjFaceDetect * self)
{
  GstFlowReturn ret;

  g_mutex_lock (&self->lock);
  while (!g_queue_is_empty (&self->frames) || self->pushing)
    g_cond_wait (&self->cond, &self->lock);
  ret = self->flow;
  g_mutex_unlock (&self->lock);
  return ret;
}

/* Frames no worker has taken yet are dropped at once; the others finish
 * (the device is reading them) and are dropped when their turn comes. */
static void
flush_start (GstVjFaceDetect * self)
{
  Frame *f;

  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  while ((f = g_queue_pop_head (&self->todo)) != NULL) {
    g_queue_remove (&self->frames, f);
    frame_free (f);
  }
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static gboolean
gst_vj_face_detect_start (GstBaseTransform * trans)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);
  ClvVjParams params;
  GError *error = NULL;
  ClvDevice *dev;
  gchar *path;

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
  if (clv_tune_int ("VJ_BATCH", 1))
    self->service = clv_vj_service_get (dev, self->cascade, &error);
  else
    self->detector = clv_vj_detector_new (dev, self->cascade, NULL, &error);
  if (self->detector == NULL && self->service == NULL)
    goto no_detector;
  GST_INFO_OBJECT (self, "cascade %s: %dx%d window, %d stages",
      self->cascade->path, self->cascade->window_w, self->cascade->window_h,
      self->cascade->n_stages);
  self->frame_count = 0;
  start_workers (self);
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

  stop_workers (self);
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
      && !(self->checker = clv_vj_detector_new (gst_clv_filter_get_device
              (filter), self->cascade, NULL, &error)))
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

  /* Frames in flight go before any event that follows them. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START)
    flush_start (self);
  else if (GST_EVENT_IS_SERIALIZED (event))
    drain (self);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&self->lock);
      self->flushing = FALSE;
      self->flow = GST_FLOW_OK;
      g_mutex_unlock (&self->lock);
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

/* Serialized queries (allocation, drain) come after the frames in flight. */
static gboolean
gst_vj_face_detect_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    drain (GST_VJ_FACE_DETECT (trans));
  return GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->query
      (trans, direction, query);
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

static GstFlowReturn
gst_vj_face_detect_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);

  if (!next_frame_analysed (self) && self->faces != NULL) {
    finish_frame (self, buf,
        gst_clv_filter_get_in_info (GST_CLV_FILTER (self)), TRUE);
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->
      transform_ip (trans, buf);
}

/* How many frames of `size` bytes may be in flight now.  By default
 * (in-flight 0) two on a GPU only for frames of a megabyte or more, and
 * only while no other analyser uses the device: other streams' frames keep
 * it busy already, and for smaller frames the overlap gained little (one
 * stream of 640x480 on the H100: 3,600-4,000 frames/s against 3,100-3,200
 * with one in flight, but 0.72-0.82 ms from entering the element to
 * leaving it, against 0.30-0.32, where frames come faster than it takes
 * them). */
static guint
frames_in_flight (GstVjFaceDetect * self, gsize size)
{
  ClvDevice *dev = gst_clv_filter_get_device (GST_CLV_FILTER (self));
  gint others;

  if (!self->in_flight_auto)
    return self->n_workers;
  others = clv_device_analysers (dev) - 1 - (gint) self->extra_analysers;
  return others == 0 && size >= AUTO_IN_FLIGHT_MIN_BYTES ? self->n_workers : 1;
}

/* With frames in flight the streaming thread queues its frame (once one
 * of the in-flight places is free) and returns the flow of the last push;
 * the frame is pushed from whichever thread finishes it.  With one, the
 * frames before it leave first and it is analysed here. */
static GstFlowReturn
gst_vj_face_detect_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (trans);
  GstBuffer *inbuf = trans->queued_buf;
  GstFlowReturn ret;
  guint limit;
  Frame *f;

  limit = self->n_workers && inbuf ?
      frames_in_flight (self, gst_buffer_get_size (inbuf)) : 1;
  if (limit == 1) {
    set_extra_analysers (self, 0);
    ret = drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_replace (&trans->queued_buf, NULL);
      return ret;
    }
    return GST_BASE_TRANSFORM_CLASS (gst_vj_face_detect_parent_class)->
        generate_output (trans, outbuf);
  }
  *outbuf = NULL;
  trans->queued_buf = NULL;
  if (inbuf == NULL)
    return GST_FLOW_OK;
  f = g_new0 (Frame, 1);
  /* A writable buffer for the metas, as for transform_ip. */
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &f->buf);
  if (f->buf != inbuf)
    gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK || f->buf == NULL) {
    frame_free (f);
    return ret;
  }
  f->analyse = next_frame_analysed (self);
  f->done = !f->analyse;
  g_mutex_lock (&self->lock);
  while (self->frames.length >= limit && !self->flushing)
    g_cond_wait (&self->cond, &self->lock);
  ret = self->flushing ? GST_FLOW_FLUSHING : self->flow;
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&self->lock);
    frame_free (f);
    return ret;
  }
  /* A second analyser only while another frame is in flight: frames that
   * come no faster than the element takes them (a camera's) meet none,
   * and alone the driver's upload and waits are the fastest (1920x1280
   * at 30 frames/s on the H100: 1.38-1.47 ms from entering the element to
   * leaving it, against 1.62-1.75 counted as two analysers throughout). */
  set_extra_analysers (self, g_queue_is_empty (&self->frames) ? 0 :
      limit - 1);
  g_queue_push_tail (&self->frames, f);
  if (f->analyse)
    g_queue_push_tail (&self->todo, f);
  else
    push_finished_locked (self);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;
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
    cl_mem frame, const GstVideoInfo * info)
{
  GstVjFaceDetect *self = GST_VJ_FACE_DETECT (filter);
  GArray *faces;
  GstFlowReturn ret = detect_faces (self, frame, info, &faces);

  if (ret != GST_FLOW_OK)
    return ret;
  g_clear_pointer (&self->faces, g_array_unref);
  self->faces = faces;
  finish_frame (self, buf, info, FALSE);
  return GST_FLOW_OK;
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
    case PROP_IN_FLIGHT:
      self->in_flight = g_value_get_uint (value);
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
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, self->in_flight);
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
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
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
   * GstVjFaceDetect:in-flight:
   *
   * How many frames are analysed at once.  With more than one, the
   * streaming thread hands each frame over and goes on to the next one, so
   * that the next frames' uploads and kernels overlap the current one's
   * and the work upstream and downstream overlaps the device's; frames
   * leave in order, each as soon as it and the ones before it are done
   * (no frame waits for a later one, so live sources gain no latency).
   * 1 analyses each frame in the streaming thread before passing it on.  0
   * keeps 2 in flight on a GPU for frames of 1 MiB or more while no other
   * analyser uses the device, and 1 otherwise (on CPU devices the host is
   * the device).
   */
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "Frames in flight",
          "How many frames are analysed at once (1: each in the streaming "
          "thread before it is passed on; 0: 2 on a GPU for frames of 1 MiB "
          "or more while no other stream uses it, else 1)",
          0, GST_CLV_FILTER_MAX_IN_FLIGHT,
          DEFAULT_IN_FLIGHT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

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
  trans_class->transform_ip = gst_vj_face_detect_transform_ip;
  trans_class->generate_output = gst_vj_face_detect_generate_output;
  trans_class->sink_event = gst_vj_face_detect_sink_event;
  trans_class->query = gst_vj_face_detect_query;
  filter_class->set_info = gst_vj_face_detect_set_info;
  filter_class->analyse = gst_vj_face_detect_analyse;
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
  self->in_flight = DEFAULT_IN_FLIGHT;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
