/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-tune: searches the tuning macros of each kernel on one OpenCL
 * device and stores the fastest values in the device's tuning file
 * (clv_tuning_path(): next to the cached program binaries, one per device
 * and driver), which every later run reads without being asked.
 *
 *   clvision-tune [--device SPEC] [--kernels multilook,rotscale,quantize,vj]
 *                 [--size N] [--image FRAME.pgm] [--vj-size WxH]
 *                 [--iterations N] [--json FILE] [--dry-run]
 *
 * The search is one pass of coordinate descent from the defaults: each
 * macro in turn takes every value of its list with the others at the best
 * found so far; macros that only win together (the detector's work-group
 * size and cooperative windows) are searched as one, pair by pair.  A
 * workload is timed by the device (profiling events,
 * median of --iterations runs after one untimed run); every candidate's
 * output must equal the default's byte for byte, or the candidate is
 * dropped.  A kernel keeps its tuned values only when they beat the
 * defaults by more than 3% (the run-to-run spread); otherwise its group is
 * left out of the file and the defaults stay.  While CLVISION_TUNE is set,
 * kernels ignore stored values; CLVISION_AUTOTUNE=0 ignores them too.  The timings, default
 * against tuned, are printed as JSON (--json FILE too). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clv-cascade.h"
#include "clv-opencl.h"
#include "clv-pgm.h"
#include "clv-sar.h"
#include "clv-vj.h"

#define MIN_GAIN 0.97

typedef struct
{
  ClvDevice *dev;
  int size;                     /* SAR frame side */
  int iterations;
  guint16 *sar_host;
  cl_mem sar_in;
  ClvCascade *cascade;
  guint8 *frame;                /* detection frame, gray */
  int frame_w, frame_h;
} Workload;

/* One timed measurement: device seconds, and the outputs for comparison. */
typedef gboolean (*MeasureFunc) (Workload * w, double *seconds,
    GByteArray * output, GError ** error);

typedef struct
{
  const char *name;             /* "NAME", or "NAME1,NAME2" searched jointly */
  const char *values;           /* comma-separated candidates; "V1:V2" for
                                 * a joint entry */
} Macro;

typedef struct
{
  const char *name;             /* group in the tuning file */
  MeasureFunc measure;
  Macro macros[10];             /* ended by one without a name, or full */
  /* Whether the kernel the device's defaults build reads a macro (NULL:
   * every one), so that one it ignores cannot win on noise. */
  gboolean (*reads) (ClvDevice * dev, const char *macro);
} Kernel;

