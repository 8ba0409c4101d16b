/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Speckle filter and float SAR chain benchmark, printing JSON:
 *
 *   bench-speckle [--size 4096] [--radii 1,2,3] [--filters lee,...]
 *       [--iterations 50] [--tunes "T1;T2..."] [--out FILE]
 *
 * For every filter and radius: the kernel's median device time on a Float32
 * frame (over a ring of inputs larger than the GPU's L2, so from DRAM), its
 * effective bandwidth (4 bytes read and 4 written per pixel) against the
 * device's copy bandwidth and against one copy of the same traffic, and
 * whether its output on a 509 x 397 crop equals the C reference (within
 * the tolerance of the tests against Orfeo ToolBox, 1e-4 relative or 1e-6
 * absolute; the median exactly).  --tunes adds CLVISION_TUNE settings
 * (SAR_SPECKLE_LX, SAR_SPECKLE_LY, SAR_SPECKLE_ROWS, SAR_SPECKLE_FP64)
 * whose kernel times and reference checks are reported beside.
 *
 * The float chain: a CFloat32 frame through sarintensity, sarmultilook
 * looks=4, sarspeckle lee radius 2 and sardb, the four kernels back to
 * back on the device (its time and the sum of the traffic), and the same
 * elements in a pipeline from system memory (upload and download
 * included). */
#include <gst/gst.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "clv-sar.h"

static const char *filter_names[] = { "lee", "frost", "gammamap", "kuan",
  "refined-lee", "boxcar", "median"
};

/* A speckled Float32 frame: exponential speckle on reflectivities from
 * 1e-3 to 1e3 in 64 x 64 blocks. */
static float *
speckled_frame (int w, int h)
{
  GRand *rand = g_rand_new_with_seed (1980);
  float *v = g_new (float, (gsize) w * h);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const double r = pow (10, ((x / 64 * 7 + y / 64 * 13) % 61) / 10.0 - 3);
      v[(gsize) y * w + x] = (float) (r * -log (1 - g_rand_double (rand)));
    }
  g_rand_free (rand);
  return v;
}

/* Whether the device's output of `sp` on a crop of `host` equals the C
 * reference's. */
static gboolean
matches_reference (ClvDevice * dev, ClvSpeckle * sp,
    const ClvSpeckleParams * p, const float *host, int size)
{
  const int w = MIN (509, size), h = MIN (397, size);
  const ClvImage si = clv_image_make (w, h, 4, (gsize) size * 4);
  const ClvImage di = clv_image_make (w, h, 4, (gsize) w * 4);
  float *ref = g_new (float, (gsize) w * h), *got = g_new (float,
      (gsize) w * h);
  GError *error = NULL;
  cl_mem in = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, host,
      (gsize) size * h * 4, &error);
  cl_mem out = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, (gsize) w * h * 4,
      &error);
  gboolean same = TRUE;

  if (in == NULL || out == NULL || !clv_speckle_enqueue (sp, in, &si, out,
          &di, NULL, &error) || clEnqueueReadBuffer (dev->queue, out,
          CL_TRUE, 0, (gsize) w * h * 4, got, 0, NULL, NULL) != CL_SUCCESS)
    g_error ("bench: %s", error ? error->message : "read failed");
  clv_speckle_ref ((const guint8 *) host, &si, CLV_SAMPLE_F32,
      (guint8 *) ref, &di, p);
  for (int i = 0; i < w * h && same; i++)
    same = p->filter == CLV_SPECKLE_MEDIAN ? got[i] == ref[i] :
        fabs (got[i] - ref[i]) <= MAX (1e-4 * fabs (ref[i]), 1e-6);
  clReleaseMemObject (in);
  clReleaseMemObject (out);
  g_free (got);
  g_free (ref);
  return same;
}

typedef struct
{
  ClvSpeckle *sp;
  ClvImage im;
  cl_mem out;
} SpeckleRun;

static gboolean
speckle_enqueue (gpointer data, cl_mem src, cl_event * first, cl_event * ev,
    GError ** error)
{
  const SpeckleRun *r = data;

  return clv_speckle_enqueue (r->sp, src, &r->im, r->out, &r->im, ev, error);
}

/* Median kernel time of one filter at one radius, over the ring. */
static double
speckle_seconds (ClvDevice * dev, const ClvSpeckleParams * p, int size,
    cl_mem * ring, int ring_n, const float *host, const char *tune,
    int iterations, gboolean * same)
{
  const ClvImage im = clv_image_make (size, size, 4, (gsize) size * 4);
  double median;
  GError *error = NULL;
  cl_mem out = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, im.stride * size,
      &error);
  ClvSpeckle *sp;
  SpeckleRun run;

  bench_set_tuning (tune);
  sp = clv_speckle_new (dev, CLV_SAMPLE_F32, p, &error);
  bench_set_tuning (NULL);
  if (sp == NULL || out == NULL)
    g_error ("bench: %s", error->message);
  run.sp = sp;
  run.im = im;
  run.out = out;
  median = bench_ring_kernel_seconds (ring, ring_n, iterations,
      speckle_enqueue, &run);
  *same = matches_reference (dev, sp, p, host, size);
  clv_speckle_free (sp);
  clReleaseMemObject (out);
  return median;
}

