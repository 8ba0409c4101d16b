/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roiexport: the JSON record of each frame, in a file and over MQTT to a
 * real mosquitto broker; passthrough. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <mosquitto.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>
#include <gst/clvision/clvision.h>

#define WIDTH 64
#define HEIGHT 48
#define CAPS "video/x-raw, format=GRAY8, width=64, height=48, framerate=30/1"

static gchar *
temp_path (const gchar * name)
{
  gchar *dir = g_dir_make_tmp ("roiexport-XXXXXX", NULL);
  gchar *path;

  fail_unless (dir != NULL);
  path = g_build_filename (dir, name, NULL);
  g_free (dir);
  return path;
}

static void
remove_temp (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

static GstHarness *
harness_for_file (const gchar * path, const gchar * extra)
{
  gchar *desc = g_strdup_printf ("roiexport location=\"%s\" %s", path,
      extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static GstBuffer *
frame_new (guint index)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, WIDTH * HEIGHT, NULL);

  gst_buffer_memset (buf, 0, (guint8) (index * 7 + 1), WIDTH * HEIGHT);
  GST_BUFFER_PTS (buf) = index * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static GstVideoRegionOfInterestMeta *
add_face (GstBuffer * buf, guint x, guint y, guint w, guint h,
    const gchar * name, gint label_id)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", x, y, w, h);
  GstClvDetection det = { "face", 0, 0.75, 4, (gdouble) x / WIDTH,
    (gdouble) y / HEIGHT, (gdouble) (x + w) / WIDTH, (gdouble) (y + h) / HEIGHT
  };

  gst_clv_roi_meta_set_detection (roi, &det);
  if (name != NULL) {
    GstClvRecognition rec = { name, label_id, 1234.5, 0.5 };
    gst_clv_roi_meta_set_recognition (roi, &rec);
  }
  return roi;
}

/* Pushes `buf` and checks that the very same buffer, bytes unchanged,
 * comes out. */
static void
push_passthrough (GstHarness * h, GstBuffer * buf)
{
  GstBuffer *out;
  GstMapInfo in_map, out_map;
  guint8 *copy;

  fail_unless (gst_buffer_map (buf, &in_map, GST_MAP_READ));
  copy = g_memdup2 (in_map.data, in_map.size);
  gst_buffer_unmap (buf, &in_map);
  out = gst_harness_push_and_pull (h, buf);
  fail_unless (out == buf);
  fail_unless (gst_buffer_map (out, &out_map, GST_MAP_READ));
  fail_unless (memcmp (out_map.data, copy, out_map.size) == 0);
  gst_buffer_unmap (out, &out_map);
  gst_buffer_unref (out);
  g_free (copy);
}

/* The file's lines, each parsed (the test fails on any that is not one
 * JSON object). */
static GPtrArray *
read_records (const gchar * path)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify)
      json_node_unref);
  gchar *contents;
  gchar **lines;
  guint n;

  fail_unless (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  n = g_strv_length (lines);
  /* JSON Lines: every record ends with a newline. */
  fail_unless (n > 0 && lines[n - 1][0] == '\0');
  for (guint i = 0; i + 1 < n; i++) {
    JsonParser *parser = json_parser_new ();
    GError *error = NULL;

    if (!json_parser_load_from_data (parser, lines[i], -1, &error))
      fail ("line %u is not JSON (%s): %s", i, error->message, lines[i]);
    fail_unless (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
    g_ptr_array_add (records, json_node_ref (json_parser_get_root (parser)));
    g_object_unref (parser);
  }
  g_strfreev (lines);
  g_free (contents);
  return records;
}

static JsonObject *
record (GPtrArray * records, guint i)
{
  return json_node_get_object (g_ptr_array_index (records, i));
}

static JsonObject *
record_roi (GPtrArray * records, guint i, guint r)
{
  JsonArray *rois = json_object_get_array_member (record (records, i), "rois");

  return json_array_get_object_element (rois, r);
}

/* Every field of the contract, for a frame with a detected and recognised
 * face; the buffer passes unchanged. */
GST_START_TEST (test_record_fields)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, "source-name=cam0");
  GstBuffer *buf = frame_new (3);
  GPtrArray *records;
  JsonObject *rec, *roi, *box, *norm, *det, *recog;

  add_face (buf, 8, 12, 16, 24, "ada", 2)->parent_id = 5;
  push_passthrough (h, buf);
  records = read_records (path);
  fail_unless_equals_int (records->len, 1);
  rec = record (records, 0);
  fail_unless_equals_int (json_object_get_int_member (rec, "frame"), 0);
  fail_unless_equals_uint64 (json_object_get_int_member (rec, "pts"),
      3 * GST_SECOND / 30);
  fail_unless_equals_uint64 (json_object_get_int_member (rec, "duration"),
      GST_SECOND / 30);
  fail_unless_equals_uint64 (json_object_get_int_member (rec,
          "running_time"), 3 * GST_SECOND / 30);
  fail_unless_equals_string (json_object_get_string_member (rec, "source"),
      "cam0");
  fail_unless (json_object_get_string_member (rec, "stream_id") != NULL);
  fail_unless_equals_int (json_object_get_int_member (rec, "width"), WIDTH);
  fail_unless_equals_int (json_object_get_int_member (rec, "height"), HEIGHT);

  roi = record_roi (records, 0, 0);
  fail_unless_equals_string (json_object_get_string_member (roi, "roi_type"),
      "face");
  fail_unless_equals_int (json_object_get_int_member (roi, "parent_id"), 5);
  box = json_object_get_object_member (roi, "box");
  fail_unless_equals_int (json_object_get_int_member (box, "x"), 8);
  fail_unless_equals_int (json_object_get_int_member (box, "y"), 12);
  fail_unless_equals_int (json_object_get_int_member (box, "w"), 16);
  fail_unless_equals_int (json_object_get_int_member (box, "h"), 24);
  norm = json_object_get_object_member (roi, "box_normalized");
  fail_unless_equals_float (json_object_get_double_member (norm, "x_min"),
      8.0 / WIDTH);
  fail_unless_equals_float (json_object_get_double_member (norm, "y_min"),
      12.0 / HEIGHT);
  fail_unless_equals_float (json_object_get_double_member (norm, "x_max"),
      24.0 / WIDTH);
  fail_unless_equals_float (json_object_get_double_member (norm, "y_max"),
      36.0 / HEIGHT);
  det = json_object_get_object_member (roi, "detection");
  fail_unless_equals_string (json_object_get_string_member (det, "label"),
      "face");
  fail_unless_equals_int (json_object_get_int_member (det, "label_id"), 0);
  fail_unless_equals_float (json_object_get_double_member (det,
          "confidence"), 0.75);
  fail_unless_equals_int (json_object_get_int_member (det, "neighbors"), 4);
  recog = json_object_get_object_member (roi, "recognition");
  fail_unless_equals_string (json_object_get_string_member (recog, "label"),
      "ada");
  fail_unless_equals_int (json_object_get_int_member (recog, "label_id"), 2);
  fail_unless_equals_float (json_object_get_double_member (recog,
          "distance"), 1234.5);
  fail_unless_equals_float (json_object_get_double_member (recog,
          "confidence"), 0.5);
  fail_if (json_object_has_member (roi, "params"));

  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* Structures other than detection/recognition, and a detection missing
 * fields of the contract, are serialised generically by type. */