static double
median (double *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Reads `bytes` of `mem` onto the end of `output`. */
static gboolean
append_buffer (ClvDevice * dev, cl_mem mem, gsize bytes, GByteArray * output,
    GError ** error)
{
  guint old = output->len;

  g_byte_array_set_size (output, old + bytes);
  CLV_CHECK (clEnqueueReadBuffer (dev->queue, mem, CL_TRUE, 0, bytes,
          output->data + old, 0, NULL, NULL), error, fail);
  return TRUE;
fail:
  return FALSE;
}

/* One run of a kernel: enqueues it on `ctx`'s objects, waits, and returns
 * its device seconds. */
typedef gboolean (*RunOnceFunc) (gpointer ctx, double *seconds,
    GError ** error);

/* The median of --iterations runs after one untimed run. */
static gboolean
median_of_runs (Workload * w, RunOnceFunc run, gpointer ctx, double *seconds,
    GError ** error)
{
  double *t = g_new (double, w->iterations), s = 0;
  gboolean ok = TRUE;

  for (int i = -1; ok && i < w->iterations; i++) {
    ok = run (ctx, &s, error);
    if (ok && i >= 0)
      t[i] = s;
  }
  if (ok)
    *seconds = median (t, w->iterations);
  g_free (t);
  return ok;
}

/* Waits for `ev`, releases it and gives its device seconds. */
static double
event_done (cl_event ev)
{
  double s;

  clWaitForEvents (1, &ev);
  s = clv_event_seconds (ev);
  clReleaseEvent (ev);
  return s;
}

typedef struct
{
  Workload *w;
  ClvImage si, di;
  cl_mem out;
  ClvMultilook *ml;
  ClvRotscale *rs;
  ClvRotscaleGeometry g;
  ClvQuantize *q;
} SarRun;

static gboolean
multilook_once (gpointer ctx, double *seconds, GError ** error)
{
  SarRun *r = ctx;
  cl_event ev;

  if (!clv_multilook_enqueue (r->ml, r->w->sar_in, &r->si, r->out, &r->di,
          &ev, error))
    return FALSE;
  *seconds = event_done (ev);
  return TRUE;
}

static gboolean
rotscale_once (gpointer ctx, double *seconds, GError ** error)
{
  SarRun *r = ctx;
  cl_event ev;

  if (!clv_rotscale_enqueue (r->rs, r->w->sar_in, &r->si, r->out, &r->di,
          &r->g, 0, &ev, error))
    return FALSE;
  *seconds = event_done (ev);
  return TRUE;
}

/* All launches of a frame, from the first's start to the last's end. */
static gboolean
quantize_once (gpointer ctx, double *seconds, GError ** error)
{
  SarRun *r = ctx;
  ClvQuantizeEvents ev = { 0 };

  if (!clv_quantize_enqueue (r->q, r->w->sar_in, &r->si, r->out, &r->di, 35,
          &ev, error))
    return FALSE;
  clWaitForEvents (ev.n_events, ev.events);
  *seconds = clv_event_span_seconds (ev.events[0], ev.events[ev.n_events - 1]);
  clv_quantize_events_clear (&ev);
  return TRUE;
}

/* Times `once` on a SAR frame into an output of `di`'s size, appending the
 * output to `output`; frees the kernel objects of `r`. */
static gboolean
time_sar (SarRun * r, RunOnceFunc once, double *seconds, GByteArray * output,
    GError ** error)
{
  gsize bytes = r->di.stride * r->di.height;
  gboolean ok = r->out && (r->ml || r->rs || r->q)
      && median_of_runs (r->w, once, r, seconds, error)
      && append_buffer (r->w->dev, r->out, bytes, output, error);

  if (r->ml)
    clv_multilook_free (r->ml);
  if (r->rs)
    clv_rotscale_free (r->rs);
  if (r->q)
    clv_quantize_free (r->q);
  if (r->out)
    clReleaseMemObject (r->out);
  return ok;
}

/* A SarRun on the workload's frame with an output of width x height x bpp. */
static SarRun
sar_run (Workload * w, int width, int height, int bpp, GError ** error)
{
  SarRun r = { w };

  r.si = clv_image_make (w->size, w->size, 2, (gsize) w->size * 2);
  r.di = clv_image_make (width, height, bpp, (gsize) width * bpp);
  r.out = clv_buffer_new (w->dev, CL_MEM_WRITE_ONLY, r.di.stride * height,
      error);
  return r;
}

/* Looks 2, 4 and 16 (the benchmark's), timed together: one set of values
 * serves every looks factor. */
static gboolean
measure_multilook (Workload * w, double *seconds, GByteArray * output,
    GError ** error)
{
  static const int looks[] = { 2, 4, 16 };
  gboolean ok = TRUE;

  *seconds = 0;
  for (guint l = 0; ok && l < G_N_ELEMENTS (looks); l++) {
    int ow, oh;
    double s = 0;
    SarRun r;

    clv_multilook_out_size (w->size, w->size, looks[l], looks[l], &ow, &oh);
    r = sar_run (w, ow, oh, 2, error);
    if (r.out)
      r.ml = clv_multilook_new (w->dev, CLV_SAMPLE_U16, looks[l], looks[l],
          CLV_MULTILOOK_INTENSITY, NULL, ow, oh, error);
    ok = time_sar (&r, multilook_once, &s, output, error);
    *seconds += s;
  }
  return ok;
}

/* Bilinear, 30 degrees, x1.5 (the settings of Li et al., "Parallel
 * Optimization Strategy of Airborne SAR Imaging Algorithm Based on ARM
 * GPU"), same-size output. */
static gboolean
measure_rotscale (Workload * w, double *seconds, GByteArray * output,
    GError ** error)
{
  SarRun r = sar_run (w, w->size, w->size, 2, error);

  clv_rotscale_geometry_init (&r.g, 30, 1.5, w->size, w->size, w->size,
      w->size);
  if (r.out)
    r.rs = clv_rotscale_new (w->dev, 2, CLV_INTERP_BILINEAR, error);
  return time_sar (&r, rotscale_once, seconds, output, error);
}

/* Coefficient 35 (the same paper's). */
static gboolean
measure_quantize (Workload * w, double *seconds, GByteArray * output,
    GError ** error)
{
  SarRun r = sar_run (w, w->size, w->size, 1, error);

  if (r.out)
    r.q = clv_quantize_new (w->dev, 2, error);
  return time_sar (&r, quantize_once, seconds, output, error);
}

typedef struct
{
  ClvVjDetector *det;
  cl_mem frame;
  ClvLumaImage layout;
  ClvVjParams params;
  GArray *faces;
} VjRun;

/* The pyramid and detection launches of one frame. */
static gboolean
vj_once (gpointer ctx, double *seconds, GError ** error)
{
  VjRun *r = ctx;
  double pyr, detect;

  if (r->faces)
    g_array_free (r->faces, TRUE);
  r->faces = clv_vj_detector_detect (r->det, r->frame, &r->layout,
      &r->params, error);
  if (r->faces == NULL)
    return FALSE;
  clv_vj_detector_kernel_ms (r->det, &pyr, &detect);
  *seconds = (pyr + detect) / 1e3;
  return TRUE;
}

/* The faces are the output. */
static gboolean
measure_vj (Workload * w, double *seconds, GByteArray * output,
    GError ** error)
{
  VjRun r = { NULL, NULL, clv_luma_image_gray (w->frame_w, w->frame_h, 0,
        w->frame_w), CLV_VJ_PARAMS_DEFAULT, NULL };
  ClvVjTuning tuning;
  gboolean ok;

  r.frame = clv_buffer_new_with_data (w->dev, CL_MEM_READ_ONLY, w->frame,
      (gsize) w->frame_w * w->frame_h, error);
  if (r.frame) {
    /* The macros searched are the uberkernels' (the default on CPUs is the
     * simple kernel, which has none of them). */
    clv_vj_uber_tuning_for_device (w->dev, &tuning);
    r.det = clv_vj_detector_new (w->dev, w->cascade, &tuning, error);
  }
  ok = r.det && median_of_runs (w, vj_once, &r, seconds, error);
  if (ok)
    g_byte_array_append (output, (const guint8 *) r.faces->data,
        r.faces->len * sizeof (ClvVjFace));
  if (r.faces)
    g_array_free (r.faces, TRUE);
  if (r.det)
    clv_vj_detector_free (r.det);
  if (r.frame)
    clReleaseMemObject (r.frame);
  return ok;
}

/* The uberkernel over tiles has no chunks; the one over chunks no tiles,
 * nor stages compiled in. */
static gboolean
vj_reads (ClvDevice * dev, const char *macro)
{
  ClvVjTuning t;
  gboolean tiled;

  clv_vj_uber_tuning_for_device (dev, &t);
  tiled = t.variant == CLV_VJ_VARIANT_TILED;
  if (g_str_has_prefix (macro, "VJ_TILE_")
      || strcmp (macro, "VJ_UNROLL") == 0)
    return tiled;
  if (strcmp (macro, "VJ_CHUNK") == 0)
    return !tiled;
  return TRUE;
}

/* The macros searched, with values around each default (see the kernels'
 * *_new functions); combinations the device refuses are skipped. */
static const Kernel kernels[] = {
  {"multilook", measure_multilook, {
          {"SAR_ML_WG", "64,128,256,512,1024"},
          {"SAR_ML_OUT_X", "1,2,4,8"},
          {"SAR_ML_SPLIT", "1,2,4,8,16"}}},
  {"rotscale", measure_rotscale, {
          {"SAR_RS_WG_X", "8,16,32,64"},
          {"SAR_RS_WG_Y", "1,2,4,8,16,32"},
          {"SAR_RS_X", "1,2,4,8"}}},
  {"quantize", measure_quantize, {
          {"SAR_Q_VEC", "4,8"},
          {"SAR_Q_K", "1,2,4"},
          {"SAR_Q_WG", "32,64,128,256"},
          {"SAR_Q_APPLY_WG", "64,128,256"},
          {"SAR_Q_BAND", "8,16,32,64"},
          {"SAR_Q_FS", "1,4,8,16"},
          {"SAR_Q_ATOMIC", "0,1"}}},
  {"vj", measure_vj, {
          {"VJ_WG,VJ_COOP_WINDOWS",
              "8:2,32:1,32:2,32:4,64:2,64:4,64:8,128:4,128:8,128:16,"
              "128:32"},
          {"VJ_TILE_X,VJ_TILE_Y", "16:8,32:8,16:16,32:16,64:8"},
          {"VJ_CHUNK", "32,64,128,256"},
          {"VJ_UNROLL", "0,1"},
          {"VJ_COOP_STAGE", "2,3,4,5,6"},
          {"VJ_SHUFFLE", "-1,0"},
          {"VJ_GROUPS_PER_CU", "4,8,16,32,48"},
          {"VJ_MAX_REGISTERS", "0,32,48,64,96"},
          {"VJ_BAND_WG,VJ_BAND_ROWS",
              "16:16,64:16,128:8,128:16,128:32,256:16"}}, vj_reads},
};

/* "A=1,B=2" from the macros set so far. */
static char *
tune_string (GHashTable * set)
{
  GString *s = g_string_new (NULL);
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_string_append_printf (s, "%s%s=%s", s->len ? "," : "", (char *) k,
        (char *) v);
  return g_string_free (s, FALSE);
}

/* Puts candidate `value` of `m` into `set` (every name of a joint entry
 * with its part of the value).  Names are interned; values too, unless
 * `copy` (for a table that frees its values). */
static void
set_candidate (GHashTable * set, const Macro * m, const char *value,
    gboolean copy)
{
  char **names = g_strsplit (m->name, ",", -1);
  char **parts = g_strsplit (value, ":", -1);

  for (guint i = 0; names[i] && parts[i]; i++)
    g_hash_table_insert (set, (gpointer) g_intern_string (names[i]),
        copy ? g_strdup (parts[i]) : (gpointer) g_intern_string (parts[i]));
  g_strfreev (names);
  g_strfreev (parts);
}

/* Times `k` with `set` through CLVISION_TUNE; FALSE if the device refused
 * the values or the output differs from `expected` (when given). */
static gboolean
try_values (const Kernel * k, Workload * w, GHashTable * set,
    GByteArray * expected, double *seconds, GByteArray ** output_out)
{
  char *tune = tune_string (set);
  GByteArray *output = g_byte_array_new ();
  GError *error = NULL;
  gboolean ok;

  g_setenv ("CLVISION_TUNE", tune, TRUE);
  ok = k->measure (w, seconds, output, &error);
  if (!ok) {
    g_printerr ("  %-40s refused: %s\n", tune, error->message);
    g_clear_error (&error);
  } else if (expected && (expected->len != output->len
          || memcmp (expected->data, output->data, output->len) != 0)) {
    g_printerr ("  %-40s DROPPED: output differs from the defaults'\n", tune);
    ok = FALSE;
  } else {
    g_printerr ("  %-40s %.4f ms\n", *tune ? tune : "(defaults)",
        *seconds * 1e3);
  }
  if (ok && output_out)
    *output_out = output;
  else
    g_byte_array_unref (output);
  g_free (tune);
  return ok;
}

/* Searches `k`; stores the winner in `kf` if it beats the defaults.
 * Appends the kernel's JSON entry to `json`.  FALSE if even the defaults
 * failed. */
static gboolean
tune_kernel (const Kernel * k, Workload * w, GKeyFile * kf, GString * json)
{
  GHashTable *best = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      g_free);
  GByteArray *expected = NULL;
  GString *searched = g_string_new (NULL);
  gboolean reads[G_N_ELEMENTS (k->macros)];
  double def_s, best_s;
  int tried = 1;
  char *best_str;

  g_printerr ("%s:\n", k->name);
  if (!try_values (k, w, best, NULL, &def_s, &expected)) {
    g_hash_table_unref (best);
    g_string_free (searched, TRUE);
    return FALSE;
  }
  best_s = def_s;
  /* Decided under the defaults' CLVISION_TUNE (empty), which the
   * candidates below replace. */
  for (int i = 0; i < (int) G_N_ELEMENTS (k->macros) && k->macros[i].name;
      i++)
    reads[i] = k->reads == NULL || k->reads (w->dev, k->macros[i].name);
  for (const Macro * m = k->macros;
      m < k->macros + G_N_ELEMENTS (k->macros) && m->name; m++) {
    char **values;
    char *chosen = NULL;

    if (!reads[m - k->macros])
      continue;
    values = g_strsplit (m->values, ",", -1);

    g_string_append_printf (searched, "%s%s", searched->len ? ";" : "",
        m->name);
    for (char **v = values; *v; v++) {
      GHashTable *set = g_hash_table_new (g_str_hash, g_str_equal);
      GHashTableIter it;
      gpointer key, val;
      double s;

      g_hash_table_iter_init (&it, best);
      while (g_hash_table_iter_next (&it, &key, &val))
        g_hash_table_insert (set, key, val);
      set_candidate (set, m, *v, FALSE);
      tried++;
      if (try_values (k, w, set, expected, &s, NULL) && s < best_s) {
        best_s = s;
        g_free (chosen);
        chosen = g_strdup (*v);
      }
      g_hash_table_unref (set);
    }
    if (chosen)
      set_candidate (best, m, chosen, TRUE);
    g_free (chosen);
    g_strfreev (values);
  }
  /* The winner and the defaults again, to keep only gains that survive a
   * second timing (the first candidate of a search also pays for clocks
   * ramping up: 0.093 ms against 0.079 ms for the same H100 kernel). */
  if (g_hash_table_size (best) > 0) {
    GHashTable *none = g_hash_table_new (g_str_hash, g_str_equal);
    double again;
    try_values (k, w, best, expected, &best_s, NULL);
    if (try_values (k, w, none, expected, &again, NULL))
      def_s = MIN (def_s, again);
    g_hash_table_unref (none);
  }
  best_str = tune_string (best);
  if (best_s < def_s * MIN_GAIN) {
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init (&it, best);
    while (g_hash_table_iter_next (&it, &key, &val))
      g_key_file_set_string (kf, k->name, key, val);
  }
  g_string_append_printf (json, "%s\n    {\"kernel\": \"%s\", \"candidates\": "
      "%d, \"searched\": \"%s\", \"default_ms\": %.4f, \"tuned_ms\": %.4f, "
      "\"speedup\": %.3f, \"values\": \"%s\", \"stored\": %s}",
      json->str[json->len - 1] == '[' ? "" : ",", k->name, tried,
      searched->str, def_s * 1e3, best_s * 1e3, def_s / best_s, best_str,
      best_s < def_s * MIN_GAIN ? "true" : "false");
  g_printerr ("%s: default %.4f ms, tuned %.4f ms (%s)%s\n", k->name,
      def_s * 1e3, best_s * 1e3, *best_str ? best_str : "defaults",
      best_s < def_s * MIN_GAIN ? "" : ", within noise: not stored");
  g_free (best_str);
  g_string_free (searched, TRUE);
  if (expected)
    g_byte_array_unref (expected);
  g_hash_table_unref (best);
  return TRUE;
}

