/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR rotation/scaling and quantization benchmark: kernels alone (profiling
 * events) and whole elements (upload + kernels + download through a
 * pipeline) on square GRAY16_LE frames, and the sarmultilook ! sarrotscale
 * ! sarquantize chain; prints JSON.
 *
 *   bench-sar3 [--size 4096] [--angle 30] [--scale 1.5] [--coef 35]
 *       [--chain-looks 4] [--iterations 50] [--out FILE]
 *       [--rs-tunes "T1;T2..."] [--q-tunes "T1;T2..."]
 *
 * --rs-tunes and --q-tunes list further CLVISION_TUNE settings whose kernel
 * times are reported next to the defaults' (work-group shapes, band
 * heights), so that one run on a new device shows whether a default should
 * move.
 * Quantize runs once per step of the optimisation of Li, Liang, Zhang and
 * Li, "Parallel Optimization Strategy of Airborne SAR Imaging Algorithm
 * Based on ARM GPU" (unfused
 * one-line-per-work-item sums; fused pass with scalar loads; with vector
 * loads; with several loads per work-item), selected through CLVISION_TUNE,
 * so each step's gain is measured on the same device in one run.  Every
 * variant's output is checked against the C reference.  Kernels cycle
 * through inputs larger than the GPU's L2: figures are DRAM bandwidth.
 * GB/s count the input frame read once plus the output frame written. */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "clv-sar.h"

/* The steps of the paper's quantize optimisation, as tunings. */
static const struct
{
  const char *name;
  const char *tune;
} quantize_steps[] = {
  {"unfused: one work-item per row and per column", "SAR_Q_VARIANT=naive"},
  {"fused row+column pass, scalar loads", "SAR_Q_VEC=1,SAR_Q_K=1"},
  {"fused, 16-byte vector loads (GPU default)", "SAR_Q_K=1"},
  {"fused, vector loads, 4 loads per work-item per row (CPU default)",
      "SAR_Q_K=4"},
};

/* A speckle-like 16-bit frame (a hash of the index). */
static guint16 *
test_frame (int size, ClvImage * im)
{
  guint16 *host = g_new (guint16, (gsize) size * size);

  *im = clv_image_make (size, size, 2, (gsize) size * 2);
  for (gsize i = 0; i < (gsize) size * size; i++)
    host[i] = (guint16) (i * 2654435761u >> 16);
  return host;
}

static void
read_back (ClvDevice * dev, cl_mem mem, void *dst, gsize bytes)
{
  if (clEnqueueReadBuffer (dev->queue, mem, CL_TRUE, 0, bytes, dst, 0, NULL,
          NULL) != CL_SUCCESS)
    g_error ("bench: download failed");
}

typedef struct
{
  ClvRotscale *rs;
  const ClvImage *si;
  const ClvRotscaleGeometry *g;
  cl_mem out;
} RotscaleRun;

static gboolean
rotscale_enqueue (gpointer data, cl_mem src, cl_event * first,
    cl_event * ev, GError ** error)
{
  const RotscaleRun *r = data;

  return clv_rotscale_enqueue (r->rs, src, r->si, r->out, r->si, r->g, 0, ev,
      error);
}

/* Median kernel time of one rotation; *differ counts output pixels unlike
 * the C reference's (*max_diff the largest difference). */
static double
rotscale_kernel_seconds (ClvDevice * dev, const guint16 * host,
    const ClvImage * si, double angle, double scale, ClvInterpolation interp,
    const char *tune, int iterations, guint * differ, guint * max_diff)
{
  GError *error = NULL;
  const gsize bytes = si->stride * si->height;
  int ring_n;
  cl_mem *ring = bench_ring_new (dev, host, bytes, &ring_n);
  cl_mem out = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, bytes, &error);
  ClvRotscale *rs;
  ClvRotscaleGeometry g;
  RotscaleRun run;
  double median;
  guint8 *got = g_malloc (bytes), *ref = g_malloc (bytes);

  bench_set_tuning (tune);
  rs = clv_rotscale_new (dev, 2, interp, &error);
  bench_set_tuning (NULL);
  if (rs == NULL || out == NULL)
    g_error ("bench: %s", error->message);
  clv_rotscale_geometry_init (&g, angle, scale, si->width, si->height,
      si->width, si->height);
  run.rs = rs;
  run.si = si;
  run.g = &g;
  run.out = out;
  median = bench_ring_kernel_seconds (ring, ring_n, iterations,
      rotscale_enqueue, &run);

  read_back (dev, out, got, bytes);
  clv_rotscale_ref ((const guint8 *) host, si, ref, si, &g, interp, 0);
  *differ = *max_diff = 0;
  for (gsize i = 0; i < bytes / 2; i++) {
    guint a = ((guint16 *) got)[i], b = ((guint16 *) ref)[i];
    guint d = a > b ? a - b : b - a;
    *differ += d != 0;
    *max_diff = MAX (*max_diff, d);
  }

  clv_rotscale_free (rs);
  clReleaseMemObject (out);
  bench_ring_free (ring, ring_n);
  g_free (got);
  g_free (ref);
  return median;
}

