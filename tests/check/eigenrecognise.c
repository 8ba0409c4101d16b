/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* eigenrecognise: face ROI metas gain a `recognition` structure equal to
 * the C reference's prediction; everything else passes untouched. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/clvision/clvision.h>
#include <glib/gstdio.h>
#include <string.h>

#include "batch-check-util.h"
#include "clv-eigen-gpu.h"
#include "clv-test-eigen.h"
#include "clv-test-util.h"
#include "clv-vj-ref.h"

/* The LFW test faces and a model of the training faces (energy 0.9, label
 * names "person<N>"), written to a temporary directory. */
static guint8 *test_faces, *train_faces;
static int n_test, n_train, face_w, face_h;
static int *train_labels;
static char **train_paths;
static ClvEigenModel *model;
static char *tmp_dir, *model_path;

static void
setup_model (void)
{
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_ENERGY, 0, 0.9 };
  GError *error = NULL;

  test_faces = clv_test_lfw_load ("test.txt", &n_test, &face_w, &face_h,
      NULL, NULL);
  train_faces = clv_test_lfw_load ("train.txt", &n_train, &face_w, &face_h,
      &train_labels, &train_paths);
  model = clv_eigen_train_ref (train_faces, n_train, train_labels, face_w,
      face_h, &comp, &error);
  g_assert_no_error (error);
  for (int i = 0; i < n_train; i++) {
    gchar *name = g_strdup_printf ("person%d", train_labels[i]);
    clv_eigen_model_set_label_name (model, train_labels[i], name);
    g_free (name);
  }
  tmp_dir = g_dir_make_tmp ("eigenrecognise-XXXXXX", &error);
  g_assert_no_error (error);
  model_path = g_build_filename (tmp_dir, "model.yml", NULL);
  fail_unless (clv_eigen_model_save (model, model_path, TRUE, &error));
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d) {
    while ((name = g_dir_read_name (d))) {
      gchar *p = g_build_filename (path, name, NULL);
      remove_tree (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

static void
teardown_model (void)
{
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (model_path);
  g_free (test_faces);
  g_free (train_faces);
  g_free (train_labels);
  g_strfreev (train_paths);
  clv_eigen_model_free (model);
}

/* ------------------------------------------------------------- helpers */

#define FRAME_W 120
#define FRAME_H 64

/* A GRAY8 frame (GStreamer's 4-byte row alignment) of noise with test
 * faces 0, 1, 2 pasted at the model size at (2,2), (40,10), (80,30). */
static const ClvEigenRoi pasted[3] = {
  {2, 2, 25, 25}, {40, 10, 25, 25}, {80, 30, 25, 25}
};

static guint8 *
gray_frame (ClvImage * im)
{
  guint8 *data = clv_test_random_image (im, FRAME_W, FRAME_H, 1, 11);

  for (int f = 0; f < 3; f++)
    for (int y = 0; y < face_h; y++)
      memcpy (data + (pasted[f].y + y) * im->stride + pasted[f].x,
          test_faces + (gsize) f * face_w * face_h + y * face_w, face_w);
  return data;
}

static GstElement *
make_element (const char *first_prop, ...)
{
  GstElement *e = gst_element_factory_make ("eigenrecognise", NULL);
  va_list ap;

  fail_unless (e != NULL);
  if (first_prop) {
    va_start (ap, first_prop);
    g_object_set_valist (G_OBJECT (e), first_prop, ap);
    va_end (ap);
  }
  return e;
}

/* A harness around `e` (taking the caller's reference) with its own bus. */
static GstHarness *
harness_for (GstElement * e, const char *format, GstBus ** bus)
{
  GstHarness *h;
  gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
      "height=%d, framerate=0/1", format, FRAME_W, FRAME_H);

  *bus = gst_bus_new ();
  gst_element_set_bus (e, *bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* The element holds its bus and the messages left on the bus hold the
 * element: flushing the bus first breaks that cycle (LeakSanitizer). */
static void
teardown (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

static GstVideoRegionOfInterestMeta *
add_roi (GstBuffer * buf, const char *type, int x, int y, int w, int h,
    int id)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);

  roi->id = id;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, type,
          "neighbors", G_TYPE_INT, 3 + id, NULL));
  return roi;
}

/* The reference for a box of a gray frame. */
static int
expected (const guint8 * gray, const ClvImage * im, ClvEigenRoi box,
    double threshold, double *distance)
{
  guint8 *face = g_malloc (model->dim);
  int label;

  fail_unless (clv_eigen_roi_clip (&box, im->width, im->height));
  clv_eigen_crop_resize_ref (gray, im, box.x, box.y, box.w, box.h, face,
      model->width, model->height);
  label = clv_eigen_predict_ref (model, face, threshold, distance);
  g_free (face);
  return label;
}

static GstVideoRegionOfInterestMeta *
roi_by_id (GstBuffer * buf, int id)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (((GstVideoRegionOfInterestMeta *) meta)->id == id)
      return (GstVideoRegionOfInterestMeta *) meta;
  fail ("no ROI %d", id);
  return NULL;
}

