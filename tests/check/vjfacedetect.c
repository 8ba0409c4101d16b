/* vjfacedetect: OpenCV's faces (the golden files) on real pictures, the same
 * faces from every caps format, the metas and bus messages, interval,
 * min/max size, tiny frames, and cascade or settings errors that fail the
 * state change with a message. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <gst/video/video.h>
#include <string.h>
#include <unistd.h>

#include "clv-pgm.h"
#include "clv-vj-ref.h"

#define CASCADE_DIR "/usr/share/opencv4/haarcascades/"

typedef struct
{
  guint8 *pixels;
  int width, height;
} Gray;

typedef struct
{
  ClvRect rect;
  int neighbors;
  double confidence;
  int id;
} Found;

static Gray
load_gray (const char *name)
{
  GError *error = NULL;
  char *file = g_strconcat (name, ".pgm", NULL);
  char *path = g_build_filename (g_getenv ("CLV_DATA_CACHE"), file, NULL);
  Gray g;

  g.pixels = clv_pgm_read (path, &g.width, &g.height, &error);
  if (g.pixels == NULL)
    g_error ("%s (run tests/fetch-data.sh build/tests/oracle/clv-gray-pgm)",
        error->message);
  g_free (path);
  g_free (file);
  return g;
}

static Gray
scaled (const Gray * src, int width, int height)
{
  Gray g = { g_malloc ((gsize) width * height), width, height };

  clv_vj_resize (src->pixels, src->width, src->height, src->width, g.pixels,
      width, height, width);
  return g;
}

/* A frame of `format` whose luma is exactly `g`: gray chroma for YUV, equal
 * channels for RGB (OpenCV's weights add up to one). */
static GstBuffer *
frame_buffer (const Gray * g, const char *format, GstCaps ** caps)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      g->width, g->height);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 128, GST_VIDEO_INFO_SIZE (&info));
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (int y = 0; y < g->height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, 0);
    const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
    for (int x = 0; x < g->width; x++) {
      const guint8 v = g->pixels[y * g->width + x];
      if (GST_VIDEO_INFO_IS_RGB (&info)) {
        guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x * ps;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_R)] = v;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_G)] = v;
        px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_B)] = v;
      } else {
        row[x * ps] = v;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  if (caps)
    *caps = gst_video_info_to_caps (&info);
  GST_BUFFER_PTS (buf) = 40 * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
  return buf;
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

/* Pushes `g` as `format` and returns the faces in the output's metas. */
static GArray *
push_frame (GstHarness * h, const Gray * g, const char *format,
    GstBuffer ** out_buf)
{
  GstCaps *caps;
  GstBuffer *in = frame_buffer (g, format, &caps), *out;
  GArray *found = g_array_new (FALSE, FALSE, sizeof (Found));
  gpointer state = NULL;
  GstMeta *meta;

  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s = gst_video_region_of_interest_meta_get_param (roi,
        "detection");
    Found f = { {roi->x, roi->y, roi->w, roi->h}, 0, 0, roi->id };

    if (roi->roi_type != g_quark_from_string ("face"))
      continue;
    fail_unless (s != NULL);
    fail_unless (gst_structure_get_int (s, "neighbors", &f.neighbors));
    fail_unless (gst_structure_get_double (s, "confidence", &f.confidence));
    g_array_append_val (found, f);
  }
  if (out_buf)
    *out_buf = out;
  else
    gst_buffer_unref (out);
  return found;
}

/* OpenCV's faces from tests/data/golden. */
static GArray *
load_golden (const char *image, const char *cascade, double scale,
    int neighbors)
{
  char *name = g_strdup_printf ("%s.%s.s%.1f.n%d.txt", image, cascade, scale,
      neighbors);
  char *path = g_build_filename (g_getenv ("CLV_TEST_DATA"), "golden", name,
      NULL);
  GArray *faces = g_array_new (FALSE, FALSE, sizeof (Found));
  char *text, **lines;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "no %s", path);
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++) {
    Found f = { {0} };
    if (**l == '#' || **l == '\0')
      continue;
    fail_unless (sscanf (*l, "%d %d %d %d %d", &f.rect.x, &f.rect.y,
            &f.rect.width, &f.rect.height, &f.neighbors) == 5);
    g_array_append_val (faces, f);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  g_free (name);
  return faces;
}

static gboolean
within_1px (const ClvRect * a, const ClvRect * b)
{
  return ABS (a->x - b->x) <= 1 && ABS (a->y - b->y) <= 1
      && ABS (a->width - b->width) <= 1 && ABS (a->height - b->height) <= 1;
}