static gboolean
load_frame (Workload * w, const char *image, const char *vj_size,
    GError ** error)
{
  char *cascade_path = clv_cascade_default_path (NULL);
  guint8 *px;
  int iw, ih;

  w->cascade = clv_cascade_load (cascade_path, error);
  g_free (cascade_path);
  if (w->cascade == NULL)
    return FALSE;
  px = clv_pgm_read (image, &iw, &ih, error);
  if (px == NULL)
    return FALSE;
  if (vj_size == NULL) {
    w->frame = px;
    w->frame_w = iw;
    w->frame_h = ih;
    return TRUE;
  }
  if (sscanf (vj_size, "%dx%d", &w->frame_w, &w->frame_h) != 2
      || w->frame_w < 24 || w->frame_h < 24) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "--vj-size %s: expected WxH, at least 24x24", vj_size);
    g_free (px);
    return FALSE;
  }
  w->frame = g_malloc ((gsize) w->frame_w * w->frame_h);
  clv_vj_resize (px, iw, ih, iw, w->frame, w->frame_w, w->frame_h,
      w->frame_w);
  g_free (px);
  return TRUE;
}

int
main (int argc, char **argv)
{
  char *device = NULL, *kernel_list = NULL, *image = NULL, *vj_size = NULL;
  char *json_path = NULL;
  gboolean dry_run = FALSE;
  Workload w = { 0 };
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device (as the elements' `device` property)", "SPEC"},
    {"kernels", 'k', 0, G_OPTION_ARG_STRING, &kernel_list,
        "Kernels to tune (default: all; vj needs --image)",
        "multilook,rotscale,quantize,vj"},
    {"size", 's', 0, G_OPTION_ARG_INT, &w.size,
        "SAR frame side (default 4096 on GPUs, 1024 on CPUs)", "N"},
    {"image", 'i', 0, G_OPTION_ARG_FILENAME, &image,
        "Gray PGM photograph for detection (vj)", "FILE"},
    {"vj-size", 0, 0, G_OPTION_ARG_STRING, &vj_size,
        "Scale the photograph to WxH first (default: its own size)", "WxH"},
    {"iterations", 'n', 0, G_OPTION_ARG_INT, &w.iterations,
        "Timed runs per candidate (default 20)", "N"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &json_path,
        "Also write the timings there", "FILE"},
    {"dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run,
        "Search and report, store nothing", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- search the kernels' tuning "
      "macros and store the fastest for this device");
  GError *error = NULL;
  GKeyFile *kf = g_key_file_new ();
  GString *json = g_string_new (NULL);
  char *path = NULL, **names;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("clvision-tune: %s\n", error->message);
    return 2;
  }
  if (g_getenv ("CLVISION_TUNE"))
    g_printerr ("clvision-tune: CLVISION_TUNE is ignored while searching\n");
  /* Search from the defaults, whatever is stored now. */
  g_setenv ("CLVISION_AUTOTUNE", "0", TRUE);
  /* The search compares kernel times. */
  g_setenv ("CLVISION_PROFILE", "1", TRUE);
  w.dev = clv_device_open (device, &error);
  if (w.dev == NULL)
    goto fail;
  if (w.size <= 0)
    w.size = w.dev->simd_width > 1 ? 4096 : 1024;
  if (w.iterations <= 0)
    w.iterations = 20;
  w.sar_host = g_new (guint16, (gsize) w.size * w.size);
  for (gsize i = 0; i < (gsize) w.size * w.size; i++)
    w.sar_host[i] = (guint16) (i * 2654435761u >> 16);
  w.sar_in = clv_buffer_new_with_data (w.dev, CL_MEM_READ_ONLY, w.sar_host,
      (gsize) w.size * w.size * 2, &error);
  if (w.sar_in == NULL)
    goto fail;
  names = g_strsplit (kernel_list ? kernel_list : image ?
      "multilook,rotscale,quantize,vj" : "multilook,rotscale,quantize", ",",
      -1);
  path = clv_tuning_path (w.dev);
  g_string_append_printf (json, "{\n  \"device\": \"%s\",\n  \"platform\": "
      "\"%s\",\n  \"driver\": \"%s\",\n  \"tuning_file\": \"%s\",\n  "
      "\"sar_size\": %d,\n  \"iterations\": %d,\n  \"kernels\": [",
      w.dev->device_name, w.dev->platform_name, w.dev->driver_version, path,
      w.size, w.iterations);
  for (char **n = names; *n && status == 0; n++) {
    const Kernel *k = NULL;
    for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
      if (strcmp (kernels[i].name, g_strstrip (*n)) == 0)
        k = &kernels[i];
    if (k == NULL) {
      g_printerr ("clvision-tune: unknown kernel \"%s\" (multilook, "
          "rotscale, quantize, vj)\n", *n);
      status = 2;
    } else if (k->measure == measure_vj && w.frame == NULL
        && (image == NULL || !load_frame (&w, image, vj_size, &error))) {
      g_printerr ("clvision-tune: vj: %s\n", error ? error->message :
          "needs --image FRAME.pgm (a photograph with faces)");
      g_clear_error (&error);
      status = 2;
    } else if (!tune_kernel (k, &w, kf, json)) {
      g_printerr ("clvision-tune: %s fails with its default values\n",
          k->name);
      status = 1;
    }
  }
  g_strfreev (names);
  g_string_append_printf (json, "\n  ],\n  \"stored\": %s\n}\n",
      dry_run || status ? "false" : "true");
  fputs (json->str, stdout);
  if (json_path && !g_file_set_contents (json_path, json->str, -1, &error))
    goto fail;
  if (status == 0 && !dry_run) {
    if (!clv_tuning_save (w.dev, kf, &error))
      goto fail;
    g_printerr ("clvision-tune: stored in %s\n", path);
  }
  goto out;

fail:
  g_printerr ("clvision-tune: %s\n", error->message);
  g_clear_error (&error);
  status = 1;
out:
  g_unsetenv ("CLVISION_TUNE");
  if (w.sar_in)
    clReleaseMemObject (w.sar_in);
  if (w.cascade)
    clv_cascade_free (w.cascade);
  g_free (w.frame);
  g_free (w.sar_host);
  if (w.dev)
    clv_device_unref (w.dev);
  g_key_file_free (kf);
  g_string_free (json, TRUE);
  g_option_context_free (ctx);
  g_free (path);
  g_free (device);
  g_free (kernel_list);
  g_free (image);
  g_free (vj_size);
  g_free (json_path);
  return status;
}
