/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench-common.h"

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <stdlib.h>
#include <stdarg.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

void
bench_time_kernels (void)
{
  g_setenv ("CLVISION_PROFILE", "1", FALSE);
}

double
bench_median (double *v, int n)
{
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Enqueues run `i` of a timing (i < 0: a warm-up run); returns the event of
 * its last command, and in *first that of its first (NULL: the same). */
typedef cl_event (*TimedRun) (gpointer data, int i, cl_event * first);

/* Median device time of `iterations` runs after `warmup` runs, each one
 * waited for before the next. */
static double
median_event_seconds (TimedRun enqueue, gpointer data, int warmup,
    int iterations)
{
  double *t = g_new (double, iterations), result;

  for (int i = -warmup; i < iterations; i++) {
    cl_event first = NULL, ev = enqueue (data, i, &first);
    clWaitForEvents (1, &ev);
    if (i >= 0)
      t[i] = clv_event_span_seconds (first ? first : ev, ev);
    clReleaseEvent (ev);
    g_clear_pointer (&first, clReleaseEvent);
  }
  result = bench_median (t, iterations);
  g_free (t);
  return result;
}

typedef struct
{
  ClvDevice *dev;
  cl_mem a, b;
  gsize half, size;
} CopyRun;

static cl_event
enqueue_copy (gpointer data, int i, cl_event * first)
{
  const CopyRun *c = data;
  /* Successive copies move through the buffers, as a kernel cycling
   * through a ring of frames does, so that neither end sits in cache. */
  const gsize at = (gsize) (i + 1) * c->half % (c->size - c->half + 1) / 256
      * 256;
  cl_event ev;

  if (clEnqueueCopyBuffer (c->dev->queue, c->a, c->b, at, at, c->half, 0,
          NULL, &ev) != CL_SUCCESS)
    g_error ("bench: clEnqueueCopyBuffer failed");
  return ev;
}

double
bench_copy_seconds (ClvDevice * dev, gsize traffic, int iterations)
{
  GError *error = NULL;
  CopyRun c = { dev, NULL, NULL, traffic / 2,
    MAX (traffic / 2, BENCH_RING_BYTES)
  };
  double result;

  c.a = clv_buffer_new (dev, CL_MEM_READ_WRITE, c.size, &error);
  c.b = clv_buffer_new (dev, CL_MEM_READ_WRITE, c.size, &error);
  if (c.a == NULL || c.b == NULL)
    g_error ("bench: %s", error->message);
  result = median_event_seconds (enqueue_copy, &c, 1, iterations);
  clReleaseMemObject (c.a);
  clReleaseMemObject (c.b);
  return result;
}

/* Reads 16 bytes per work-item; the store that depends on them (never
 * taken on real frames) keeps the loads from being dropped. */
static const char read_source[] =
    "__kernel void read_frame (const __global uint4 *src, const uint n,\n"
    "    __global uint *sink)\n"
    "{\n"
    "  const uint i = get_global_id (0);\n"
    "  if (i >= n)\n"
    "    return;\n"
    "  const uint4 v = src[i];\n"
    "  if ((v.x ^ v.y ^ v.z ^ v.w) == 0x9e3779b9u)\n"
    "    sink[0] = i;\n"
    "}\n";

typedef struct
{
  ClvDevice *dev;
  cl_kernel kernel;
  cl_mem sink;
  cl_uint n;
} ReadRun;

static gboolean
enqueue_read (gpointer data, cl_mem src, cl_event * first, cl_event * ev,
    GError ** error)
{
  const ReadRun *r = data;
  const size_t local = 256, global = clv_round_up (r->n, local);

  if (!clv_kernel_set_args (r->kernel, error, CLV_ARG (src), CLV_ARG (r->n),
          CLV_ARG (r->sink), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (r->dev->queue, r->kernel, 1, NULL,
          &global, &local, 0, NULL, ev), error, fail);
  return TRUE;

fail:
  return FALSE;
}

double
bench_read_seconds (ClvDevice * dev, const void *frame, gsize bytes,
    int iterations)
{
  GError *error = NULL;
  ReadRun r = { dev, NULL, NULL, bytes / 16 };
  int ring_n;
  cl_mem *ring = bench_ring_new (dev, frame, bytes, &ring_n);
  cl_program prog;
  double result;

  r.sink = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, sizeof (cl_uint), &error);
  prog = r.sink ? clv_program_build (dev, "bench-read", read_source, "",
      &error) : NULL;
  r.kernel = prog ? clv_kernel_new (prog, "read_frame", &error) : NULL;
  if (r.kernel == NULL)
    g_error ("bench: %s", error->message);
  result = bench_ring_kernel_seconds (ring, ring_n, iterations, enqueue_read,
      &r);
  clReleaseKernel (r.kernel);
  clReleaseProgram (prog);
  clReleaseMemObject (r.sink);
  bench_ring_free (ring, ring_n);
  return result;
}

double
bench_copy_bandwidth (ClvDevice * dev, gsize bytes, int iterations)
{
  return 2.0 * bytes / bench_copy_seconds (dev, 2 * bytes, iterations) / 1e9;
}

void
bench_json_begin (GString * json, ClvDevice * dev, const char *command)
{
  char *cmd_json = g_strescape (command, NULL);

  g_string_append_printf (json, "{\n  \"device\": \"%s\",\n  \"platform\": "
      "\"%s\",\n  \"driver\": \"%s\",\n  \"compute_units\": %u,\n"
      "  \"command\": \"%s\"", dev->device_name, dev->platform_name,
      dev->driver_version, dev->compute_units, cmd_json);
  g_free (cmd_json);
}

cl_mem *
bench_ring_new (ClvDevice * dev, const void *frame, gsize bytes, int *n)
{
  GError *error = NULL;
  cl_mem *ring;

  *n = MAX (1, (int) (BENCH_RING_BYTES / bytes));
  ring = g_new (cl_mem, *n);
  for (int r = 0; r < *n; r++) {
    ring[r] = clv_buffer_new (dev, CL_MEM_READ_ONLY, bytes, &error);
    if (ring[r] == NULL)
      g_error ("bench: %s", error->message);
    if (clEnqueueWriteBuffer (dev->queue, ring[r], CL_TRUE, 0, bytes, frame,
            0, NULL, NULL) != CL_SUCCESS)
      g_error ("bench: upload failed");
  }
  return ring;
}

void
bench_ring_free (cl_mem * ring, int n)
{
  for (int r = 0; r < n; r++)
    clReleaseMemObject (ring[r]);
  g_free (ring);
}

typedef struct
{
  cl_mem *ring;
  int n;
  BenchEnqueue enqueue;
  gpointer data;
} RingRun;

static cl_event
enqueue_from_ring (gpointer data, int i, cl_event * first)
{
  const RingRun *r = data;
  GError *error = NULL;
  cl_event ev;

  if (!r->enqueue (r->data, r->ring[(i + r->n) % r->n], first, &ev, &error))
    g_error ("bench: %s", error->message);
  return ev;
}

double
bench_ring_kernel_seconds (cl_mem * ring, int ring_n, int iterations,
    BenchEnqueue enqueue, gpointer data)
{
  RingRun r = { ring, ring_n, enqueue, data };

  return median_event_seconds (enqueue_from_ring, &r, ring_n, iterations);
}

void
bench_require_elements (const char *first, ...)
{
  va_list ap;

  va_start (ap, first);
  for (const char *name = first; name; name = va_arg (ap, const char *)) {
    GstElementFactory *f = gst_element_factory_find (name);
    if (f == NULL)
      g_error ("bench: no element %s: are clvision's plugins in "
          "GST_PLUGIN_PATH_1_0 (BUILD/gst)?", name);
    gst_object_unref (f);
  }
  va_end (ap);
}

/* Exits with the pipeline's error, if it posted one. */
static void
pipeline_failed (GstElement * pipe, const char *desc)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *debug = NULL;

  if (msg)
    gst_message_parse_error (msg, &error, &debug);
  g_error ("bench: %s produced no frame: %s (%s)", desc,
      error ? error->message : "no error posted", debug ? debug : "");
}

