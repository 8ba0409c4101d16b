/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-eigenrecognise
 * @title: eigenrecognise
 *
 * Names the faces that an upstream detector (`vjfacedetect`) marked with
 * GstVideoRegionOfInterestMeta of type "face", by Eigenfaces on an OpenCL
 * device.  All the faces of a frame are cropped from the luma, resized to
 * the model size, projected and compared with every training face in one
 * batch on the device; the nearest training face (Euclidean distance in
 * PCA space, OpenCV's EigenFaceRecognizer rule) gives the label.
 *
 * Every face ROI meta gains a parameter structure named `recognition`:
 * `label` (string: the label's name from the model, its number if it has
 * none, "unknown" past `threshold`), `label_id` (int, -1 when unknown),
 * `distance` (double, to the nearest training face), `model_name` (the
 * model file's name without its extension, or the training folder's) and
 * `confidence`
 * (double 0..1: 1 − distance / distance to the nearest face of another
 * label; 0 when unknown, 1 with a single label).  The video passes
 * untouched; frames without face ROIs are not looked at.
 *
 * The model is an OpenCV FileStorage YAML file as
 * `cv::face::EigenFaceRecognizer::write` or `clvision-eigen-train` writes
 * it (`model`), or is trained when the element starts from the images in
 * `train-dir`/<label>/ (and written to `model` if that is set too).  An
 * existing model file is replaced only with `overwrite`: otherwise the
 * element fails to start, before training, and says so.  The model is
 * written to a temporary file and renamed once complete, so that a crash
 * never leaves half a model.  A model written by OpenCV carries no image
 * size and is taken as square;
 * those of `clvision-eigen-train` and `train-dir` record it in keys OpenCV
 * ignores.  A missing or malformed model file, or none at all, fails the
 * start with a message naming the file, the key and what was expected.
 * Results equal OpenCV's: the same labels, distances within 1e-3.
 * Frames up to 4,194,304 pixels a side (the crop tables' limit) and the
 * device's largest buffer are taken; larger ones fail at negotiation with
 * a message that says so.
 *
 * The eigenrecognise elements of a process that use one device and a model
 * of the same contents share one recognition service: the faces of frames
 * that arrive while a batch runs are recognised together in the next
 * batch, and each element gets exactly the answers it would get alone.
 *
 * With `per-track` (after roitrack), a tracked face is recognised on the
 * first three frames where it is detected and then every
 * `reclassify-interval` frames; every box of the track is named by the
 * vote over its recognitions (the label recognised most often, the name
 * changing only to a label with more votes, never on a tie; distance and
 * confidence of that label's latest recognition), so that names do not
 * flicker from frame to frame and most frames need no work on the
 * device.  Such a `recognition` structure also
 * has `votes` (recognitions that gave the label) and `recognitions` (of
 * the track so far).  Predicted boxes are named but never recognised; a
 * face without a `tracking` structure is recognised on every frame.
 *
 * With `post-messages`, an element message named "eigenrecognise" is posted
 * for every frame with faces: `timestamp`, `stream-time`, `running-time`,
 * `duration` and `faces`, a list of structures with `x`, `y`, `width`,
 * `height`, `neighbors` (from the detector, if it gave them), `label`,
 * `label_id`, `distance` and `confidence`.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=people.jpg ! jpegdec ! videoconvert ! \
 *     vjfacedetect ! eigenrecognise model=faces.yml threshold=3000 ! \
 *     fakesink -m
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <string.h>

#include "clv-track.h"
#include "gsteigenrecognise.h"
#include "gstclvfaceimages.h"

GST_DEBUG_CATEGORY_STATIC (gst_eigen_recognise_debug);
#define GST_CAT_DEFAULT gst_eigen_recognise_debug

#define DEFAULT_MODEL NULL
#define DEFAULT_THRESHOLD G_MAXDOUBLE
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_TRAIN_DIR NULL
#define DEFAULT_TRAIN_SIZE 64
#define DEFAULT_NUM_COMPONENTS 0
#define DEFAULT_ENERGY 0.0
#define DEFAULT_STRETCH 0.0
#define DEFAULT_OVERWRITE FALSE
#define DEFAULT_PER_TRACK FALSE
#define DEFAULT_RECLASSIFY_INTERVAL 10
#define DEFAULT_BATCH_SIZE CLV_BATCH_DEFAULT_FRAMES
/* Recognitions of a new track before it is only recognised every
 * reclassify-interval frames: a vote needs more than one. */
#define FIRST_RECOGNITIONS 3
/* Votes of tracks unseen for this many frames are forgotten (identifiers
 * are never reused, so this only bounds the memory). */
#define FORGET_FRAMES 300

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_THRESHOLD,
  PROP_POST_MESSAGES,
  PROP_TRAIN_DIR,
  PROP_TRAIN_WIDTH,
  PROP_TRAIN_HEIGHT,
  PROP_NUM_COMPONENTS,
  PROP_ENERGY,
  PROP_STRETCH,
  PROP_OVERWRITE,
  PROP_PER_TRACK,
  PROP_RECLASSIFY_INTERVAL,
  PROP_BATCH_SIZE,
};

/* A face ROI of the current frame. */
typedef struct
{
  GstVideoRegionOfInterestMeta *roi;
  ClvEigenRoi box;              /* clipped to the frame */
  gboolean tracked;             /* named by its track's vote */
  guint64 id;
  guint age;
  gboolean due;                 /* recognised on this frame */
  gboolean named;               /* `match` holds its name */
  ClvEigenMatch match;
} Face;

struct _GstEigenRecognise
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gchar *model_path;
  gdouble threshold;
  gboolean post_messages;
  gchar *train_dir;
  gint train_width, train_height;
  gint num_components;
  gdouble energy, stretch;
  gboolean overwrite;
  gboolean per_track;
  guint reclassify_interval;
  guint batch_size;

  /* streaming */
  ClvEigenModel *model;
  gchar *model_name;            /* the model file's or folder's name */
  ClvEigenRecogniser *rec;      /* without shared batches (batch-size 0) */
  ClvBatchService *service;     /* the device's shared batches */
  GQuark face_quark;
  ClvTrackVotes *votes;
  guint64 frame_count;
};

G_DEFINE_TYPE_WITH_CODE (GstEigenRecognise, gst_eigen_recognise,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_eigen_recognise_debug,
        "eigenrecognise", 0, "Eigenface recognition on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (eigenrecognise, "eigenrecognise", GST_RANK_NONE,
    GST_TYPE_EIGEN_RECOGNISE);

/* Gray, the planar and semi-planar YUV formats (their luma plane as is)
 * and packed RGB (OpenCV's fixed-point luma). */
#define FORMATS "{ GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444, " \
    "RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR }"

/* The model: trained from train-dir, or read from `model`. */
static ClvEigenModel *
obtain_model (GstEigenRecognise * self, GError ** error)
{
  gchar *model_path, *train_dir;
  gint width, height;
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  GstClvFaceImages *images;
  ClvEigenTrainStats times;
  ClvEigenModel *model = NULL;
  gboolean overwrite;

  GST_OBJECT_LOCK (self);
  model_path = g_strdup (self->model_path);
  train_dir = g_strdup (self->train_dir);
  width = self->train_width;
  height = self->train_height;
  overwrite = self->overwrite;
  comp.count = self->num_components;
  if (self->energy > 0) {
    comp.rule = CLV_EIGEN_KEEP_ENERGY;
    comp.threshold = self->energy;
  } else if (self->stretch > 0) {
    comp.rule = CLV_EIGEN_KEEP_STRETCH;
    comp.threshold = self->stretch;
  }
  GST_OBJECT_UNLOCK (self);

  if (train_dir == NULL) {
    if (model_path == NULL)
      g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO,
          "No model: set `model` to a model file (clvision-eigen-train or "
          "OpenCV's EigenFaceRecognizer::write) or `train-dir` to a "
          "directory of DIR/<label>/<image> faces");
    else
      model = clv_eigen_model_load (model_path, 0, 0, error);
    goto done;
  }

  /* Said before the training, which can take minutes. */
  if (model_path && !overwrite && g_file_test (model_path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_EXISTS,
        "Model file \"%s\" exists: set overwrite=true to replace it with "
        "the model trained from train-dir, or unset train-dir to use it",
        model_path);
    goto done;
  }
  GST_INFO_OBJECT (self, "training on %s at %dx%d", train_dir, width, height);
  images = gst_clv_face_images_load (train_dir, width, height, NULL, NULL,
      error);
  if (images == NULL)
    goto done;
  model = clv_eigen_train_gpu (gst_clv_filter_get_device (GST_CLV_FILTER
          (self)), images->pixels, images->n, images->labels, width, height,
      &comp, &times, error);
  if (model) {
    gst_clv_face_images_name_labels (images, model);
    GST_INFO_OBJECT (self, "trained on %d images of %d labels: %d "
        "components, %d sweeps, %.3f s", images->n, images->n_labels,
        model->n_components, times.sweeps, times.wall);
    if (model_path && !clv_eigen_model_save (model, model_path, overwrite,
            error))
      g_clear_pointer (&model, clv_eigen_model_free);
  }
  gst_clv_face_images_free (images);

done:
  g_free (model_path);
  g_free (train_dir);
  return model;
}