/* A face with the cascade detector's scores and an eye inside it: the
 * detection's reject-level and level-weight, the eye's parent_id naming
 * the face. */
GST_START_TEST (test_scores_and_children)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, NULL);
  GstBuffer *buf = frame_new (0);
  GstVideoRegionOfInterestMeta *face = add_face (buf, 8, 12, 40, 40, NULL, 0);
  GstVideoRegionOfInterestMeta *eye = add_face (buf, 16, 20, 10, 10, NULL, 0);
  GPtrArray *records;
  JsonObject *det;

  face->id = 3;
  face->parent_id = -1;
  gst_structure_set (gst_video_region_of_interest_meta_get_param (face,
          "detection"), "reject-level", G_TYPE_INT, 25, "level-weight",
      G_TYPE_DOUBLE, 5.8296480217832141, NULL);
  eye->id = 4;
  eye->parent_id = 3;
  push_passthrough (h, buf);
  records = read_records (path);
  det = json_object_get_object_member (record_roi (records, 0, 0),
      "detection");
  fail_unless_equals_int (json_object_get_int_member (det, "reject-level"),
      25);
  fail_unless_equals_float (json_object_get_double_member (det,
          "level-weight"), 5.8296480217832141);
  fail_unless_equals_int (json_object_get_int_member (record_roi (records, 0,
              0), "parent_id"), -1);
  fail_unless_equals_int (json_object_get_int_member (record_roi (records, 0,
              1), "parent_id"), 3);
  /* Without scores: no such members. */
  fail_if (json_object_has_member (json_object_get_object_member (record_roi
              (records, 0, 1), "detection"), "reject-level"));
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

GST_START_TEST (test_generic_params)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, NULL);
  GstBuffer *buf = frame_new (0);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "car", 1, 2, 3, 4);
  GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
  GstStructure *inner = gst_structure_new ("inner", "n", G_TYPE_INT, 7, NULL);
  GPtrArray *records;
  JsonObject *o, *params, *extra, *det;
  JsonArray *arr;

  g_value_init (&list, GST_TYPE_ARRAY);
  g_value_init (&item, G_TYPE_INT);
  for (gint i = 1; i <= 3; i++) {
    g_value_set_int (&item, i * 10);
    gst_value_array_append_value (&list, &item);
  }
  g_value_unset (&item);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("extra", "flag", G_TYPE_BOOLEAN, TRUE,
          "count", G_TYPE_UINT, 4000000000u,
          "big", G_TYPE_INT64, G_GINT64_CONSTANT (-5000000000),
          "ratio", G_TYPE_FLOAT, 0.25f,
          "nan", G_TYPE_DOUBLE, NAN,
          "name", G_TYPE_STRING, "x",
          "none", G_TYPE_STRING, NULL,
          "rate", GST_TYPE_FRACTION, 30000, 1001,
          "inner", GST_TYPE_STRUCTURE, inner, NULL));
  gst_structure_set_value (gst_video_region_of_interest_meta_get_param (roi,
          "extra"), "list", &list);
  g_value_unset (&list);
  gst_structure_free (inner);
  /* Not the contract's detection: no confidence. */
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "car", NULL));

  push_passthrough (h, buf);
  records = read_records (path);
  o = record_roi (records, 0, 0);
  fail_unless_equals_string (json_object_get_string_member (o, "roi_type"),
      "car");
  det = json_object_get_object_member (o, "detection");
  fail_unless_equals_string (json_object_get_string_member (det, "label"),
      "car");
  fail_if (json_object_has_member (det, "confidence"));
  params = json_object_get_object_member (o, "params");
  fail_unless (params != NULL);
  fail_if (json_object_has_member (params, "detection"));
  extra = json_object_get_object_member (params, "extra");
  fail_unless (json_object_get_boolean_member (extra, "flag"));
  fail_unless_equals_int64 (json_object_get_int_member (extra, "count"),
      4000000000);
  fail_unless_equals_int64 (json_object_get_int_member (extra, "big"),
      G_GINT64_CONSTANT (-5000000000));
  fail_unless_equals_float (json_object_get_double_member (extra, "ratio"),
      0.25);
  fail_unless (json_object_get_null_member (extra, "nan"));
  fail_unless_equals_string (json_object_get_string_member (extra, "name"),
      "x");
  fail_unless (json_object_get_null_member (extra, "none"));
  fail_unless_equals_string (json_object_get_string_member (extra, "rate"),
      "30000/1001");
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (extra, "inner"), "n"), 7);
  arr = json_object_get_array_member (extra, "list");
  fail_unless_equals_int (json_array_get_length (arr), 3);
  fail_unless_equals_int (json_array_get_int_element (arr, 2), 30);

  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* A tracked ROI's tracking structure is written typed: its identifier,
 * age, whether predicted, and the times in nanoseconds. */
GST_START_TEST (test_tracking)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, NULL);
  GstBuffer *buf = frame_new (5);
  const GstClvTracking t = {.id = G_GUINT64_CONSTANT (1) << 40,.age = 6,
    .predicted = TRUE,.first_seen = 0,.last_seen = 4 * GST_SECOND / 30
  };
  GPtrArray *records;
  JsonObject *o, *tracking;

  gst_clv_roi_meta_set_tracking (add_face (buf, 10, 20, 30, 30, NULL, 0), &t);
  push_passthrough (h, buf);
  records = read_records (path);
  o = record_roi (records, 0, 0);
  fail_if (json_object_has_member (o, "params"));
  tracking = json_object_get_object_member (o, "tracking");
  fail_unless (tracking != NULL);
  fail_unless_equals_int64 (json_object_get_int_member (tracking, "id"),
      G_GINT64_CONSTANT (1) << 40);
  fail_unless_equals_int64 (json_object_get_int_member (tracking, "age"), 6);
  fail_unless (json_object_get_boolean_member (tracking, "predicted"));
  fail_unless_equals_int64 (json_object_get_int_member (tracking,
          "first_seen"), 0);
  fail_unless_equals_int64 (json_object_get_int_member (tracking,
          "last_seen"), 4 * GST_SECOND / 30);
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* schema=gva: DL Streamer's record, byte for byte: members in name order,
 * the tracking identifier as `id`, the recognition as a classification,
 * the stream time; a frame without objects gives none, unless
 * add-empty-results. */