/* Median total kernel time of one quantize step; medians per launch in
 * launch_s.  *differ counts output pixels unlike `ref` (*max_diff the
 * largest difference, *first the index of the first, or -1). */
static double
quantize_kernel_seconds (ClvDevice * dev, const guint16 * host,
    const ClvImage * si, double coef, const char *tune, int iterations,
    const guint8 * ref, double *launch_s, guint * n_launches,
    guint * differ, guint * max_diff, gint64 * first)
{
  GError *error = NULL;
  const gsize bytes = si->stride * si->height;
  ClvImage di = clv_image_make (si->width, si->height, 1, si->width);
  int ring_n;
  cl_mem *ring = bench_ring_new (dev, host, bytes, &ring_n);
  cl_mem out = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, di.stride * di.height,
      &error);
  ClvQuantize *q;
  double *t = g_new (double, iterations), median;
  double *per[CLV_QUANTIZE_MAX_LAUNCHES];
  guint8 *got = g_malloc (di.stride * di.height);

  bench_set_tuning (tune);
  q = clv_quantize_new (dev, 2, &error);
  bench_set_tuning (NULL);
  if (q == NULL || out == NULL)
    g_error ("bench: %s", error->message);
  for (int l = 0; l < CLV_QUANTIZE_MAX_LAUNCHES; l++)
    per[l] = g_new0 (double, iterations);
  for (int i = -ring_n; i < iterations; i++) {
    ClvQuantizeEvents ev;
    if (!clv_quantize_enqueue (q, ring[(i + ring_n) % ring_n], si, out, &di,
            coef, &ev, &error))
      g_error ("bench: %s", error->message);
    clWaitForEvents (1, &ev.events[ev.n_events - 1]);
    if (i >= 0) {
      t[i] = 0;
      for (guint l = 0; l < ev.n_events; l++) {
        per[l][i] = clv_event_seconds (ev.events[l]);
        t[i] += per[l][i];
      }
    }
    *n_launches = ev.n_events;
    clv_quantize_events_clear (&ev);
  }
  median = bench_median (t, iterations);
  for (guint l = 0; l < *n_launches; l++)
    launch_s[l] = bench_median (per[l], iterations);

  read_back (dev, out, got, di.stride * di.height);
  *differ = *max_diff = 0;
  *first = -1;
  for (gsize i = 0; i < di.stride * di.height; i++) {
    guint d = got[i] > ref[i] ? got[i] - ref[i] : ref[i] - got[i];
    if (d && *first < 0)
      *first = (gint64) i;
    *differ += d != 0;
    *max_diff = MAX (*max_diff, d);
  }

  for (int l = 0; l < CLV_QUANTIZE_MAX_LAUNCHES; l++)
    g_free (per[l]);
  clv_quantize_free (q);
  clReleaseMemObject (out);
  bench_ring_free (ring, ring_n);
  g_free (got);
  g_free (t);
  return median;
}

