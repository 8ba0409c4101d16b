/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjfacedetect: OpenCV's faces (the golden files) on real pictures, Haar
 * and LBP, the same faces from every caps format, the metas and bus
 * messages, OpenCV's scores, labels, eyes inside faces (parent), interval,
 * min/max size, tiny frames, and cascade or settings errors that fail the
 * state change with a message; cascadedetect, its general name. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <gst/video/video.h>
#include <string.h>
#include <unistd.h>

#include "clv-vj-ref.h"
#include "batch-check-util.h"
#include "caps-check-util.h"
#include "cl-check-util.h"
#include "vj-check-frame.h"
#include "gstclv-private.h"

/* A frame of `g` as `format` (vj_check_frame_buffer), at 40 ms. */
static GstBuffer *
frame_buffer (const Gray * g, const char *format, GstCaps ** caps)
{
  GstBuffer *buf = vj_check_frame_buffer (g, format, caps);

  GST_BUFFER_PTS (buf) = 40 * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
  return buf;
}

/* A frame of `g`'s size, all grey 90: no faces. */
static Gray
blank_like (const Gray * g)
{
  Gray b = { g_malloc ((gsize) g->width * g->height), g->width, g->height };

  memset (b.pixels, 90, (gsize) g->width * g->height);
  return b;
}

/* The harness's caps become those of `g` as `format`. */
static void
set_frame_caps (GstHarness * h, const Gray * g, const char *format)
{
  GstCaps *caps;

  gst_buffer_unref (frame_buffer (g, format, &caps));
  gst_harness_set_src_caps (h, caps);
}

/* A harness around a vjfacedetect made with `props` ("name=value ..."). */
static GstHarness *
harness (const char *props)
{
  GstElement *el = gst_element_factory_make ("vjfacedetect", NULL);
  char **items = g_strsplit (props ? props : "", " ", -1);
  GstHarness *h;

  for (char **it = items; *it; it++) {
    char **kv = g_strsplit (*it, "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (el), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (items);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  return h;
}

static GArray *buffer_faces (GstBuffer * out);

/* Pushes `g` as `format` and returns the faces in the output's metas. */
static GArray *
push_frame (GstHarness * h, const Gray * g, const char *format,
    GstBuffer ** out_buf)
{
  GstCaps *caps;
  GstBuffer *in = frame_buffer (g, format, &caps), *out;
  GArray *found;

  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  found = buffer_faces (out);
  if (out_buf)
    *out_buf = out;
  else
    gst_buffer_unref (out);
  return found;
}

/* The faces in a buffer's face metas. */
static GArray *
buffer_faces (GstBuffer * out)
{
  GArray *found = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s = gst_video_region_of_interest_meta_get_param (roi,
        "detection");
    ClvVjFace f = { {roi->x, roi->y, roi->w, roi->h}, 0 };

    if (roi->roi_type != g_quark_from_string ("face"))
      continue;
    fail_unless (s != NULL);
    fail_unless (gst_structure_get_int (s, "neighbors", &f.neighbors));
    g_array_append_val (found, f);
  }
  return found;
}

/* The element fails to start (READY -> PAUSED) and the error message on the
 * bus contains `expect`. */
static void
check_start_fails (const char *prop, const char *value, const char *expect)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *el = gst_element_factory_make ("vjfacedetect", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;

  gst_util_set_object_arg (G_OBJECT (el), prop, value);
  gst_bin_add (GST_BIN (pipeline), el);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for %s=%s", prop, value);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, expect) != NULL,
      "%s=%s: \"%s\" does not say \"%s\"", prop, value, err->message, expect);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

/* Faces equal OpenCV's (the golden files): same count, same rectangles and
 * neighbour counts (no tolerance used). */
static void
assert_golden (GArray * found, const char *image, const char *cascade,
    double scale, int neighbors)
{
  GArray *expected = vj_test_golden_faces (image, cascade, scale, neighbors);
  char *what = g_strdup_printf ("%s %s scale %g neighbors %d", image,
      cascade, scale, neighbors);

  vj_test_assert_faces (expected, found, 0, what);
  g_free (what);
  g_array_free (expected, TRUE);
}

/* One cascade over every golden picture, both scale factors, 0 and 3
 * neighbours. */
static void
check_golden (const char *cascade)
{
  char *path = vj_test_cascade_path (cascade);
  char *props = g_strdup_printf ("cascade=%s", path);
  GstHarness *h = harness (props);

  for (guint i = 0; vj_test_images[i]; i++) {
    Gray g = load_gray (vj_test_images[i]);
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < 2; k++) {
        double scale = vj_test_scale_factors[s];
        int n = vj_test_min_neighbors[k];
        GArray *found;
        g_object_set (h->element, "scale-factor", scale, "min-neighbors", n,
            NULL);
        found = push_frame (h, &g, "GRAY8", NULL);
        assert_golden (found, vj_test_images[i], cascade, scale, n);
        g_array_free (found, TRUE);
      }
    g_free (g.pixels);
  }
  gst_harness_teardown (h);
  g_free (props);
  g_free (path);
}

GST_START_TEST (test_golden_default)
{
  check_golden ("frontalface_default");
}

GST_END_TEST;

GST_START_TEST (test_golden_alt)
{
  check_golden ("frontalface_alt");
}

GST_END_TEST;

GST_START_TEST (test_golden_alt2)
{
  check_golden ("frontalface_alt2");
}

GST_END_TEST;

GST_START_TEST (test_golden_alt_tree)
{
  check_golden ("frontalface_alt_tree");
}

GST_END_TEST;

static GstBus *watch_bus (GstHarness * h);
static ClvCascade *default_cascade (void);

/* LBP cascades: OpenCV's faces on every picture. */
GST_START_TEST (test_golden_lbp)
{
  for (guint c = 0; vj_test_lbp_cascades[c]; c++)
    check_golden (vj_test_lbp_cascades[c]);
}

GST_END_TEST;

/* output-reject-levels: the golden files' reject levels and level weights
 * in the metas and the message, the same rectangles as without. */
GST_START_TEST (test_scores)
{
  GstHarness *h = harness ("output-reject-levels=true");
  GstBus *bus = watch_bus (h);

  for (guint i = 0; vj_test_images[i]; i++) {
    Gray g = load_gray (vj_test_images[i]);
    GArray *golden = vj_test_golden_scores (vj_test_images[i],
        "frontalface_default", 3);
    GArray *scored = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
    GstBuffer *out;
    GArray *found = push_frame (h, &g, "GRAY8", &out);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    const GValue *list = gst_structure_get_value (gst_message_get_structure
        (msg), "faces");
    gpointer state = NULL;
    GstMeta *meta;

    assert_golden (found, vj_test_images[i], "frontalface_default", 1.1, 3);
    while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)
          meta;
      GstStructure *d = gst_video_region_of_interest_meta_get_param (roi,
          "detection");
      const GstStructure *m = gst_value_get_structure
          (gst_value_list_get_value (list, scored->len));
      ClvVjFace f = { {roi->x, roi->y, roi->w, roi->h}, 0 };
      int level;
      double weight;

      fail_unless (gst_structure_get_int (d, "reject-level", &f.reject_level));
      fail_unless (gst_structure_get_double (d, "level-weight",
              &f.level_weight));
      fail_unless (gst_structure_get_int (m, "reject-level", &level));
      fail_unless (gst_structure_get_double (m, "level-weight", &weight));
      fail_unless_equals_int (level, f.reject_level);
      fail_unless_equals_float (weight, f.level_weight);
      g_array_append_val (scored, f);
    }
    vj_test_assert_scores (golden, scored, vj_test_images[i]);
    g_array_free (scored, TRUE);
    g_array_free (golden, TRUE);
    g_array_free (found, TRUE);
    gst_message_unref (msg);
    gst_buffer_unref (out);
    g_free (g.pixels);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The label names the metas' type, the detection's label and the
 * message's entries: from the cascade's file name, or as set. */
