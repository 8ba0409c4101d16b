/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: the SAR chain on large GRAY16_LE frames, system memory against
 * memory:OpenCL, and where the time goes.  Prints one JSON object.
 *
 *   GST_PLUGIN_PATH_1_0=build/gst build/tests/bench/bench-chain \
 *       [--size 4096] [--frames 300] [--chain "sarmultilook looks=4 ! ..."] \
 *       [--out FILE]
 *
 * Modes, each over the same chain (default: sarmultilook ! sarrotscale !
 * sarquantize, or the part of it that is built):
 *   system           system memory caps, frames from malloc (pageable),
 *                    which the first element uploads; between elements an
 *                    identity that forwards no allocation query, so each
 *                    element allocates its output from its own (device)
 *                    pool, which the next one uses where it is;
 *   system_pool      the same, frames written into the pool of pinned
 *                    buffers the first element proposes (what a source
 *                    element upstream would use);
 *   system_queue     system, with a queue before the sink, so that the
 *                    sink reads frame n in its own thread while the chain
 *                    copies frame n+1 (a staged upload returns once the
 *                    frame is copied);
 *   opencl_pageable  clupload ! chain ! cldownload, frames from malloc;
 *   opencl_pinned    the same, frames written into clupload's pool (pinned
 *                    host memory, what a source element upstream would use);
 *   resident         frames already on the device (uploaded once): the
 *                    chain alone, no transfer at all.
 * The chain is timed again element by element in resident mode (stages_ms),
 * and host<->device copies of one frame are timed on their own
 * (transfers_ms).  Except in resident mode, the sink reads each output
 * frame on the CPU, as a real sink would.  The clock stops when the device
 * queue is drained. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bench-common.h"
#include "clv-opencl.h"
#include "gstclv-private.h"

#define DEFAULT_CHAIN "sarmultilook looks=4 ! sarrotscale angle=30 ! sarquantize"
#define WARMUP 5
#define POOL_BUFFERS 6

typedef enum
{
  MODE_SYSTEM,
  MODE_SYSTEM_POOL,
  MODE_PAGEABLE,
  MODE_PINNED,
  MODE_RESIDENT,
  MODE_SYSTEM_QUEUE,
} Mode;

static const char *mode_names[] = { "system", "system_pool",
  "opencl_pageable", "opencl_pinned", "resident", "system_queue"
};

typedef struct
{
  double ms_per_frame;
  double uploads_per_frame;
  double downloads_per_frame;
} Result;

typedef struct
{
  GMutex lock;
  GCond cond;
  guint count;
  gboolean read_frames;         /* map each output frame for the CPU */
} Counter;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Counter * c)
{
  GstMapInfo map;

  if (c->read_frames) {
    if (!gst_buffer_map (buf, &map, GST_MAP_READ))
      g_error ("cannot map an output frame for reading");
    gst_buffer_unmap (buf, &map);
  }
  g_mutex_lock (&c->lock);
  c->count++;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

static void
wait_count (Counter * c, guint n)
{
  g_mutex_lock (&c->lock);
  while (c->count < n)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

static void
counts (guint64 * up, guint64 * down)
{
  GstAllocator *a = gst_allocator_find (GST_CLV_MEMORY_TYPE_NAME);

  g_object_get (a, "uploads", up, "downloads", down, NULL);
  gst_object_unref (a);
}

/* The elements of `chain`, each followed by a (system memory) identity that
 * does not forward allocation queries. */
static gchar *
system_chain (const gchar * chain)
{
  gchar **parts = g_strsplit (chain, "!", -1);
  GString *s = g_string_new (NULL);

  for (gchar ** p = parts; *p; p++)
    g_string_append_printf (s, "%s ! identity drop-allocation=true ! ",
        g_strstrip (*p));
  g_strfreev (parts);
  g_string_truncate (s, s->len - 3);
  return g_string_free (s, FALSE);
}

static gchar *
pipeline_desc (Mode mode, const gchar * chain, const gchar * caps)
{
  gchar *body, *desc;

  if (mode == MODE_SYSTEM || mode == MODE_SYSTEM_POOL
      || mode == MODE_SYSTEM_QUEUE) {
    gchar *sys = system_chain (chain);
    /* In system mode, the source gets no pool from the chain. */
    body = g_strconcat (mode != MODE_SYSTEM_POOL ?
        "identity drop-allocation=true ! " : "", sys,
        mode == MODE_SYSTEM_QUEUE ? " ! queue max-size-buffers=4" : "", NULL);
    g_free (sys);
  } else
    body = g_strconcat ("clupload", *chain ? " ! " : "", chain,
        mode == MODE_RESIDENT ? "" : " ! cldownload", NULL);
  desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=4 caps=\"%s\" ! %s ! fakesink name=sink "
      "signal-handoffs=true sync=false", caps, body);
  g_free (body);
  return desc;
}

/* Fills `buf` with a speckle-like frame (CPU map). */
static void
fill_frame (GstBuffer * buf, guint32 seed)
{
  GstMapInfo map;
  guint32 x = seed * 2654435761u + 1;

  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE))
    g_error ("cannot map a frame for writing");
  for (gsize i = 0; i + 1 < map.size; i += 2) {
    x = x * 1664525u + 1013904223u;
    map.data[i] = x >> 24;
    map.data[i + 1] = (x >> 16) & 0x3f;
  }
  gst_buffer_unmap (buf, &map);
}

