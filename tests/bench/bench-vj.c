/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjfacedetect benchmark: wall time per frame (upload of the gray frame,
 * pyramid, integrals, detection, read-back and grouping on the host) of the
 * device's uberkernel (over tiles on GPUs, over chunks on CPUs, or as
 * CLVISION_TUNE's VJ_VARIANT says) and of the simple variant, and OpenCV
 * 4.6's detectMultiScale on the same frames through the oracle, in one run; one
 * JSON document on stdout.  Wall times are taken on the device as the
 * elements open it (its queue records no kernel times unless
 * CLVISION_PROFILE is set), kernel times on a second, profiled device
 * object (clv_device_open_profiled), at most 50 runs.
 *
 *   bench-vj [--repeat N] [--warmup N] [--size WxH ...] [--no-native]
 *       [--cascade FILE] [--scale-factor F] [--min-neighbors N]
 *       [--min-size WxH] [--tune "A=1,B=2" ...] [--oracle PATH]
 *       [--threads N] [--frames-dir DIR] [--no-check] [--batch N,...]
 *       [--pinned] IMAGE.pgm ...
 *
 * Every IMAGE (a real photograph, gray PGM) is measured at its own size
 * and, for every --size, scaled to that size with OpenCV's bilinear resize
 * (such frames are marked "synthetic" in the output).  Each --tune adds a
 * run of the uberkernel with those CLVISION_TUNE values (after the
 * caller's CLVISION_TUNE, which every run uses, batches too).  With --oracle
 * (tests/oracle/oracle-detect) every frame is also timed with OpenCV,
 * --threads threads.  Unless --no-check, the faces of every variant are
 * compared with the C reference's (OpenCV-exact) on the device used.
 * Each --batch N times N copies of every frame detected as one batch
 * (clv_vj_detector_candidates_batch, what the per-device service runs):
 * wall time per batch and per frame, its pyramid and detection kernels,
 * and the host's share split into read-back plus routing (inside the
 * batch call, outside kernels) and grouping.  Unless --no-check, "work"
 * gives what the detection kernel does on each frame, counted with the C
 * reference (the same on every device): every window, those past the
 * variance test, and per stage the windows that reach it and the trees
 * they evaluate (the kernel evaluates every window; OpenCV's skip after a
 * stage-0 rejection is applied to the few that pass every stage).  The
 * frames are uploaded from malloc'd (pageable) memory, or with --pinned
 * from pinned host memory, where a source writes them when vjfacedetect
 * proposes its pool (docs/design.md, Memory). */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "clv-pgm.h"
#include "clv-vj.h"

typedef struct
{
  char *name;                   /* file name of the frame */
  char *source;                 /* how it was made */
  gboolean synthetic;
  guint8 *pixels;
  int width, height;
  const guint8 *upload;         /* what is uploaded: pixels or a pinned copy */
  cl_mem pinned_mem;
  void *pinned;
} Frame;

typedef struct
{
  int repeat, warmup, threads;
  gboolean check;
  char *cascade, *oracle, *frames_dir;
  ClvVjParams params;
  char **batches;               /* --batch sizes */
  gboolean pinned;
} Options;

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static gboolean
parse_size (const char *s, int *w, int *h)
{
  char end;
  return sscanf (s, "%dx%d%c", w, h, &end) == 2 && *w >= 0 && *h >= 0;
}

/* CLVISION_TUNE as the caller set it: every run uses it, each --tune adds
 * its values after it. */
static char *caller_tune;

static void
set_tune (const char *tune)
{
  char *full = tune && caller_tune ? g_strdup_printf ("%s,%s", caller_tune,
      tune) : g_strdup (tune ? tune : caller_tune);

  if (full)
    g_setenv ("CLVISION_TUNE", full, TRUE);
  else
    g_unsetenv ("CLVISION_TUNE");
  g_free (full);
}

/* Runs of a frame or batch on the device that profiles, for kernel
 * times: at most this many (and the warm-up). */