/* "faces" for faces.yml or a training folder faces/. */
static gchar *
model_name (GstEigenRecognise * self)
{
  gchar *base, *dot;

  GST_OBJECT_LOCK (self);
  base = g_path_get_basename (self->train_dir ? self->train_dir :
      self->model_path ? self->model_path : "eigenfaces");
  GST_OBJECT_UNLOCK (self);
  dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  return base;
}

static gboolean
gst_eigen_recognise_start (GstBaseTransform * trans)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (trans);
  GError *error = NULL;
  ClvDevice *dev;
  guint batch_size;

  if (!GST_BASE_TRANSFORM_CLASS (gst_eigen_recognise_parent_class)->start
      (trans))
    return FALSE;
  self->model = obtain_model (self, &error);
  g_free (self->model_name);
  self->model_name = model_name (self);
  if (self->model == NULL)
    goto no_model;
  dev = gst_clv_filter_get_device (GST_CLV_FILTER (self));
  GST_OBJECT_LOCK (self);
  batch_size = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (batch_size > 0)
    self->service = clv_eigen_service_get (dev, self->model, batch_size,
        &error);
  else
    self->rec = clv_eigen_recogniser_new (dev, self->model, &error);
  if (self->rec == NULL && self->service == NULL)
    goto no_recogniser;
  return TRUE;

  /* ERRORS */