#define fail_unless_equals_int_explained(a, b, what) \
  fail_unless ((a) == (b), "%s: %d faces, expected %d", what, (int) (a), \
      (int) (b))

/* Same count; each expected face matched by its own found face within 1 px
 * with the same neighbour count. */
static void
assert_faces_match (GArray * found, GArray * expected, const char *what)
{
  gboolean *used = g_new0 (gboolean, found->len + 1);

  fail_unless_equals_int_explained (found->len, expected->len, what);
  for (guint i = 0; i < expected->len; i++) {
    const Found *e = &g_array_index (expected, Found, i);
    guint j;
    for (j = 0; j < found->len; j++) {
      const Found *f = &g_array_index (found, Found, j);
      if (!used[j] && within_1px (&f->rect, &e->rect)
          && f->neighbors == e->neighbors)
        break;
    }
    fail_unless (j < found->len, "%s: no face matches %d,%d %dx%d (%d)",
        what, e->rect.x, e->rect.y, e->rect.width, e->rect.height,
        e->neighbors);
    used[j] = TRUE;
  }
  g_free (used);
}

static const char *golden_images[] = { "astronaut", "grace_hopper",
  "franck-1000", "franck-2500", "franck-4000"
};

/* One cascade over every golden picture, both scale factors, 0 and 3
 * neighbours. */