/* The ROI's recognition equals the reference's answer. */
static void
check_recognition (GstVideoRegionOfInterestMeta * roi, int label,
    double distance)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (roi,
      "recognition");
  const gchar *name;
  gint id;
  gdouble d, conf;

  fail_unless (s != NULL, "ROI %d has no recognition", roi->id);
  fail_unless (gst_structure_get_int (s, "label_id", &id));
  fail_unless (gst_structure_get_double (s, "distance", &d));
  fail_unless (gst_structure_get_double (s, "confidence", &conf));
  name = gst_structure_get_string (s, "label");
  fail_unless_equals_int (id, label);
  if (label == CLV_EIGEN_UNKNOWN) {
    fail_unless_equals_string (name, "unknown");
    fail_unless_equals_float (conf, 0);
  } else {
    gchar *want = g_strdup_printf ("person%d", label);
    fail_unless_equals_string (name, want);
    g_free (want);
    fail_unless (conf >= 0 && conf <= 1);
  }
  fail_unless (fabs (d - distance) <= 1e-9 * MAX (distance, 1),
      "distance %.17g, reference %.17g", d, distance);
}

static void
assert_same_bytes (GstBuffer * buf, const guint8 * data, gsize size)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, size);
  fail_unless (memcmp (map.data, data, size) == 0, "pixels changed");
  gst_buffer_unmap (buf, &map);
}

static GstMessage *
pop_recognition_message (GstBus * bus)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_structure_has_name (gst_message_get_structure (msg),
            "eigenrecognise"))
      return msg;
    gst_message_unref (msg);
  }
  return NULL;
}

/* --------------------------------------------------------------- tests */

/* __i__: with shared batches (batch-size 32) and without (0). */
GST_START_TEST (test_face_metas_gain_recognition)
{
  GstBus *bus;
  GstHarness *h = harness_for (make_element ("model", model_path,
          "batch-size", __i__ ? 0 : 32, NULL), "GRAY8", &bus);
  ClvImage im;
  guint8 *data = gray_frame (&im);
  gsize size = im.stride * im.height;
  GstBuffer *in = gst_buffer_new_memdup (data, size), *out;
  GstMessage *msg;
  const GValue *faces;

  GST_BUFFER_PTS (in) = 40 * GST_MSECOND;
  for (int f = 0; f < 3; f++)
    add_roi (in, "face", pasted[f].x, pasted[f].y, 25, 25, f);
  /* A bigger box around face 1: cropped and scaled down. */
  add_roi (in, "face", 35, 5, 36, 40, 3);
  add_roi (in, "car", 0, 0, 50, 50, 4);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);

  for (int f = 0; f < 4; f++) {
    ClvEigenRoi box = { 35, 5, 36, 40 };
    double d;
    int label;
    if (f < 3)
      box = pasted[f];
    label = expected (data, &im, box, G_MAXDOUBLE, &d);
    check_recognition (roi_by_id (out, f), label, d);
  }
  fail_unless (gst_video_region_of_interest_meta_get_param (roi_by_id (out,
              4), "recognition") == NULL);
  assert_same_bytes (out, data, size);

  /* The bus message lists the faces with their names. */
  msg = pop_recognition_message (bus);
  fail_unless (msg != NULL);
  {
    const GstStructure *s = gst_message_get_structure (msg);
    GstClockTime ts;
    fail_unless (gst_structure_get_clock_time (s, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, 40 * GST_MSECOND);
    faces = gst_structure_get_value (s, "faces");
    fail_unless_equals_int (gst_value_list_get_size (faces), 4);
    for (int f = 0; f < 4; f++) {
      const GstStructure *face =
          gst_value_get_structure (gst_value_list_get_value (faces, f));
      GstStructure *rec = gst_video_region_of_interest_meta_get_param
          (roi_by_id (out, f), "recognition");
      guint x;
      gint id;
      guint neighbors;
      fail_unless (gst_structure_get_uint (face, "x", &x));
      fail_unless_equals_int (x, roi_by_id (out, f)->x);
      fail_unless (gst_structure_get_uint (face, "neighbors", &neighbors));
      fail_unless_equals_int (neighbors, 3 + f);
      fail_unless (gst_structure_get_int (face, "label_id", &id));
      fail_unless_equals_string (gst_structure_get_string (face, "label"),
          gst_structure_get_string (rec, "label"));
    }
  }
  gst_message_unref (msg);

  gst_buffer_unref (out);
  g_free (data);
  teardown (h, bus);
}