GST_START_TEST (test_labels)
{
  Gray g = load_gray ("franck-2500");
  char *eye = vj_test_cascade_path ("eye");
  const char *const labels[] = { NULL, "pupil" };

  for (guint k = 0; k < G_N_ELEMENTS (labels); k++) {
    char *props = g_strdup_printf ("cascade=%s%s%s", eye,
        labels[k] ? " label=" : "", labels[k] ? labels[k] : "");
    GstHarness *h = harness (props);
    GstBus *bus = watch_bus (h);
    GstBuffer *out;
    GArray *found;
    GstMessage *msg;
    const GstStructure *e;
    const char *expect = labels[k] ? labels[k] : "eye";
    gpointer state = NULL;
    GstMeta *meta;
    guint n = 0;

    found = push_frame (h, &g, "GRAY8", &out);
    while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)
          meta;
      fail_unless_equals_string (g_quark_to_string (roi->roi_type), expect);
      fail_unless_equals_string (gst_structure_get_string
          (gst_video_region_of_interest_meta_get_param (roi, "detection"),
              "label"), expect);
      fail_unless_equals_int (roi->parent_id, -1);
      n++;
    }
    fail_unless (n > 0);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    e = gst_value_get_structure (gst_value_list_get_value
        (gst_structure_get_value (gst_message_get_structure (msg), "faces"),
            0));
    fail_unless (gst_structure_has_name (e, expect));
    gst_message_unref (msg);
    gst_buffer_unref (out);
    g_array_free (found, TRUE);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (props);
  }
  g_free (eye);
  g_free (g.pixels);
}

GST_END_TEST;

/* cascadedetect is the same element under a general name: its own
 * metadata and message name, the same detections. */
GST_START_TEST (test_cascadedetect)
{
  GstElementFactory *f = gst_element_factory_find ("cascadedetect");
  GstHarness *h = gst_harness_new ("cascadedetect");
  GstBus *bus = watch_bus (h);
  Gray g = load_gray ("grace_hopper");
  GArray *found;
  GstMessage *msg;

  fail_unless (f != NULL);
  fail_unless (strstr (gst_element_factory_get_metadata (f,
              GST_ELEMENT_METADATA_LONGNAME), "Cascade") != NULL);
  found = push_frame (h, &g, "GRAY8", NULL);
  assert_golden (found, "grace_hopper", "frontalface_default", 1.1, 3);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (gst_structure_has_name (gst_message_get_structure (msg),
          "cascadedetect"));
  gst_message_unref (msg);
  g_array_free (found, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_object_unref (f);
  g_free (g.pixels);
}

GST_END_TEST;

/* The eye metas of a frame as VjTestChild entries: their parents' index
 * in `faces` (sorted as the golden files' parents are). */
static GArray *
eyes_by_face (GstBuffer * out, GArray * faces)
{
  GArray *eyes = g_array_new (FALSE, FALSE, sizeof (VjTestChild));
  GHashTable *face_ids = g_hash_table_new (NULL, NULL);
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    if (roi->roi_type == g_quark_from_string ("face"))
      g_hash_table_insert (face_ids, GINT_TO_POINTER (roi->id),
          GINT_TO_POINTER (roi->x << 16 | roi->y));
  }
  state = NULL;
  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    VjTestChild c = { -1, {{roi->x, roi->y, roi->w, roi->h}, 0} };
    gpointer corner;

    if (roi->roi_type != g_quark_from_string ("eye"))
      continue;
    fail_unless (g_hash_table_lookup_extended (face_ids,
            GINT_TO_POINTER (roi->parent_id), NULL, &corner));
    for (guint i = 0; i < faces->len; i++) {
      const ClvRect *r = &g_array_index (faces, ClvVjFace, i).rect;
      if ((r->x << 16 | r->y) == GPOINTER_TO_INT (corner))
        c.parent = (int) i;
    }
    fail_unless (gst_structure_get_int
        (gst_video_region_of_interest_meta_get_param (roi, "detection"),
            "neighbors", &c.face.neighbors));
    g_array_append_val (eyes, c);
  }
  g_hash_table_unref (face_ids);
  return eyes;
}

/* Eyes inside faces: vjfacedetect ! vjfacedetect cascade=eye parent=face
 * gives OpenCV's eyes on each face's crop, mapped back, each the child of
 * its face, on every picture. */
GST_START_TEST (test_eyes_in_faces)
{
  char *eye = vj_test_cascade_path ("eye");
  char *launch = g_strdup_printf ("vjfacedetect ! vjfacedetect cascade=%s "
      "parent=face", eye);
  GstHarness *h = gst_harness_new_parse (launch);

  for (guint i = 0; vj_test_images[i]; i++) {
    Gray g = load_gray (vj_test_images[i]);
    GArray *parents, *golden = vj_test_golden_children (vj_test_images[i],
        "eye", "frontalface_default", &parents);
    GstBuffer *out;
    GArray *faces = push_frame (h, &g, "GRAY8", &out), *eyes;

    /* vj_test_assert_faces sorts the faces as the golden parents are. */
    vj_test_assert_faces (parents, faces, 0, vj_test_images[i]);
    eyes = eyes_by_face (out, faces);
    fail_unless_equals_int (eyes->len, golden->len);
    for (guint f = 0; f < faces->len; f++) {
      GArray *want = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
      GArray *got = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
      for (guint k = 0; k < golden->len; k++)
        if (g_array_index (golden, VjTestChild, k).parent == (int) f)
          g_array_append_val (want, g_array_index (golden, VjTestChild,
                  k).face);
      for (guint k = 0; k < eyes->len; k++)
        if (g_array_index (eyes, VjTestChild, k).parent == (int) f)
          g_array_append_val (got, g_array_index (eyes, VjTestChild, k).face);
      vj_test_assert_faces (want, got, 0, vj_test_images[i]);
      g_array_free (want, TRUE);
      g_array_free (got, TRUE);
    }
    g_array_free (eyes, TRUE);
    g_array_free (faces, TRUE);
    g_array_free (parents, TRUE);
    g_array_free (golden, TRUE);
    gst_buffer_unref (out);
    g_free (g.pixels);
  }
  gst_harness_teardown (h);
  g_free (launch);
  g_free (eye);
}

GST_END_TEST;

/* Parents at the frame's edges and beyond are clipped, empty ones and
 * ones of other labels skipped; every child equals the reference on its
 * parent's crop. */
