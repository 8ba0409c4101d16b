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
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "clv-eigen.h"
#include "clv-test-eigen.h"
#include "clv-test-util.h"

/* Frames of a face photograph, or of moving test patterns (which differ
 * from frame to frame, so that a frame given twice shows).  A raster
 * format (Float32, CInt16, CFloat32) gives raster frames of a moving
 * pattern whatever the kind. */
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
  /* The element's state starts over at a flush and at a new frame size
   * (roitrack's tracks): a frame gives what it gives as the first of a
   * stream, and after a seek to frame 1 what frame 0 gave. */
  gboolean restarts;
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
  {"roioverlay-redact", "vjfacedetect ! roioverlay mode=blur", FACE,
      {"RGBA", "I420"}},
  {"roioverlay-redact-device", "vjfacedetect ! clupload ! roioverlay "
        "mode=pixelate ! cldownload", FACE, {"RGBA", "GRAY8"}},
  {"roitrack", "vjfacedetect ! roitrack", FACE, {"GRAY8", "I420"}, TRUE},
  {"sarmultilook-float", "sarmultilook looks=2", PATTERN,
      {"Float32", "GRAY16_LE"}},
  {"sarrotscale-float", "sarrotscale angle=30", PATTERN, {"Float32",
          "GRAY8"}},
  {"sarquantize-float", "sarquantize", PATTERN, {"Float32", "GRAY16_LE"}},
  {"sarspeckle", "sarspeckle filter=lee radius=2 looks=4", PATTERN,
      {"Float32", "GRAY16_LE", "GRAY8"}},
  {"sarintensity", "sarintensity", PATTERN, {"CInt16", "CFloat32"}},
  {"sardb", "sardb", PATTERN, {"Float32", "GRAY16_LE"}},
  {"sar-float-chain", "sarintensity ! sarspeckle filter=gammamap ! "
        "sarmultilook looks=2 ! sarrotscale angle=30 ! sarquantize", PATTERN,
      {"CInt16", "CFloat32"}},
  {"sar-float-chain-device", "clupload ! sarintensity ! sarspeckle "
        "filter=refined-lee ! sarmultilook looks=2 ! sarrotscale angle=30 ! "
        "sardb ! cldownload", PATTERN, {"CFloat32", "CInt16"}},
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

static gboolean
is_raster_format (const gchar * format)
{
  return g_str_equal (format, "Float32") || g_str_equal (format, "CInt16")
      || g_str_equal (format, "CFloat32");
}

/* Raster frame `i` (w x h, 1/30 s long): a pattern that moves from frame
 * to frame, intensities above 0 (Float32), complex parts of both signs. */
static GstBuffer *
raster_frame (const gchar * format, gint w, gint h, gint i)
{
  const gboolean cint16 = g_str_equal (format, "CInt16");
  const gboolean cfloat32 = g_str_equal (format, "CFloat32");
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      (gsize) w * h * (cfloat32 ? 8 : 4), NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      const gsize p = (gsize) y * w + x;
      const gint re = (x + 3 * i) % 23 - 11;
      const gint im = (2 * y + x / 4 + 5 * i) % 19 - 9;

      if (cint16) {
        ((gint16 *) map.data)[2 * p] = (gint16) (re * 100);
        ((gint16 *) map.data)[2 * p + 1] = (gint16) (im * 100);
      } else if (cfloat32) {
        ((gfloat *) map.data)[2 * p] = re * 0.5f;
        ((gfloat *) map.data)[2 * p + 1] = im * 0.25f;
      } else {
        ((gfloat *) map.data)[p] = 1.0f + (re * re + im * im) * 0.125f;
      }
    }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  return buf;
}

typedef struct
{
  gchar *format;
  gint width, height, n;
  gint next;                    /* atomic: the next frame */
} RasterSource;

static void
raster_source_free (gpointer data)
{
  RasterSource *r = data;

  g_free (r->format);
  g_free (r);
}

static void
raster_need_data (GstAppSrc * src, guint length, gpointer user_data)
{
  RasterSource *r = user_data;
  const gint i = g_atomic_int_add (&r->next, 1);

  if (i < r->n)
    gst_app_src_push_buffer (src, raster_frame (r->format, r->width,
            r->height, i));
  else
    gst_app_src_end_of_stream (src);
}