double
bench_pipeline_seconds (const char *elements, const char *caps, gsize bytes,
    int iterations)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=%s ! %s ! "
      "appsink name=sink sync=false", caps, elements);
  GError *error = NULL;
  /* A missing element is an error, not a pipeline without it. */
  GstElement *pipe = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &error);
  GstElement *src, *sink;
  double *t = g_new (double, iterations), median;
  GstBuffer *frame = gst_buffer_new_and_alloc (bytes);

  if (pipe == NULL)
    g_error ("bench: %s: %s", desc, error->message);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_buffer_memset (frame, 0, 0x5a, bytes);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (int i = -3; i < iterations; i++) {
    gint64 t0 = g_get_monotonic_time ();
    GstSample *sample;
    GstMapInfo map;
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frame));
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        60 * GST_SECOND);
    if (sample == NULL)
      pipeline_failed (pipe, desc);
    /* Read as a consumer would: device-pool frames come down here. */
    if (!gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ))
      g_error ("bench: cannot read an output frame of %s", desc);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
    if (i >= 0)
      t[i] = (g_get_monotonic_time () - t0) * 1e-6;
  }
  median = bench_median (t, iterations);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (frame);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (t);
  return median;
}

void
bench_set_tuning (const char *tune)
{
  if (tune && *tune)
    g_setenv ("CLVISION_TUNE", tune, TRUE);
  else
    g_unsetenv ("CLVISION_TUNE");
}

char **
bench_tunings (const char *extra)
{
  char **items = g_strsplit (extra ? extra : "", ";", -1);
  GStrvBuilder *b = g_strv_builder_new ();
  char **list;

  g_strv_builder_add (b, "");
  for (int i = 0; items[i]; i++)
    if (*items[i])
      g_strv_builder_add (b, items[i]);
  list = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  g_strfreev (items);
  return list;
}