GST_START_TEST (test_parents_clipped)
{
  Gray g = load_gray ("astronaut");
  ClvCascade *c = default_cascade ();
  GstHarness *h = harness ("min-neighbors=0 parent=head label=face");
  GstCaps *caps;
  GstBuffer *in = frame_buffer (&g, "GRAY8", &caps), *out;
  const int boxes[][4] = { {150, 40, 150, 150}, {400, 400, 300, 300},
  {600, 10, 50, 50}, {170, 50, 111, 113}
  };
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  gpointer state = NULL;
  GstMeta *meta;
  guint matched = 0;

  p.min_neighbors = 0;
  for (guint i = 0; i < G_N_ELEMENTS (boxes); i++) {
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (in, i == 3 ? "body" :
        "head", boxes[i][0], boxes[i][1], boxes[i][2], boxes[i][3]);
    roi->id = 10 + i;
  }
  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, in);
  for (guint i = 0; i < 2; i++) {
    const int x = boxes[i][0], y = boxes[i][1];
    const int w = MIN (boxes[i][2], g.width - x);
    const int hh = MIN (boxes[i][3], g.height - y);
    GArray *ref = clv_vj_detect_ref (c, g.pixels + y * g.width + x, w, hh,
        g.width, &p);
    GArray *got = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
    state = NULL;
    while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)
          meta;
      ClvVjFace f = { {roi->x - x, roi->y - y, roi->w, roi->h}, 1 };
      if (roi->parent_id == 10 + (int) i)
        g_array_append_val (got, f);
    }
    fail_unless (ref->len > 0);
    matched += got->len;
    vj_test_assert_faces (ref, got, 0, "clipped parent");
    g_array_free (ref, TRUE);
    g_array_free (got, TRUE);
  }
  /* Only the two heads that overlap the frame have children. */
  state = NULL;
  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    matched -= ((GstVideoRegionOfInterestMeta *) meta)->roi_type
        == g_quark_from_string ("face");
  fail_unless_equals_int (matched, 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  clv_cascade_free (c);
  g_free (g.pixels);
}

GST_END_TEST;

/* Every variant, with shared batches and without (batch-size 0), gives
 * the same golden faces.  __i__: the variant and the batch size. */
GST_START_TEST (test_golden_variants)
{
  static const char *variants[] = { "simple", "uber", "tiled", "cpu" };
  gchar *props = g_strdup_printf ("min-neighbors=0 variant=%s batch-size=%d",
      variants[__i__ / 2], __i__ % 2 ? 0 : 4);
  GstHarness *h = harness (props);
  Gray g = load_gray ("astronaut");
  GArray *found = push_frame (h, &g, "GRAY8", NULL);

  fail_unless (found->len > 10);
  assert_golden (found, "astronaut", "frontalface_default", 1.1, 0);
  g_array_free (found, TRUE);
  gst_harness_teardown (h);
  g_free (props);
  g_free (g.pixels);
}

GST_END_TEST;

/* A CLVISION_TUNE variant that does not exist fails the start of an
 * element left at variant=auto, with a message. */
GST_START_TEST (test_bad_tuned_variant)
{
  g_setenv ("CLVISION_TUNE", "VJ_VARIANT=fast", TRUE);
  check_start_fails ("min-neighbors", "3", "VJ_VARIANT=fast");
  g_unsetenv ("CLVISION_TUNE");
}

GST_END_TEST;

/* Pushes a small frame, a larger one whose face lies in its last rows
 * (so all of it must arrive) and the small one again: each gives the
 * reference's faces. */
static void
check_uploads (GstHarness * h, const char *what)
{
  Gray full = load_gray ("astronaut");
  Gray small = scaled (&full, 301, 300);
  Gray tall = { g_malloc (full.width * full.height * 2), full.width,
    full.height * 2
  };
  Gray *frames[] = { &small, &tall, &small };
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GError *error = NULL;
  char *path = vj_test_cascade_path ("frontalface_default");
  ClvCascade *c = clv_cascade_load (path, &error);

  g_assert_no_error (error);
  memset (tall.pixels, 128, full.width * full.height);
  memcpy (tall.pixels + full.width * full.height, full.pixels,
      full.width * full.height);
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++) {
    const Gray *g = frames[i];
    GArray *ref = clv_vj_detect_ref (c, g->pixels, g->width, g->height,
        g->width, &p);
    GArray *found = push_frame (h, g, "GRAY8", NULL);

    fail_unless (ref->len > 0);
    vj_test_assert_faces (ref, found, 0, what);
    g_array_free (found, TRUE);
    g_array_free (ref, TRUE);
  }
  clv_cascade_free (c);
  g_free (path);
  g_free (tall.pixels);
  g_free (small.pixels);
  g_free (full.pixels);
}

/* System-memory frames uploaded through the element's pinned buffer (grown
 * when a larger frame comes): always with upload=staged, and by default
 * while a second analyser uses the device, which the device counts. */
GST_START_TEST (test_pinned_upload)
{
  ClvDevice *dev = clv_device_open ("first", NULL);
  const gint before = clv_device_analysers (dev);
  GstHarness *h, *other;

  h = harness ("device=first upload=staged");
  fail_unless_equals_int (clv_device_analysers (dev), before + 1);
  check_uploads (h, "upload=staged");
  gst_harness_teardown (h);

  h = harness ("device=first");
  other = harness ("device=first");
  fail_unless_equals_int (clv_device_analysers (dev), before + 2);
  check_uploads (h, "two analysers");
  gst_harness_teardown (other);
  gst_harness_teardown (h);
  fail_unless_equals_int (clv_device_analysers (dev), before);
  clv_device_unref (dev);
}

GST_END_TEST;

/* Pushes three frames of `g` as `format`, written into the pool the
 * element after `h`'s source proposes, as upstream would: each is uploaded
 * once, straight from its pinned host copy, into the element's own device
 * buffer (the memory's device copy stays as stale as it was), and gives
 * `ref`'s faces. */