/* One filter at one radius, with its tunings, as a JSON object. */
static void
append_filter (GString * json, ClvDevice * dev, const ClvSpeckleParams * p,
    int size, cl_mem * ring, int ring_n, const float *host, char **tunes,
    double copy_bw, int iterations)
{
  const double traffic = 8.0 * size * size;
  const double c = bench_copy_seconds (dev, (gsize) traffic, iterations);
  gboolean same;
  double k = speckle_seconds (dev, p, size, ring, ring_n, host, "",
      iterations, &same);

  g_string_append_printf (json, "\n    {\"filter\": \"%s\", \"radius\": %d, "
      "\"size\": %d, \"kernel_ms\": %.4f, \"kernel_gbs\": %.1f, "
      "\"kernel_vs_copy\": %.3f, \"same_traffic_copy_ms\": %.4f, "
      "\"kernel_vs_same_traffic_copy\": %.3f, \"equals_reference\": %s, "
      "\"tunings\": [", filter_names[p->filter], p->radius, size, k * 1e3,
      traffic / k / 1e9, traffic / k / 1e9 / copy_bw, c * 1e3, c / k,
      same ? "true" : "false");
  for (int t = 1; tunes[t]; t++) {
    double kt = speckle_seconds (dev, p, size, ring, ring_n, host, tunes[t],
        iterations, &same);
    g_string_append_printf (json, "%s\n      {\"CLVISION_TUNE\": \"%s\", "
        "\"kernel_ms\": %.4f, \"kernel_vs_copy\": %.3f, "
        "\"equals_reference\": %s}", t > 1 ? "," : "", tunes[t], kt * 1e3,
        traffic / kt / 1e9 / copy_bw, same ? "true" : "false");
  }
  g_string_append (json, "]}");
}

/* The float chain's four kernels back to back on a CFloat32 frame. */
static double
chain_kernel_seconds (ClvDevice * dev, int size, int iterations)
{
  const ClvImage ci = clv_image_make (size, size, 8, (gsize) size * 8);
  const ClvImage fi = clv_image_make (size, size, 4, (gsize) size * 4);
  const int m = size / 4;
  const ClvImage mi = clv_image_make (m, m, 4, (gsize) m * 4);
  const ClvSpeckleParams lee = { CLV_SPECKLE_LEE, 2, 16, 0 };
  const ClvDbParams db = { FALSE, -100, FALSE, 0, 0 };
  float *host = speckled_frame (2 * size, size);
  GError *error = NULL;
  cl_mem in = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, host,
      ci.stride * size, &error);
  cl_mem inten = clv_buffer_new (dev, CL_MEM_READ_WRITE, fi.stride * size,
      &error);
  cl_mem ml = clv_buffer_new (dev, CL_MEM_READ_WRITE, mi.stride * m, &error);
  cl_mem sp_out = clv_buffer_new (dev, CL_MEM_READ_WRITE, mi.stride * m,
      &error);
  cl_mem out = clv_buffer_new (dev, CL_MEM_READ_WRITE, mi.stride * m, &error);
  ClvPointwise *detect = clv_detect_new (dev, CLV_SAMPLE_CF32,
      CLV_DETECT_INTENSITY, &error);
  ClvMultilook *mlk = clv_multilook_new (dev, CLV_SAMPLE_F32, 4, 4,
      CLV_MULTILOOK_INTENSITY, NULL, m, m, &error);
  ClvSpeckle *sp = clv_speckle_new (dev, CLV_SAMPLE_F32, &lee, &error);
  ClvPointwise *todb = clv_db_new (dev, CLV_SAMPLE_F32, &db, &error);
  double *t = g_new (double, iterations), median;

  if (!todb || !sp || !mlk || !detect || !out)
    g_error ("bench: %s", error->message);
  for (int i = -3; i < iterations; i++) {
    gint64 t0;

    clFinish (dev->queue);
    t0 = g_get_monotonic_time ();
    if (!clv_pointwise_enqueue (detect, in, &ci, inten, &fi, NULL, &error)
        || !clv_multilook_enqueue (mlk, inten, &fi, ml, &mi, NULL, &error)
        || !clv_speckle_enqueue (sp, ml, &mi, sp_out, &mi, NULL, &error)
        || !clv_pointwise_enqueue (todb, sp_out, &mi, out, &mi, NULL,
            &error))
      g_error ("bench: %s", error->message);
    clFinish (dev->queue);
    if (i >= 0)
      t[i] = (g_get_monotonic_time () - t0) * 1e-6;
  }
  median = bench_median (t, iterations);
  clv_pointwise_free (todb);
  clv_speckle_free (sp);
  clv_multilook_free (mlk);
  clv_pointwise_free (detect);
  clReleaseMemObject (out);
  clReleaseMemObject (sp_out);
  clReleaseMemObject (ml);
  clReleaseMemObject (inten);
  clReleaseMemObject (in);
  g_free (host);
  g_free (t);
  return median;
}