GST_END_TEST;

/* Below the threshold: names; from it on: "unknown", -1, confidence 0. */
GST_START_TEST (test_threshold_unknown)
{
  GstBus *bus;
  GstElement *e = make_element ("model", model_path, NULL);
  GstHarness *h = harness_for (e, "GRAY8", &bus);
  ClvImage im;
  guint8 *data = gray_frame (&im);
  gsize size = im.stride * im.height;
  double d[3], threshold;
  int unknown = 0;
  GstBuffer *in, *out;

  for (int f = 0; f < 3; f++)
    expected (data, &im, pasted[f], G_MAXDOUBLE, &d[f]);
  /* Between the distances: some known, some not. */
  threshold = (MIN (MIN (d[0], d[1]), d[2]) + MAX (MAX (d[0], d[1]),
          d[2])) / 2;
  g_object_set (e, "threshold", threshold, NULL);
  in = gst_buffer_new_memdup (data, size);
  for (int f = 0; f < 3; f++)
    add_roi (in, "face", pasted[f].x, pasted[f].y, 25, 25, f);
  out = gst_harness_push_and_pull (h, in);
  for (int f = 0; f < 3; f++) {
    double dist;
    int label = expected (data, &im, pasted[f], threshold, &dist);
    unknown += label == CLV_EIGEN_UNKNOWN;
    check_recognition (roi_by_id (out, f), label, d[f]);
  }
  fail_unless (unknown > 0 && unknown < 3);
  gst_buffer_unref (out);
  g_free (data);
  teardown (h, bus);
}

GST_END_TEST;

/* No face ROIs: the buffer comes out as it went in, no message. */
GST_START_TEST (test_frames_without_faces_untouched)
{
  GstBus *bus;
  GstHarness *h = harness_for (make_element ("model", model_path, NULL),
      "GRAY8", &bus);
  ClvImage im;
  guint8 *data = gray_frame (&im);
  gsize size = im.stride * im.height;
  GstBuffer *out;

  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (data, size));
  assert_same_bytes (out, data, size);
  fail_unless (gst_buffer_get_video_region_of_interest_meta (out) == NULL);
  gst_buffer_unref (out);

  {
    GstBuffer *in = gst_buffer_new_memdup (data, size);
    add_roi (in, "car", 1, 1, 30, 30, 7);
    out = gst_harness_push_and_pull (h, in);
  }
  assert_same_bytes (out, data, size);
  fail_unless (gst_video_region_of_interest_meta_get_param (roi_by_id (out,
              7), "recognition") == NULL);
  fail_unless (pop_recognition_message (bus) == NULL);
  gst_buffer_unref (out);
  g_free (data);
  teardown (h, bus);
}

GST_END_TEST;