no_model:
  {
    if (g_error_matches (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_EXISTS))
      GST_CLV_FILTER_POST_ERROR (self, RESOURCE, OPEN_WRITE, error);
    else
      GST_CLV_FILTER_POST_ERROR (self, RESOURCE, NOT_FOUND, error);
    return FALSE;
  }
no_recogniser:
  {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    g_clear_pointer (&self->model, clv_eigen_model_free);
    return FALSE;
  }
}

static gboolean
gst_eigen_recognise_stop (GstBaseTransform * trans)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (trans);

  g_clear_pointer (&self->rec, clv_eigen_recogniser_free);
  g_clear_pointer (&self->service, clv_batch_service_unref);
  g_clear_pointer (&self->model, clv_eigen_model_free);
  clv_track_votes_clear (self->votes);
  return GST_BASE_TRANSFORM_CLASS (gst_eigen_recognise_parent_class)->stop
      (trans);
}

/* Lists the face ROIs of `buf` inside a width x height frame in `faces`,
 * each marked due for recognition or not; returns how many are due. */
static guint
plan_faces (GstEigenRecognise * self, GstBuffer * buf, gint width,
    gint height, GArray * faces)
{
  gpointer state = NULL;
  GstMeta *meta;
  gboolean per_track;
  guint interval, due = 0;

  GST_OBJECT_LOCK (self);
  per_track = self->per_track;
  interval = self->reclassify_interval;
  GST_OBJECT_UNLOCK (self);
  self->frame_count++;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    Face f = {.roi = roi,.box = {roi->x, roi->y, roi->w, roi->h} };
    GstClvTracking t;

    if (roi->roi_type != self->face_quark)
      continue;
    /* Boxes across the edge are clipped; wholly outside, left alone. */
    if (roi->x > G_MAXINT || roi->y > G_MAXINT
        || !clv_eigen_roi_clip (&f.box, width, height)) {
      GST_DEBUG_OBJECT (self, "face ROI %d lies outside the frame", roi->id);
      continue;
    }
    f.tracked = per_track && gst_clv_roi_meta_get_tracking (roi, &t);
    f.due = TRUE;
    if (f.tracked) {
      f.id = t.id;
      f.age = t.age;
      f.due = clv_track_votes_due (self->votes, t.id, self->frame_count,
          t.age, FIRST_RECOGNITIONS, interval) && !t.predicted;
    }
    due += f.due;
    g_array_append_val (faces, f);
  }
  clv_track_votes_forget (self->votes, self->frame_count, FORGET_FRAMES);
  return due;
}