/* The device the chain's elements share, for draining its queue. */
static ClvDevice *
chain_device (GstElement * pipeline)
{
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  ClvDevice *dev = NULL;

  while (dev == NULL && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstPad *pad = gst_element_get_static_pad (e, "sink");
    GstQuery *q = gst_query_new_context ("gst.opencl.context");
    GstContext *ctx;
    GstClvDevice *device;

    if (pad && gst_pad_query (pad, q)) {
      gst_query_parse_context (q, &ctx);
      if ((device = gst_clv_context_get_device (ctx))) {
        dev = clv_device_ref (gst_clv_device_get_runtime (device));
        gst_object_unref (device);
      }
    }
    gst_query_unref (q);
    if (pad)
      gst_object_unref (pad);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return dev;
}

static GstBufferPool *
upload_pool (GstElement * src, GstCaps * caps)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size;

  if (!gst_pad_peer_query (pad, q) || gst_query_get_n_allocation_pools (q) == 0)
    g_error ("the chain proposed no pool");
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, POOL_BUFFERS,
      POOL_BUFFERS);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    g_error ("cannot activate the chain's pool");
  gst_query_unref (q);
  gst_object_unref (pad);
  return pool;
}

/* Pushes `buf` (taken). */
static void
push (GstElement * src, GstBuffer * buf)
{
  GstFlowReturn ret;

  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  if (ret != GST_FLOW_OK)
    g_error ("push-buffer: %s", gst_flow_get_name (ret));
}

