/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What gst-validate's standard scenarios check, for each element (Debian 12
 * packages no gst-validate): new caps at every frame, a flushing seek in
 * the middle of a stream, and NULL -> PLAYING -> NULL a hundred times.
 * The element is compared with itself: each frame must give what a fresh
 * element gives for that frame alone, and frames after a seek what they
 * gave before it. */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "clv-eigen.h"
#include "clv-test-eigen.h"
#include "clv-test-util.h"

/* Frames of a face photograph, or of moving test patterns (which differ
 * from frame to frame, so that a frame given twice shows). */
typedef enum
{
  FACE,
  PATTERN,
} Kind;

typedef struct
{
  const gchar *name;
  const gchar *bin;             /* %s: the model file */
  Kind kind;
  const gchar *formats[4];      /* NULL-terminated */
} Case;

static const Case cases[] = {
  {"vjfacedetect", "vjfacedetect", FACE, {"GRAY8", "I420", "RGBA"}},
  {"eigenrecognise", "vjfacedetect ! eigenrecognise model=%s", FACE,
      {"GRAY8", "NV12"}},
  {"roioverlay", "vjfacedetect ! roioverlay", FACE, {"RGBA", "I420"}},
  {"roioverlay-device", "vjfacedetect ! clupload ! roioverlay ! cldownload",
      FACE, {"RGBA", "GRAY8"}},
  {"clupload-cldownload", "clupload ! cldownload", PATTERN,
      {"GRAY8", "I420", "RGBA"}},
  {"sarmultilook", "sarmultilook looks=2", PATTERN, {"GRAY16_LE", "GRAY8"}},
  {"sarrotscale", "sarrotscale angle=30", PATTERN, {"GRAY16_LE", "GRAY8"}},
  {"sarquantize", "sarquantize", PATTERN, {"GRAY16_LE"}},
  {"sar-chain-device", "clupload ! sarmultilook looks=2 ! sarrotscale "
        "angle=30 ! sarquantize ! cldownload", PATTERN, {"GRAY16_LE"}},
  {"roiexport", "vjfacedetect ! roiexport location=/dev/null", FACE,
      {"GRAY8", "RGBA"}},
};

static const gint sizes[][2] = { {160, 160}, {128, 96}, {96, 128} };

static gchar *model_path;

/* A model of the LFW training faces for eigenrecognise. */
static void
setup (void)
{
  model_path = clv_test_eigen_model_file ();
}

static void
teardown (void)
{
  clv_test_eigen_model_file_remove (model_path);
}

static gchar *
case_bin (const Case * c)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return g_strdup_printf (c->bin, model_path);
#pragma GCC diagnostic pop
}

/* The source of a case's frames, `n` of them (1/30 s apart).  A face
 * source that can seek repeats one decoded frame (imagefreeze); one that
 * need not decodes the file for each frame (imagefreeze can fail an
 * assertion when stopped before it has caps). */
static gchar *
source (Kind kind, const gchar * format, gint w, gint h, gint n,
    gboolean seekable)
{
  gchar *face = clv_test_data_path ("tests/data/cache/grace_hopper.pgm");
  gchar *src;

  if (kind == FACE && seekable)
    src = g_strdup_printf ("filesrc location=%s ! pnmdec ! videoconvert ! "
        "videoscale ! video/x-raw,format=%s,width=%d,height=%d ! "
        "imagefreeze num-buffers=%d ! video/x-raw,framerate=30/1", face,
        format, w, h, n);
  else if (kind == FACE)
    src = g_strdup_printf ("multifilesrc location=%s num-buffers=%d "
        "caps=image/x-portable-graymap,framerate=30/1 ! pnmdec ! "
        "videoconvert ! videoscale ! video/x-raw,format=%s,width=%d,"
        "height=%d", face, n, format, w, h);
  else
    src = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%d ! "
        "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n, format,
        w, h);
  g_free (face);
  return src;
}

/* One frame of `kind` in `format` at w x h, with its caps. */
static GstSample *
frame (Kind kind, const gchar * format, gint w, gint h)
{
  gchar *src = source (kind, format, w, h, 1, FALSE);
  gchar *desc = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstSample *sample;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL, "%s gave no frame", desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (src);
  return sample;
}

/* A buffer's bytes and its region-of-interest metas, as one string, to
 * compare outputs. */
static gchar *
digest (GstBuffer * buf)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GstMapInfo map;
  gpointer state = NULL;
  GstMeta *meta;
  GString *s = g_string_new (NULL);

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  g_checksum_update (sum, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_string_append (s, g_checksum_get_string (sum));
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    g_string_append_printf (s, " roi %s %u,%u %ux%u",
        g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h);
    for (GList * l = roi->params; l != NULL; l = l->next) {
      gchar *text = gst_structure_to_string (l->data);
      g_string_append_printf (s, " %s", text);
      g_free (text);
    }
  }
  g_checksum_free (sum);
  return g_string_free (s, FALSE);
}