#define KERNEL_REPEAT 50

/* Runs `det` on frame `f` (uploaded to `mem`, a buffer of dev's) warm-up
 * plus `repeat` times: each run's wall time into `ms` or, if `ms` is NULL,
 * its kernel times into `pyr` and `detk` (a device that profiles); the
 * last run's faces. */
static GArray *
time_frame (ClvDevice * dev, ClvVjDetector * det, cl_mem mem, const Frame * f,
    const Options * o, int repeat, double *ms, double *pyr, double *detk)
{
  GError *error = NULL;
  const gsize size = (gsize) f->width * f->height;
  ClvLumaImage layout = clv_luma_image_gray (f->width, f->height, 0,
      f->width);
  GArray *faces = NULL;

  for (int r = -o->warmup; r < repeat; r++) {
    double t0 = now_ms ();
    if (clEnqueueWriteBuffer (dev->queue, mem, CL_FALSE, 0, size, f->upload,
            0, NULL, NULL) != CL_SUCCESS)
      g_error ("bench-vj: upload failed");
    if (faces)
      g_array_free (faces, TRUE);
    faces = clv_vj_detector_detect (det, mem, &layout, &o->params, &error);
    if (faces == NULL)
      g_error ("bench-vj: %s", error->message);
    if (r >= 0 && ms)
      ms[r] = now_ms () - t0;
    else if (r >= 0)
      clv_vj_detector_kernel_ms (det, &pyr[r], &detk[r]);
  }
  return faces;
}

/* A detector with tuning `t` on `dev` and a buffer for frame `f`. */
static ClvVjDetector *
detector_for (ClvDevice * dev, const ClvCascade * cascade,
    const ClvVjTuning * t, const Frame * f, cl_mem * mem)
{
  GError *error = NULL;
  ClvVjDetector *det = clv_vj_detector_new (dev, cascade, t, &error);

  *mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, (gsize) f->width * f->height,
      &error);
  if (det == NULL || *mem == NULL)
    g_error ("bench-vj: %s", error->message);
  return det;
}

/* Times one detector on one frame, wall times on `dev` (which does not
 * profile: profiling costs every launch some time) and kernel times on
 * `pdev`; appends a JSON object to `out`. */
