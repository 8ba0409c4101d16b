/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-streams: many concurrent face-detection streams in one process.
 *
 *   bench-streams --image FILE [--sizes 640x480,1920x1080] [--streams 1,4,16]
 *                 [--frames 150] [--devices auto,first] [--batching on,off]
 *                 [--in-flight 0,1] [--video | --convert] [--live FPS]
 *                 [--after ELEMENTS] [--out FILE.json]
 *
 * For each frame size and stream count N, runs N pipelines at once
 *   filesrc ! decodebin ! videoconvert ! videoscale ! GRAY8 WxH !
 *   imagefreeze num-buffers=F ! vjfacedetect device=D ! fakesink sync=false
 * (each with its own streaming threads, as N cameras would), prerolls them
 * (kernels built, first frame analysed), then lets them run as fast as they
 * can and reports the aggregate frames/s over the N streams and the latency
 * of vjfacedetect per frame (time from its sink pad to its source pad),
 * p50, p99 and maximum over every frame of every stream (with the share of
 * the frames slower than p99 that were among the first tenth of their
 * stream's, and the p50 and maximum of each tenth), and each device's busy
 * fraction: the share of the run's device time (first kernel start to last
 * kernel end) during which a detection kernel ran, from the profiling
 * events (clv_device_busy_start()).  --devices runs every case with each
 * vjfacedetect device setting given: with several GPUs, "auto" spreads the
 * pipelines over them (docs/design.md, device choice) and "first" puts
 * them all on the first, so "--devices first,auto" measures the gain of
 * spreading; the JSON records which device each pipeline got.  --batching
 * runs every case with cross-stream batching on (the default: frames of
 * all streams on a device share detection launches) and off (batch-size=0:
 * one detector per element), in the same process; --in-flight likewise
 * with vjfacedetect's in-flight (frames each element analyses at once; 0
 * its default, 1 with batching off).  With --video the FILE is
 * a video: every stream decodes and plays its first F frames (cut by
 * `identity eos-after` before decodebin, where the demuxer stops at its EOS;
 * a decoder or a queue may push one more buffer, which identity lets
 * through with all that follow), the decoding on the CPU included.  With
 * --convert the picture is frozen as I420 and every frame converted to
 * GRAY8 by a videoconvert (4 threads, so that the conversion keeps up
 * with the GPU): written, as a camera's frames are, into the pool
 * vjfacedetect proposes (pinned memory), where imagefreeze alone would
 * push one pageable buffer over and over.  With --live FPS imagefreeze is
 * a live source of FPS frames/s, as a camera is: frames come no faster than
 * that, so the latency is what a camera's frames see (none waits for
 * vjfacedetect to take it).  --after puts ELEMENTS (a gst-launch
 * description, e.g. roitrack) between vjfacedetect and the sink, to
 * measure what they cost the streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include "gstclv-private.h"

#include "bench-common.h"

typedef struct
{
  GstElement *pipeline;
  GMutex lock;
  GQueue entered;               /* monotonic µs of frames inside vjfacedetect */
  GArray *latency_us;           /* of the frames while timing */
  gint64 frames;                /* leaving vjfacedetect while timing */
  gboolean timing;
  ClvDevice *dev;               /* the one its context names */
} Stream;

static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;
  gint64 *t = g_new (gint64, 1);

  *t = g_get_monotonic_time ();
  g_mutex_lock (&s->lock);
  g_queue_push_tail (&s->entered, t);
  g_mutex_unlock (&s->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;
  gint64 now = g_get_monotonic_time (), *t;

  g_mutex_lock (&s->lock);
  t = g_queue_pop_head (&s->entered);
  if (t && s->timing) {
    double us = (double) (now - *t);
    g_array_append_val (s->latency_us, us);
    s->frames++;
  }
  g_mutex_unlock (&s->lock);
  g_free (t);
  return GST_PAD_PROBE_OK;
}

/* Waits for the state change of `pipe`, failing on an error message. */
static void
wait_state (Stream * s)
{
  if (gst_element_get_state (s->pipeline, NULL, NULL, GST_CLOCK_TIME_NONE)
      == GST_STATE_CHANGE_FAILURE)
    g_error ("bench-streams: a pipeline failed to start (see GST_DEBUG)");
}

/* --live: frames/s of a live imagefreeze, 0: as fast as it can. */
static gint live_fps;
/* --after: elements after vjfacedetect, NULL: none. */
static gchar *after;