/* Also called as the source starts (at 0), so each run starts over. */
static gboolean
raster_seek_data (GstAppSrc * src, guint64 offset, gpointer user_data)
{
  RasterSource *r = user_data;

  g_atomic_int_set (&r->next, (gint) gst_util_uint64_scale_round (offset, 30,
          GST_SECOND));
  return TRUE;
}

/* `desc` launched; its appsrc named "raster", if it has one, made to give
 * `n` raster frames of its caps, and to seek. */
static GstElement *
launch (const gchar * desc, gint n)
{
  static GstAppSrcCallbacks callbacks = {.need_data = raster_need_data,
    .seek_data = raster_seek_data
  };
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src;
  GstCaps *caps;
  RasterSource *r;

  fail_unless (pipe != NULL, "%s does not parse", desc);
  src = gst_bin_get_by_name (GST_BIN (pipe), "raster");
  if (src == NULL)
    return pipe;
  r = g_new0 (RasterSource, 1);
  r->n = n;
  caps = gst_app_src_get_caps (GST_APP_SRC (src));
  r->format = g_strdup (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "format"));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &r->width));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "height", &r->height));
  gst_app_src_set_callbacks (GST_APP_SRC (src), &callbacks, r,
      raster_source_free);
  gst_caps_unref (caps);
  gst_object_unref (src);
  return pipe;
}

static gchar *
raster_caps (const gchar * format, gint w, gint h)
{
  return g_strdup_printf ("application/x-raster,format=%s,bands=1,width=%d,"
      "height=%d,framerate=30/1", format, w, h);
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
  gchar *src, *caps;

  if (is_raster_format (format)) {
    caps = raster_caps (format, w, h);
    src = g_strdup_printf ("appsrc name=raster format=time "
        "stream-type=seekable caps=\"%s\"", caps);
    g_free (caps);
  } else if (kind == FACE && seekable)
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
  gchar *src, *desc;
  GstElement *pipe, *sink;
  GstSample *sample;

  if (is_raster_format (format)) {
    gchar *caps_text = raster_caps (format, w, h);
    GstCaps *caps = gst_caps_from_string (caps_text);
    GstBuffer *buf = raster_frame (format, w, h, 0);

    sample = gst_sample_new (buf, caps, NULL, NULL);
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
    g_free (caps_text);
    return sample;
  }
  src = source (kind, format, w, h, 1, FALSE);
  desc = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  pipe = gst_parse_launch (desc, NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
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

/* A parameter structure of a region of interest as text; of tracking, only
 * what a fresh element gives too (an identifier is never given twice,
 * first-seen and last-seen are timestamps). */
static gchar *
param_text (const GstStructure * s)
{
  guint age = 0;
  gboolean predicted = FALSE;

  if (!gst_structure_has_name (s, "tracking"))
    return gst_structure_to_string (s);
  fail_unless (gst_structure_get_uint (s, "age", &age)
      && gst_structure_get_boolean (s, "predicted", &predicted));
  return g_strdup_printf ("tracking age=%u predicted=%d", age, predicted);
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
      gchar *text = param_text (l->data);
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
 * frame 1 on (from frame 0 on where the state starts over at a flush),
 * with their timestamps, and nothing is posted as an error. */
GST_START_TEST (test_seek_mid_stream)
{
  const Case *c = &cases[__i__];
  gchar *bin = case_bin (c);
  gchar *src = source (c->kind, c->formats[0], 128, 96, 30, TRUE);
  gchar *desc = g_strdup_printf ("%s ! %s ! appsink name=sink sync=false "
      "max-buffers=2", src, bin);
  GstElement *pipe = launch (desc, 30);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  const guint shift = c->restarts ? 1 : 0;
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
    fail_unless (g_strcmp0 (after, before[i - shift]) == 0, "%s, frame %u "
        "after the seek: %s, before %s", c->name, i, after, before[i - shift]);
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
  GstElement *pipe = launch (desc, 3);
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