static void
bench_variant (ClvDevice * dev, ClvDevice * pdev, const ClvCascade * cascade,
    const Frame * f, GArray * ref, const Options * o, const char *label,
    const char *tune, GString * out)
{
  const int krepeat = MIN (o->repeat, KERNEL_REPEAT);
  ClvVjTuning t;
  ClvVjDetector *det, *pdet;
  cl_mem mem, pmem;
  double *ms = g_new (double, o->repeat), mean = 0;
  double *pyr = g_new (double, krepeat), *detk = g_new (double, krepeat);
  GArray *faces;
  gboolean equal = TRUE;
  char *profile;

  set_tune (tune);
  clv_vj_uber_tuning_for_device (dev, &t);
  if (strcmp (label, "clvision-simple") == 0)
    t.variant = CLV_VJ_VARIANT_SIMPLE;
  det = detector_for (dev, cascade, &t, f, &mem);
  pdet = detector_for (pdev, cascade, &t, f, &pmem);

  faces = time_frame (dev, det, mem, f, o, o->repeat, ms, NULL, NULL);
  for (int r = 0; r < o->repeat; r++)
    mean += ms[r] / o->repeat;
  g_array_free (time_frame (pdev, pdet, pmem, f, o, krepeat, NULL, pyr,
          detk), TRUE);
  if (ref)
    equal = ref->len == faces->len && memcmp (ref->data, faces->data,
        faces->len * sizeof (ClvVjFace)) == 0;
  profile = clv_vj_detector_kernel_profile (pdet);
  g_string_append_printf (out, "{\"implementation\": \"%s\", "
      "\"variant\": \"%s\", \"tune\": \"%s\", \"wg\": %d, \"chunk\": %d, "
      "\"coop_windows\": %d, \"coop_stage\": %d, \"groups_per_cu\": %d, "
      "\"small_wg\": %d, \"small_coop_windows\": %d, \"small_tiles\": %d, "
      "\"small_groups_per_cu\": %d, "
      "\"unrolled_stages\": %d, \"shuffle\": %s, "
      "\"static\": %s, \"frame\": \"%s\", \"width\": %d, \"height\": %d, "
      "\"faces\": %u, \"repeat\": %d, \"kernel_repeat\": %d, ", label,
      t.variant == CLV_VJ_VARIANT_SIMPLE ? "simple" :
      t.variant == CLV_VJ_VARIANT_TILED ? "tiled" :
      t.variant == CLV_VJ_VARIANT_CPU ? "cpu" : "uber",
      tune ? tune : "", t.wg, t.chunk, t.coop_windows, t.coop_stage,
      t.groups_per_cu, t.small_wg, t.small_coop_windows, t.small_tiles,
      t.small_groups_per_cu,
      clv_vj_detector_unrolled_stages (det),
      clv_vj_detector_shuffles (det) ? "true" : "false",
      t.static_schedule ? "true" : "false", f->name, f->width, f->height,
      faces->len, o->repeat, krepeat);
  {
    double med = bench_median (ms, o->repeat);
    g_string_append_printf (out, "\"ms_min\": %.3f, \"ms_median\": %.3f, "
        "\"ms_mean\": %.3f, \"pyramid_kernels_ms_median\": %.3f, "
        "\"detect_kernels_ms_median\": %.3f, \"launches\": %u, "
        "\"detect_wg\": %d, \"kernels_ms_last\": %s", ms[0], med, mean,
        bench_median (pyr, krepeat), bench_median (detk, krepeat),
        clv_vj_detector_launches (det, NULL),
        clv_vj_detector_last_detect_wg (det), profile);
  }
  g_free (profile);
  if (ref)
    g_string_append_printf (out, ", \"equal_to_reference\": %s",
        equal ? "true" : "false");
  g_string_append (out, "}");

  g_array_free (faces, TRUE);
  clv_vj_detector_free (det);
  clv_vj_detector_free (pdet);
  clReleaseMemObject (mem);
  clReleaseMemObject (pmem);
  g_free (ms);
  g_free (pyr);
  g_free (detk);
  set_tune (NULL);
}

/* Batches of `n` copies of frame `f` on `dev`, warm-up plus `repeat`
 * times: wall time per batch into `ms`, of the batch call (upload and
 * detection) into `call` and of grouping into `group` or, if `ms` is
 * NULL, the kernel times into `pyr` and `detk` and the kernel profile
 * (a device that profiles); whether the last batch's faces equal `ref`
 * (NULL: not compared). */