static void
append_rotscale (GString * json, ClvDevice * dev, const guint16 * host,
    const ClvImage * si, double angle, double scale, const char *caps,
    const char *extra, int iterations, double copy_bw)
{
  const double bytes = 2.0 * si->stride * si->height;   /* in + out */
  char **tunes = bench_tunings (extra);
  gboolean first = TRUE;
  const double c = bench_copy_seconds (dev, (gsize) bytes, iterations);

  g_string_append (json, ",\n  \"rotscale\": [");
  for (int interp = CLV_INTERP_BILINEAR; interp >= CLV_INTERP_NEAREST;
      interp--) {
    const char *name = interp == CLV_INTERP_BILINEAR ? "bilinear" : "nearest";
    for (int t = 0; tunes[t]; t++) {
      guint differ, max_diff;
      double k = rotscale_kernel_seconds (dev, host, si, angle, scale, interp,
          tunes[t], iterations, &differ, &max_diff);

      g_string_append_printf (json, "%s\n    {\"size\": %d, \"format\": "
          "\"GRAY16_LE\", \"angle\": %g, \"scale\": %g, "
          "\"interpolation\": \"%s\", \"CLVISION_TUNE\": \"%s\", "
          "\"kernel_ms\": %.4f, \"kernel_gbs\": %.1f, \"kernel_vs_copy\": "
          "%.3f, \"same_traffic_copy_ms\": %.4f, "
          "\"kernel_vs_same_traffic_copy\": %.3f, "
          "\"pixels_unlike_reference\": %u, \"max_difference\": %u",
          first ? "" : ",", si->width, angle, scale, name, tunes[t], k * 1e3,
          bytes / k / 1e9, bytes / k / 1e9 / copy_bw, c * 1e3, c / k, differ,
          max_diff);
      first = FALSE;
      if (t == 0) {
        gchar *desc = g_strdup_printf ("sarrotscale angle=%g scale=%g "
            "interpolation=%s", angle, scale, name);
        double e = bench_pipeline_seconds (desc, caps, bytes / 2,
            MAX (iterations / 5, 5));
        g_string_append_printf (json, ", \"element\": \"%s\", "
            "\"element_ms\": %.3f, \"element_gbs\": %.2f", desc, e * 1e3,
            bytes / e / 1e9);
        g_free (desc);
      }
      g_string_append (json, "}");
    }
  }
  g_string_append (json, "\n  ]");
  g_strfreev (tunes);
}

static void
append_quantize (GString * json, ClvDevice * dev, const guint16 * host,
    const ClvImage * si, double coef, const char *caps, const char *extra,
    int iterations, double copy_bw)
{
  const double in_b = (double) si->stride * si->height;
  const double out_b = (double) si->width * si->height;
  ClvImage qi = clv_image_make (si->width, si->height, 1, si->width);
  guint8 *ref = g_malloc (out_b);
  char **tunes = bench_tunings (extra);
  const guint n_steps = G_N_ELEMENTS (quantize_steps);
  double unfused = 0, e;
  gchar *desc;
  const double c = bench_copy_seconds (dev, (gsize) (2 * in_b + out_b),
      iterations);
  const double rd = bench_read_seconds (dev, host, (gsize) in_b, iterations);

  clv_quantize_ref ((const guint8 *) host, si, ref, &qi, coef);
  g_string_append_printf (json, ",\n  \"quantize\": {\"size\": %d, "
      "\"format\": \"GRAY16_LE\", \"coef\": %g, \"read_frame_ms\": %.4f, "
      "\"steps\": [", si->width, coef, rd * 1e3);
  /* The paper's steps, then the extra tunings (skipping the default). */
  for (guint s = 0; s < n_steps + g_strv_length (tunes) - 1; s++) {
    const char *name = s < n_steps ? quantize_steps[s].name : "tuning";
    const char *tune = s < n_steps ? quantize_steps[s].tune :
        tunes[s - n_steps + 1];
    double launch_s[CLV_QUANTIZE_MAX_LAUNCHES];
    guint n = 0, differ, max_diff;
    gint64 first;
    double k = quantize_kernel_seconds (dev, host, si, coef, tune,
        iterations, ref, launch_s, &n, &differ, &max_diff, &first);

    if (s == 0)
      unfused = k;
    g_string_append_printf (json, "%s\n      {\"step\": \"%s\", "
        "\"CLVISION_TUNE\": \"%s\", \"launch_ms\": [", s ? "," : "", name,
        tune);
    for (guint l = 0; l < n; l++)
      g_string_append_printf (json, "%s%.4f", l ? ", " : "", launch_s[l] * 1e3);
    /* The minimum traffic: the frame read twice, the output written. */
    g_string_append_printf (json, "], \"kernel_ms\": %.4f, \"kernel_gbs\": "
        "%.1f, \"traffic_gbs\": %.1f, \"traffic_vs_copy\": %.3f, "
        "\"same_traffic_copy_ms\": %.4f, "
        "\"kernel_vs_same_traffic_copy\": %.3f, "
        "\"speedup_vs_unfused\": %.2f, \"equals_reference\": %s, "
        "\"pixels_unlike_reference\": %u, \"max_difference\": %u, "
        "\"first_difference\": [%d, %d]}", k * 1e3,
        (in_b + out_b) / k / 1e9, (2 * in_b + out_b) / k / 1e9,
        (2 * in_b + out_b) / k / 1e9 / copy_bw, c * 1e3, c / k, unfused / k,
        differ ? "false" : "true", differ, max_diff,
        first < 0 ? -1 : (int) (first % si->width),
        first < 0 ? -1 : (int) (first / si->width));
  }
  desc = g_strdup_printf ("sarquantize coef=%g", coef);
  e = bench_pipeline_seconds (desc, caps, in_b, MAX (iterations / 5, 5));
  g_string_append_printf (json, "\n    ],\n    \"element\": \"%s\", "
      "\"element_ms\": %.3f, \"element_gbs\": %.2f\n  }", desc, e * 1e3,
      (in_b + out_b) / e / 1e9);
  g_free (desc);
  g_strfreev (tunes);
  g_free (ref);
}