static void
check_pool_frames (GstHarness * h, const Gray * g, const char *format,
    GArray * ref, const char *what)
{
  GstCaps *caps;
  GstBuffer *frame = frame_buffer (g, format, &caps);
  char *caps_str = gst_caps_to_string (caps);
  GstBufferPool *pool;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  pool = clv_check_proposed_pool (h, caps_str);
  for (int i = 0; i < 3; i++) {
    GstBuffer *buf = clv_check_pool_copy (pool, frame), *out;
    ClvCounts c0, c1;
    GArray *found;

    fail_unless_equals_int (gst_buffer_get_size (buf),
        gst_buffer_get_size (frame));
    clv_check_counts (&c0);
    out = gst_harness_push_and_pull (h, buf);
    clv_check_counts (&c1);
    fail_unless (out == buf);
    fail_unless_equals_int (c1.uploads - c0.uploads, 1);
    fail_unless (GST_MEMORY_FLAG_IS_SET (gst_buffer_peek_memory (out, 0),
            GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD));
    found = buffer_faces (out);
    vj_test_assert_faces (ref, found, 0, what);
    g_array_free (found, TRUE);
    gst_buffer_unref (out);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (caps_str);
  gst_caps_unref (caps);
  gst_buffer_unref (frame);
}

/* Where downstream offers no pool, vjfacedetect (in passthrough) proposes
 * its device's, and frames written into it give the reference's faces:
 * GRAY8 and NV12, alone on the device and beside a second analyser. */
GST_START_TEST (test_proposed_pool_frames)
{
  Gray full = load_gray ("astronaut");
  Gray g = scaled (&full, 301, 300);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GError *error = NULL;
  char *path = vj_test_cascade_path ("frontalface_default");
  ClvCascade *c = clv_cascade_load (path, &error);
  const char *formats[] = { "GRAY8", "NV12" };
  GArray *ref;

  g_assert_no_error (error);
  ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
  fail_unless (ref->len > 0);
  for (int analysers = 1; analysers <= 2; analysers++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstHarness *h = harness ("device=first");
      GstHarness *other = analysers > 1 ? harness ("device=first") : NULL;
      char *what = g_strdup_printf ("pool, %s, %d analysers", formats[f],
          analysers);

      check_pool_frames (h, &g, formats[f], ref, what);
      g_free (what);
      if (other)
        gst_harness_teardown (other);
      gst_harness_teardown (h);
    }
  g_array_free (ref, TRUE);
  clv_cascade_free (c);
  g_free (path);
  g_free (g.pixels);
  g_free (full.pixels);
}

GST_END_TEST;

/* Completes `data` (a user event) after 300 ms. */
static gpointer
complete_later (gpointer data)
{
  g_usleep (300 * G_TIME_SPAN_MILLISECOND);
  fail_unless_equals_int (clSetUserEventStatus ((cl_event) data,
          CL_COMPLETE), CL_SUCCESS);
  return NULL;
}

/* Alone on its device, vjfacedetect does not wait for a pool frame's DMA
 * (on the device's transfer queue) before queuing its kernels: a barrier
 * on the device's queue makes them wait.  With the transfer queue held
 * back by a user event for 300 ms, the DMA ends long after the kernels
 * were queued, and a blank frame after a frame with faces still gives no
 * faces: the kernels read the blank frame, not the one before it. */
GST_START_TEST (test_pool_frame_waits_for_upload)
{
  Gray full = load_gray ("astronaut");
  Gray g = scaled (&full, 301, 300);
  Gray blank = { g_malloc (301 * 300), 301, 300 };
  GstHarness *h = harness ("device=first");
  GstClvDevice *device = clv_check_element_device (h->element);
  ClvDevice *dev;
  GstCaps *caps;
  GstBuffer *with_faces = frame_buffer (&g, "GRAY8", &caps);
  GstBuffer *empty;
  char *caps_str = gst_caps_to_string (caps);
  GstBufferPool *pool;
  GstBuffer *out;
  GArray *found;
  cl_event held;
  cl_int err;
  GThread *releaser;

  memset (blank.pixels, 128, 301 * 300);
  empty = frame_buffer (&blank, "GRAY8", NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  pool = clv_check_proposed_pool (h, caps_str);
  fail_unless (device != NULL);
  dev = gst_clv_device_get_runtime (device);
  fail_unless_equals_int (clv_device_analysers (dev), 1);

  out = gst_harness_push_and_pull (h, clv_check_pool_copy (pool, with_faces));
  found = buffer_faces (out);
  fail_unless (found->len > 0);
  g_array_free (found, TRUE);
  gst_buffer_unref (out);

  held = clCreateUserEvent (dev->context, &err);
  fail_unless_equals_int (err, CL_SUCCESS);
  fail_unless_equals_int (clEnqueueBarrierWithWaitList (dev->transfer_queue,
          1, &held, NULL), CL_SUCCESS);
  releaser = g_thread_new ("complete-later", complete_later, held);
  out = gst_harness_push_and_pull (h, clv_check_pool_copy (pool, empty));
  g_thread_join (releaser);
  found = buffer_faces (out);
  fail_unless_equals_int (found->len, 0);
  g_array_free (found, TRUE);
  gst_buffer_unref (out);

  clReleaseEvent (held);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (caps_str);
  gst_caps_unref (caps);
  gst_buffer_unref (with_faces);
  gst_buffer_unref (empty);
  gst_object_unref (device);
  gst_harness_teardown (h);
  g_free (blank.pixels);
  g_free (g.pixels);
  g_free (full.pixels);
}

GST_END_TEST;

/* Adds a plain video pool to the allocation queries that reach the
 * harness's sink, as a display sink would. */
static GstPadProbeReturn
offer_video_pool (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    GstBufferPool *pool = gst_video_buffer_pool_new ();
    gst_query_add_allocation_pool (query, pool, 1000, 0, 0);
    gst_object_unref (pool);
  }
  return GST_PAD_PROBE_OK;
}

/* A pool downstream offers is what upstream gets: vjfacedetect adds no
 * pool and no meta of its own. */
GST_START_TEST (test_downstream_pool_kept)
{
  GstHarness *h = harness (NULL);
  GstCaps *caps = gst_caps_from_string ("video/x-raw, format=GRAY8, "
      "width=320, height=240, framerate=25/1");
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PUSH, offer_video_pool, NULL, NULL);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (GST_IS_VIDEO_BUFFER_POOL (pool));
  fail_if (GST_IS_CLV_BUFFER_POOL (pool));
  fail_if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* GRAY8, planar and semi-planar YUV and packed RGB with the same luma give
 * the same faces; an odd width gives padded strides. */
GST_START_TEST (test_formats_agree)
{
  const char *formats[] = { "GRAY8", "I420", "YV12", "NV12", "NV21", "Y42B",
    "Y444", "RGB", "BGR", "BGRx", "xRGB", "RGBA", "ABGR"
  };
  Gray full = load_gray ("astronaut");
  Gray g = scaled (&full, 301, 300);
  GstHarness *h = harness ("min-neighbors=2");
  GArray *gray = push_frame (h, &g, "GRAY8", NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GError *error = NULL;
  char *path = vj_test_cascade_path ("frontalface_default");
  ClvCascade *c = clv_cascade_load (path, &error);
  GArray *ref;

  g_assert_no_error (error);
  p.min_neighbors = 2;
  ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
  fail_unless (gray->len > 0);
  vj_test_assert_faces (ref, gray, 0, "GRAY8");
  for (guint i = 1; i < G_N_ELEMENTS (formats); i++) {
    GArray *other = push_frame (h, &g, formats[i], NULL);
    vj_test_assert_faces (ref, other, 0, formats[i]);
    g_array_free (other, TRUE);
  }
  gst_harness_teardown (h);
  g_array_free (ref, TRUE);
  g_array_free (gray, TRUE);
  clv_cascade_free (c);
  g_free (path);
  g_free (g.pixels);
  g_free (full.pixels);
}

GST_END_TEST;

/* Frames already on the device (memory:OpenCL from clupload) give the same
 * faces, and the metas survive cldownload. */
GST_START_TEST (test_opencl_memory)
{
  Gray g = load_gray ("astronaut");
  GstHarness *h = gst_harness_new_parse ("clupload ! vjfacedetect "
      "min-neighbors=0 ! cldownload");
  GstHarness *sys = harness ("min-neighbors=0");
  GArray *on_device = push_frame (h, &g, "GRAY8", NULL);
  GArray *in_memory = push_frame (sys, &g, "GRAY8", NULL);

  fail_unless (in_memory->len > 10);
  vj_test_assert_faces (in_memory, on_device, 0, "memory:OpenCL");
  g_array_free (on_device, TRUE);
  g_array_free (in_memory, TRUE);
  gst_harness_teardown (h);
  gst_harness_teardown (sys);
  g_free (g.pixels);
}

GST_END_TEST;

/* One meta per face: type "face", ids unique and after the ones already on
 * the buffer, the `detection` structure with the DL Streamer fields. */
GST_START_TEST (test_metas)
{
  Gray g = load_gray ("astronaut");
  GstHarness *h = harness ("min-neighbors=0");
  GstCaps *caps;
  GstBuffer *in = frame_buffer (&g, "GRAY8", &caps), *out;
  GstVideoRegionOfInterestMeta *upstream;
  gpointer state = NULL;
  GstMeta *meta;
  guint faces = 0;
  GHashTable *ids = g_hash_table_new (NULL, NULL);

  upstream = gst_buffer_add_video_region_of_interest_meta (in, "person", 0, 0,
      10, 10);
  upstream->id = 7;
  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, in);
  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s;
    const char *label;
    int label_id, n;
    double conf, x0, y0, x1, y1;

    if (roi->id == 7)
      continue;
    faces++;
    fail_unless_equals_string (g_quark_to_string (roi->roi_type), "face");
    fail_unless (roi->id > 7);
    fail_if (g_hash_table_contains (ids, GINT_TO_POINTER (roi->id)));
    g_hash_table_add (ids, GINT_TO_POINTER (roi->id));
    s = gst_video_region_of_interest_meta_get_param (roi, "detection");
    fail_unless (s != NULL);
    label = gst_structure_get_string (s, "label");
    fail_unless_equals_string (label, "face");
    fail_unless (gst_structure_get_int (s, "label_id", &label_id));
    fail_unless_equals_int (label_id, 0);
    fail_unless (gst_structure_get_int (s, "neighbors", &n));
    /* Without grouping every raw window is a face of its own. */
    fail_unless_equals_int (n, 1);
    fail_unless (gst_structure_get_double (s, "confidence", &conf));
    fail_unless (conf > 0 && conf < 1);
    fail_unless (gst_structure_get_double (s, "x_min", &x0)
        && gst_structure_get_double (s, "y_min", &y0)
        && gst_structure_get_double (s, "x_max", &x1)
        && gst_structure_get_double (s, "y_max", &y1));
    fail_unless_equals_float (x0, roi->x / (double) g.width);
    fail_unless_equals_float (y0, roi->y / (double) g.height);
    fail_unless_equals_float (x1, (roi->x + roi->w) / (double) g.width);
    fail_unless_equals_float (y1, (roi->y + roi->h) / (double) g.height);
  }
  fail_unless (faces > 10);
  gst_buffer_unref (out);
  g_hash_table_unref (ids);
  gst_harness_teardown (h);
  g_free (g.pixels);
}