/* The faces of each frame (Face), planned in order.  Frames without face
 * ROIs are not uploaded at all, nor frames whose faces are all named by
 * their tracks' votes. */
static gboolean
gst_eigen_recognise_prepare_frame (GstClvFilter * filter, GstBuffer * buf,
    gpointer * data)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (filter);
  const GstVideoInfo *info = gst_clv_filter_get_in_info (filter);
  GArray *faces = g_array_new (FALSE, FALSE, sizeof (Face));
  const guint due = plan_faces (self, buf, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), faces);

  *data = faces;
  return due > 0;
}

static const gchar *
label_string (GstEigenRecognise * self, int label, gchar buf[16])
{
  const char *name;

  if (label == CLV_EIGEN_UNKNOWN)
    return "unknown";
  name = clv_eigen_model_get_label_name (self->model, label);
  if (name)
    return name;
  g_snprintf (buf, 16, "%d", label);
  return buf;
}

/* The recognition structure on the ROI (replacing one from before), with
 * the vote's counts for a tracked face. */
static void
attach_result (GstEigenRecognise * self, const Face * f, const gchar * label,
    const ClvTrackVote * vote)
{
  const GstClvRecognition rec = {.label = label,.label_id = f->match.label,
    .distance = f->match.distance,.confidence = f->match.confidence
  };

  GstStructure *s;

  gst_clv_roi_meta_set_recognition (f->roi, &rec);
  s = gst_video_region_of_interest_meta_get_param (f->roi,
      GST_CLV_RECOGNITION_NAME);
  /* What makes it a classification for DL Streamer's tools. */
  gst_structure_set (s, "model_name", G_TYPE_STRING, self->model_name, NULL);
  if (vote)
    gst_structure_set (s, "votes", G_TYPE_UINT, vote->votes,
        "recognitions", G_TYPE_UINT, vote->total, NULL);
}

static GstStructure *
face_structure (GstVideoRegionOfInterestMeta * roi, const ClvEigenMatch * m,
    const gchar * label)
{
  GstStructure *det = gst_video_region_of_interest_meta_get_param (roi,
      "detection");
  GstStructure *s = gst_structure_new ("face", "x", G_TYPE_UINT, roi->x,
      "y", G_TYPE_UINT, roi->y, "width", G_TYPE_UINT, roi->w,
      "height", G_TYPE_UINT, roi->h, NULL);
  gint neighbors;

  /* The same fields and types as vjfacedetect's message, plus ours. */
  if (det && gst_structure_get_int (det, "neighbors", &neighbors))
    gst_structure_set (s, "neighbors", G_TYPE_UINT, (guint) neighbors, NULL);
  gst_structure_set (s, "label", G_TYPE_STRING, label, "label_id",
      G_TYPE_INT, m->label, "distance", G_TYPE_DOUBLE, m->distance,
      "confidence", G_TYPE_DOUBLE, m->confidence, NULL);
  return s;
}

static void
post_faces (GstEigenRecognise * self, GstBuffer * buf, GValue * faces)
{
  GstStructure *s = gst_clv_filter_new_frame_message (GST_CLV_FILTER (self),
      "eigenrecognise", buf);

  gst_structure_take_value (s, "faces", faces);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Counts the recognitions of tracked faces, names them by their votes,
 * attaches every name and posts the message. */
static void
gst_eigen_recognise_finish_frame (GstClvFilter * filter, GstBuffer * buf,
    gpointer data)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (filter);
  GArray *faces = data;
  GValue list = G_VALUE_INIT;
  gboolean post;

  /* Frames without faces get no message. */
  if (faces->len == 0)
    return;
  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (post)
    gst_value_list_init (&list, faces->len);
  for (guint i = 0; i < faces->len; i++) {
    Face *f = &g_array_index (faces, Face, i);
    ClvTrackVote vote;
    gchar buf16[16];
    const gchar *label;

    if (f->tracked) {
      if (f->due)
        clv_track_votes_add (self->votes, f->id, f->age, f->match.label,
            f->match.distance, f->match.confidence);
      /* A track seen only predicted so far has no name yet. */
      f->named = clv_track_votes_result (self->votes, f->id, &vote);
      if (f->named) {
        f->match.label = vote.label;
        f->match.distance = vote.distance;
        f->match.confidence = vote.confidence;
      }
    }
    if (!f->named)
      continue;
    label = label_string (self, f->match.label, buf16);
    GST_LOG_OBJECT (self, "face at %u,%u %ux%u: %s (%d), distance %g",
        f->roi->x, f->roi->y, f->roi->w, f->roi->h, label, f->match.label,
        f->match.distance);
    attach_result (self, f, label, f->tracked ? &vote : NULL);
    if (post) {
      GValue v = G_VALUE_INIT;
      g_value_init (&v, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&v, face_structure (f->roi, &f->match, label));
      gst_value_list_append_and_take_value (&list, &v);
    }
  }
  if (post)
    post_faces (self, buf, &list);
}

