/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR multilook benchmark: the kernel alone (profiling events) and the whole
 * element (upload + kernel + download through a pipeline), for square
 * GRAY16_LE frames, printing effective GB/s as JSON.
 *
 *   bench-sar [--size 4096] [--looks 4,16] [--iterations 50]
 *       [--ml-tunes "T1;T2..."] [--out FILE]
 *
 * --ml-tunes lists further CLVISION_TUNE settings (SAR_ML_WG, SAR_ML_OUT_X,
 * SAR_ML_SPLIT) whose kernel times are reported next to the defaults'.
 * Every variant's output is checked against the C reference.
 *
 * The kernel runs over a ring of input buffers larger than the GPU's L2, so
 * the figures are DRAM bandwidth, not cache bandwidth. */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-common.h"
#include "clv-sar.h"

typedef struct
{
  ClvMultilook *ml;
  ClvImage si, di;
  cl_mem out;
} MultilookRun;

static gboolean
multilook_enqueue (gpointer data, cl_mem src, cl_event * first,
    cl_event * ev, GError ** error)
{
  MultilookRun *r = data;

  return clv_multilook_enqueue (r->ml, src, &r->si, r->out, &r->di, ev,
      error);
}

/* Median kernel time; *differ counts output pixels unlike the C
 * reference's. */
static double
kernel_seconds (ClvDevice * dev, int size, int looks, const char *tune,
    int iterations, guint * differ)
{
  GError *error = NULL;
  ClvImage si = clv_image_make (size, size, 2, (gsize) size * 2), di;
  int ow, oh, ring_n;
  cl_mem *ring, out;
  double median;
  ClvMultilook *ml;
  MultilookRun run;
  guint16 *host = g_new (guint16, (gsize) size * size), *got, *ref;

  for (gsize i = 0; i < (gsize) size * size; i++)
    host[i] = (guint16) (i * 2654435761u >> 16);
  clv_multilook_out_size (size, size, looks, looks, &ow, &oh);
  di = clv_image_make (ow, oh, 2, (gsize) ow * 2);
  ring = bench_ring_new (dev, host, si.stride * size, &ring_n);
  out = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, di.stride * oh, &error);
  bench_set_tuning (tune);
  ml = clv_multilook_new (dev, CLV_SAMPLE_U16, looks, looks,
      CLV_MULTILOOK_INTENSITY, NULL, ow, oh, &error);
  bench_set_tuning (NULL);
  if (ml == NULL || out == NULL)
    g_error ("bench: %s", error->message);
  run.ml = ml;
  run.si = si;
  run.di = di;
  run.out = out;
  median = bench_ring_kernel_seconds (ring, ring_n, iterations,
      multilook_enqueue, &run);

  got = g_malloc (di.stride * oh);
  ref = g_malloc (di.stride * oh);
  if (clEnqueueReadBuffer (dev->queue, out, CL_TRUE, 0, di.stride * oh, got,
          0, NULL, NULL) != CL_SUCCESS)
    g_error ("bench: download failed");
  clv_multilook_ref ((const guint8 *) host, &si, (guint8 *) ref, &di, looks,
      looks, CLV_MULTILOOK_INTENSITY);
  *differ = 0;
  for (gsize i = 0; i < (gsize) ow * oh; i++)
    *differ += got[i] != ref[i];
  g_free (got);
  g_free (ref);
  clv_multilook_free (ml);
  bench_ring_free (ring, ring_n);
  clReleaseMemObject (out);
  g_free (host);
  return median;
}

int
main (int argc, char **argv)
{
  int size = 4096, iterations = 50;
  char *looks_arg = NULL, *out_path = NULL, *ml_tunes = NULL, **looks;
  char **tunes;
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_INT, &size, "Frame side (pixels)", "N"},
    {"looks", 0, 0, G_OPTION_ARG_STRING, &looks_arg, "Looks to run", "4,16"},
    {"iterations", 0, 0, G_OPTION_ARG_INT, &iterations, "Timed runs", "N"},
    {"ml-tunes", 0, 0, G_OPTION_ARG_STRING, &ml_tunes,
        "Further multilook tunings", "T1;T2"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- SAR multilook benchmark");
  GError *error = NULL;
  ClvDevice *dev;
  GString *json = g_string_new (NULL);
  double copy_bw;
  char *command = g_strjoinv (" ", argv);

  g_option_context_add_main_entries (ctx, entries, NULL);
  bench_time_kernels ();
  gst_init (&argc, &argv);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  bench_require_elements ("sarmultilook", NULL);
  dev = clv_device_open (NULL, &error);
  if (dev == NULL)
    g_error ("%s", error->message);
  looks = g_strsplit (looks_arg ? looks_arg : "4,16", ",", -1);
  tunes = bench_tunings (ml_tunes);

  copy_bw = bench_copy_bandwidth (dev, BENCH_RING_BYTES, 20);
  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"copy_bandwidth_gbs\": %.1f,\n"
      "  \"multilook\": [", copy_bw);
  for (int i = 0; looks[i]; i++) {
    int l = atoi (looks[i]), ow = size / l;
    double in_b = (double) size * size * 2, out_b = (double) ow * ow * 2;
    guint differ;
    double k = kernel_seconds (dev, size, l, "", iterations, &differ);
    double c = bench_copy_seconds (dev, (gsize) (in_b + out_b), iterations);
    char *elements = g_strdup_printf ("sarmultilook looks=%d", l);
    char *caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,"
        "height=%d,framerate=0/1", size, size);
    double e = bench_pipeline_seconds (elements, caps, (gsize) in_b,
        MAX (iterations / 5, 5));
    g_string_append_printf (json, "%s\n    {\"size\": %d, \"format\": "
        "\"GRAY16_LE\", \"looks\": %d, \"kernel_ms\": %.4f, \"kernel_gbs\": "
        "%.1f, \"kernel_vs_copy\": %.3f, \"same_traffic_copy_ms\": %.4f, "
        "\"kernel_vs_same_traffic_copy\": %.3f, "
        "\"pixels_unlike_reference\": %u, "
        "\"element_ms\": %.3f, \"element_gbs\": %.2f, \"tunings\": [",
        i ? "," : "", size, l, k * 1e3, (in_b + out_b) / k / 1e9,
        (in_b + out_b) / k / 1e9 / copy_bw, c * 1e3, c / k, differ, e * 1e3,
        (in_b + out_b) / e / 1e9);
    for (int t = 1; tunes[t]; t++) {
      double kt = kernel_seconds (dev, size, l, tunes[t], iterations,
          &differ);
      g_string_append_printf (json, "%s\n      {\"CLVISION_TUNE\": \"%s\", "
          "\"kernel_ms\": %.4f, \"kernel_vs_copy\": %.3f, "
          "\"pixels_unlike_reference\": %u}", t > 1 ? "," : "", tunes[t],
          kt * 1e3, (in_b + out_b) / kt / 1e9 / copy_bw, differ);
    }
    g_string_append (json, "]}");
    g_free (elements);
    g_free (caps);
  }
  g_string_append (json, "\n  ]\n}\n");
  fputs (json->str, stdout);
  if (out_path && !g_file_set_contents (out_path, json->str, -1, &error))
    g_error ("%s", error->message);

  g_strfreev (looks);
  g_strfreev (tunes);
  g_free (ml_tunes);
  g_string_free (json, TRUE);
  clv_device_unref (dev);
  g_option_context_free (ctx);
  g_free (looks_arg);
  g_free (out_path);
  g_free (command);
  return 0;
}