/* What `h` gives for `sample`, pushed with its caps: the output's caps
 * and digest. */
static gchar *
push_sample (GstHarness * h, GstSample * sample)
{
  GstBuffer *out;
  GstCaps *caps;
  gchar *d, *c, *both;

  gst_harness_set_src_caps (h, gst_caps_copy (gst_sample_get_caps (sample)));
  out = gst_harness_push_and_pull (h,
      gst_buffer_ref (gst_sample_get_buffer (sample)));
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  c = gst_caps_to_string (caps);
  d = digest (out);
  both = g_strdup_printf ("%s %s", c, d);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  g_free (c);
  g_free (d);
  return both;
}

/* New caps at every frame: size and format change each time, and every
 * frame gives what a fresh element gives for it alone. */
GST_START_TEST (test_caps_change_every_frame)
{
  const Case *c = &cases[__i__];
  gchar *bin = case_bin (c);
  GstHarness *h = gst_harness_new_parse (bin);
  guint n_formats = g_strv_length ((gchar **) c->formats);

  for (guint i = 0; i < 6; i++) {
    GstSample *sample = frame (c->kind, c->formats[i % n_formats],
        sizes[i % 3][0], sizes[i % 3][1]);
    GstHarness *fresh = gst_harness_new_parse (bin);
    gchar *got = push_sample (h, sample), *expected = push_sample (fresh,
        sample);

    fail_unless (g_strcmp0 (got, expected) == 0, "%s, frame %u: %s, alone %s",
        c->name, i, got, expected);
    gst_harness_teardown (fresh);
    gst_sample_unref (sample);
    g_free (got);
    g_free (expected);
  }
  gst_harness_teardown (h);
  g_free (bin);
}

GST_END_TEST;

/* The next sample of `sink`: its timestamp and digest. */
static gchar *
pull (GstElement * sink, GstClockTime * pts)
{
  GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  gchar *d;

  fail_unless (sample != NULL, "no frame");
  *pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));
  d = digest (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  return d;
}

static void
assert_no_error (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg != NULL) {
    GError *error = NULL;
    gst_message_parse_error (msg, &error, NULL);
    fail ("error from %s: %s", GST_MESSAGE_SRC_NAME (msg), error->message);
  }
  gst_object_unref (bus);
}

/* A flushing seek back to frame 1 while frames are in the element (the
 * sink holds at most 2): the frames after it are those of before, from
 * frame 1 on, with their timestamps, and nothing is posted as an error. */
GST_START_TEST (test_seek_mid_stream)
{
  const Case *c = &cases[__i__];
  gchar *bin = case_bin (c);
  gchar *src = source (c->kind, c->formats[0], 128, 96, 30, TRUE);
  gchar *desc = g_strdup_printf ("%s ! %s ! appsink name=sink sync=false "
      "max-buffers=2", src, bin);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gchar *before[4];
  GstClockTime pts;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < 4; i++) {
    before[i] = pull (sink, &pts);
    fail_unless_equals_uint64 (pts, gst_util_uint64_scale (i, GST_SECOND,
            30));
  }
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
          gst_util_uint64_scale (1, GST_SECOND, 30)));
  for (guint i = 1; i < 4; i++) {
    gchar *after = pull (sink, &pts);
    fail_unless_equals_uint64 (pts, gst_util_uint64_scale (i, GST_SECOND,
            30));
    fail_unless (g_strcmp0 (after, before[i]) == 0, "%s, frame %u after the "
        "seek: %s, before %s", c->name, i, after, before[i]);
    g_free (after);
  }
  assert_no_error (pipe);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (guint i = 0; i < 4; i++)
    g_free (before[i]);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (src);
  g_free (bin);
}

GST_END_TEST;

/* NULL -> PLAYING (prerolled) -> NULL a hundred times, then a run to EOS
 * that gives every frame, with no error on the way. */
GST_START_TEST (test_state_cycles)
{
  const Case *c = &cases[__i__];
  gchar *bin = case_bin (c);
  gchar *src = source (c->kind, c->formats[0], 96, 64, 3, FALSE);
  gchar *desc = g_strdup_printf ("%s ! %s ! fakesink name=sink", src, bin);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GstStructure *stats;
  guint64 rendered;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");

  for (guint i = 0; i < 100; i++) {
    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE, "cycle %u", i);
    fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s: no EOS", c->name);
  gst_message_unref (msg);
  g_object_get (sink, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "rendered", &rendered));
  gst_structure_free (stats);
  fail_unless_equals_uint64 (rendered, 3);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (src);
  g_free (bin);
}

GST_END_TEST;

#ifdef HAVE_GDAL_PLUGIN
static gchar *tmp_dir;

static void
setup_tmp_dir (void)
{
  tmp_dir = g_dir_make_tmp ("lifecycle-gdal-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
}

static void
teardown_tmp_dir (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);

  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
  g_clear_pointer (&tmp_dir, g_free);
}