/* Boxes across the edges are clipped, 1×1 boxes work, boxes wholly outside
 * are left without recognition; post-messages=false posts nothing. */
GST_START_TEST (test_edge_and_tiny_rois)
{
  GstBus *bus;
  GstHarness *h = harness_for (make_element ("model", model_path,
          "post-messages", FALSE, NULL), "GRAY8", &bus);
  ClvImage im;
  guint8 *data = gray_frame (&im);
  gsize size = im.stride * im.height;
  const ClvEigenRoi boxes[] = {
    {100, 40, 40, 40}, {0, 0, 1, 1}, {FRAME_W - 1, FRAME_H - 1, 1, 1},
    {60, 0, 1, 64}, {0, 50, 500, 500},
  };
  GstBuffer *in = gst_buffer_new_memdup (data, size), *out;

  for (guint i = 0; i < G_N_ELEMENTS (boxes); i++)
    add_roi (in, "face", boxes[i].x, boxes[i].y, boxes[i].w, boxes[i].h, i);
  add_roi (in, "face", FRAME_W + 3, 2, 10, 10, 99);
  out = gst_harness_push_and_pull (h, in);
  for (guint i = 0; i < G_N_ELEMENTS (boxes); i++) {
    double d;
    int label = expected (data, &im, boxes[i], G_MAXDOUBLE, &d);
    check_recognition (roi_by_id (out, i), label, d);
  }
  fail_unless (gst_video_region_of_interest_meta_get_param (roi_by_id (out,
              99), "recognition") == NULL);
  fail_unless (pop_recognition_message (bus) == NULL);
  assert_same_bytes (out, data, size);
  gst_buffer_unref (out);
  g_free (data);
  teardown (h, bus);
}

GST_END_TEST;

/* I420 (its luma plane) and BGRx (OpenCV's RGB→gray) give the answers of
 * the gray frame they carry. */
GST_START_TEST (test_yuv_and_rgb)
{
  const char *formats[] = { "I420", "BGRx" };
  ClvImage im;
  guint8 *gray = gray_frame (&im);

  for (guint fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
    GstBus *bus;
    GstHarness *h = harness_for (make_element ("model", model_path, NULL),
        formats[fi], &bus);
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *in, *out;
    GRand *rand = g_rand_new_with_seed (fi);
    guint8 *ref = g_malloc (im.stride * FRAME_H);

    gst_video_info_set_format (&info, gst_video_format_from_string
        (formats[fi]), FRAME_W, FRAME_H);
    in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_WRITE));
    for (int y = 0; y < FRAME_H; y++)
      for (int x = 0; x < FRAME_W; x++) {
        guint8 v = gray[y * im.stride + x];
        if (fi == 0) {
          ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0))[y *
              GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x] = v;
        } else {
          guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + 4 * x;
          for (int c = 0; c < 4; c++)
            px[c] = CLAMP (v + g_rand_int_range (rand, -30, 31), 0, 255);
        }
      }
    if (fi == 0) {
      for (int p = 1; p < 3; p++)
        memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, p), 200,
            GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p) *
            GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p));
      memcpy (ref, gray, im.stride * FRAME_H);
    } else {
      /* B G R x */
      clv_rgb_to_gray_ref (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), 4, 2, 1, 0, FRAME_W,
          FRAME_H, ref, im.stride);
    }
    gst_video_frame_unmap (&frame);
    for (int f = 0; f < 3; f++)
      add_roi (in, "face", pasted[f].x, pasted[f].y, 25, 25, f);
    add_roi (in, "face", 30, 3, 50, 45, 3);
    out = gst_harness_push_and_pull (h, in);
    for (int f = 0; f < 4; f++) {
      ClvEigenRoi box = { 30, 3, 50, 45 };
      double d;
      int label;
      if (f < 3)
        box = pasted[f];
      label = expected (ref, &im, box, G_MAXDOUBLE, &d);
      check_recognition (roi_by_id (out, f), label, d);
    }
    gst_buffer_unref (out);
    g_free (ref);
    g_rand_free (rand);
    teardown (h, bus);
  }
  g_free (gray);
}

GST_END_TEST;