static void
append_chain (GString * json, ClvDevice * dev, int size, double copy_bw,
    int iterations)
{
  /* detect: 8 in, 4 out; multilook: 4 in, 1/4 out; lee and dB on the
   * multilooked frame: 2 x (1/16 + 1/16) of 4 bytes. */
  const double traffic = (double) size * size * (12 + 4 + 0.25 + 1);
  const double k = chain_kernel_seconds (dev, size, iterations);
  gchar *caps = g_strdup_printf ("application/x-raster,format=CFloat32,"
      "width=%d,height=%d,bands=1,framerate=0/1", size, size);
  const char *elements = "sarintensity ! sarmultilook looks=4 ! sarspeckle "
      "filter=lee radius=2 looks=16 ! sardb";
  const double e = bench_pipeline_seconds (elements, caps,
      (gsize) size * size * 8, MAX (iterations / 5, 5));

  g_string_append_printf (json, ",\n  \"float_chain\": {\"size\": %d, "
      "\"elements\": \"%s\", \"kernels_ms\": %.4f, \"kernels_gbs\": %.1f, "
      "\"kernels_vs_copy\": %.3f, \"element_ms\": %.3f, "
      "\"element_frames_per_s\": %.1f}", size, elements, k * 1e3,
      traffic / k / 1e9, traffic / k / 1e9 / copy_bw, e * 1e3, 1 / e);
  g_free (caps);
}

int
main (int argc, char **argv)
{
  int size = 4096, iterations = 50, ring_n;
  char *radii_arg = NULL, *filters_arg = NULL, *out_path = NULL;
  char *tunes_arg = NULL, **radii, **filters, **tunes;
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_INT, &size, "Frame side (pixels)", "N"},
    {"radii", 0, 0, G_OPTION_ARG_STRING, &radii_arg, "Radii", "1,2,3"},
    {"filters", 0, 0, G_OPTION_ARG_STRING, &filters_arg, "Filters",
        "lee,..."},
    {"iterations", 0, 0, G_OPTION_ARG_INT, &iterations, "Timed runs", "N"},
    {"tunes", 0, 0, G_OPTION_ARG_STRING, &tunes_arg, "Further tunings",
        "T1;T2"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- SAR speckle benchmark");
  GError *error = NULL;
  char *command = g_strjoinv (" ", argv);
  GString *json = g_string_new (NULL);
  ClvDevice *dev;
  float *host;
  cl_mem *ring;
  double copy_bw;
  gboolean first = TRUE;

  g_option_context_add_main_entries (ctx, entries, NULL);
  bench_time_kernels ();
  gst_init (&argc, &argv);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  bench_require_elements ("sarintensity", "sarmultilook", "sarspeckle", "sardb", NULL);
  dev = clv_device_open (NULL, &error);
  if (dev == NULL)
    g_error ("%s", error->message);
  radii = g_strsplit (radii_arg ? radii_arg : "1,2,3", ",", -1);
  filters = g_strsplit (filters_arg ? filters_arg :
      "lee,frost,gammamap,kuan,refined-lee,boxcar,median", ",", -1);
  tunes = bench_tunings (tunes_arg);
  host = speckled_frame (size, size);
  ring = bench_ring_new (dev, host, (gsize) size * size * 4, &ring_n);
  copy_bw = bench_copy_bandwidth (dev, BENCH_RING_BYTES, 20);

  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"copy_bandwidth_gbs\": %.1f,\n"
      "  \"speckle\": [", copy_bw);
  for (int f = 0; filters[f]; f++)
    for (int r = 0; radii[r]; r++) {
      ClvSpeckleParams p = { 0, atoi (radii[r]), 4, 0.1 };
      guint k = 0;

      while (k < G_N_ELEMENTS (filter_names)
          && strcmp (filter_names[k], filters[f]) != 0)
        k++;
      if (k == G_N_ELEMENTS (filter_names))
        g_error ("bench: no filter %s", filters[f]);
      p.filter = k;
      /* Refined Lee has one window, 7 x 7. */
      if (p.filter == CLV_SPECKLE_REFINED_LEE
          && p.radius != CLV_REFINED_LEE_RADIUS)
        continue;
      if (!first)
        g_string_append (json, ",");
      first = FALSE;
      append_filter (json, dev, &p, size, ring, ring_n, host, tunes, copy_bw,
          iterations);
    }
  g_string_append (json, "\n  ]");
  append_chain (json, dev, size, copy_bw, iterations);
  g_string_append (json, "\n}\n");

  if (out_path && !g_file_set_contents (out_path, json->str, -1, &error))
    g_error ("%s", error->message);
  fputs (json->str, stdout);
  bench_ring_free (ring, ring_n);
  g_free (host);
  g_strfreev (tunes);
  g_strfreev (filters);
  g_strfreev (radii);
  g_string_free (json, TRUE);
  g_free (command);
  clv_device_unref (dev);
  return 0;
}