static void
check_golden (const char *cascade)
{
  char *props = g_strdup_printf ("cascade=" CASCADE_DIR "haarcascade_%s.xml",
      cascade);
  GstHarness *h = harness (props);

  for (guint i = 0; i < G_N_ELEMENTS (golden_images); i++) {
    Gray g = load_gray (golden_images[i]);
    for (int s = 0; s < 2; s++)
      for (int n = 0; n <= 3; n += 3) {
        double scale = s ? 1.2 : 1.1;
        GArray *expected = load_golden (golden_images[i], cascade, scale, n);
        GArray *found;
        char *what = g_strdup_printf ("%s %s scale %.1f neighbors %d",
            golden_images[i], cascade, scale, n);
        g_object_set (h->element, "scale-factor", scale, "min-neighbors", n,
            NULL);
        found = push_frame (h, &g, "GRAY8", NULL);
        assert_faces_match (found, expected, what);
        g_free (what);
        g_array_free (found, TRUE);
        g_array_free (expected, TRUE);
      }
    g_free (g.pixels);
  }
  gst_harness_teardown (h);
  g_free (props);
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

/* The simple variant through the element gives the same golden faces. */
GST_START_TEST (test_golden_simple_variant)
{
  GstHarness *h;
  Gray g = load_gray ("grace_hopper");
  GArray *found, *expected = load_golden ("grace_hopper",
      "frontalface_default", 1.1, 3);

  g_setenv ("CLVISION_TUNE", "VJ_VARIANT=simple", TRUE);
  h = harness (NULL);
  found = push_frame (h, &g, "GRAY8", NULL);
  gst_harness_teardown (h);
  g_unsetenv ("CLVISION_TUNE");
  assert_faces_match (found, expected, "simple variant");
  fail_unless (found->len > 0);
  g_array_free (found, TRUE);
  g_array_free (expected, TRUE);
  g_free (g.pixels);
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
  ClvCascade *c = clv_cascade_load (CASCADE_DIR
      "haarcascade_frontalface_default.xml", &error);
  GArray *ref;

  g_assert_no_error (error);
  p.min_neighbors = 2;
  ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
  fail_unless (gray->len > 0);
  fail_unless_equals_int (gray->len, ref->len);
  for (guint i = 0; i < ref->len; i++)
    fail_unless (memcmp (&g_array_index (gray, Found, i).rect,
            &g_array_index (ref, ClvVjFace, i).rect, sizeof (ClvRect)) == 0);
  for (guint i = 1; i < G_N_ELEMENTS (formats); i++) {
    GArray *other = push_frame (h, &g, formats[i], NULL);
    assert_faces_match (other, gray, formats[i]);
    g_array_free (other, TRUE);
  }
  gst_harness_teardown (h);
  g_array_free (ref, TRUE);
  g_array_free (gray, TRUE);
  clv_cascade_free (c);
  g_free (g.pixels);
  g_free (full.pixels);
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
  Gray g = load_gray ("grace_hopper");
  GstHarness *h = harness (NULL);
  GArray *found = push_frame (h, &g, "GRAY8", NULL);

  fail_unless_equals_int (found->len, 1);
  for (guint i = 0; i < found->len; i++) {
    const Found *f = &g_array_index (found, Found, i);
    fail_unless (f->neighbors > 3);
    fail_unless_equals_float (f->confidence,
        f->neighbors / (f->neighbors + 5.0));
  }
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
    const Found *m = &g_array_index (found, Found, i);
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
  Gray blank = { g_malloc ((gsize) face.width * face.height), face.width,
    face.height
  };
  GstHarness *h = harness ("interval=3");
  const Gray *seq[] = { &face, &blank, &blank, &blank, &face, &blank };
  const guint expect[] = { 1, 1, 1, 0, 0, 0 };

  memset (blank.pixels, 90, (gsize) blank.width * blank.height);
  for (guint i = 0; i < G_N_ELEMENTS (seq); i++) {
    GArray *found = push_frame (h, seq[i], "GRAY8", NULL);
    fail_unless (found->len == expect[i], "frame %u: %u faces, expected %u",
        i, found->len, expect[i]);
    g_array_free (found, TRUE);
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
  ClvCascade *c = clv_cascade_load (CASCADE_DIR
      "haarcascade_frontalface_default.xml", &error);
  const int sizes[][4] = { {60, 60, 0, 0}, {0, 0, 50, 50}, {40, 30, 90, 100} };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    char *min = g_strdup_printf ("%dx%d", sizes[i][0], sizes[i][1]);
    char *max = g_strdup_printf ("%dx%d", sizes[i][2], sizes[i][3]);
    GArray *found, *ref, *expected = g_array_new (FALSE, FALSE,
        sizeof (Found));

    p.min_neighbors = 0;
    p.min_width = sizes[i][0];
    p.min_height = sizes[i][1];
    p.max_width = sizes[i][2];
    p.max_height = sizes[i][3];
    ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
    for (guint k = 0; k < ref->len; k++) {
      ClvVjFace *f = &g_array_index (ref, ClvVjFace, k);
      Found e = { f->rect, f->neighbors, 0, 0 };
      g_array_append_val (expected, e);
    }
    g_object_set (h->element, "min-size", min, "max-size", max, NULL);
    found = push_frame (h, &g, "GRAY8", NULL);
    fail_unless (expected->len > 0);
    assert_faces_match (found, expected, min);
    for (guint k = 0; k < found->len; k++) {
      const ClvRect *r = &g_array_index (found, Found, k).rect;
      fail_unless (r->width >= sizes[i][0] && r->height >= sizes[i][1]);
      fail_unless (sizes[i][2] == 0 || r->width <= sizes[i][2]);
    }
    g_array_free (found, TRUE);
    g_array_free (expected, TRUE);
    g_array_free (ref, TRUE);
    g_free (min);
    g_free (max);
  }
  gst_harness_teardown (h);
  clv_cascade_free (c);
  g_free (g.pixels);
}

GST_END_TEST;

/* Frames smaller than the cascade's window: no faces, no error. */
GST_START_TEST (test_tiny_frames)
{
  GstHarness *h = harness (NULL);
  const int sizes[][2] = { {1, 1}, {23, 40}, {40, 23}, {24, 24} };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    Gray g = { g_malloc ((gsize) sizes[i][0] * sizes[i][1]), sizes[i][0],
      sizes[i][1]
    };
    GArray *found;
    memset (g.pixels, 100, (gsize) g.width * g.height);
    found = push_frame (h, &g, i % 2 ? "I420" : "GRAY8", NULL);
    fail_unless_equals_int (found->len, 0);
    g_array_free (found, TRUE);
    g_free (g.pixels);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

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

  g_object_set (el, prop, value, NULL);
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

/* A copy of the default cascade with `from` replaced by `to` once. */
static char *
broken_cascade (const char *from, const char *to)
{
  char *text, *path, *hit, *out;
  GError *error = NULL;
  int fd = g_file_open_tmp ("vjfacedetect-XXXXXX.xml", &path, &error);

  g_assert_no_error (error);
  close (fd);
  fail_unless (g_file_get_contents (CASCADE_DIR
          "haarcascade_frontalface_default.xml", &text, NULL, NULL));
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
  tcase_add_test (tc, test_golden_simple_variant);
  tcase_add_test (tc, test_formats_agree);
  tcase_add_test (tc, test_metas);
  tcase_add_test (tc, test_confidence);
  tcase_add_test (tc, test_bus_message);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_min_max_size);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_bad_cascades_fail_start);
  tcase_add_test (tc, test_bad_sizes_fail_start);
  return s;
}

GST_CHECK_MAIN (vjfacedetect);