int
main (int argc, char **argv)
{
  int size = 4096, iterations = 50, chain_looks = 4;
  double angle = 30, scale = 1.5, coef = 35;
  char *out_path = NULL;
  char *rs_tunes = g_strdup ("SAR_RS_X=2;SAR_RS_X=4;SAR_RS_X=8;"
      "SAR_RS_X=4,SAR_RS_WG_X=8,SAR_RS_WG_Y=32;SAR_RS_WG_X=16,SAR_RS_WG_Y=16;"
      "SAR_RS_WG_X=8,SAR_RS_WG_Y=32");
  char *q_tunes = g_strdup ("SAR_Q_ATOMIC=1;"
      "SAR_Q_ATOMIC=1,SAR_Q_BAND=32;SAR_Q_ATOMIC=1,SAR_Q_BAND=64;"
      "SAR_Q_BAND=8;SAR_Q_BAND=32;SAR_Q_BAND=64;"
      "SAR_Q_K=2;SAR_Q_K=8;SAR_Q_WG=256;SAR_Q_WG=64");
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_INT, &size, "Frame side (pixels)", "N"},
    {"angle", 0, 0, G_OPTION_ARG_DOUBLE, &angle, "Rotation (degrees)", "A"},
    {"scale", 0, 0, G_OPTION_ARG_DOUBLE, &scale, "Scale", "S"},
    {"coef", 0, 0, G_OPTION_ARG_DOUBLE, &coef, "Quantize coef", "C"},
    {"chain-looks", 0, 0, G_OPTION_ARG_INT, &chain_looks,
        "Multilook of the chain", "N"},
    {"iterations", 0, 0, G_OPTION_ARG_INT, &iterations, "Timed runs", "N"},
    {"rs-tunes", 0, 0, G_OPTION_ARG_STRING, &rs_tunes,
        "Further rotscale tunings", "T1;T2"},
    {"q-tunes", 0, 0, G_OPTION_ARG_STRING, &q_tunes,
        "Further quantize tunings", "T1;T2"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *ctx =
      g_option_context_new ("- SAR rotscale and quantize benchmark");
  char *command = g_strjoinv (" ", argv);
  GError *error = NULL;
  GString *json = g_string_new (NULL);
  ClvDevice *dev;
  ClvImage si;
  guint16 *host;
  double copy_bw, e;
  gchar *caps, *desc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  bench_time_kernels ();
  gst_init (&argc, &argv);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  bench_require_elements ("sarmultilook", "sarrotscale", "sarquantize", NULL);
  dev = clv_device_open (NULL, &error);
  if (dev == NULL)
    g_error ("%s", error->message);
  host = test_frame (size, &si);
  caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,height=%d,"
      "framerate=0/1", size, size);

  copy_bw = bench_copy_bandwidth (dev, BENCH_RING_BYTES, 20);
  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"copy_bandwidth_gbs\": %.1f", copy_bw);
  append_rotscale (json, dev, host, &si, angle, scale, caps, rs_tunes,
      iterations, copy_bw);
  append_quantize (json, dev, host, &si, coef, caps, q_tunes, iterations,
      copy_bw);

  desc = g_strdup_printf ("sarmultilook looks=%d ! sarrotscale angle=%g "
      "scale=%g ! sarquantize coef=%g", chain_looks, angle, scale, coef);
  e = bench_pipeline_seconds (desc, caps, si.stride * size,
      MAX (iterations / 5, 5));
  g_string_append_printf (json, ",\n  \"chain\": {\"size\": %d, \"format\": "
      "\"GRAY16_LE\", \"elements\": \"%s\", \"frame_ms\": %.3f, "
      "\"frames_per_s\": %.1f}\n}\n", size, desc, e * 1e3, 1 / e);
  g_free (desc);

  fputs (json->str, stdout);
  if (out_path && !g_file_set_contents (out_path, json->str, -1, &error))
    g_error ("%s", error->message);

  g_free (host);
  g_free (caps);
  g_string_free (json, TRUE);
  clv_device_unref (dev);
  g_option_context_free (ctx);
  g_free (rs_tunes);
  g_free (q_tunes);
  g_free (out_path);
  g_free (command);
  return 0;
}