static gboolean
time_batch (ClvDevice * dev, const ClvCascade * cascade, const Frame * f,
    GArray * ref, const Options * o, guint n, int repeat, double *ms,
    double *call, double *group, double *pyr, double *detk, char **profile)
{
  GError *error = NULL;
  ClvVjDetector *det = clv_vj_detector_new (dev, cascade, NULL, &error);
  const gsize size = (gsize) f->width * f->height;
  cl_mem *mem = g_new0 (cl_mem, n);
  ClvVjFrame *batch = g_new0 (ClvVjFrame, n);
  gboolean equal = TRUE;

  if (det == NULL)
    g_error ("bench-vj: %s", error->message);
  for (guint i = 0; i < n; i++) {
    if (!(mem[i] = clv_buffer_new (dev, CL_MEM_READ_ONLY, size, &error)))
      g_error ("bench-vj: %s", error->message);
    batch[i] = (ClvVjFrame) {
    .frame = mem[i],.image = clv_luma_image_gray (f->width, f->height, 0,
          f->width),.params = o->params};
  }
  for (int r = -o->warmup; r < repeat; r++) {
    double t0 = now_ms (), t1, t2;
    for (guint i = 0; i < n; i++)
      if (clEnqueueWriteBuffer (dev->queue, mem[i], CL_FALSE, 0, size,
              f->upload, 0, NULL, NULL) != CL_SUCCESS)
        g_error ("bench-vj: upload failed");
    if (!clv_vj_detector_candidates_batch (det, batch, n, &error))
      g_error ("bench-vj: %s", error->message);
    t1 = now_ms ();
    for (guint i = 0; i < n; i++) {
      GArray *faces = clv_vj_group_faces (batch[i].candidates,
          o->params.min_neighbors, f->width, f->height);
      if (ref && r == repeat - 1)
        equal &= ref->len == faces->len && memcmp (ref->data, faces->data,
            faces->len * sizeof (ClvVjFace)) == 0;
      g_array_free (faces, TRUE);
    }
    t2 = now_ms ();
    if (r >= 0 && ms) {
      ms[r] = t2 - t0;
      call[r] = t1 - t0;
      group[r] = t2 - t1;
    } else if (r >= 0) {
      clv_vj_detector_kernel_ms (det, &pyr[r], &detk[r]);
    }
  }
  if (!ms)
    *profile = clv_vj_detector_kernel_profile (det);
  for (guint i = 0; i < n; i++) {
    g_array_free (batch[i].candidates, TRUE);
    g_array_free (batch[i].weights, TRUE);
    clReleaseMemObject (mem[i]);
  }
  clv_vj_detector_free (det);
  g_free (batch);
  g_free (mem);
  return equal;
}

/* Times batches of `n` copies of one frame, wall times on `dev` and
 * kernel times on `pdev` (as bench_variant); the host's share outside
 * kernels and grouping is the batch call's median less the kernels'
 * medians.  Appends a JSON object. */
static void
bench_batch (ClvDevice * dev, ClvDevice * pdev, const ClvCascade * cascade,
    const Frame * f, GArray * ref, const Options * o, guint n, GString * out)
{
  const int krepeat = MIN (o->repeat, KERNEL_REPEAT);
  double *ms = g_new (double, o->repeat), *call = g_new (double, o->repeat);
  double *group = g_new (double, o->repeat);
  double *pyr = g_new (double, krepeat), *detk = g_new (double, krepeat);
  double med, pyr_med, detk_med;
  gboolean equal;
  char *profile;

  equal = time_batch (dev, cascade, f, ref, o, n, o->repeat, ms, call, group,
      NULL, NULL, NULL);
  time_batch (pdev, cascade, f, NULL, o, n, krepeat, NULL, NULL, NULL, pyr,
      detk, &profile);
  med = bench_median (ms, o->repeat);
  pyr_med = bench_median (pyr, krepeat);
  detk_med = bench_median (detk, krepeat);
  g_string_append_printf (out, "{\"implementation\": \"clvision-batch\", "
      "\"batch\": %u, \"frame\": \"%s\", \"width\": %d, \"height\": %d, "
      "\"repeat\": %d, \"kernel_repeat\": %d, \"ms_per_batch_median\": %.3f, "
      "\"ms_per_frame\": %.3f, \"pyramid_kernels_ms_median\": %.3f, "
      "\"detect_kernels_ms_median\": %.3f, "
      "\"upload_readback_routing_ms_median\": %.3f, "
      "\"group_ms_median\": %.3f, \"kernels_ms_last\": %s", n, f->name,
      f->width, f->height, o->repeat, krepeat, med, med / n, pyr_med,
      detk_med, MAX (bench_median (call, o->repeat) - pyr_med - detk_med, 0),
      bench_median (group, o->repeat), profile);
  g_free (profile);
  if (ref)
    g_string_append_printf (out, ", \"equal_to_reference\": %s",
        equal ? "true" : "false");
  g_string_append (out, "}");
  g_free (ms);
  g_free (call);
  g_free (group);
  g_free (pyr);
  g_free (detk);
}