static Result
run_mode (Mode mode, const gchar * chain, const gchar * caps_str,
    guint frames)
{
  gchar *desc = pipeline_desc (mode, chain, caps_str);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *src, *sink;
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  GstBuffer *plain, *resident[3];
  Counter c = { 0 };
  GstBus *bus;
  GstMessage *msg;
  ClvDevice *dev;
  guint64 up0, down0, up1, down1;
  gint64 t0, t1;
  Result r;
  GstFlowReturn ret;

  if (pipeline == NULL)
    g_error ("%s: %s", desc, error->message);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  c.read_frames = mode != MODE_RESIDENT;
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  gst_video_info_from_caps (&info, caps);
  plain = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fill_frame (plain, 1);
  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_error ("%s does not start", desc);

  /* Warm up (negotiation, kernel builds, pools) with plain frames. */
  for (guint i = 0; i < WARMUP; i++)
    push (src, gst_buffer_ref (plain));
  wait_count (&c, WARMUP);
  if (mode == MODE_SYSTEM_POOL || mode == MODE_PINNED
      || mode == MODE_RESIDENT) {
    GstBuffer *filled[POOL_BUFFERS];

    /* Every pool buffer gets its pinned copy and a frame once, and goes
     * through the chain once.  Resident mode keeps the first few. */
    pool = upload_pool (src, caps);
    for (guint i = 0; i < POOL_BUFFERS; i++) {
      if (gst_buffer_pool_acquire_buffer (pool, &filled[i], NULL) !=
          GST_FLOW_OK)
        g_error ("no buffer from the chain's pool");
      fill_frame (filled[i], i);
      if (mode == MODE_RESIDENT && i < G_N_ELEMENTS (resident))
        resident[i] = gst_buffer_ref (filled[i]);
    }
    for (guint i = 0; i < POOL_BUFFERS; i++)
      push (src, filled[i]);
    wait_count (&c, WARMUP + POOL_BUFFERS);
  }
  dev = chain_device (pipeline);
  if (dev == NULL)
    g_error ("no element of %s answers a gst.opencl.context query", desc);
  clFinish (dev->queue);

  counts (&up0, &down0);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < frames; i++) {
    GstBuffer *buf = NULL;
    GstMapInfo map;

    switch (mode) {
      case MODE_SYSTEM:
      case MODE_SYSTEM_QUEUE:
      case MODE_PAGEABLE:
        buf = gst_buffer_ref (plain);
        break;
      case MODE_SYSTEM_POOL:
      case MODE_PINNED:
        /* A source writes the frame into the pinned memory; the write map
         * stands for that (the contents written once stay). */
        if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK
            || !gst_buffer_map (buf, &map, GST_MAP_WRITE))
          g_error ("no writable buffer from the chain's pool");
        gst_buffer_unmap (buf, &map);
        break;
      case MODE_RESIDENT:
        buf = gst_buffer_ref (resident[i % G_N_ELEMENTS (resident)]);
        break;
    }
    push (src, buf);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    g_error ("%s: %s", desc, error->message);
  }
  clFinish (dev->queue);
  t1 = g_get_monotonic_time ();
  counts (&up1, &down1);

  r.ms_per_frame = (t1 - t0) / 1000.0 / frames;
  r.uploads_per_frame = (double) (up1 - up0) / frames;
  r.downloads_per_frame = (double) (down1 - down0) / frames;

  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (mode == MODE_RESIDENT)
    for (guint i = 0; i < G_N_ELEMENTS (resident); i++)
      gst_buffer_unref (resident[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  clv_device_unref (dev);
  gst_buffer_unref (plain);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  g_free (desc);
  return r;
}

/* Milliseconds per blocking copy of `size` bytes, host to device (`up`) or
 * back, from pinned or pageable host memory. */
static double
time_copy (ClvDevice * dev, gsize size, gboolean up, gboolean pinned)
{
  const int reps = 20;
  GError *error = NULL;
  cl_mem buf = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, &error);
  cl_mem host = NULL;
  void *ptr;
  gint64 t0;
  cl_int st;

  if (buf == NULL)
    g_error ("%s", error->message);
  if (pinned) {
    host = clv_buffer_new (dev, CL_MEM_ALLOC_HOST_PTR, size, &error);
    if (host == NULL)
      g_error ("%s", error->message);
    ptr = clEnqueueMapBuffer (dev->queue, host, CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &st);
    if (st != CL_SUCCESS)
      g_error ("clEnqueueMapBuffer: %s", clv_cl_error_name (st));
  } else {
    ptr = g_malloc (size);
  }
  memset (ptr, 1, size);
  t0 = g_get_monotonic_time ();
  for (int i = -2; i < reps; i++) {
    if (i == 0)
      t0 = g_get_monotonic_time ();
    st = up ? clEnqueueWriteBuffer (dev->queue, buf, CL_TRUE, 0, size, ptr, 0,
        NULL, NULL) : clEnqueueReadBuffer (dev->queue, buf, CL_TRUE, 0, size,
        ptr, 0, NULL, NULL);
    if (st != CL_SUCCESS)
      g_error ("copy: %s", clv_cl_error_name (st));
  }
  double ms = (g_get_monotonic_time () - t0) / 1000.0 / reps;
  if (pinned) {
    clEnqueueUnmapMemObject (dev->queue, host, ptr, 0, NULL, NULL);
    clFinish (dev->queue);
    clReleaseMemObject (host);
  } else {
    g_free (ptr);
  }
  clReleaseMemObject (buf);
  return ms;
}

/* The chain's output caps, from a short system-memory run. */
static gsize
output_size (const gchar * chain, const gchar * caps_str)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" ! %s ! "
      "fakesink name=sink", caps_str, chain);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *caps = gst_caps_from_string (caps_str), *out;
  GstVideoInfo info;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstFlowReturn ret;
  GstMessage *msg;

  gst_video_info_from_caps (&info, caps);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  push (src, gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info),
          NULL));
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  out = gst_pad_get_current_caps (pad);
  if (out == NULL || !gst_video_info_from_caps (&info, out))
    g_error ("%s does not run", desc);
  gst_message_unref (msg);
  gst_caps_unref (out);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_free (desc);
  return GST_VIDEO_INFO_SIZE (&info);
}

/* The part of DEFAULT_CHAIN whose elements are built. */
static gchar *
default_chain (void)
{
  gchar **parts = g_strsplit (DEFAULT_CHAIN, "!", -1);
  GString *s = g_string_new (NULL);

  for (gchar ** p = parts; *p; p++) {
    gchar *name = g_strstrip (g_strdup (*p));
    GstElementFactory *f;

    name[strcspn (name, " ")] = '\0';
    f = gst_element_factory_find (name);
    if (f) {
      g_string_append_printf (s, "%s%s", s->len ? " ! " : "", g_strstrip (*p));
      gst_object_unref (f);
    }
    g_free (name);
  }
  g_strfreev (parts);
  return g_string_free (s, FALSE);
}