/* Starting fails with an error that names the file and what is wrong. */
static void
assert_start_fails (GstElement * e, const char *expect_in_message)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, expect_in_message) != NULL,
      "\"%s\" does not mention \"%s\"", err->message, expect_in_message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (bus);
}

/* A copy of the model file with `edit` applied to its text. */
static char *
edited_model (const char *name, const char *find, const char *replace,
    gssize truncate_at)
{
  gchar *text, *path = g_build_filename (tmp_dir, name, NULL);
  GString *s;
  GError *error = NULL;

  fail_unless (g_file_get_contents (model_path, &text, NULL, &error));
  s = g_string_new (text);
  if (find)
    fail_unless (g_string_replace (s, find, replace, 1) == 1);
  if (truncate_at >= 0)
    g_string_truncate (s, truncate_at);
  fail_unless (g_file_set_contents (path, s->str, s->len, &error));
  g_string_free (s, TRUE);
  g_free (text);
  return path;
}

GST_START_TEST (test_bad_models)
{
  gchar *missing = g_build_filename (tmp_dir, "missing.yml", NULL);
  gchar *truncated = edited_model ("truncated.yml", NULL, NULL, 3000);
  gchar *no_mean = edited_model ("no-mean.yml", "   mean:", "   mead:", -1);
  gchar *text = edited_model ("text.yml", "data: [ ", "data: [ abc, ", -1);
  gchar *wrong_size = edited_model ("size.yml", "rows: 1\n", "rows: 2\n",
      -1);
  gchar *empty = edited_model ("empty.yml", NULL, NULL, 0);

  assert_start_fails (make_element (NULL), "model");
  assert_start_fails (make_element ("model", missing, NULL), "missing.yml");
  assert_start_fails (make_element ("model", truncated, NULL),
      "truncated.yml");
  assert_start_fails (make_element ("model", no_mean, NULL), "mean");
  assert_start_fails (make_element ("model", text, NULL), "text.yml");
  assert_start_fails (make_element ("model", wrong_size, NULL), "size.yml");
  assert_start_fails (make_element ("model", empty, NULL), "empty.yml");
  assert_start_fails (make_element ("train-dir", missing, NULL),
      "missing.yml");
  g_free (missing);
  g_free (truncated);
  g_free (no_mean);
  g_free (text);
  g_free (wrong_size);
  g_free (empty);
}

GST_END_TEST;

static const char *people_names[] = { "ada", "grace", "hedy" };

/* The training faces of labels 0..2 as DIR/<name>/<image>; `first_face`:
 * the index of each label's first training face. */
static void
make_people_dir (const gchar * dir, int first_face[3])
{
  for (int l = 0; l < 3; l++)
    first_face[l] = -1;
  for (int i = 0; i < n_train; i++) {
    gchar *sub, *src, *dst, *base;
    int l = train_labels[i], w, hh;
    guint8 *px;

    if (l > 2)
      continue;
    if (first_face[l] < 0)
      first_face[l] = i;
    sub = g_build_filename (dir, people_names[l], NULL);
    g_mkdir_with_parents (sub, 0700);
    src = g_build_filename (clv_test_lfw_dir (), train_paths[i], NULL);
    base = g_path_get_basename (src);
    dst = g_build_filename (sub, base, NULL);
    px = clv_test_read_pgm (src, &w, &hh);
    clv_test_write_pgm (dst, px, w, hh);
    g_free (px);
    g_free (sub);
    g_free (src);
    g_free (dst);
    g_free (base);
  }
}

/* train-dir: the images of DIR/<name>/ decoded by GStreamer, trained at
 * start, the model written to `model`; a training face is recognised as
 * its directory's name at distance ~0. */