GST_START_TEST (test_gva_record)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, "name=gva schema=gva "
      "source-name=door tags={\"site\":\"lab\"}");
  GstBuffer *buf = frame_new (3);
  GstVideoRegionOfInterestMeta *roi = add_face (buf, 16, 12, 32, 24, "ada",
      2);
  const GstClvTracking t = {.id = 7,.age = 3 };
  GstElement *e;
  gchar *contents;

  roi->id = 5;
  gst_clv_roi_meta_set_tracking (roi, &t);
  gst_structure_set (gst_video_region_of_interest_meta_get_param (roi,
          "recognition"), "model_name", G_TYPE_STRING, "faces", NULL);
  push_passthrough (h, buf);
  push_passthrough (h, frame_new (4));
  e = gst_bin_get_by_name (GST_BIN (h->element), "gva");
  g_object_set (e, "add-empty-results", TRUE, NULL);
  gst_object_unref (e);
  push_passthrough (h, frame_new (5));
  fail_unless (g_file_get_contents (path, &contents, NULL, NULL));
  fail_unless_equals_string (contents,
      "{\"objects\":[{\"detection\":{\"bounding_box\":{\"x_max\":0.75,"
      "\"x_min\":0.25,\"y_max\":0.75,\"y_min\":0.25},"
      "\"confidence\":0.75,\"label\":\"face\",\"label_id\":0},\"h\":24,"
      "\"id\":7,\"parent_id\":0,\"recognition\":{\"confidence\":0.5,"
      "\"label\":\"ada\",\"label_id\":2,\"model\":{\"name\":\"faces\"}},"
      "\"region_id\":5,\"roi_type\":\"face\",\"w\":32,\"x\":16,\"y\":12}],"
      "\"resolution\":{\"height\":48,\"width\":64},\"source\":\"door\","
      "\"tags\":{\"site\":\"lab\"},\"timestamp\":100000000}\n"
      "{\"resolution\":{\"height\":48,\"width\":64},\"source\":\"door\","
      "\"tags\":{\"site\":\"lab\"},\"timestamp\":166666666}\n");
  g_free (contents);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* Names that need escaping come back byte for byte through json-glib's
 * parser and through Python's strict one (no NaN, control characters
 * escaped); invalid UTF-8 becomes U+FFFD rather than invalid JSON. */
static const gchar *awkward_labels[] = {
  "say \"hi\"", "back\\slash\\", "ctl\x01\x02\x1f\t\n\r\b\f end", "\x7f",
  "Jos\xc3\xa9 \xce\xa9 \xe5\x8c\x97\xe4\xba\xac \xf0\x9f\x98\x80", "/</",
};

GST_START_TEST (test_labels_round_trip)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, NULL);
  GPtrArray *records;
  GString *script_args = g_string_new (NULL);
  gchar *argv[8], *out = NULL, *err = NULL;
  gint status;
  const gchar *script =
      "import json, sys\n"
      "def bad(c): raise ValueError('non-standard ' + c)\n"
      "want = [bytes.fromhex(x).decode('utf-8') for x in sys.argv[2].split()]\n"
      "got = [json.loads(l, parse_constant=bad)['rois'][0]['recognition']"
      "['label'] for l in open(sys.argv[1], encoding='utf-8')]\n"
      "assert got[:len(want)] == want, (got, want)\n"
      "print(json.loads(open(sys.argv[1]).readlines()[-1])['rois'][0]"
      "['roi_type'])\n";

  for (guint i = 0; i < G_N_ELEMENTS (awkward_labels); i++) {
    GstBuffer *buf = frame_new (i);

    add_face (buf, 1, 1, 8, 8, awkward_labels[i], (gint) i);
    push_passthrough (h, buf);
    for (const gchar * c = awkward_labels[i]; *c; c++)
      g_string_append_printf (script_args, "%02x", (guint8) * c);
    g_string_append_c (script_args, ' ');
  }
  {
    /* GstStructure refuses invalid UTF-8, but a meta's type is any
     * quark. */
    GstBuffer *buf = frame_new (99);
    add_face (buf, 1, 1, 8, 8, "bad", 0)->roi_type =
        g_quark_from_static_string ("bad\xff");
    push_passthrough (h, buf);
  }

  records = read_records (path);
  fail_unless_equals_int (records->len, G_N_ELEMENTS (awkward_labels) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (awkward_labels); i++)
    fail_unless_equals_string (json_object_get_string_member
        (json_object_get_object_member (record_roi (records, i, 0),
                "recognition"), "label"), awkward_labels[i]);
  fail_unless_equals_string (json_object_get_string_member (record_roi
          (records, G_N_ELEMENTS (awkward_labels), 0), "roi_type"),
      "bad\xef\xbf\xbd");

  argv[0] = (gchar *) "python3";
  argv[1] = (gchar *) "-c";
  argv[2] = (gchar *) script;
  argv[3] = path;
  argv[4] = script_args->str;
  argv[5] = NULL;
  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &out, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    fail ("python3 json disagrees: %s", err);
  fail_unless_equals_string (out, "bad\xef\xbf\xbd\n");

  g_free (out);
  g_free (err);
  g_string_free (script_args, TRUE);
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* Every frame gives a record, faces or not, numbered in order; the file is
 * complete once EOS has passed. */
GST_START_TEST (test_one_record_per_frame)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, NULL);
  GPtrArray *records;
  GstEvent *eos;

  for (guint i = 0; i < 6; i++) {
    GstBuffer *buf = frame_new (i);
    for (guint f = 0; f < i % 3; f++)
      add_face (buf, 4 * f, 4, 4, 4, NULL, 0);
    push_passthrough (h, buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  eos = gst_harness_pull_event (h);
  while (GST_EVENT_TYPE (eos) != GST_EVENT_EOS) {
    gst_event_unref (eos);
    eos = gst_harness_pull_event (h);
  }
  gst_event_unref (eos);

  records = read_records (path);
  fail_unless_equals_int (records->len, 6);
  for (guint i = 0; i < 6; i++) {
    fail_unless_equals_int (json_object_get_int_member (record (records, i),
            "frame"), i);
    fail_unless_equals_int (json_array_get_length
        (json_object_get_array_member (record (records, i), "rois")), i % 3);
    if (i % 3 == 2)
      fail_if (json_object_has_member (record_roi (records, i, 1),
              "recognition"));
  }
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* skip-empty: only frames with an ROI give records; their frame numbers
 * still count every frame, their sequence numbers count records. */
GST_START_TEST (test_skip_empty)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, "skip-empty=true");
  GPtrArray *records;

  for (guint i = 0; i < 5; i++) {
    GstBuffer *buf = frame_new (i);
    if (i == 1 || i == 4)
      add_face (buf, 0, 0, 4, 4, NULL, 0);
    push_passthrough (h, buf);
  }
  records = read_records (path);
  fail_unless_equals_int (records->len, 2);
  fail_unless_equals_int (json_object_get_int_member (record (records, 0),
          "frame"), 1);
  fail_unless_equals_int (json_object_get_int_member (record (records, 1),
          "frame"), 4);
  for (guint i = 0; i < 2; i++)
    fail_unless_equals_int (json_object_get_int_member (record (records, i),
            "seq"), i);
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* A write that fails half way (the file size limit here, a full disk in
 * practice) is cut back to the last whole record, and the element posts
 * one error that says why. */
GST_START_TEST (test_failed_write_keeps_whole_records)
{
  gchar *path = temp_path ("out.jsonl");
  gchar *long_name = g_strnfill (700, 'n');
  gchar *extra = g_strdup_printf ("source-name=%s", long_name);
  GstHarness *h = harness_for_file (path, extra);
  struct rlimit limit = { 4000, 4000 };
  GstFlowReturn ret = GST_FLOW_OK;
  GPtrArray *records;
  GstMessage *msg;
  GError *error = NULL;
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;
  guint pushed = 0;

  /* This test runs in its own process (check forks). */
  signal (SIGXFSZ, SIG_IGN);
  fail_unless (setrlimit (RLIMIT_FSIZE, &limit) == 0);
  gst_element_set_bus (h->element, bus);
  while (ret == GST_FLOW_OK && pushed < 20) {
    ret = gst_harness_push (h, frame_new (pushed++));
    if ((out = gst_harness_try_pull (h)) != NULL)
      gst_buffer_unref (out);
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  records = read_records (path);
  fail_unless (records->len == pushed - 1 && records->len >= 4,
      "%u records of %u frames", records->len, pushed);
  g_ptr_array_unref (records);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "Cannot write the results: File too "
          "large") != NULL, "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_free (extra);
  g_free (long_name);
  remove_temp (path);
}

GST_END_TEST;

/* location=-: the same JSON Lines go to stdout (fd 1 is pointed at a file
 * for the test). */
GST_START_TEST (test_stdout)
{
  gchar *path = temp_path ("stdout.jsonl");
  GstHarness *h;
  GstBuffer *buf;
  GPtrArray *records;
  gint saved_stdout, fd;

  fflush (stdout);
  saved_stdout = dup (STDOUT_FILENO);
  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fail_unless (saved_stdout >= 0 && fd >= 0);
  fail_unless (dup2 (fd, STDOUT_FILENO) == STDOUT_FILENO);
  close (fd);

  h = harness_for_file ("-", NULL);
  push_passthrough (h, frame_new (0));
  buf = frame_new (1);
  add_face (buf, 8, 4, 16, 16, "Ada", 1);
  push_passthrough (h, buf);
  gst_harness_teardown (h);

  fflush (stdout);
  fail_unless (dup2 (saved_stdout, STDOUT_FILENO) == STDOUT_FILENO);
  close (saved_stdout);

  records = read_records (path);
  fail_unless_equals_int (records->len, 2);
  fail_unless_equals_int (json_array_get_length
      (json_object_get_array_member (record (records, 0), "rois")), 0);
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (record_roi (records, 1, 0),
              "recognition"), "label"), "Ada");
  g_ptr_array_unref (records);
  remove_temp (path);
}