/* The cascade's work on `f` (see the top comment), as a JSON object. */
static char *
reference_work (const ClvCascade * c, const Frame * f, const ClvVjParams * p)
{
  ClvVjScale *sc;
  const int n = clv_vj_scales (f->width, f->height, c->window_w, c->window_h,
      p, &sc);
  guint8 *level = g_malloc ((gsize) f->width * f->height);
  ClvVjIntegrals *in = clv_vj_integrals_new (f->width, f->height,
      c->has_tilted);
  guint64 windows = 0, evaluated = 0, trees = 0;
  guint64 *reach = g_new0 (guint64, c->n_stages);
  GString *json = g_string_new (NULL);

  for (int i = 0; i < n; i++) {
    const ClvVjScale *s = &sc[i];
    clv_vj_resize (f->pixels, f->width, f->height, f->width, level,
        s->width, s->height, f->width);
    clv_vj_integrals_compute (in, level, s->width, s->height, f->width);
    for (int y = 0; y < s->y_end; y += s->step)
      for (int x = 0; x < s->x_end; x += s->step) {
        /* Every window, as the kernel evaluates them all. */
        float vnf;
        windows++;
        if (clv_vj_window_norm (c, in, x, y, &vnf)) {
          /* 1: passed; 0 or -si: rejected by stage si. */
          const int r = clv_vj_eval_stages (c, in, x, y, vnf, NULL);
          const int last = r > 0 ? c->n_stages - 1 : -r;
          evaluated++;
          for (int si = 0; si <= last; si++)
            reach[si]++;
        }
      }
  }
  g_string_append_printf (json, "{\"windows\": %" G_GUINT64_FORMAT ", "
      "\"past_variance_test\": %" G_GUINT64_FORMAT ", \"stages\": [",
      windows, evaluated);
  for (int si = 0; si < c->n_stages && reach[si] > 0; si++) {
    trees += reach[si] * c->stages[si].n_trees;
    g_string_append_printf (json, "%s{\"stage\": %d, \"trees\": %d, "
        "\"windows\": %" G_GUINT64_FORMAT ", \"tree_evaluations\": %"
        G_GUINT64_FORMAT "}", si ? ", " : "", si, c->stages[si].n_trees,
        reach[si], reach[si] * c->stages[si].n_trees);
  }
  g_string_append_printf (json, "], \"tree_evaluations\": %" G_GUINT64_FORMAT
      "}", trees);
  g_free (reach);
  clv_vj_integrals_free (in);
  g_free (level);
  g_free (sc);
  return g_string_free (json, FALSE);
}

/* OpenCV through the oracle on the frame's PGM; its JSON object, or NULL. */
static char *
bench_opencv (const Frame * f, const Options * o)
{
  char *path = g_build_filename (o->frames_dir, f->name, NULL);
  char *repeat = g_strdup_printf ("%d", o->repeat);
  char *threads = g_strdup_printf ("%d", o->threads);
  char *scale = g_strdup_printf ("%g", o->params.scale_factor);
  char *neighbors = g_strdup_printf ("%d", o->params.min_neighbors);
  char *min = g_strdup_printf ("%dx%d", o->params.min_width,
      o->params.min_height);
  const char *argv[] = { o->oracle, "--cascade", o->cascade, "--image", path,
    "--scale-factor", scale, "--min-neighbors", neighbors, "--min-size", min,
    "--threads", threads, "--repeat", repeat, NULL
  };
  char *out = NULL, *err = NULL;
  int status = 0;
  GError *error = NULL;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error)
      || !g_spawn_check_wait_status (status, &error)) {
    g_printerr ("bench-vj: OpenCV oracle failed on %s: %s\n%s", path,
        error->message, err ? err : "");
    g_clear_error (&error);
    g_clear_pointer (&out, g_free);
  } else {
    g_strstrip (out);
  }
  g_free (err);
  g_free (path);
  g_free (repeat);
  g_free (threads);
  g_free (scale);
  g_free (neighbors);
  g_free (min);
  return out;
}