GST_START_TEST (test_train_dir)
{
  gchar *dir = g_build_filename (tmp_dir, "people", NULL);
  gchar *out_path = g_build_filename (tmp_dir, "trained.yml", NULL);
  GstBus *bus;
  GstHarness *h;
  ClvImage im;
  guint8 *data;
  GstBuffer *in, *out;
  ClvEigenModel *trained;
  GError *error = NULL;
  int first_face[3];

  make_people_dir (dir, first_face);

  h = harness_for (make_element ("train-dir", dir, "train-width", 25,
          "train-height", 25, "model", out_path, NULL), "GRAY8", &bus);
  data = clv_test_random_image (&im, FRAME_W, FRAME_H, 1, 5);
  for (int l = 0; l < 3; l++)
    for (int y = 0; y < face_h; y++)
      memcpy (data + (pasted[l].y + y) * im.stride + pasted[l].x,
          train_faces + (gsize) first_face[l] * face_w * face_h + y * face_w,
          face_w);
  in = gst_buffer_new_memdup (data, im.stride * im.height);
  for (int l = 0; l < 3; l++)
    add_roi (in, "face", pasted[l].x, pasted[l].y, 25, 25, l);
  out = gst_harness_push_and_pull (h, in);
  for (int l = 0; l < 3; l++) {
    GstStructure *s = gst_video_region_of_interest_meta_get_param
        (roi_by_id (out, l), "recognition");
    gdouble d;
    gint id;
    fail_unless (s != NULL);
    fail_unless_equals_string (gst_structure_get_string (s, "label"),
        people_names[l]);
    fail_unless (gst_structure_get_int (s, "label_id", &id));
    fail_unless_equals_int (id, l);
    fail_unless (gst_structure_get_double (s, "distance", &d));
    fail_unless (d < 1e-6, "distance %g", d);
  }
  gst_buffer_unref (out);
  teardown (h, bus);

  trained = clv_eigen_model_load (out_path, 0, 0, &error);
  g_assert_no_error (error);
  fail_unless_equals_int (trained->n_train, 21);
  fail_unless_equals_int (trained->width, 25);
  fail_unless_equals_string (clv_eigen_model_get_label_name (trained, 1),
      "grace");
  clv_eigen_model_free (trained);
  g_free (data);
  g_free (dir);
  g_free (out_path);
}

GST_END_TEST;

/* No file in `dir` but `keep`: the model was written through a temporary
 * file that is gone. */
static void
assert_only_file (const gchar * dir, const gchar * keep)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (d)) != NULL)
    fail_unless_equals_string (name, keep);
  g_dir_close (d);
}

/* An existing model survives a training start without overwrite=true: the
 * element fails before training and says what to set; with it, the model
 * is replaced whole. */
GST_START_TEST (test_train_overwrite)
{
  gchar *dir = g_build_filename (tmp_dir, "overwrite", NULL);
  gchar *out_path = g_build_filename (dir, "model.yml", NULL);
  gchar *people = g_build_filename (tmp_dir, "overwrite-people", NULL);
  gchar *before, *after;
  GstElement *e;
  gboolean overwrite;
  int first_face[3];
  GstBus *bus;
  GstHarness *h;
  ClvEigenModel *m;
  GError *error = NULL;

  g_mkdir_with_parents (dir, 0700);
  fail_unless (clv_eigen_model_save (model, out_path, FALSE, &error));
  fail_unless (!clv_eigen_model_save (model, out_path, FALSE, &error));
  fail_unless (g_error_matches (error, CLV_EIGEN_ERROR,
          CLV_EIGEN_ERROR_EXISTS));
  g_clear_error (&error);
  assert_only_file (dir, "model.yml");
  fail_unless (g_file_get_contents (out_path, &before, NULL, NULL));

  /* The training images are missing: an error about them would mean the
   * element got as far as training. */
  e = make_element ("train-dir", "/nonexistent", "model", out_path, NULL);
  g_object_get (e, "overwrite", &overwrite, NULL);
  fail_unless (!overwrite);
  assert_start_fails (e, "exists: set overwrite=true");
  fail_unless (g_file_get_contents (out_path, &after, NULL, NULL));
  fail_unless_equals_string (after, before);
  g_free (after);

  make_people_dir (people, first_face);
  h = harness_for (make_element ("train-dir", people,
          "train-width", 20, "train-height", 20, "model", out_path,
          "overwrite", TRUE, NULL), "GRAY8", &bus);
  gst_harness_play (h);
  teardown (h, bus);
  m = clv_eigen_model_load (out_path, 0, 0, &error);
  g_assert_no_error (error);
  fail_unless_equals_int (m->width, 20);
  clv_eigen_model_free (m);
  assert_only_file (dir, "model.yml");
  g_free (before);
  g_free (people);
  g_free (out_path);
  g_free (dir);
}