GST_END_TEST;

/* stream_id follows stream-start, running_time the segment, source the
 * element's name by default; no timestamp gives null. */
GST_START_TEST (test_stream_and_times)
{
  gchar *path = temp_path ("out.jsonl");
  GstHarness *h = harness_for_file (path, "name=door");
  GstSegment segment;
  GstBuffer *buf;
  GPtrArray *records;

  gst_harness_push_event (h, gst_event_new_stream_start ("door/camera"));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = 10 * GST_SECOND;
  segment.start = GST_SECOND;
  segment.time = GST_SECOND;
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  buf = frame_new (0);
  GST_BUFFER_PTS (buf) = 3 * GST_SECOND;
  push_passthrough (h, buf);
  buf = frame_new (1);
  GST_BUFFER_PTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
  push_passthrough (h, buf);

  records = read_records (path);
  fail_unless_equals_int (records->len, 2);
  fail_unless_equals_string (json_object_get_string_member (record (records,
              0), "stream_id"), "door/camera");
  fail_unless_equals_string (json_object_get_string_member (record (records,
              0), "source"), "door");
  fail_unless_equals_uint64 (json_object_get_int_member (record (records, 0),
          "running_time"), 12 * GST_SECOND);
  fail_unless (json_object_get_null_member (record (records, 1), "pts"));
  fail_unless (json_object_get_null_member (record (records, 1),
          "running_time"));
  fail_unless (json_object_get_null_member (record (records, 1),
          "duration"));
  g_ptr_array_unref (records);
  gst_harness_teardown (h);
  remove_temp (path);
}

GST_END_TEST;

/* Without a destination, or with one that cannot be used, the element
 * does not start and says what to fix. */