/* Recognises the faces due on this frame (planned by prepare_frame), all
 * in one batch. */
static GstFlowReturn
gst_eigen_recognise_analyse (GstClvFilter * filter, GstBuffer * buf,
    cl_mem frame, const GstVideoInfo * info, gpointer data)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (filter);
  GArray *faces = data;
  GArray *rois = g_array_new (FALSE, FALSE, sizeof (ClvEigenRoi));
  const ClvLumaImage luma = gst_clv_filter_luma_image (info);
  ClvEigenMatch *matches;
  GError *error = NULL;
  gdouble threshold;
  guint batch = 1;

  GST_OBJECT_LOCK (self);
  threshold = self->threshold;
  GST_OBJECT_UNLOCK (self);
  /* Left at "unlimited", the threshold the model file carries applies, as
   * it does in OpenCV. */
  if (threshold >= G_MAXDOUBLE)
    threshold = self->model->threshold;
  for (guint i = 0; i < faces->len; i++) {
    const Face *f = &g_array_index (faces, Face, i);

    if (f->due)
      g_array_append_val (rois, f->box);
  }
  matches = g_new0 (ClvEigenMatch, rois->len);
  if (self->service ? !clv_eigen_service_run (self->service, frame, &luma,
          (ClvEigenRoi *) rois->data, rois->len, threshold, matches, &batch,
          &error) : !clv_eigen_recogniser_run (self->rec, frame, &luma,
          (ClvEigenRoi *) rois->data, rois->len, threshold, matches, NULL,
          &error))
    goto failed;
  GST_LOG_OBJECT (self, "%u faces, batch of %u frames", rois->len, batch);
  for (guint i = 0, k = 0; i < faces->len; i++) {
    Face *f = &g_array_index (faces, Face, i);

    if (f->due) {
      f->match = matches[k++];
      f->named = TRUE;
    }
  }
  g_free (matches);
  g_array_unref (rois);
  return GST_FLOW_OK;

  /* ERRORS */