GST_END_TEST;

/* A stream of the batching test: its own element and boxes, fed from its
 * own thread. */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  ClvEigenRoi boxes[3];
  int n;
  int done;
  GThread *thread;
} RecogniseStream;

static const guint8 *stream_gray;
static ClvImage stream_im;
static gint streams_started;

/* One frame of stream `s` through its element, every ROI checked. */
static void
recognise_stream_frame (RecogniseStream * s)
{
  GstBuffer *in = gst_buffer_new_memdup (stream_gray,
      stream_im.stride * stream_im.height), *out;

  for (int f = 0; f < s->n; f++)
    add_roi (in, "face", s->boxes[f].x, s->boxes[f].y, s->boxes[f].w,
        s->boxes[f].h, f);
  out = gst_harness_push_and_pull (s->h, in);
  fail_unless (out != NULL);
  for (int f = 0; f < s->n; f++) {
    double dist;
    int label = expected (stream_gray, &stream_im, s->boxes[f],
        G_MAXDOUBLE, &dist);
    check_recognition (roi_by_id (out, f), label, dist);
  }
  gst_buffer_unref (out);
}

static gpointer
recognise_stream_thread (gpointer data)
{
  RecogniseStream *s = data;

  g_atomic_int_inc (&streams_started);
  for (int r = 0; r < 8; r++) {
    recognise_stream_frame (s);
    s->done++;
  }
  return NULL;
}

/* Five streams recognising at once: their frames share batches on the
 * device, and every ROI gets its own face's answer.  The device is held
 * while the streams start, so that their frames meet in the service.
 * __i__: in-flight. */
GST_START_TEST (test_streams_share_batches)
{
  RecogniseStream s[5];
  ClvImage im;
  guint8 *data = gray_frame (&im);
  GError *error = NULL;
  ClvDevice *dev = clv_device_open ("first", &error);
  cl_event hold;
  gint largest;

  g_assert_no_error (error);
  stream_gray = data;
  stream_im = im;
  batch_check_watch ("eigenrecognise");
  for (int i = 0; i < 5; i++) {
    memset (&s[i], 0, sizeof (s[i]));
    /* One device's service: device=auto would spread the streams over the
     * GPUs of a machine with several. */
    s[i].h = harness_for (make_element ("model", model_path, "device",
            "first", "in-flight", __i__, NULL), "GRAY8", &s[i].bus);
    /* Stream i takes faces i % 3 onwards, the last one scaled up. */
    for (int f = i % 3; f < 3; f++)
      s[i].boxes[s[i].n++] = pasted[f];
    s[i].boxes[s[i].n - 1].w += i;
    s[i].boxes[s[i].n - 1].h += i;
  }
  streams_started = 0;
  hold = batch_check_hold (dev);
  for (int i = 0; i < 5; i++)
    s[i].thread = g_thread_new ("stream", recognise_stream_thread, &s[i]);
  batch_check_release (hold, &streams_started, 5);
  for (int i = 0; i < 5; i++) {
    g_thread_join (s[i].thread);
    fail_unless_equals_int (s[i].done, 8);
    teardown (s[i].h, s[i].bus);
  }
  largest = batch_check_unwatch ();
  fail_unless (largest >= 2, "frames never shared a batch (largest %d)",
      largest);
  clv_device_unref (dev);
  g_free (data);
}

GST_END_TEST;

/* A frame of noise with test face `face` at pasted[0]'s place. */
static GstBuffer *
frame_with_face (int face, guint8 ** data, ClvImage * im)
{
  *data = clv_test_random_image (im, FRAME_W, FRAME_H, 1, 11);
  for (int y = 0; y < face_h; y++)
    memcpy (*data + (pasted[0].y + y) * im->stride + pasted[0].x,
        test_faces + (gsize) face * face_w * face_h + y * face_w, face_w);
  return gst_buffer_new_memdup (*data, im->stride * im->height);
}