GST_END_TEST;

/* The confidence grows with the neighbours: n / (n + 5). */
GST_START_TEST (test_confidence)
{
  Gray g = load_gray ("astronaut");
  GstHarness *h = harness ("min-neighbors=1");
  GstBuffer *out;
  GArray *found = push_frame (h, &g, "GRAY8", &out);
  gpointer state = NULL;
  GstMeta *meta;
  int distinct = 0, last = -1;

  fail_unless (found->len > 1);
  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstStructure *s = gst_video_region_of_interest_meta_get_param (
        (GstVideoRegionOfInterestMeta *) meta, "detection");
    int n;
    double conf;
    fail_unless (gst_structure_get_int (s, "neighbors", &n));
    fail_unless (gst_structure_get_double (s, "confidence", &conf));
    fail_unless (n >= 2);
    fail_unless_equals_float (conf, n / (n + 5.0));
    distinct += n != last;
    last = n;
  }
  fail_unless (distinct > 1);
  gst_buffer_unref (out);
  g_array_free (found, TRUE);
  gst_harness_teardown (h);
  g_free (g.pixels);
}

GST_END_TEST;

static GstBus *
watch_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

/* facedetect's message shape, with our name and the neighbours. */
GST_START_TEST (test_bus_message)
{
  Gray g = load_gray ("astronaut");
  GstHarness *h = harness ("min-neighbors=3");
  GstBus *bus = watch_bus (h);
  GstBuffer *out;
  GArray *found = push_frame (h, &g, "GRAY8", &out);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  const GstStructure *s;
  const GValue *list;
  guint64 ts, st, rt, dur;

  fail_unless (msg != NULL);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (h->element));
  s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "vjfacedetect"));
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
  fail_unless_equals_uint64 (ts, GST_BUFFER_PTS (out));
  fail_unless_equals_uint64 (st, ts);
  fail_unless_equals_uint64 (rt, ts);
  fail_unless_equals_uint64 (dur, GST_BUFFER_DURATION (out));
  list = gst_structure_get_value (s, "faces");
  fail_unless (list != NULL && GST_VALUE_HOLDS_LIST (list));
  fail_unless (found->len > 0);
  fail_unless_equals_int (gst_value_list_get_size (list), found->len);
  for (guint i = 0; i < found->len; i++) {
    const GstStructure *f =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    const ClvVjFace *m = &g_array_index (found, ClvVjFace, i);
    guint x, y, w, hh, n;
    fail_unless (gst_structure_has_name (f, "face"));
    fail_unless (gst_structure_get_uint (f, "x", &x)
        && gst_structure_get_uint (f, "y", &y)
        && gst_structure_get_uint (f, "width", &w)
        && gst_structure_get_uint (f, "height", &hh)
        && gst_structure_get_uint (f, "neighbors", &n));
    fail_unless_equals_int (x, m->rect.x);
    fail_unless_equals_int (y, m->rect.y);
    fail_unless_equals_int (w, m->rect.width);
    fail_unless_equals_int (hh, m->rect.height);
    fail_unless_equals_int (n, m->neighbors);
  }
  gst_message_unref (msg);
  gst_buffer_unref (out);

  /* post-messages=false: none. */
  g_object_set (h->element, "post-messages", FALSE, NULL);
  g_array_free (found, TRUE);
  found = push_frame (h, &g, "GRAY8", NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);

  g_array_free (found, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (g.pixels);
}

GST_END_TEST;

/* interval=3: frames 0 and 3 are analysed, 1 and 2 carry frame 0's faces
 * even when they show none. */
GST_START_TEST (test_interval)
{
  Gray face = load_gray ("grace_hopper");
  Gray blank = blank_like (&face);
  GstHarness *h = harness ("interval=3");
  const Gray *seq[] = { &face, &blank, &blank, &blank, &face, &blank };
  const guint expect[] = { 1, 1, 1, 0, 0, 0 };

  for (guint i = 0; i < G_N_ELEMENTS (seq); i++) {
    GArray *found = push_frame (h, seq[i], "GRAY8", NULL);
    fail_unless (found->len == expect[i], "frame %u: %u faces, expected %u",
        i, found->len, expect[i]);
    g_array_free (found, TRUE);
  }
  /* Frame 6 is analysed; new caps start the count again, so the frames
   * after it are analysed too instead of reusing faces of another size. */
  {
    Gray small = scaled (&blank, 200, 200);
    GArray *found = push_frame (h, &face, "GRAY8", NULL);
    fail_unless_equals_int (found->len, 1);
    g_array_free (found, TRUE);
    found = push_frame (h, &small, "GRAY8", NULL);
    fail_unless_equals_int (found->len, 0);
    g_array_free (found, TRUE);
    found = push_frame (h, &face, "GRAY8", NULL);
    fail_unless_equals_int (found->len, 1);
    g_array_free (found, TRUE);
    g_free (small.pixels);
  }
  /* interval=1: every frame on its own. */
  g_object_set (h->element, "interval", 1, NULL);
  for (guint i = 0; i < 2; i++) {
    GArray *found = push_frame (h, seq[i], "GRAY8", NULL);
    fail_unless_equals_int (found->len, i == 0 ? 1 : 0);
    g_array_free (found, TRUE);
  }
  gst_harness_teardown (h);
  g_free (blank.pixels);
  g_free (face.pixels);
}