static void
assert_start_fails (const gchar * expected, const gchar * property, ...)
{
  GstElement *e = gst_element_factory_make ("roiexport", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  va_list args;

  gst_element_set_bus (e, bus);
  va_start (args, property);
  for (; property != NULL; property = va_arg (args, const gchar *))
    gst_util_set_object_arg (G_OBJECT (e), property, va_arg (args,
            const gchar *));
  va_end (args);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, expected) != NULL, "%s",
      error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  /* Queued messages hold the element. */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_START_TEST (test_bad_destination)
{
  assert_start_fails ("set location", NULL);
  assert_start_fails ("/nonexistent-dir", "location",
      "/nonexistent-dir/out.jsonl", NULL);
  assert_start_fails ("mqtt-broker", "mqtt-broker", "localhost:notaport",
      NULL);
  assert_start_fails ("mqtt-broker", "mqtt-broker", "::1", NULL);
  assert_start_fails ("mqtt-broker", "mqtt-broker", "localhost:70000", NULL);
  assert_start_fails ("mqtt-broker", "mqtt-broker", "[::1]:", NULL);
  assert_start_fails ("mqtt-topic", "mqtt-broker", "localhost",
      "mqtt-topic", "faces/#", NULL);
  assert_start_fails ("mqtt-ca-file", "mqtt-broker", "localhost",
      "mqtt-ca-file", "/nonexistent/ca.pem", NULL);
}

GST_END_TEST;

/* A spool another element holds, or a file that is not a spool, fails the
 * start with what to do; the file is left as it was. */
GST_START_TEST (test_bad_spool)
{
  gchar *dir = g_dir_make_tmp ("roiexport-spool-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "roiexport.spool", NULL);
  GstElement *holder = gst_element_factory_make ("roiexport", NULL);
  gchar *text;

  g_object_set (holder, "mqtt-broker", "127.0.0.1:1", "spool-dir", dir, NULL);
  fail_unless_equals_int (gst_element_set_state (holder, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  assert_start_fails ("is in use by another roiexport: give each element "
      "its own spool-dir", "mqtt-broker", "127.0.0.1:1", "spool-dir", dir,
      NULL);
  fail_unless_equals_int (gst_element_set_state (holder, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (holder);

  fail_unless (g_file_set_contents (path, "not a spool", -1, NULL));
  assert_start_fails ("is not a roiexport spool, or is damaged: move it away",
      "mqtt-broker", "127.0.0.1:1", "spool-dir", dir, NULL);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless_equals_string (text, "not a spool");
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* MQTT: a mosquitto broker of our own on a free port of 127.0.0.1. */
typedef struct
{
  gchar *dir;
  gint port;
  /* Optional second listener: TLS (ca.pem signed the broker's certificate),
   * user "reader", password "s3cret"; 0 when none. */
  gint secure_port;
  GPid pid;
} Broker;

static gint
free_port (void)
{
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  gint port;

  fail_unless (g_socket_bind (sock, any, TRUE, NULL));
  bound = g_socket_get_local_address (sock, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  g_object_unref (sock);
  return port;
}

static gboolean
port_open (gint port)
{
  GSocketClient *client = g_socket_client_new ();
  GSocketConnection *conn;

  g_socket_client_set_enable_proxy (client, FALSE);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL,
      NULL);

  g_object_unref (client);
  if (conn == NULL)
    return FALSE;
  g_object_unref (conn);
  return TRUE;
}

/* Starts (or restarts, same port and same persistence file) the broker. */
static void
broker_start (Broker * b)
{
  const gchar *mosquitto = g_getenv ("CLV_MOSQUITTO");
  gchar *conf_path, *conf, *log_path;
  gchar *argv[4];
  GError *error = NULL;

  if (b->dir == NULL) {
    b->dir = g_dir_make_tmp ("roiexport-broker-XXXXXX", NULL);
    b->port = free_port ();
  }
  fail_unless (mosquitto != NULL && mosquitto[0] != '\0',
      "no mosquitto broker: install Debian's mosquitto (tests/install-deps.sh)");
  conf_path = g_build_filename (b->dir, "mosquitto.conf", NULL);
  log_path = g_build_filename (b->dir, "broker.log", NULL);
  /* Persistence keeps the test subscriber's session and its undelivered
   * messages across a restart; the broker runs as us (it would switch to
   * the user mosquitto when started by root). */
  conf = g_strdup_printf ("per_listener_settings true\n"
      "listener %d 127.0.0.1\nallow_anonymous true\n"
      "persistence true\npersistence_location %s/\nuser %s\n"
      "log_dest file %s\n", b->port, b->dir, g_get_user_name (), log_path);
  if (b->secure_port != 0) {
    gchar *plain = conf;
    conf = g_strdup_printf ("%slistener %d 127.0.0.1\ncafile %s/ca.pem\n"
        "certfile %s/server.pem\nkeyfile %s/server.key\n"
        "allow_anonymous false\npassword_file %s/passwd\n", plain,
        b->secure_port, b->dir, b->dir, b->dir, b->dir);
    g_free (plain);
  }
  fail_unless (g_file_set_contents (conf_path, conf, -1, NULL));
  argv[0] = (gchar *) mosquitto;
  argv[1] = (gchar *) "-c";
  argv[2] = conf_path;
  argv[3] = NULL;
  if (!g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
          NULL, &b->pid, &error))
    fail ("cannot start %s: %s", mosquitto, error->message);
  for (gint i = 0; i < 100 && !port_open (b->port); i++)
    g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  fail_unless (port_open (b->port), "broker not listening on %d", b->port);
  fail_unless (b->secure_port == 0 || port_open (b->secure_port));
  g_free (conf);
  g_free (conf_path);
  g_free (log_path);
}

/* A broker with the TLS listener too: a CA and a certificate for
 * 127.0.0.1 made by openssl, a password file by mosquitto_passwd. */
static void
broker_start_secure (Broker * b)
{
  const gchar *passwd = g_getenv ("CLV_MOSQUITTO_PASSWD");
  const gchar *script =
      "set -e\n"
      "ec='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'\n"
      "openssl req -x509 $ec -keyout ca.key -out ca.pem "
      "-subj /CN=clvision-test-ca -days 2\n"
      "openssl req $ec -keyout server.key -out server.csr -subj /CN=127.0.0.1\n"
      "echo subjectAltName=IP:127.0.0.1 > san.ext\n"
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -out server.pem -days 2 -extfile san.ext\n"
      "\"$1\" -c -b passwd reader s3cret\n";
  gchar *argv[] = { (gchar *) "sh", (gchar *) "-c", (gchar *) script,
    (gchar *) "sh", (gchar *) passwd, NULL
  };
  gchar *err = NULL;
  gint status;

  fail_unless (passwd != NULL && passwd[0] != '\0',
      "no mosquitto_passwd: install Debian's mosquitto");
  b->dir = g_dir_make_tmp ("roiexport-broker-XXXXXX", NULL);
  b->port = free_port ();
  b->secure_port = free_port ();
  fail_unless (g_spawn_sync (b->dir, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    fail ("cannot make the test certificates: %s", err);
  g_free (err);
  broker_start (b);
}

/* SIGTERM: the broker saves its persistence file and closes every
 * connection. */
static void
broker_stop (Broker * b)
{
  int status;

  fail_unless (kill (b->pid, SIGTERM) == 0);
  fail_unless (waitpid (b->pid, &status, 0) == b->pid);
  g_spawn_close_pid (b->pid);
  b->pid = 0;
}

static void
broker_free (Broker * b)
{
  GDir *dir;
  const gchar *name;

  if (b->pid != 0)
    broker_stop (b);
  dir = g_dir_open (b->dir, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_build_filename (b->dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  g_dir_close (dir);
  g_rmdir (b->dir);
  g_free (b->dir);
}

/* A subscriber with a persistent session (QoS 1), in libmosquitto's own
 * thread, that records the sequence number of each message (the frame
 * number too while no frame is skipped). */
typedef struct
{
  struct mosquitto *client;
  gchar *topic;
  GMutex lock;
  GCond cond;
  GArray *frames;               /* gint64 seq; -1 for a message that is no record */
  gboolean subscribed;
} Subscriber;

static void
sub_on_connect (struct mosquitto *client, void *data, int rc)
{
  Subscriber *s = data;

  if (rc == 0)
    mosquitto_subscribe (client, NULL, s->topic, 1);
}

static void
sub_on_subscribe (struct mosquitto *client, void *data, int mid, int n,
    const int *granted)
{
  Subscriber *s = data;

  g_mutex_lock (&s->lock);
  s->subscribed = TRUE;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static void
sub_on_message (struct mosquitto *client, void *data,
    const struct mosquitto_message *msg)
{
  Subscriber *s = data;
  JsonParser *parser = json_parser_new ();
  gint64 frame = -1;

  if (json_parser_load_from_data (parser, msg->payload, msg->payloadlen, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    frame = json_object_get_int_member_with_default (json_node_get_object
        (json_parser_get_root (parser)), "seq", -1);
  g_object_unref (parser);
  g_mutex_lock (&s->lock);
  g_array_append_val (s->frames, frame);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static Subscriber *
subscriber_new (gint port, const gchar * topic)
{
  Subscriber *s = g_new0 (Subscriber, 1);
  gint64 deadline = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;

  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  s->frames = g_array_new (FALSE, FALSE, sizeof (gint64));
  s->topic = g_strdup (topic);
  s->client = mosquitto_new ("roiexport-check", false, s);
  fail_unless (s->client != NULL);
  mosquitto_connect_callback_set (s->client, sub_on_connect);
  mosquitto_subscribe_callback_set (s->client, sub_on_subscribe);
  mosquitto_message_callback_set (s->client, sub_on_message);
  mosquitto_reconnect_delay_set (s->client, 1, 1, false);
  fail_unless_equals_int (mosquitto_connect (s->client, "127.0.0.1", port,
          30), MOSQ_ERR_SUCCESS);
  fail_unless_equals_int (mosquitto_loop_start (s->client), MOSQ_ERR_SUCCESS);
  g_mutex_lock (&s->lock);
  while (!s->subscribed && g_cond_wait_until (&s->cond, &s->lock, deadline));
  fail_unless (s->subscribed, "test subscriber not subscribed");
  g_mutex_unlock (&s->lock);
  return s;
}

/* Waits until `frame` has arrived; returns a copy of every frame number
 * received, in order of arrival. */
static GArray *
subscriber_wait_frame (Subscriber * s, gint64 frame)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GArray *copy;
  gboolean found = FALSE;

  g_mutex_lock (&s->lock);
  do {
    for (guint i = 0; i < s->frames->len && !found; i++)
      found = g_array_index (s->frames, gint64, i) == frame;
  } while (!found && g_cond_wait_until (&s->cond, &s->lock, deadline));
  copy = g_array_copy (s->frames);
  g_mutex_unlock (&s->lock);
  fail_unless (found, "frame %" G_GINT64_FORMAT " never arrived (%u "
      "messages)", frame, copy->len);
  return copy;
}

static void
subscriber_free (Subscriber * s)
{
  mosquitto_disconnect (s->client);
  mosquitto_loop_stop (s->client, false);
  mosquitto_destroy (s->client);
  g_array_unref (s->frames);
  g_free (s->topic);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

/* A harness around an element configured, and given a bus, before it
 * starts. */
static GstHarness *
harness_for_mqtt (const gchar * broker, GstBus * bus, const gchar * first,
    ...)
{
  GstElement *e = gst_element_factory_make ("roiexport", NULL);
  GstHarness *h;
  va_list args;

  g_object_set (e, "mqtt-broker", broker, "mqtt-topic", "test/roi", NULL);
  va_start (args, first);
  if (first)
    g_object_set_valist (G_OBJECT (e), first, args);
  va_end (args);
  if (bus)
    gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static gchar *
broker_address (const Broker * b)
{
  return g_strdup_printf ("127.0.0.1:%d", b->port);
}

static void
push_eos (GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
}

static guint64
dropped (GstHarness * h)
{
  guint64 n;

  g_object_get (h->element, "dropped", &n, NULL);
  return n;
}

/* Every frame's record arrives, in order, at each QoS; EOS returns only
 * once the broker has them all: the element is stopped right after it,
 * which would discard anything still queued. */
GST_START_TEST (test_mqtt_every_frame_in_order)
{
  const guint n_frames = 60;

  for (gint qos = 0; qos <= 2; qos++) {
    Broker b = { 0 };
    Subscriber *sub;
    gchar *address;
    GstHarness *h;
    GArray *got;

    broker_start (&b);
    sub = subscriber_new (b.port, "test/roi");
    address = broker_address (&b);
    h = harness_for_mqtt (address, NULL, "mqtt-qos", qos, NULL);
    for (guint i = 0; i < n_frames; i++) {
      GstBuffer *buf = frame_new (i);
      if (i % 2)
        add_face (buf, 2, 2, 8, 8, "ada", 1);
      push_passthrough (h, buf);
    }
    push_eos (h);
    fail_unless_equals_uint64 (dropped (h), 0);
    gst_harness_teardown (h);

    got = subscriber_wait_frame (sub, n_frames - 1);
    fail_unless_equals_int (got->len, n_frames);
    for (guint i = 0; i < n_frames; i++)
      fail_unless_equals_int64 (g_array_index (got, gint64, i), i);
    g_array_unref (got);
    subscriber_free (sub);
    broker_free (&b);
    g_free (address);
  }
}

GST_END_TEST;

static GstMessage *
wait_warning (GstBus * bus, const gchar * text)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GstMessage *msg;

  while ((msg = gst_bus_timed_pop_filtered (bus, deadline -
              g_get_monotonic_time () > 0 ? (deadline -
                  g_get_monotonic_time ()) * GST_USECOND : 0,
              GST_MESSAGE_WARNING)) != NULL) {
    GError *error = NULL;
    gboolean match;

    gst_message_parse_warning (msg, &error, NULL);
    match = strstr (error->message, text) != NULL;
    g_error_free (error);
    if (match)
      return msg;
    gst_message_unref (msg);
  }
  fail ("no warning with \"%s\"", text);
  return NULL;
}

/* The broker goes away mid-stream: pushing never waits, the oldest
 * records beyond max-queue are dropped and counted (with a warning), the
 * element reconnects when the broker is back and delivers the rest. */
GST_START_TEST (test_mqtt_broker_restart)
{
  Broker b = { 0 };
  Subscriber *sub;
  GstBus *bus = gst_bus_new ();
  gchar *address;
  GstHarness *h;
  GArray *got;
  gint64 start;
  guint64 lost;
  gint64 last = -1;
  GHashTable *unique = g_hash_table_new (g_int64_hash, g_int64_equal);

  broker_start (&b);
  sub = subscriber_new (b.port, "test/roi");
  address = broker_address (&b);
  h = harness_for_mqtt (address, bus, "max-queue", 5, NULL);
  /* One at a time: the element connects in the background, and a queue of
   * 5 would overflow before. */
  for (guint i = 0; i < 10; i++) {
    push_passthrough (h, frame_new (i));
    g_array_unref (subscriber_wait_frame (sub, i));
  }
  fail_unless_equals_uint64 (dropped (h), 0);

  broker_stop (&b);
  gst_message_unref (wait_warning (bus, "Lost the connection"));
  start = g_get_monotonic_time ();
  for (guint i = 10; i < 30; i++)
    push_passthrough (h, frame_new (i));
  fail_unless (g_get_monotonic_time () - start < 2 * G_TIME_SPAN_SECOND,
      "pushing stalled while the broker was away");
  /* 20 records for a queue of 5; records of 0..9 still waiting for their
   * acknowledgement when the broker went are back in the queue, so may be
   * dropped too (they arrived, but the element cannot know). */
  fail_unless (dropped (h) >= 15 && dropped (h) <= 25, "dropped %"
      G_GUINT64_FORMAT, dropped (h));
  gst_message_unref (wait_warning (bus, "MQTT queue full"));

  /* Back: the queued records arrive on reconnection, then new ones. */
  broker_start (&b);
  g_array_unref (subscriber_wait_frame (sub, 29));
  for (guint i = 30; i < 40; i++) {
    push_passthrough (h, frame_new (i));
    g_array_unref (subscriber_wait_frame (sub, i));
  }
  push_eos (h);
  lost = dropped (h);
  gst_harness_teardown (h);

  /* 0..9, then the 5 newest of the outage, then 30..39; a record whose
   * acknowledgement the broker took down with it may come twice.  Nothing
   * is lost uncounted. */
  got = subscriber_wait_frame (sub, 39);
  for (guint i = 0; i < got->len; i++) {
    gint64 f = g_array_index (got, gint64, i);
    fail_unless (f >= last, "frame %" G_GINT64_FORMAT " after %"
        G_GINT64_FORMAT, f, last);
    fail_unless (f < 10 || f >= 25, "frame %" G_GINT64_FORMAT
        " should have been dropped", f);
    last = f;
    g_hash_table_add (unique, &g_array_index (got, gint64, i));
  }
  fail_unless_equals_int (g_hash_table_size (unique), 25);
  fail_unless (lost >= 40 - g_hash_table_size (unique), "dropped %"
      G_GUINT64_FORMAT, lost);

  g_hash_table_unref (unique);
  g_array_unref (got);
  subscriber_free (sub);
  broker_free (&b);
  g_free (address);
  /* Queued messages hold the element. */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* The numbers of the first arrival of each record, in order of arrival,
 * checked: duplicates (told by seq) aside, they rise one by one up to
 * `last`.  Returns the first. */
static gint64
assert_each_once_in_order (GArray * got, gint64 last, guint * duplicates)
{
  GHashTable *seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  gint64 start_seq, expected;

  fail_unless (got->len > 0);
  start_seq = expected = g_array_index (got, gint64, 0);
  *duplicates = 0;
  for (guint i = 0; i < got->len; i++) {
    gint64 *seq = &g_array_index (got, gint64, i);

    if (!g_hash_table_add (seen, seq)) {
      (*duplicates)++;
      continue;
    }
    fail_unless_equals_int64 (*seq, expected);
    expected++;
  }
  fail_unless_equals_int64 (expected, last + 1);
  g_hash_table_unref (seen);
  return start_seq;
}

static void
remove_spool (gchar * dir)
{
  gchar *path = g_build_filename (dir, "roiexport.spool", NULL);

  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* The broker is stopped for 10 s in the middle of a 300-frame run at 20
 * frames/s, then restarted: pushing never waits for it, records beyond
 * max-queue wait in the spool, and every record arrives, in order, at
 * least once (duplicates told apart by seq); nothing is dropped and EOS
 * waits only for the last records to go out. */
GST_START_TEST (test_mqtt_outage_spooled)
{
  const guint n_frames = 300, stop_at = 50;
  const gint64 frame_us = 50 * G_TIME_SPAN_MILLISECOND;
  const gint64 outage_us = 10 * G_TIME_SPAN_SECOND;
  Broker b = { 0 };
  Subscriber *sub;
  GstBus *bus = gst_bus_new ();
  gchar *address, *spool = g_dir_make_tmp ("roiexport-spool-XXXXXX", NULL);
  GstHarness *h;
  GArray *got;
  gint64 start, stopped = 0, t0, longest = 0;
  guint duplicates;

  broker_start (&b);
  sub = subscriber_new (b.port, "test/roi");
  address = broker_address (&b);
  h = harness_for_mqtt (address, bus, "max-queue", 10, "spool-dir", spool,
      "flush-timeout", 30000, NULL);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < n_frames; i++) {
    gint64 wait = start + i * frame_us - g_get_monotonic_time ();

    if (wait > 0)
      g_usleep (wait);
    if (i == stop_at) {
      broker_stop (&b);
      stopped = g_get_monotonic_time ();
    } else if (b.pid == 0 && g_get_monotonic_time () - stopped >= outage_us) {
      broker_start (&b);
    }
    t0 = g_get_monotonic_time ();
    push_passthrough (h, frame_new (i));
    longest = MAX (longest, g_get_monotonic_time () - t0);
  }
  fail_unless (b.pid != 0, "the run ended before the outage did");
  fail_unless (longest < G_TIME_SPAN_SECOND, "a frame waited %" G_GINT64_FORMAT
      " us", longest);
  t0 = g_get_monotonic_time ();
  push_eos (h);
  fail_unless (g_get_monotonic_time () - t0 < outage_us, "EOS waited %"
      G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  fail_unless_equals_uint64 (dropped (h), 0);
  gst_harness_teardown (h);

  got = subscriber_wait_frame (sub, n_frames - 1);
  fail_unless_equals_int64 (assert_each_once_in_order (got, n_frames - 1,
          &duplicates), 0);
  GST_INFO ("%u records, %u duplicates", got->len, duplicates);
  g_array_unref (got);
  subscriber_free (sub);
  broker_free (&b);
  g_free (address);
  remove_spool (spool);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* No broker ever: `dropped` counts every record at EOS already (not only
 * once the element stops), with a warning that says how many. */
GST_START_TEST (test_mqtt_down_for_good)
{
  GstBus *bus = gst_bus_new ();
  gchar *address = g_strdup_printf ("127.0.0.1:%d", free_port ());
  GstHarness *h = harness_for_mqtt (address, bus, "flush-timeout", 200,
      NULL);

  for (guint i = 0; i < 30; i++)
    push_passthrough (h, frame_new (i));
  push_eos (h);
  fail_unless_equals_uint64 (dropped (h), 30);
  gst_message_unref (wait_warning (bus, "30 result(s) lost: not delivered "
          "to the MQTT broker within flush-timeout=200 ms"));
  gst_harness_teardown (h);
  g_free (address);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* gst-launch-1.0's exit status and output for roiexport to a broker that
 * is not there, with extra properties. */
static gint
launch_without_broker (const gchar * extra, gchar ** output)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 videotestsrc num-buffers=10 "
      "! video/x-raw,width=64,height=48 ! roiexport "
      "mqtt-broker=127.0.0.1:%d flush-timeout=200 %s ! fakesink", free_port (),
      extra);
  gchar *out = NULL, *err = NULL;
  gint status;
  GError *error = NULL;

  fail_unless (g_spawn_command_line_sync (cmd, &out, &err, &status, &error),
      "%s", error ? error->message : "");
  *output = g_strconcat (out, err, NULL);
  g_free (out);
  g_free (err);
  g_free (cmd);
  return status;
}

/* on-loss=error makes gst-launch-1.0 fail when records are lost; the
 * default (warn) lets it succeed with a warning. */
GST_START_TEST (test_mqtt_on_loss_error)
{
  gchar *output;

  fail_if (launch_without_broker ("on-loss=error", &output) == 0, "%s",
      output);
  fail_unless (strstr (output, "10 result(s) lost") != NULL, "%s", output);
  g_free (output);
  fail_unless_equals_int (launch_without_broker ("", &output), 0);
  fail_unless (strstr (output, "10 result(s) lost") != NULL, "%s", output);
  g_free (output);
}

GST_END_TEST;

/* `n` frames from `first` through an element with the spool `spool` and
 * a broker that is away; returns what it dropped (counted at EOS). */
static guint64
spool_without_broker (const gchar * spool, guint64 max_bytes, guint first,
    guint n)
{
  GstBus *bus = gst_bus_new ();
  gchar *address = g_strdup_printf ("127.0.0.1:%d", free_port ());
  GstHarness *h = harness_for_mqtt (address, bus, "flush-timeout", 100,
      "spool-dir", spool, "spool-max-bytes", max_bytes, "max-queue", 2, NULL);
  guint64 lost;

  for (guint i = first; i < first + n; i++)
    push_passthrough (h, frame_new (i));
  push_eos (h);
  lost = dropped (h);
  gst_message_unref (wait_warning (bus, "wait in the spool of"));
  gst_harness_teardown (h);
  g_free (address);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  return lost;
}

/* A spool that holds records up to seq `last` when an element starts: a
 * broker there, they go first, in order, then 3 new records, their seq
 * continuing.  Returns the first seq delivered; `lost`: what the element
 * dropped (a spool of another size is rewritten). */
static gint64
drain_spool (const gchar * spool, guint64 max_bytes, gint64 last,
    guint64 * lost)
{
  Broker b = { 0 };
  Subscriber *sub;
  gchar *address;
  GstHarness *h;
  GArray *got;
  guint duplicates;
  gint64 first;

  broker_start (&b);
  sub = subscriber_new (b.port, "test/roi");
  address = broker_address (&b);
  h = harness_for_mqtt (address, NULL, "spool-dir", spool, "spool-max-bytes",
      max_bytes, NULL);
  for (guint i = 0; i < 3; i++)
    push_passthrough (h, frame_new (i));
  push_eos (h);
  *lost = dropped (h);
  gst_harness_teardown (h);
  got = subscriber_wait_frame (sub, last + 3);
  first = assert_each_once_in_order (got, last + 3, &duplicates);
  g_array_unref (got);
  subscriber_free (sub);
  broker_free (&b);
  g_free (address);
  return first;
}

/* Records a run could not deliver wait in the spool (not dropped) and go
 * first, in order, when the next run has a broker. */
GST_START_TEST (test_mqtt_spool_across_runs)
{
  gchar *spool = g_dir_make_tmp ("roiexport-spool-XXXXXX", NULL);
  guint64 lost;

  fail_unless_equals_uint64 (spool_without_broker (spool, 65536, 0, 20), 0);
  fail_unless_equals_int64 (drain_spool (spool, 65536, 19, &lost), 0);
  fail_unless_equals_uint64 (lost, 0);
  remove_spool (spool);
}

GST_END_TEST;

/* A full spool drops the oldest records, each counted: what is dropped
 * and what arrives later add up to every record, and the ones that
 * arrive are the newest.  A spool made smaller at the next start does
 * the same. */
GST_START_TEST (test_mqtt_spool_full)
{
  gchar *spool = g_dir_make_tmp ("roiexport-spool-XXXXXX", NULL);
  gchar *resized = g_dir_make_tmp ("roiexport-spool-XXXXXX", NULL);
  guint64 lost, drain_lost, resize_lost;
  gint64 delivered_from;

  lost = spool_without_broker (spool, 4096, 0, 100);
  fail_unless (lost > 50 && lost < 100, "dropped %" G_GUINT64_FORMAT, lost);
  /* The new records find the spool full too, before the broker takes the
   * old ones: up to 3 more of those are dropped. */
  delivered_from = drain_spool (spool, 4096, 99, &drain_lost);
  fail_unless_equals_int64 (delivered_from, lost + drain_lost);
  fail_unless (drain_lost <= 3);

  fail_unless_equals_uint64 (spool_without_broker (resized, 65536, 0, 100),
      0);
  fail_unless_equals_int64 (drain_spool (resized, 4096, 99, &resize_lost),
      resize_lost);
  fail_unless (resize_lost > 50, "dropped %" G_GUINT64_FORMAT, resize_lost);
  remove_spool (spool);
  remove_spool (resized);
}

GST_END_TEST;

/* A host that does not resolve: a warning that names it, frames pass at
 * once, EOS waits no longer than flush-timeout, and what could not be sent
 * is counted. */
GST_START_TEST (test_mqtt_wrong_host)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;
  gint64 start = g_get_monotonic_time ();
  GstElement *e;

  /* Bounds the name lookup where a resolver is configured but away. */
  g_setenv ("RES_OPTIONS", "timeout:1 attempts:1", TRUE);
  h = harness_for_mqtt ("nonexistent.invalid:1883", bus, "flush-timeout",
      300, NULL);
  e = gst_object_ref (h->element);
  for (guint i = 0; i < 5; i++)
    push_passthrough (h, frame_new (i));
  msg = wait_warning (bus, "nonexistent.invalid");
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, "Cannot reach the MQTT broker"));
  fail_unless (strstr (debug, "mqtt-broker"));
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  push_eos (h);
  gst_message_unref (wait_warning (bus, "flush-timeout=300"));
  gst_harness_teardown (h);
  fail_unless (g_get_monotonic_time () - start < 5 * G_TIME_SPAN_SECOND,
      "a wrong host held the pipeline");
  {
    guint64 n;
    g_object_get (e, "dropped", &n, NULL);
    fail_unless_equals_uint64 (n, 5);
  }
  gst_object_unref (e);
  /* Queued messages hold the element. */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* TLS with a CA file, user name and password, a chosen client id: the
 * records arrive under that id; a
 * wrong password or a CA that did not sign the broker's certificate gives
 * a warning that says why, and loses nothing uncounted. */
static void
assert_refused (const gchar * address, const gchar * ca, const gchar * pw,
    const gchar * why, const gchar * hint)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h = harness_for_mqtt (address, bus, "mqtt-ca-file", ca,
      "mqtt-username", "reader", "mqtt-password", pw, "flush-timeout", 200,
      NULL);
  GstElement *e = gst_object_ref (h->element);
  guint64 n;
  GstMessage *msg;
  gchar *debug = NULL;

  push_passthrough (h, frame_new (0));
  msg = wait_warning (bus, why);
  gst_message_parse_warning (msg, NULL, &debug);
  fail_unless (strstr (debug, hint) != NULL, "%s", debug);
  g_free (debug);
  gst_message_unref (msg);
  push_eos (h);
  gst_harness_teardown (h);
  g_object_get (e, "dropped", &n, NULL);
  fail_unless_equals_uint64 (n, 1);
  gst_object_unref (e);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_START_TEST (test_mqtt_tls_credentials)
{
  Broker b = { 0 };
  Subscriber *sub;
  gchar *address, *ca, *not_ca, *log_path, *log;
  GstHarness *h;
  GArray *got;

  broker_start_secure (&b);
  sub = subscriber_new (b.port, "test/roi");
  address = g_strdup_printf ("127.0.0.1:%d", b.secure_port);
  ca = g_build_filename (b.dir, "ca.pem", NULL);
  not_ca = g_build_filename (b.dir, "server.pem", NULL);

  h = harness_for_mqtt (address, NULL, "mqtt-ca-file", ca, "mqtt-username",
      "reader", "mqtt-password", "s3cret", "mqtt-client-id", "door-cam-7",
      NULL);
  for (guint i = 0; i < 5; i++)
    push_passthrough (h, frame_new (i));
  push_eos (h);
  gst_harness_teardown (h);
  got = subscriber_wait_frame (sub, 4);
  fail_unless_equals_int (got->len, 5);
  for (guint i = 0; i < 5; i++)
    fail_unless_equals_int64 (g_array_index (got, gint64, i), i);
  g_array_unref (got);

  assert_refused (address, ca, "wrong", "not authorised", "mqtt-password");
  assert_refused (address, not_ca, "s3cret", "TLS", "mqtt-ca-file");

  /* The broker logs the client id of each connection (the log is
   * complete once the broker has stopped). */
  subscriber_free (sub);
  broker_stop (&b);
  log_path = g_build_filename (b.dir, "broker.log", NULL);
  fail_unless (g_file_get_contents (log_path, &log, NULL, NULL));
  fail_unless (strstr (log, " as door-cam-7 ") != NULL, "%s", log);
  g_free (log);
  g_free (log_path);

  g_free (ca);
  g_free (not_ca);
  g_free (address);
  broker_free (&b);
}

GST_END_TEST;

static Suite *
roiexport_suite (void)
{
  Suite *s = suite_create ("roiexport");
  TCase *tc = tcase_create ("file");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_record_fields);
  tcase_add_test (tc, test_scores_and_children);
  tcase_add_test (tc, test_generic_params);
  tcase_add_test (tc, test_tracking);
  tcase_add_test (tc, test_gva_record);
  tcase_add_test (tc, test_labels_round_trip);
  tcase_add_test (tc, test_one_record_per_frame);
  tcase_add_test (tc, test_skip_empty);
  tcase_add_test (tc, test_failed_write_keeps_whole_records);
  tcase_add_test (tc, test_stdout);
  tcase_add_test (tc, test_stream_and_times);
  tcase_add_test (tc, test_bad_destination);
  tcase_add_test (tc, test_bad_spool);

  tc = tcase_create ("mqtt");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_mqtt_every_frame_in_order);
  tcase_add_test (tc, test_mqtt_broker_restart);
  tcase_add_test (tc, test_mqtt_wrong_host);
  tcase_add_test (tc, test_mqtt_outage_spooled);
  tcase_add_test (tc, test_mqtt_down_for_good);
  tcase_add_test (tc, test_mqtt_on_loss_error);
  tcase_add_test (tc, test_mqtt_spool_across_runs);
  tcase_add_test (tc, test_mqtt_spool_full);
  tcase_add_test (tc, test_mqtt_tls_credentials);
  return s;
}

GST_CHECK_MAIN (roiexport);