static void
append_result (GString * json, const char *name, const Result * r,
    gboolean last)
{
  g_string_append_printf (json, "    \"%s\": {\"fps\": %.1f, "
      "\"ms_per_frame\": %.3f, \"uploads_per_frame\": %.2f, "
      "\"downloads_per_frame\": %.2f}%s\n", name, 1000.0 / r->ms_per_frame,
      r->ms_per_frame, r->uploads_per_frame, r->downloads_per_frame,
      last ? "" : ",");
}

int
main (int argc, char **argv)
{
  gint size = 4096, frames = 300;
  gchar *chain = NULL, *out_path = NULL;
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_INT, &size, "Frame width and height", "N"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Timed frames per mode", "N"},
    {"chain", 0, 0, G_OPTION_ARG_STRING, &chain,
        "The chain (gst-launch syntax)", "DESC"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- clvision chain benchmark");
  gchar *command = g_strjoinv (" ", argv);
  GError *error = NULL;
  ClvDevice *dev;
  gchar *caps, *chain_json;
  gchar **stages;
  Result results[G_N_ELEMENTS (mode_names)];
  GString *prefix = g_string_new (NULL), *json = g_string_new (NULL);
  double prev_ms;
  gsize in_size, out_size;

  g_option_context_add_main_entries (octx, entries, NULL);
  gst_init (&argc, &argv);
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    g_error ("%s", error->message);
  g_option_context_free (octx);
  if (size < 16 || frames < 1)
    g_error ("--size must be at least 16 and --frames at least 1");
  if (chain == NULL)
    chain = default_chain ();
  if (*chain == '\0')
    g_error ("no element of \"%s\" is built; check GST_PLUGIN_PATH_1_0",
        DEFAULT_CHAIN);
  dev = clv_device_open (NULL, &error);
  if (dev == NULL)
    g_error ("%s", error->message);
  caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,height=%d,"
      "framerate=30/1", size, size);
  in_size = (gsize) size * size * 2;
  out_size = output_size (chain, caps);

  for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
    results[m] = run_mode (m, chain, caps, frames);

  chain_json = g_strescape (chain, NULL);
  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"format\": \"GRAY16_LE\",\n"
      "  \"size\": %d,\n  \"frames\": %d,\n  \"chain\": \"%s\",\n"
      "  \"input_bytes\": %" G_GSIZE_FORMAT ",\n  \"output_bytes\": %"
      G_GSIZE_FORMAT ",\n  \"modes\": {\n", size, frames, chain_json, in_size,
      out_size);
  for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
    append_result (json, mode_names[m], &results[m],
        m + 1 == G_N_ELEMENTS (mode_names));

  /* Each element's share of the resident chain: the chain grown one
   * element at a time (the empty chain is clupload alone). */
  prev_ms = run_mode (MODE_RESIDENT, "", caps, frames).ms_per_frame;
  g_string_append_printf (json, "  },\n  \"stages_ms\": {\n"
      "    \"frame_handling\": %.3f", prev_ms);
  stages = g_strsplit (chain, "!", -1);
  for (gchar ** p = stages; *p; p++) {
    double ms;
    g_string_append_printf (prefix, "%s%s", prefix->len ? " ! " : "",
        g_strstrip (*p));
    ms = run_mode (MODE_RESIDENT, prefix->str, caps, frames).ms_per_frame;
    (*p)[strcspn (*p, " ")] = '\0';
    g_string_append_printf (json, ",\n    \"%s\": %.3f", *p, ms - prev_ms);
    prev_ms = ms;
  }
  g_strfreev (stages);
  g_string_append_printf (json, "\n  },\n  \"transfers_ms\": {\n"
      "    \"upload_frame_pinned\": %.3f,\n"
      "    \"upload_frame_pageable\": %.3f,\n"
      "    \"download_output_pinned\": %.3f,\n"
      "    \"download_output_pageable\": %.3f\n  },\n"
      "  \"target_resident_fps\": 300\n}\n",
      time_copy (dev, in_size, TRUE, TRUE),
      time_copy (dev, in_size, TRUE, FALSE),
      time_copy (dev, out_size, FALSE, TRUE),
      time_copy (dev, out_size, FALSE, FALSE));
  fputs (json->str, stdout);
  if (out_path && !g_file_set_contents (out_path, json->str, -1, &error))
    g_error ("%s", error->message);

  g_string_free (json, TRUE);
  g_string_free (prefix, TRUE);
  clv_device_unref (dev);
  g_free (chain_json);
  g_free (caps);
  g_free (chain);
  g_free (out_path);
  g_free (command);
  return 0;
}