GST_END_TEST;

/* min-size and max-size have OpenCV's meaning (the C reference's answer). */
GST_START_TEST (test_min_max_size)
{
  Gray g = load_gray ("astronaut");
  GstHarness *h = harness ("min-neighbors=0");
  GError *error = NULL;
  char *path = vj_test_cascade_path ("frontalface_default");
  ClvCascade *c = clv_cascade_load (path, &error);
  const int sizes[][4] = { {60, 60, 0, 0}, {0, 0, 50, 50}, {40, 30, 90, 100} };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    char *min = g_strdup_printf ("%dx%d", sizes[i][0], sizes[i][1]);
    char *max = g_strdup_printf ("%dx%d", sizes[i][2], sizes[i][3]);
    GArray *found, *ref;

    p.min_neighbors = 0;
    p.min_width = sizes[i][0];
    p.min_height = sizes[i][1];
    p.max_width = sizes[i][2];
    p.max_height = sizes[i][3];
    ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
    g_object_set (h->element, "min-size", min, "max-size", max, NULL);
    found = push_frame (h, &g, "GRAY8", NULL);
    fail_unless (ref->len > 0);
    vj_test_assert_faces (ref, found, 0, min);
    for (guint k = 0; k < found->len; k++) {
      const ClvRect *r = &g_array_index (found, ClvVjFace, k).rect;
      fail_unless (r->width >= sizes[i][0] && r->height >= sizes[i][1]);
      fail_unless (sizes[i][2] == 0 || r->width <= sizes[i][2]);
    }
    g_array_free (found, TRUE);
    g_array_free (ref, TRUE);
    g_free (min);
    g_free (max);
  }
  gst_harness_teardown (h);
  clv_cascade_free (c);
  g_free (path);
  g_free (g.pixels);
}

GST_END_TEST;

/* Pushes `in` with `caps` (taking both) to a new element, twice (as
 * upstream offers the caps again with the next frame): the first push's
 * result and the error messages the bus got (the element's own: the
 * harness has no source to echo them). */
static GstFlowReturn
push_refused (GstCaps * caps, GstBuffer * in, GList ** errors)
{
  GstHarness *h = harness (NULL);
  GstBus *bus = gst_bus_new ();
  GstBuffer *again = gst_buffer_copy (in);
  GstMessage *msg;
  GstFlowReturn ret;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps);
  ret = gst_harness_push (h, in);
  gst_harness_push (h, again);
  *errors = NULL;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) != NULL)
    *errors = g_list_append (*errors, msg);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  return ret;
}

/* Frames smaller than the cascade's 24x24 window are refused at
 * negotiation, with one error that says so; a frame of the window's size
 * passes (no face in a blank one). */
GST_START_TEST (test_tiny_frames)
{
  const int sizes[][2] = { {1, 1}, {23, 40}, {40, 23}, {24, 24} };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    Gray g = { g_malloc ((gsize) sizes[i][0] * sizes[i][1]), sizes[i][0],
      sizes[i][1]
    };
    GList *errors;
    GstFlowReturn ret;
    GstCaps *caps;
    GstBuffer *in;

    memset (g.pixels, 100, (gsize) g.width * g.height);
    in = frame_buffer (&g, i % 2 ? "I420" : "GRAY8", &caps);
    ret = push_refused (caps, in, &errors);
    if (i == 3) {
      fail_unless_equals_int (ret, GST_FLOW_OK);
      fail_unless (errors == NULL);
    } else {
      GError *err = NULL;
      gchar *expected = g_strdup_printf ("A %dx%d frame is smaller than the "
          "cascade's 24x24 detection window", g.width, g.height);

      fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
      fail_unless_equals_int (g_list_length (errors), 1);
      gst_message_parse_error (errors->data, &err, NULL);
      fail_unless (strstr (err->message, expected) != NULL, "%s",
          err->message);
      g_error_free (err);
      g_free (expected);
    }
    g_list_free_full (errors, (GDestroyNotify) gst_message_unref);
    g_free (g.pixels);
  }
}

GST_END_TEST;

/* Frames the detector cannot take fail at negotiation, once, saying what
 * is too large and what to change: more than 65535 pixels a side (beyond
 * the templates: said when upstream asks for it), or an image pyramid
 * beyond what the kernels index. */
GST_START_TEST (test_huge_frames_refused)
{
  const struct
  {
    const char *caps, *says;
  } cases[] = {
    {"video/x-raw,format=GRAY8,width=70000,height=30",
        "A 70000x30 frame is larger than vjfacedetect takes (65535 pixels a "
          "side at most): scale it down (videoscale) or crop it"},
    {"video/x-raw,format=GRAY8,width=16000,height=16000",
        "A 16000x16000 frame is too large for the detector"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GError *err = NULL;

    fail_unless_equals_int (clv_check_late_caps_errors ("vjfacedetect",
            cases[i].caps, &err), 1);
    fail_unless (strstr (err->message, cases[i].says) != NULL, "%s",
        err->message);
    fail_unless (strstr (err->message, "scale it down") != NULL);
    g_error_free (err);
  }
}

GST_END_TEST;

/* A buffer shorter than its caps say is refused with an error, not read
 * past its end.  With frames in flight the push that carried it may
 * return before its analysis; the next one returns the error, and the
 * short frame is not passed on.  __i__: in-flight. */
GST_START_TEST (test_short_buffer_refused)
{
  gchar *props = g_strdup_printf ("in-flight=%d", __i__);
  GstHarness *h = harness (props);
  GstBus *bus = watch_bus (h);
  GstMessage *msg;
  GError *error = NULL;
  GstFlowReturn ret;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=300,height=200,framerate=25/1");
  ret = gst_harness_push (h, gst_buffer_new_and_alloc (1000));
  if (__i__ == 1)
    fail_unless_equals_int (ret, GST_FLOW_ERROR);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT));
  fail_unless (strstr (error->message, "1000-byte buffer is too small for "
          "a 300x200 GRAY8 frame") != NULL, "message: %s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_and_alloc (1000)), GST_FLOW_ERROR);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (props);
}

GST_END_TEST;

/* A copy of the default cascade with `from` replaced by `to` once. */
static char *
broken_cascade (const char *from, const char *to)
{
  char *text, *path, *hit, *out;
  char *good = vj_test_cascade_path ("frontalface_default");
  GError *error = NULL;
  int fd = g_file_open_tmp ("vjfacedetect-XXXXXX.xml", &path, &error);

  g_assert_no_error (error);
  close (fd);
  fail_unless (g_file_get_contents (good, &text, NULL, NULL));
  g_free (good);
  hit = strstr (text, from);
  fail_unless (hit != NULL);
  *hit = '\0';
  out = g_strconcat (text, to, hit + strlen (from), NULL);
  fail_unless (g_file_set_contents (path, out, -1, NULL));
  g_free (out);
  g_free (text);
  return path;
}