static double
json_number (const char *json, const char *key)
{
  char *k = g_strdup_printf ("\"%s\": ", key);
  const char *p = json ? strstr (json, k) : NULL;
  double v = p ? g_ascii_strtod (p + strlen (k), NULL) : 0;

  g_free (k);
  return v;
}

int
main (int argc, char **argv)
{
  char **sizes = NULL, **tunes = NULL, *min_size = NULL, *batch_sizes = NULL;
  gboolean no_native = FALSE, no_check = FALSE;
  Options o = { 20, 3, 16, TRUE, NULL, NULL, NULL, CLV_VJ_PARAMS_DEFAULT,
    NULL, FALSE
  };
  GOptionEntry entries[] = {
    {"repeat", 0, 0, G_OPTION_ARG_INT, &o.repeat, "Timed runs per frame", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &o.warmup, "Untimed runs first", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sizes,
        "Also scale every image to WxH", "WxH"},
    {"no-native", 0, 0, G_OPTION_ARG_NONE, &no_native,
        "Skip the images' own sizes", NULL},
    {"cascade", 0, 0, G_OPTION_ARG_FILENAME, &o.cascade, "Cascade XML",
        "FILE"},
    {"scale-factor", 0, 0, G_OPTION_ARG_DOUBLE, &o.params.scale_factor,
        "Scale factor (1.1)", "F"},
    {"min-neighbors", 0, 0, G_OPTION_ARG_INT, &o.params.min_neighbors,
        "Minimum neighbours (3)", "N"},
    {"min-size", 0, 0, G_OPTION_ARG_STRING, &min_size, "Minimum face size",
        "WxH"},
    {"tune", 0, 0, G_OPTION_ARG_STRING_ARRAY, &tunes,
        "Also time the uberkernel with these CLVISION_TUNE values", "A=1,B=2"},
    {"oracle", 0, 0, G_OPTION_ARG_FILENAME, &o.oracle,
        "tests/oracle/oracle-detect: time OpenCV too", "PATH"},
    {"threads", 0, 0, G_OPTION_ARG_INT, &o.threads, "OpenCV threads (16)",
        "N"},
    {"frames-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.frames_dir,
        "Where the frames are written for OpenCV (default: a temporary "
        "folder)", "DIR"},
    {"no-check", 0, 0, G_OPTION_ARG_NONE, &no_check,
        "Do not compare with the C reference", NULL},
    {"batch", 0, 0, G_OPTION_ARG_STRING, &batch_sizes,
        "Also time batches of N copies of every frame", "N,..."},
    {"pinned", 0, 0, G_OPTION_ARG_NONE, &o.pinned,
        "Upload the frames from pinned host memory", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("IMAGE.pgm... - vjfacedetect "
      "benchmark");
  char *command = g_strjoinv (" ", argv);

  caller_tune = g_strdup (g_getenv ("CLVISION_TUNE"));
  GError *error = NULL;
  GPtrArray *frames = g_ptr_array_new ();
  ClvDevice *dev, *pdev;
  ClvCascade *cascade;
  GString *json = g_string_new (NULL);
  gboolean own_dir;

  /* stdout is the JSON document: debug messages (build logs) go to stderr. */
  g_log_writer_default_set_use_stderr (TRUE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc < 2
      || o.repeat < 1 || o.warmup < 0 || o.params.scale_factor <= 1.0
      || (min_size && !parse_size (min_size, &o.params.min_width,
              &o.params.min_height))) {
    g_printerr ("%s\n", error ? error->message :
        g_option_context_get_help (ctx, TRUE, NULL));
    return 2;
  }
  o.check = !no_check;
  o.batches = batch_sizes ? g_strsplit (batch_sizes, ",", -1) : NULL;
  if (o.cascade == NULL)
    o.cascade = clv_cascade_default_path (NULL);
  own_dir = o.frames_dir == NULL;
  if (own_dir)
    o.frames_dir = g_dir_make_tmp ("bench-vj-XXXXXX", &error);
  if (o.frames_dir == NULL)
    g_error ("bench-vj: %s", error->message);

  /* The frames: every image as it is, then scaled to every --size. */
  for (int i = 1; i < argc; i++) {
    int w, h;
    guint8 *px = clv_pgm_read (argv[i], &w, &h, &error);
    char *base;
    if (px == NULL)
      g_error ("bench-vj: %s", error->message);
    base = g_path_get_basename (argv[i]);
    if (g_str_has_suffix (base, ".pgm"))
      base[strlen (base) - 4] = '\0';
    if (!no_native) {
      Frame *f = g_new0 (Frame, 1);
      f->name = g_strdup_printf ("%s.pgm", base);
      f->source = g_strdup_printf ("real photograph %s, %dx%d", base, w, h);
      f->pixels = g_memdup2 (px, (gsize) w * h);
      f->width = w;
      f->height = h;
      g_ptr_array_add (frames, f);
    }
    for (int k = 0; sizes && sizes[k]; k++) {
      Frame *f = g_new0 (Frame, 1);
      if (!parse_size (sizes[k], &f->width, &f->height) || f->width < 1
          || f->height < 1)
        g_error ("bench-vj: --size %s is not WxH", sizes[k]);
      f->name = g_strdup_printf ("%s-%dx%d.pgm", base, f->width, f->height);
      f->source = g_strdup_printf ("synthetic: %s (%dx%d) scaled to %dx%d "
          "with OpenCV's bilinear resize", base, w, h, f->width, f->height);
      f->synthetic = TRUE;
      f->pixels = g_malloc ((gsize) f->width * f->height);
      clv_vj_resize (px, w, h, w, f->pixels, f->width, f->height, f->width);
      g_ptr_array_add (frames, f);
    }
    g_free (base);
    g_free (px);
  }
  if (frames->len == 0)
    g_error ("bench-vj: no frame to run: --no-native skips the images' own "
        "sizes, so give at least one --size");

  dev = clv_device_open (NULL, &error);
  if (dev == NULL || !(pdev = clv_device_open_profiled (NULL, &error)))
    g_error ("bench-vj: %s", error->message);
  cascade = clv_cascade_load (o.cascade, &error);
  if (cascade == NULL)
    g_error ("bench-vj: %s", error->message);
  for (guint i = 0; i < frames->len; i++) {
    Frame *f = frames->pdata[i];
    const gsize size = (gsize) f->width * f->height;

    f->upload = f->pixels;
    if (!o.pinned)
      continue;
    if (!(f->pinned = clv_pinned_new (dev, size, &f->pinned_mem, &error)))
      g_error ("bench-vj: %s", error->message);
    memcpy (f->pinned, f->pixels, size);
    f->upload = f->pinned;
  }

  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"benchmark\": \"vjfacedetect: wall "
      "time per frame, upload + pyramid + detection + grouping\",\n"
      "  \"cascade\": \"%s\",\n  \"scale_factor\": %g,\n"
      "  \"min_neighbors\": %d,\n  \"min_size\": \"%dx%d\",\n"
      "  \"opencv_threads\": %d,\n  \"clvision_tune\": \"%s\",\n"
      "  \"frames_memory\": \"%s\",\n  \"frames\": [", o.cascade,
      o.params.scale_factor, o.params.min_neighbors, o.params.min_width,
      o.params.min_height, o.threads, caller_tune ? caller_tune : "",
      o.pinned ? "pinned" : "pageable");

  for (guint i = 0; i < frames->len; i++) {
    Frame *f = frames->pdata[i];
    GString *uber = g_string_new (NULL), *simple = g_string_new (NULL);
    char *ocv = NULL, *path = g_build_filename (o.frames_dir, f->name, NULL);
    GArray *ref = NULL;
    char *work = NULL;
    double u, s, c;

    if (!clv_pgm_write (path, f->pixels, f->width, f->height, f->width,
            &error))
      g_error ("bench-vj: %s", error->message);
    g_printerr ("bench-vj: %s %dx%d\n", f->name, f->width, f->height);
    if (o.check) {
      ref = clv_vj_detect_ref (cascade, f->pixels, f->width, f->height,
          f->width, &o.params);
      work = reference_work (cascade, f, &o.params);
    }
    bench_variant (dev, pdev, cascade, f, ref, &o, "clvision-uber", NULL,
        uber);
    bench_variant (dev, pdev, cascade, f, ref, &o, "clvision-simple", NULL,
        simple);
    if (o.oracle)
      ocv = bench_opencv (f, &o);
    u = json_number (uber->str, "ms_median");
    s = json_number (simple->str, "ms_median");
    c = json_number (ocv, "ms_median");

    g_string_append_printf (json, "%s\n    {\"frame\": \"%s\", \"source\": "
        "\"%s\", \"synthetic\": %s, \"width\": %d, \"height\": %d,\n"
        "     \"uber\": %s,\n     \"simple\": %s,\n     \"opencv\": %s,\n"
        "     \"uber_vs_simple\": %.2f", i ? "," : "", f->name, f->source,
        f->synthetic ? "true" : "false", f->width, f->height, uber->str,
        simple->str, ocv ? ocv : "null", u > 0 ? s / u : 0);
    if (ocv)
      g_string_append_printf (json, ", \"uber_vs_opencv\": %.2f, "
          "\"simple_vs_opencv\": %.2f", u > 0 ? c / u : 0, s > 0 ? c / s : 0);
    if (work)
      g_string_append_printf (json, ",\n     \"work\": %s", work);
    g_string_append (json, ",\n     \"tunings\": [");
    for (int k = 0; tunes && tunes[k]; k++) {
      GString *t = g_string_new (NULL);
      bench_variant (dev, pdev, cascade, f, ref, &o, "clvision-uber",
          tunes[k], t);
      g_string_append_printf (json, "%s\n       %s", k ? "," : "", t->str);
      g_string_free (t, TRUE);
    }
    g_string_append (json, "],\n     \"batches\": [");
    for (int k = 0; o.batches && o.batches[k]; k++) {
      GString *t = g_string_new (NULL);
      int n = atoi (o.batches[k]);
      if (n < 1)
        g_error ("bench-vj: --batch %s is not a frame count", o.batches[k]);
      bench_batch (dev, pdev, cascade, f, ref, &o, (guint) n, t);
      g_string_append_printf (json, "%s\n       %s", k ? "," : "", t->str);
      g_string_free (t, TRUE);
    }
    g_string_append (json, "]}");
    g_string_free (uber, TRUE);
    g_string_free (simple, TRUE);
    if (ref)
      g_array_free (ref, TRUE);
    g_free (ocv);
    g_free (work);
    if (own_dir)
      g_unlink (path);
    g_free (path);
  }
  g_string_append (json, "\n  ]\n}\n");
  g_print ("%s", json->str);

  if (own_dir)
    g_rmdir (o.frames_dir);
  for (guint i = 0; i < frames->len; i++) {
    Frame *f = frames->pdata[i];
    g_free (f->name);
    g_free (f->source);
    g_free (f->pixels);
    if (f->pinned)
      clv_pinned_free (dev, f->pinned_mem, f->pinned);
    g_free (f);
  }
  g_ptr_array_free (frames, TRUE);
  g_string_free (json, TRUE);
  clv_cascade_free (cascade);
  clv_device_unref (pdev);
  clv_device_unref (dev);
  g_option_context_free (ctx);
  g_strfreev (o.batches);
  g_free (batch_sizes);
  g_free (command);
  g_free (caller_tune);
  return 0;
}