/* The label the element gives a track shown as `shown[age - 1]`, with
 * per-track or not; *recognitions gets the last frame's count. */
static void
track_labels (gboolean per_track, const int *shown, guint frames,
    int *labels, guint * recognitions)
{
  GstBus *bus;
  GstHarness *h = harness_for (make_element ("model", model_path,
          "per-track", per_track, "reclassify-interval", 5,
          "post-messages", FALSE, NULL), "GRAY8", &bus);

  for (guint age = 1; age <= frames; age++) {
    const GstClvTracking t = {.id = 9,.age = age,.predicted = age == 6 };
    ClvImage im;
    guint8 *data;
    GstBuffer *in = frame_with_face (shown[age - 1], &data, &im), *out;
    GstClvRecognition rec;
    GstStructure *s;

    gst_clv_roi_meta_set_tracking (add_roi (in, "face", pasted[0].x,
            pasted[0].y, 25, 25, 0), &t);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (gst_clv_roi_meta_get_recognition (roi_by_id (out, 0),
            &rec), "frame %u without recognition", age);
    labels[age - 1] = rec.label_id;
    s = gst_video_region_of_interest_meta_get_param (roi_by_id (out, 0),
        "recognition");
    fail_unless_equals_int (gst_structure_get_uint (s, "recognitions",
            recognitions), per_track);
    assert_same_bytes (out, data, im.stride * im.height);
    gst_buffer_unref (out);
    g_free (data);
  }
  teardown (h, bus);
}

/* per-track: a track's name is the vote over its recognitions (its first
 * three detected frames, then every reclassify-interval frames, predicted
 * boxes never), so a face misread on some frames keeps its name; without
 * it every frame is named on its own and the name flickers. */
GST_START_TEST (test_per_track_vote)
{
  const int a = 0;
  int b = 0, shown[14], labels[14], label_a, label_b = -2;
  ClvImage im;
  guint8 *data;
  guint recognitions;
  double d;

  /* Test face 0 and the first recognised as someone else. */
  gst_buffer_unref (frame_with_face (a, &data, &im));
  label_a = expected (data, &im, pasted[0], G_MAXDOUBLE, &d);
  g_free (data);
  while (label_b == -2 || label_b == label_a) {
    fail_unless (++b < n_test, "every test face has one label");
    gst_buffer_unref (frame_with_face (b, &data, &im));
    label_b = expected (data, &im, pasted[0], G_MAXDOUBLE, &d);
    g_free (data);
  }
  /* Recognised at ages 1, 2, 3, then 8 and 13 (6 is predicted); b on 2 of
   * them. */
  for (guint i = 0; i < 14; i++)
    shown[i] = i == 0 || i == 2 || i == 6 || i == 12 ? a : b;

  track_labels (TRUE, shown, 14, labels, &recognitions);
  for (guint i = 0; i < 14; i++)
    fail_unless_equals_int (labels[i], label_a);
  fail_unless_equals_int (recognitions, 5);
  track_labels (FALSE, shown, 14, labels, &recognitions);
  for (guint i = 0; i < 14; i++)
    fail_unless_equals_int (labels[i], shown[i] == a ? label_a : label_b);
}

GST_END_TEST;

static Suite *
eigenrecognise_suite (void)
{
  Suite *s = suite_create ("eigenrecognise");
  TCase *tc = tcase_create ("general");

  tcase_add_unchecked_fixture (tc, setup_model, teardown_model);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_face_metas_gain_recognition, 0, 2);
  tcase_add_test (tc, test_threshold_unknown);
  tcase_add_test (tc, test_frames_without_faces_untouched);
  tcase_add_test (tc, test_edge_and_tiny_rois);
  tcase_add_test (tc, test_yuv_and_rgb);
  tcase_add_test (tc, test_bad_models);
  tcase_add_test (tc, test_train_dir);
  tcase_add_test (tc, test_train_overwrite);
  tcase_add_loop_test (tc, test_streams_share_batches, 1, 3);
  tcase_add_test (tc, test_per_track_vote);
  return s;
}

GST_CHECK_MAIN (eigenrecognise);