GST_START_TEST (test_bad_cascades_fail_start)
{
  const struct
  {
    const char *from, *to, *expect;
  } cases[] = {
    /* not XML any more: GMarkup's line and column */
    {"<stageType>", "<stageType<", "line"},
    {"<opencv_storage>", "<opencv_storag>", "opencv_storage"},
    {"<stageThreshold>-5.0425500869750977e+00", "<stageThreshold>abc",
        "abc"},
    {"0 -1 0 -3.1511999666690826e-02", "0 -1 99999 -3.1511999666690826e-02",
        "99999"},
  };
  char *dir;

  check_start_fails ("cascade", "/nonexistent/cascade.xml",
      "Cannot read cascade /nonexistent/cascade.xml");
  dir = g_dir_make_tmp ("vjfacedetect-XXXXXX", NULL);
  check_start_fails ("cascade", dir, dir);
  g_rmdir (dir);
  g_free (dir);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *path = broken_cascade (cases[i].from, cases[i].to);
    check_start_fails ("cascade", path, path);
    check_start_fails ("cascade", path, cases[i].expect);
    g_unlink (path);
    g_free (path);
  }
}

GST_END_TEST;

GST_START_TEST (test_bad_sizes_fail_start)
{
  check_start_fails ("min-size", "40", "Invalid min-size \"40\"");
  check_start_fails ("max-size", "40x-3", "Invalid max-size \"40x-3\"");
  check_start_fails ("min-size", "ax40", "WIDTHxHEIGHT");
  /* No face can be both. */
  {
    GstElement *pipeline = gst_parse_launch ("fakesrc ! vjfacedetect "
        "min-size=50x50 max-size=30x30 ! fakesink", NULL);
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    GError *err = NULL;

    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, "min-size 50x50 is larger than "
            "max-size 30x30") != NULL, "%s", err->message);
    g_error_free (err);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipeline);
  }
}

GST_END_TEST;

/* One stream of the batching tests: a harness fed one picture as one
 * format from its own thread, each output checked against the reference
 * faces of that picture. */
typedef enum
{ RUN, SEND_EOS } StreamEnd;

typedef struct
{
  GstHarness *h;
  Gray g;
  GstCaps *caps;
  const char *format;
  GArray *ref;
  guint target;                 /* frames to push */
  StreamEnd end;
  gint done;                    /* frames checked (atomic) */
  GstFlowReturn last;           /* the last push's result */
  GThread *thread;
  GstBus *bus;                  /* the element's errors only */
  gint failed;                  /* an error was posted (atomic) */
} ElementStream;

/* Keeps the errors on the stream's bus and notes that one came. */
static GstBusSyncReply
stream_bus_sync (GstBus * bus, GstMessage * msg, gpointer data)
{
  ElementStream *s = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR) {
    gst_message_unref (msg);
    return GST_BUS_DROP;
  }
  g_atomic_int_set (&s->failed, 1);
  return GST_BUS_PASS;
}

/* The output of the frame pushed last, or NULL once the element has
 * stopped (its sink pad flushing) or failed without giving it: with
 * frames in flight, a push returns before its frame is analysed. */
static GstBuffer *
pull_output (ElementStream * s)
{
  GstPad *sink = gst_element_get_static_pad (s->h->element, "sink");
  GstBuffer *out;

  while ((out = gst_harness_try_pull (s->h)) == NULL
      && !g_atomic_int_get (&s->failed) && !GST_PAD_IS_FLUSHING (sink))
    g_usleep (200);
  gst_object_unref (sink);
  return out;
}

/* Streams whose thread has begun (see batch_check_release). */
static gint streams_started;

static gpointer
element_stream_thread (gpointer data)
{
  ElementStream *s = data;

  g_atomic_int_inc (&streams_started);
  s->last = GST_FLOW_OK;
  for (guint i = 0; i < s->target; i++) {
    GstBuffer *out;
    GArray *found;

    s->last = gst_harness_push (s->h, vj_check_frame_buffer (&s->g,
            s->format, NULL));
    if (s->last != GST_FLOW_OK)
      break;
    /* Stopped or failed: the next push says how. */
    if ((out = pull_output (s)) == NULL)
      continue;
    found = buffer_faces (out);
    vj_test_assert_faces (s->ref, found, 0, s->format);
    g_array_free (found, TRUE);
    gst_buffer_unref (out);
    g_atomic_int_inc (&s->done);
  }
  if (s->end == SEND_EOS)
    fail_unless (gst_harness_push_event (s->h, gst_event_new_eos ()));
  return NULL;
}

/* A stream of `image` scaled to width x height (0: as is) as `format`,
 * through a vjfacedetect with `in_flight` frames in flight. */
static void
element_stream_init (ElementStream * s, const ClvCascade * c,
    const char *image, int width, int height, const char *format,
    guint target, StreamEnd end, guint in_flight)
{
  gchar *props;

  Gray full = load_gray (image);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GstBuffer *first;

  memset (s, 0, sizeof (*s));
  s->g = width ? scaled (&full, width, height) : full;
  if (width)
    g_free (full.pixels);
  s->format = format;
  s->target = target;
  s->end = end;
  s->ref = clv_vj_detect_ref (c, s->g.pixels, s->g.width, s->g.height,
      s->g.width, &p);
  /* One device's service: device=auto would spread the streams over the
   * GPUs of a machine with several. */
  props = g_strdup_printf ("device=first in-flight=%u", in_flight);
  s->h = harness (props);
  g_free (props);
  s->bus = watch_bus (s->h);
  gst_bus_set_sync_handler (s->bus, stream_bus_sync, s, NULL);
  first = vj_check_frame_buffer (&s->g, format, &s->caps);
  gst_buffer_unref (first);
  gst_harness_set_src_caps (s->h, s->caps);
}

static void
element_stream_clear (ElementStream * s)
{
  gst_element_set_bus (s->h->element, NULL);
  gst_object_unref (s->bus);
  gst_harness_teardown (s->h);
  g_array_free (s->ref, TRUE);
  g_free (s->g.pixels);
}

static ClvCascade *
default_cascade (void)
{
  GError *error = NULL;
  char *path = vj_test_cascade_path ("frontalface_default");
  ClvCascade *c = clv_cascade_load (path, &error);

  g_assert_no_error (error);
  g_free (path);
  return c;
}

static void
start_streams (ElementStream * s, guint n)
{
  for (guint i = 0; i < n; i++)
    s[i].thread = g_thread_new ("stream", element_stream_thread, &s[i]);
}

/* Whether an EOS is among the events that came out of `h`. */
static gboolean
pulled_eos (GstHarness * h)
{
  gboolean eos = FALSE;
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (h))) {
    eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  return eos;
}

/* Six streams of different sizes and formats at once: frames from several
 * streams share batches, and every output carries its own frame's faces.
 * The device is held while the streams start, so that their frames meet
 * in the service however fast a batch is.  __i__: in-flight. */