/* Runs `desc` to EOS (no error on the way). */
static void
run_to_eos (const gchar * desc)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s", desc);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s: no EOS", desc);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* gdalsink with new caps at every frame: each frame's raster, read back
 * by gdalsrc, is that frame (its size, its format, its bytes). */
GST_START_TEST (test_gdalsink_caps_change_every_frame)
{
  const gchar *formats[2] = { "GRAY16_LE", "GRAY8" };
  gchar *out = g_build_filename (tmp_dir, "out-%d.tif", NULL);
  gchar *sink = g_strdup_printf ("gdalsink location=%s", out);
  GstHarness *h = gst_harness_new_parse (sink);
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! appsink name=sink "
      "sync=false", out);
  GstElement *pipe;
  GstElement *appsink;

  for (guint i = 0; i < 4; i++) {
    GstSample *sample = frame (PATTERN, formats[i % 2], sizes[i % 3][0],
        sizes[i % 3][1]);

    gst_harness_set_src_caps (h, gst_caps_copy (gst_sample_get_caps
            (sample)));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref
            (gst_sample_get_buffer (sample))), GST_FLOW_OK);
    gst_sample_unref (sample);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  gst_harness_teardown (h);

  pipe = gst_parse_launch (desc, NULL);
  appsink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < 4; i++) {
    GstSample *got = gst_app_sink_pull_sample (GST_APP_SINK (appsink));
    GstSample *expected = frame (PATTERN, formats[i % 2], sizes[i % 3][0],
        sizes[i % 3][1]);
    GstVideoInfo info;
    gchar *a, *b;

    fail_unless (got != NULL, "raster %u missing", i);
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (got)));
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), sizes[i % 3][0]);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), sizes[i % 3][1]);
    fail_unless_equals_string (GST_VIDEO_INFO_NAME (&info), formats[i % 2]);
    a = digest (gst_sample_get_buffer (got));
    b = digest (gst_sample_get_buffer (expected));
    fail_unless_equals_string (a, b);
    g_free (a);
    g_free (b);
    gst_sample_unref (got);
    gst_sample_unref (expected);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (appsink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (sink);
  g_free (out);
}

GST_END_TEST;

/* gdalsrc ! gdalsink: NULL -> PLAYING -> NULL a hundred times, then a run
 * to EOS; gdalsrc, which cannot seek, refuses a flushing seek mid-stream
 * and the stream goes on to its end without an error. */
GST_START_TEST (test_gdal_state_cycles_and_seek)
{
  gchar *in = g_build_filename (tmp_dir, "in-%d.tif", NULL);
  gchar *out = g_build_filename (tmp_dir, "copy-%d.tif", NULL);
  gchar *make = g_strdup_printf ("videotestsrc pattern=ball num-buffers=5 ! "
      "video/x-raw,format=GRAY16_LE,width=96,height=64 ! gdalsink "
      "location=%s", in);
  gchar *copy = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
      "location=%s", in, out);
  gchar *read = g_strdup_printf ("gdalsrc location=%s ! appsink name=sink "
      "sync=false max-buffers=1", in);
  GstElement *pipe;
  GstElement *appsink;
  GstClockTime pts;
  guint n = 0;

  run_to_eos (make);
  pipe = gst_parse_launch (copy, NULL);
  for (guint i = 0; i < 100; i++) {
    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE, "cycle %u", i);
    fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (pipe);
  run_to_eos (copy);

  pipe = gst_parse_launch (read, NULL);
  appsink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_free (pull (appsink, &pts));
  n++;
  fail_if (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0));
  while (!gst_app_sink_is_eos (GST_APP_SINK (appsink))) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (appsink));
    if (s == NULL)
      break;
    gst_sample_unref (s);
    n++;
  }
  fail_unless_equals_int (n, 5);
  assert_no_error (pipe);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (appsink);
  gst_object_unref (pipe);
  g_free (read);
  g_free (copy);
  g_free (make);
  g_free (out);
  g_free (in);
}

GST_END_TEST;
#endif

static Suite *
lifecycle_suite (void)
{
  Suite *s = suite_create ("lifecycle");
  TCase *tc = tcase_create ("general");
  const gint n = G_N_ELEMENTS (cases);

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_caps_change_every_frame, 0, n);
  tcase_add_loop_test (tc, test_seek_mid_stream, 0, n);
  tcase_add_loop_test (tc, test_state_cycles, 0, n);
#ifdef HAVE_GDAL_PLUGIN
  tc = tcase_create ("gdal");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup_tmp_dir, teardown_tmp_dir);
  tcase_add_test (tc, test_gdalsink_caps_change_every_frame);
  tcase_add_test (tc, test_gdal_state_cycles_and_seek);
#endif
  return s;
}

GST_CHECK_MAIN (lifecycle);