/* What comes between filesrc and the GRAY8 caps before vjfacedetect. */
static gchar *
stream_source (gboolean video, gboolean convert, int w, int h, int frames)
{
  gchar *freeze, *cut;

  if (video)
    return g_strdup_printf ("parsebin ! identity eos-after=%d ! decodebin ! "
        "videoconvert ! videoscale", frames + 1);
  freeze = live_fps ? g_strdup_printf ("imagefreeze is-live=true "
      "num-buffers=%d ! capsfilter caps=video/x-raw,framerate=%d/1",
      frames + 1, live_fps) :
      g_strdup_printf ("imagefreeze num-buffers=%d", frames + 1);
  if (convert)
    cut = g_strdup_printf ("decodebin ! videoconvert ! videoscale ! "
        "video/x-raw,format=I420,width=%d,height=%d ! %s ! videoconvert "
        "n-threads=4", w, h, freeze);
  else
    cut = g_strdup_printf ("decodebin ! videoconvert ! videoscale ! %s",
        freeze);
  g_free (freeze);
  return cut;
}

static void
stream_start (Stream * s, const char *image, gboolean video,
    gboolean convert, int w, int h, int frames, const char *device,
    gboolean batching, int in_flight)
{
  gchar *loc = g_strescape (image, NULL);
  gchar *cut = stream_source (video, convert, w, h, frames);
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! %s ! "
      "video/x-raw,format=GRAY8,width=%d,height=%d ! vjfacedetect name=vj "
      "device=%s in-flight=%d%s ! %s%sfakesink sync=false", loc, cut, w, h,
      device, in_flight, batching ? "" : " batch-size=0", after ? after : "",
      after ? " ! " : "");
  GError *error = NULL;
  GstElement *vj;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;

  s->pipeline = gst_parse_launch (desc, &error);
  if (s->pipeline == NULL || error)
    g_error ("bench-streams: %s: %s", desc, error ? error->message : "?");
  g_free (desc);
  g_free (loc);
  g_free (cut);
  g_mutex_init (&s->lock);
  g_queue_init (&s->entered);
  s->latency_us = g_array_new (FALSE, FALSE, sizeof (double));
  vj = gst_bin_get_by_name (GST_BIN (s->pipeline), "vj");
  pad = gst_element_get_static_pad (vj, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_enter, s, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (vj, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_leave, s, NULL);
  gst_object_unref (pad);
  gst_object_unref (vj);
  gst_element_set_state (s->pipeline, GST_STATE_PAUSED);
  wait_state (s);
  /* The device the pipeline's context names. */
  bus = gst_element_get_bus (s->pipeline);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT))) {
    GstContext *context;
    GstClvDevice *dev;

    gst_message_parse_have_context (msg, &context);
    if ((dev = gst_clv_context_get_device (context))) {
      g_clear_pointer (&s->dev, clv_device_unref);
      s->dev = clv_device_ref (gst_clv_device_get_runtime (dev));
      gst_object_unref (dev);
    }
    gst_context_unref (context);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

static void
stream_free (Stream * s)
{
  gst_element_set_state (s->pipeline, GST_STATE_NULL);
  gst_object_unref (s->pipeline);
  g_queue_clear_full (&s->entered, g_free);
  g_array_unref (s->latency_us);
  g_clear_pointer (&s->dev, clv_device_unref);
  g_mutex_clear (&s->lock);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* One run of `n` streams; appends its JSON object to `json`. */
static void
run (GString * json, const char *image, gboolean video, gboolean convert,
    int w, int h, int n, int frames, const char *device, gboolean batching,
    int in_flight)
{
  Stream *streams = g_new0 (Stream, n);
  GArray *all = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 t0, t1, total = 0;
  double seconds;
  GString *devices = g_string_new (NULL), *busy = g_string_new (NULL);
  GPtrArray *used = g_ptr_array_new ();   /* distinct devices, borrowed */

  for (int i = 0; i < n; i++)
    stream_start (&streams[i], image, video, convert, w, h, frames, device,
        batching, in_flight);
  for (int i = 0; i < n; i++) {
    g_mutex_lock (&streams[i].lock);
    streams[i].timing = TRUE;
    g_mutex_unlock (&streams[i].lock);
    if (streams[i].dev == NULL)
      g_error ("bench-streams: stream %d posted no OpenCL context", i);
    if (!g_ptr_array_find (used, streams[i].dev, NULL)) {
      g_ptr_array_add (used, streams[i].dev);
      clv_device_busy_start (streams[i].dev);
    }
  }
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < n; i++)
    gst_element_set_state (streams[i].pipeline, GST_STATE_PLAYING);
  for (int i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (streams[i].pipeline);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("bench-streams: stream %d: %s", i, err->message);
    }
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  t1 = g_get_monotonic_time ();
  seconds = (t1 - t0) / 1e6;
  for (guint i = 0; i < used->len; i++) {
    ClvDevice *dev = used->pdata[i];
    double span, fraction = clv_device_busy_stop (dev, &span);

    g_string_append_printf (busy, "%s\"%u:%u\": %.3f", i ? ", " : "",
        dev->platform_index, dev->device_index, fraction);
  }
  for (int i = 0; i < n; i++) {
    total += streams[i].frames;
    g_array_append_vals (all, streams[i].latency_us->data,
        streams[i].latency_us->len);
    g_string_append_printf (devices, "%s\"%u:%u\"", i ? ", " : "",
        streams[i].dev->platform_index, streams[i].dev->device_index);
  }
  qsort (all->data, all->len, sizeof (double), compare_doubles);
  {
    double p50 = all->len ? g_array_index (all, double, all->len / 2) : 0;
    double p99 = all->len ? g_array_index (all, double,
        MIN (all->len - 1, (guint) (all->len * 0.99))) : 0;
    double max = all->len ? g_array_index (all, double, all->len - 1) : 0;
    guint tail = 0, early = 0;
    GString *tenths = g_string_new (NULL);

    /* Whether the slowest frames are the first ones (streams starting,
     * batches growing) or come throughout. */
    for (int i = 0; i < n; i++) {
      const GArray *l = streams[i].latency_us;
      for (guint k = 0; k < l->len; k++)
        if (g_array_index (l, double, k) > p99) {
          tail++;
          early += k < l->len / 10;
        }
    }
    /* p50 and maximum of each tenth of the streams' frames: how long the
     * start lasts. */
    for (int t = 0; t < 10; t++) {
      GArray *part = g_array_new (FALSE, FALSE, sizeof (double));
      for (int i = 0; i < n; i++) {
        const GArray *l = streams[i].latency_us;
        g_array_append_vals (part, (double *) l->data + l->len * t / 10,
            l->len * (t + 1) / 10 - l->len * t / 10);
      }
      qsort (part->data, part->len, sizeof (double), compare_doubles);
      g_string_append_printf (tenths, "%s[%.3f, %.3f]", t ? ", " : "",
          part->len ? g_array_index (part, double, part->len / 2) / 1000 : 0,
          part->len ? g_array_index (part, double, part->len - 1) / 1000 : 0);
      g_array_unref (part);
    }
    g_string_append_printf (json, "%s\n    {\"width\": %d, \"height\": %d, "
        "\"streams\": %d, \"device\": \"%s\", \"batching\": %s, "
        "\"in_flight\": %d, "
        "\"frames\": %" G_GINT64_FORMAT ", \"seconds\": %.3f, "
        "\"fps\": %.1f, \"latency_ms_p50\": %.3f, \"latency_ms_p99\": %.3f, "
        "\"latency_ms_max\": %.3f, \"over_p99_in_first_tenth\": %.2f, "
        "\"latency_ms_p50_max_by_tenth\": [%s], "
        "\"busy\": {%s}, \"devices\": [%s]}",
        json->str[json->len - 1] == '[' ? "" : ",", w, h, n, device,
        batching ? "true" : "false", in_flight, total, seconds,
        total / seconds,
        p50 / 1000, p99 / 1000, max / 1000, tail ? (double) early / tail : 0,
        tenths->str, busy->str, devices->str);
    g_printerr ("%dx%d %3d streams, device %s, batching %-3s, in flight %d: "
        "%8.1f frames/s, latency p50 %.2f ms, p99 %.2f ms, busy %s\n", w, h,
        n, device, batching ? "on" : "off", in_flight, total / seconds,
        p50 / 1000, p99 / 1000, busy->str);
    g_string_free (tenths, TRUE);
  }
  for (int i = 0; i < n; i++)
    stream_free (&streams[i]);
  g_free (streams);
  g_array_unref (all);
  g_ptr_array_unref (used);
  g_string_free (devices, TRUE);
  g_string_free (busy, TRUE);
}

int
main (int argc, char **argv)
{
  gchar *image = NULL, *sizes = g_strdup ("640x480,1920x1080");
  gchar *counts = g_strdup ("1,4,16"), *device_specs = g_strdup ("auto");
  gchar *out = NULL, *command = g_strjoinv (" ", argv);
  gchar *batching = g_strdup ("on"), *in_flights = g_strdup ("0");
  gint frames = 150;
  gboolean video = FALSE, convert = FALSE;
  GOptionEntry entries[] = {
    {"image", 0, 0, G_OPTION_ARG_FILENAME, &image, "Picture every stream "
          "shows (any format GStreamer decodes)", "FILE"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes, "Frame sizes", "WxH,..."},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &counts, "Stream counts", "N,..."},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames per stream", "F"},
    {"devices", 0, 0, G_OPTION_ARG_STRING, &device_specs, "vjfacedetect's "
          "device settings, each case run with each", "SPEC,..."},
    {"batching", 0, 0, G_OPTION_ARG_STRING, &batching, "Cross-stream "
          "batching, on and/or off", "on,off"},
    {"in-flight", 0, 0, G_OPTION_ARG_STRING, &in_flights, "vjfacedetect's "
          "in-flight, each case run with each", "N,..."},
    {"video", 0, 0, G_OPTION_ARG_NONE, &video, "FILE is a video: play its "
          "first frames instead of repeating one picture", NULL},
    {"live", 0, 0, G_OPTION_ARG_INT, &live_fps, "imagefreeze is a live "
          "source of FPS frames/s", "FPS"},
    {"convert", 0, 0, G_OPTION_ARG_NONE, &convert, "Convert every frame of "
          "the picture from I420 into vjfacedetect's pool", NULL},
    {"after", 0, 0, G_OPTION_ARG_STRING, &after, "Elements between "
          "vjfacedetect and the sink", "ELEMENTS"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out, "JSON results", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- concurrent detection "
      "streams");
  GError *error = NULL;
  gchar **size_list, **count_list, **batch_list, **device_list;
  gchar **flight_list;
  GString *json = g_string_new (NULL);
  ClvDevice *dev;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || image == NULL
      || frames < 1 || (video && convert) || live_fps < 0
      || (video && live_fps))
    g_error ("bench-streams: %s", error ? error->message :
        "--image FILE is needed, --frames at least 1, and --video and "
        "--convert exclude each other, and --live takes a picture");
  g_option_context_free (ctx);
  bench_time_kernels ();
  gst_init (NULL, NULL);
  device_list = g_strsplit (device_specs, ",", -1);
  /* The JSON's device: the first setting's. */
  dev = clv_device_open (device_list[0], &error);
  if (dev == NULL)
    g_error ("bench-streams: %s", error->message);
  bench_json_begin (json, dev, command);
  clv_device_unref (dev);
  g_string_append_printf (json, ",\n  \"after\": \"%s\"", after ? after : "");
  g_string_append_printf (json, ",\n  \"image\": \"%s\",\n  \"video\": %s,"
      "\n  \"convert\": %s,\n  \"live_fps\": %d,\n  "
      "\"frames_per_stream\": %d,\n  \"pipeline\": \"filesrc ! %s ! GRAY8 "
      "WxH ! vjfacedetect device=D ! fakesink sync=false\",\n  \"runs\": [",
      image, video ? "true" : "false", convert ? "true" : "false", live_fps,
      frames, video ? "parsebin ! identity eos-after ! decodebin ! "
      "videoconvert ! videoscale" : convert ? "decodebin ! videoconvert ! "
      "videoscale ! I420 WxH ! imagefreeze ! videoconvert n-threads=4" :
      "decodebin ! videoconvert ! videoscale ! imagefreeze");
  size_list = g_strsplit (sizes, ",", -1);
  count_list = g_strsplit (counts, ",", -1);
  batch_list = g_strsplit (batching, ",", -1);
  flight_list = g_strsplit (in_flights, ",", -1);
  for (int s = 0; size_list[s]; s++) {
    int w, h;
    if (sscanf (size_list[s], "%dx%d", &w, &h) != 2 || w < 1 || h < 1)
      g_error ("bench-streams: bad size %s", size_list[s]);
    for (int c = 0; count_list[c]; c++) {
      int n = atoi (count_list[c]);
      if (n < 1)
        g_error ("bench-streams: bad stream count %s", count_list[c]);
      for (int d = 0; device_list[d]; d++)
        for (int b = 0; batch_list[b]; b++)
          for (int f = 0; flight_list[f]; f++) {
            gboolean on = g_str_equal (batch_list[b], "on");

            if (!on && !g_str_equal (batch_list[b], "off"))
              g_error ("bench-streams: --batching takes on and off");
            if (atoi (flight_list[f]) < 0)
              g_error ("bench-streams: bad in-flight %s", flight_list[f]);
            run (json, image, video, convert, w, h, n, frames, device_list[d],
                on, atoi (flight_list[f]));
          }
    }
  }
  g_string_append (json, "\n  ]\n}\n");
  if (out && !g_file_set_contents (out, json->str, -1, &error))
    g_error ("bench-streams: %s", error->message);
  if (!out)
    g_print ("%s", json->str);
  g_strfreev (size_list);
  g_strfreev (count_list);
  g_strfreev (batch_list);
  g_strfreev (flight_list);
  g_free (in_flights);
  g_strfreev (device_list);
  g_free (batching);
  g_string_free (json, TRUE);
  g_free (image);
  g_free (sizes);
  g_free (counts);
  g_free (device_specs);
  g_free (out);
  g_free (command);
  return 0;
}