GST_START_TEST (test_streams_share_batches)
{
  ClvCascade *c = default_cascade ();
  ElementStream s[6];
  GError *error = NULL;
  ClvDevice *dev = clv_device_open ("first", &error);
  cl_event hold;
  gint largest;

  batch_check_watch ("vjfacedetect");
  element_stream_init (&s[0], c, "grace_hopper", 0, 0, "GRAY8", 6, RUN, __i__);
  element_stream_init (&s[1], c, "astronaut", 320, 240, "I420", 6, RUN, __i__);
  element_stream_init (&s[2], c, "astronaut", 257, 256, "BGRx", 6, RUN, __i__);
  element_stream_init (&s[3], c, "grace_hopper", 300, 300, "NV12", 6, RUN,
      __i__);
  element_stream_init (&s[4], c, "franck-1000", 320, 240, "RGB", 6, RUN, __i__);
  element_stream_init (&s[5], c, "grace_hopper", 200, 201, "GRAY8", 6, RUN,
      __i__);
  g_assert_no_error (error);
  streams_started = 0;
  hold = batch_check_hold (dev);
  start_streams (s, G_N_ELEMENTS (s));
  batch_check_release (hold, &streams_started, G_N_ELEMENTS (s));
  for (guint i = 0; i < G_N_ELEMENTS (s); i++) {
    g_thread_join (s[i].thread);
    fail_unless_equals_int (s[i].last, GST_FLOW_OK);
    fail_unless_equals_int (g_atomic_int_get (&s[i].done), 6);
    element_stream_clear (&s[i]);
  }
  largest = batch_check_unwatch ();
  fail_unless (largest >= 2, "frames never shared a batch (largest %d)",
      largest);
  clv_device_unref (dev);
  clv_cascade_free (c);
}

GST_END_TEST;

/* While their frames are in batches, one stream goes to NULL, one ends
 * with EOS and one fails (bad min-size): the others go on to the end with
 * their own faces, and nothing waits forever.  __i__: in-flight. */
GST_START_TEST (test_stream_stops_during_batch)
{
  ClvCascade *c = default_cascade ();
  ElementStream s[5];
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gint64 deadline = g_get_monotonic_time () + 300 * G_TIME_SPAN_SECOND;

  element_stream_init (&s[0], c, "astronaut", 320, 240, "GRAY8", 100000, RUN,
      __i__);
  element_stream_init (&s[1], c, "grace_hopper", 240, 280, "I420", 3,
      SEND_EOS, __i__);
  element_stream_init (&s[2], c, "astronaut", 300, 300, "BGRx", 100000, RUN,
      __i__);
  element_stream_init (&s[3], c, "grace_hopper", 0, 0, "GRAY8", 12, RUN, __i__);
  element_stream_init (&s[4], c, "franck-1000", 320, 240, "NV12", 12, RUN,
      __i__);
  bus = s[2].bus;
  start_streams (s, G_N_ELEMENTS (s));
  /* Act while every stream is in full flow. */
  while (g_atomic_int_get (&s[0].done) < 2 || g_atomic_int_get (&s[2].done) < 2
      || g_atomic_int_get (&s[3].done) < 1) {
    fail_unless (g_get_monotonic_time () < deadline);
    g_usleep (1000);
  }
  fail_unless (gst_element_set_state (s[0].h->element, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (s[2].h->element, "min-size", "bogus", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (s); i++)
    g_thread_join (s[i].thread);
  fail_unless_equals_int (s[0].last, GST_FLOW_FLUSHING);
  fail_unless_equals_int (s[1].last, GST_FLOW_OK);
  fail_unless_equals_int (g_atomic_int_get (&s[1].done), 3);
  fail_unless (pulled_eos (s[1].h), "the EOS did not come out");
  fail_unless_equals_int (s[2].last, GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "min-size") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  for (guint i = 3; i < G_N_ELEMENTS (s); i++) {
    fail_unless_equals_int (s[i].last, GST_FLOW_OK);
    fail_unless_equals_int (g_atomic_int_get (&s[i].done), 12);
  }
  for (guint i = 0; i < G_N_ELEMENTS (s); i++)
    element_stream_clear (&s[i]);
  clv_cascade_free (c);
}

GST_END_TEST;

/* Pushes the frames `seq` (PTS 0, 1, ... ms) without pulling, then pulls
 * as many: they must come out in order, each with `expect[i]` faces. */
static void
check_frames_in_order (GstHarness * h, const Gray ** seq, const guint * expect,
    guint n)
{
  set_frame_caps (h, seq[0], "GRAY8");
  for (guint i = 0; i < n; i++) {
    GstBuffer *in = frame_buffer (seq[i], "GRAY8", NULL);

    GST_BUFFER_PTS (in) = i * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (guint i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GArray *found;

    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_MSECOND);
    found = buffer_faces (out);
    fail_unless (found->len == expect[i], "frame %u: %u faces, expected %u",
        i, found->len, expect[i]);
    g_array_free (found, TRUE);
    gst_buffer_unref (out);
  }
}

/* interval=3 with frames in flight: the frames between get the faces of
 * the analysed frame before them, even while later frames are analysed. */
GST_START_TEST (test_in_flight_interval)
{
  Gray face = load_gray ("grace_hopper");
  Gray blank = blank_like (&face);
  GstHarness *h = harness ("in-flight=3 interval=3");
  const Gray *seq[] = { &face, &blank, &blank, &blank, &face, &blank,
    &face, &face, &face
  };
  const guint expect[] = { 1, 1, 1, 0, 0, 0, 1, 1, 1 };

  check_frames_in_order (h, seq, expect, G_N_ELEMENTS (seq));
  gst_harness_teardown (h);
  g_free (blank.pixels);
  g_free (face.pixels);
}

GST_END_TEST;

static Suite *
vjfacedetect_suite (void)
{
  Suite *s = suite_create ("vjfacedetect");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_golden_default);
  tcase_add_test (tc, test_golden_alt);
  tcase_add_test (tc, test_golden_alt2);
  tcase_add_test (tc, test_golden_alt_tree);
  tcase_add_loop_test (tc, test_golden_variants, 0, 8);
  tcase_add_test (tc, test_bad_tuned_variant);
  tcase_add_test (tc, test_golden_lbp);
  tcase_add_test (tc, test_scores);
  tcase_add_test (tc, test_labels);
  tcase_add_test (tc, test_cascadedetect);
  tcase_add_test (tc, test_eyes_in_faces);
  tcase_add_test (tc, test_parents_clipped);
  tcase_add_test (tc, test_formats_agree);
  tcase_add_test (tc, test_pinned_upload);
  tcase_add_test (tc, test_proposed_pool_frames);
  tcase_add_test (tc, test_pool_frame_waits_for_upload);
  tcase_add_test (tc, test_downstream_pool_kept);
  tcase_add_test (tc, test_opencl_memory);
  tcase_add_test (tc, test_metas);
  tcase_add_test (tc, test_confidence);
  tcase_add_test (tc, test_bus_message);
  tcase_add_test (tc, test_interval);
  tcase_add_loop_test (tc, test_short_buffer_refused, 1, 3);
  tcase_add_test (tc, test_min_max_size);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_huge_frames_refused);
  tcase_add_test (tc, test_bad_cascades_fail_start);
  tcase_add_test (tc, test_bad_sizes_fail_start);
  tcase_add_loop_test (tc, test_streams_share_batches, 1, 3);
  tcase_add_loop_test (tc, test_stream_stops_during_batch, 1, 3);
  tcase_add_test (tc, test_in_flight_interval);
  return s;
}

GST_CHECK_MAIN (vjfacedetect);