failed:
  {
    g_free (matches);
    g_array_unref (rois);
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

static void
gst_eigen_recognise_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_free (self->model_path);
      self->model_path = g_value_dup_string (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_double (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_TRAIN_DIR:
      g_free (self->train_dir);
      self->train_dir = g_value_dup_string (value);
      break;
    case PROP_TRAIN_WIDTH:
      self->train_width = g_value_get_int (value);
      break;
    case PROP_TRAIN_HEIGHT:
      self->train_height = g_value_get_int (value);
      break;
    case PROP_NUM_COMPONENTS:
      self->num_components = g_value_get_int (value);
      break;
    case PROP_ENERGY:
      self->energy = g_value_get_double (value);
      break;
    case PROP_STRETCH:
      self->stretch = g_value_get_double (value);
      break;
    case PROP_OVERWRITE:
      self->overwrite = g_value_get_boolean (value);
      break;
    case PROP_PER_TRACK:
      self->per_track = g_value_get_boolean (value);
      break;
    case PROP_RECLASSIFY_INTERVAL:
      self->reclassify_interval = g_value_get_uint (value);
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
gst_eigen_recognise_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_string (value, self->model_path);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, self->threshold);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_TRAIN_DIR:
      g_value_set_string (value, self->train_dir);
      break;
    case PROP_TRAIN_WIDTH:
      g_value_set_int (value, self->train_width);
      break;
    case PROP_TRAIN_HEIGHT:
      g_value_set_int (value, self->train_height);
      break;
    case PROP_NUM_COMPONENTS:
      g_value_set_int (value, self->num_components);
      break;
    case PROP_ENERGY:
      g_value_set_double (value, self->energy);
      break;
    case PROP_STRETCH:
      g_value_set_double (value, self->stretch);
      break;
    case PROP_OVERWRITE:
      g_value_set_boolean (value, self->overwrite);
      break;
    case PROP_PER_TRACK:
      g_value_set_boolean (value, self->per_track);
      break;
    case PROP_RECLASSIFY_INTERVAL:
      g_value_set_uint (value, self->reclassify_interval);
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
gst_eigen_recognise_finalize (GObject * object)
{
  GstEigenRecognise *self = GST_EIGEN_RECOGNISE (object);

  g_free (self->model_path);
  g_free (self->train_dir);
  g_free (self->model_name);
  clv_track_votes_free (self->votes);
  G_OBJECT_CLASS (gst_eigen_recognise_parent_class)->finalize (object);
}

/* How the element trains a model at start, instead of reading one. */
static void
install_training_properties (GObjectClass * gobject_class, GParamFlags ready)
{
  /**
   * GstEigenRecognise:train-dir:
   *
   * Train when the element starts, on the images DIR/<label>/<image>
   * (.pgm, .png, .jpg; decoded by GStreamer, made gray and resized to
   * `train-width` × `train-height`), one subdirectory per person; label
   * numbers follow the subdirectories' name order and their names become
   * the labels' names.
   */
  g_object_class_install_property (gobject_class, PROP_TRAIN_DIR,
      g_param_spec_string ("train-dir", "Training directory",
          "Train at start on DIR/<label>/<image> instead of reading a model",
          DEFAULT_TRAIN_DIR, ready));
  g_object_class_install_property (gobject_class, PROP_TRAIN_WIDTH,
      g_param_spec_int ("train-width", "Training width",
          "Width the training images are resized to", 1, 4096,
          DEFAULT_TRAIN_SIZE, ready));
  g_object_class_install_property (gobject_class, PROP_TRAIN_HEIGHT,
      g_param_spec_int ("train-height", "Training height",
          "Height the training images are resized to", 1, 4096,
          DEFAULT_TRAIN_SIZE, ready));
  g_object_class_install_property (gobject_class, PROP_NUM_COMPONENTS,
      g_param_spec_int ("num-components", "Number of components",
          "Eigenfaces to keep when training (0: all that are not noise)",
          0, G_MAXINT, DEFAULT_NUM_COMPONENTS, ready));
  /**
   * GstEigenRecognise:energy:
   *
   * When training, keep the fewest eigenfaces whose eigenvalues sum to
   * more than this fraction of the total (formula (1) of
   * Li, Yan and Zhang, "Optimization of GPU-based Eigenface Algorithm", 0.9 is
   * typical).  0: not used.  Takes precedence over `stretch` and
   * `num-components`.
   */
  g_object_class_install_property (gobject_class, PROP_ENERGY,
      g_param_spec_double ("energy", "Energy",
          "Keep the fewest eigenfaces holding more than this fraction of the "
          "variance (0: off)", 0, 1, DEFAULT_ENERGY, ready));
  /**
   * GstEigenRecognise:stretch:
   *
   * When training, keep the eigenfaces up to the first whose eigenvalue,
   * relative to the largest, falls below this (formula (2) of
   * the same paper, 0.01 is typical).  0: not used.  Takes precedence over
   * `num-components`.
   */
  g_object_class_install_property (gobject_class, PROP_STRETCH,
      g_param_spec_double ("stretch", "Stretch",
          "Keep eigenfaces until λ(K+1)/λ(1) falls below this (0: off)",
          0, 1, DEFAULT_STRETCH, ready));
  /**
   * GstEigenRecognise:overwrite:
   *
   * With `train-dir`, replace an existing `model` file with the newly
   * trained model.  Unset, an existing file makes the element fail to
   * start (before training) rather than lose that model.
   */
  g_object_class_install_property (gobject_class, PROP_OVERWRITE,
      g_param_spec_boolean ("overwrite", "Overwrite",
          "Replace an existing model file with the model trained from "
          "train-dir (unset: fail to start instead)", DEFAULT_OVERWRITE,
          ready));
}

static void
gst_eigen_recognise_class_init (GstEigenRecogniseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_eigen_recognise_set_property;
  gobject_class->get_property = gst_eigen_recognise_get_property;
  gobject_class->finalize = gst_eigen_recognise_finalize;

  /**
   * GstEigenRecognise:model:
   *
   * The model file: OpenCV FileStorage YAML as written by
   * cv::face::EigenFaceRecognizer::write or clvision-eigen-train.  Read
   * when the element starts; with `train-dir` set, the model trained at
   * start is written here instead.
   */
  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Eigenface model file (OpenCV YAML) to read at start, or to write "
          "the model trained from train-dir to", DEFAULT_MODEL, ready));
  /**
   * GstEigenRecognise:threshold:
   *
   * Faces whose nearest training face is this far or farther (Euclidean
   * distance in PCA space) are "unknown".  The default, the largest double,
   * means no limit (OpenCV's DBL_MAX): every face gets the nearest label,
   * unless the model file carries a threshold of its own, which then
   * applies.
   */
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Distance from which a face is unknown (default: no limit)",
          0, G_MAXDOUBLE, DEFAULT_THRESHOLD, playing));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message with the faces and their names for "
          "every frame with faces", DEFAULT_POST_MESSAGES, playing));
  install_training_properties (gobject_class, ready);

  /**
   * GstEigenRecognise:per-track:
   *
   * Name the faces that roitrack tracked by the vote over their track's
   * recognitions, recognising a track on its first three detected frames
   * and then every #GstEigenRecognise:reclassify-interval frames.
   */
  g_object_class_install_property (gobject_class, PROP_PER_TRACK,
      g_param_spec_boolean ("per-track", "Per track",
          "Name tracked faces by a vote over their track's recognitions",
          DEFAULT_PER_TRACK, playing));
  g_object_class_install_property (gobject_class, PROP_RECLASSIFY_INTERVAL,
      g_param_spec_uint ("reclassify-interval", "Reclassify interval",
          "With per-track, recognise a track again every this many frames "
          "(0: only on its first frames)", 0, G_MAXUINT,
          DEFAULT_RECLASSIFY_INTERVAL, playing));
  /**
   * GstEigenRecognise:batch-size:
   *
   * The eigenrecognise elements of a process that use one device, a model
   * of the same contents and one batch size recognise their frames'
   * faces together: frames that arrive while a batch runs go into the
   * next one, up to this many.  A lone stream's frames never wait for
   * company.  0: the element recognises its own frames, one at a time.
   * Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Frames of all the streams on the device recognised together, at "
          "most (0: this element's frames alone, one at a time)", 0,
          CLV_BATCH_MAX_FRAMES, DEFAULT_BATCH_SIZE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Eigenface recognition", "Filter/Analyzer/Video",
      "Names the faces of face ROI metas by Eigenfaces on an OpenCL device",
      "clvision developers");
  /* The crop tables hold a source column or row shifted by 9 bits in an
   * int. */
  gst_clv_filter_class_set_max_side (filter_class, 1 << 22);
  gst_clv_filter_class_add_pad_templates (filter_class, FORMATS, FORMATS);

  trans_class->start = gst_eigen_recognise_start;
  trans_class->stop = gst_eigen_recognise_stop;
  filter_class->prepare_frame = gst_eigen_recognise_prepare_frame;
  filter_class->analyse = gst_eigen_recognise_analyse;
  filter_class->finish_frame = gst_eigen_recognise_finish_frame;
  filter_class->free_frame_data = (GDestroyNotify) g_array_unref;
}

static void
gst_eigen_recognise_init (GstEigenRecognise * self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  self->threshold = DEFAULT_THRESHOLD;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->train_width = self->train_height = DEFAULT_TRAIN_SIZE;
  self->num_components = DEFAULT_NUM_COMPONENTS;
  self->energy = DEFAULT_ENERGY;
  self->stretch = DEFAULT_STRETCH;
  self->overwrite = DEFAULT_OVERWRITE;
  self->per_track = DEFAULT_PER_TRACK;
  self->reclassify_interval = DEFAULT_RECLASSIFY_INTERVAL;
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->face_quark = g_quark_from_static_string ("face");
  self->votes = clv_track_votes_new ();
}
