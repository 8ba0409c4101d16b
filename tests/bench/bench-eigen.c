/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on the device: training time per step for M faces of S×S
 * (the setup of Li, Yan and Zhang, "Optimization of GPU-based Eigenface
 * Algorithm": M = 320 … 1920, 128×128, K = M/5) and recognition time per
 * face in batches; one JSON object on stdout.
 *
 *   bench-eigen [--faces 320,640,960,1280,1600,1920] [--size 128]
 *       [--repeat 3] [--batches 1,16,64,256] [--precision double|float]
 *       [--device SPEC] [--write-faces FILE]
 *
 * Run from the source root (the LFW crops of tests/data/cache/lfw, made by
 * the build from Debian python3-skimage).  The M faces are synthesised from
 * the 100 real LFW crops (25×25): a random sub-box of a crop resized to
 * S×S by the recognition's resize, a random gain and offset, and uniform
 * noise, so that no two are equal.  --write-faces FILE writes them (the
 * largest M, then 100 more as probes; S×S bytes each) for
 * `oracle-eigen bench --raw FILE`, so OpenCV is timed on the same faces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "clv-eigen-gpu.h"
#include "clv-test-eigen.h"

/* Probes written after the training faces for OpenCV's prediction. */
#define N_PROBES 100

typedef struct
{
  guint8 *faces;                /* 100 LFW crops */
  int n, w, h;
} Lfw;

static Lfw
load_lfw (void)
{
  Lfw l;
  int n2, w2, h2;
  guint8 *a = clv_test_lfw_load ("train.txt", &l.n, &l.w, &l.h, NULL, NULL);
  guint8 *b = clv_test_lfw_load ("test.txt", &n2, &w2, &h2, NULL, NULL);

  /* test.txt ends with 20 non-faces (label −1): only its faces are used. */
  n2 = 30;
  l.faces = g_malloc ((gsize) (l.n + n2) * l.w * l.h);
  memcpy (l.faces, a, (gsize) l.n * l.w * l.h);
  memcpy (l.faces + (gsize) l.n * l.w * l.h, b, (gsize) n2 * l.w * l.h);
  l.n += n2;
  g_free (a);
  g_free (b);
  return l;
}

/* One synthetic face of `size`² (`out`) from LFW crop `src`. */
static void
synth_face (const Lfw * l, int src, GRand * rand, int size, guint8 * out)
{
  ClvImage im = clv_image_make (l->w, l->h, 1, l->w);
  int x = g_rand_int_range (rand, 0, 3), y = g_rand_int_range (rand, 0, 3);
  int w = l->w - x - g_rand_int_range (rand, 0, 3);
  int h = l->h - y - g_rand_int_range (rand, 0, 3);
  double gain = g_rand_double_range (rand, 0.9, 1.1);
  double offset = g_rand_double_range (rand, -10, 10);

  clv_eigen_crop_resize_ref (l->faces + (gsize) src * l->w * l->h, &im, x, y,
      w, h, out, size, size);
  for (int i = 0; i < size * size; i++)
    out[i] = (guint8) CLAMP (lround (out[i] * gain + offset +
            g_rand_double_range (rand, -4, 4)), 0, 255);
}

static int *
parse_list (const char *s, int *n)
{
  gchar **parts = g_strsplit (s, ",", -1);
  int *v = g_new0 (int, g_strv_length (parts) + 1);

  *n = 0;
  for (int i = 0; parts[i]; i++)
    if (atoi (parts[i]) > 0)
      v[(*n)++] = atoi (parts[i]);
  g_strfreev (parts);
  return v;
}

/* Trains on the first m faces `repeat` times; appends a JSON run with the
 * median wall time and the per-step device times of that run. */
static ClvEigenModel *
bench_training (ClvDevice * dev, const guint8 * faces, const int *labels,
    int m, int size, int repeat, GString * json)
{
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_COUNT, MAX (1, m / 5), 0 };
  ClvEigenTrainStats *st = g_new0 (ClvEigenTrainStats, repeat);
  double *wall = g_new (double, repeat), med;
  ClvEigenModel *model = NULL;
  GError *error = NULL;
  int best = 0;

  for (int r = 0; r < repeat; r++) {
    clv_eigen_model_free (model);
    model = clv_eigen_train_gpu (dev, faces, m, labels, size, size, &comp,
        &st[r], &error);
    if (model == NULL)
      g_error ("training on %d faces: %s", m, error->message);
    wall[r] = st[r].wall;
  }
  med = bench_median (wall, repeat);
  for (int r = 0; r < repeat; r++)
    if (fabs (st[r].wall - med) < fabs (st[best].wall - med))
      best = r;
  {
    const ClvEigenTrainStats *s = &st[best];
    double device = s->mean + s->zero_mean + s->covariance + s->jacobi +
        s->eigenfaces + s->normalise + s->projections;
    g_string_append_printf (json, "%s\n    {\"faces\": %d, \"components\": %d,"
        " \"sweeps\": %d, \"train_s\": %.6f, \"device_s\": %.6f, "
        "\"steps_ms\": {\"build\": %.3f, \"mean\": %.3f, \"zero_mean\": %.3f, "
        "\"covariance\": %.3f, \"jacobi\": %.3f, \"eigenfaces\": %.3f, "
        "\"normalise\": %.3f, \"projections\": %.3f}}",
        json->str[json->len - 1] == '[' ? "" : ",", m, model->n_components,
        s->sweeps, s->wall, device, s->build * 1e3, s->mean * 1e3,
        s->zero_mean * 1e3, s->covariance * 1e3, s->jacobi * 1e3,
        s->eigenfaces * 1e3, s->normalise * 1e3, s->projections * 1e3);
  }
  g_printerr ("trained on %d faces: %.3f s\n", m, med);
  g_free (st);
  g_free (wall);
  return model;
}

/* Recognition of `n` faces of one frame per batch: a 16-column grid of
 * (size − 8)² boxes, each a synthetic face resized on the device. */
static void
bench_recognition (ClvDevice * dev, const ClvEigenModel * model,
    const Lfw * lfw, GRand * rand, const int *batches, int n_batches,
    GString * json)
{
  const int size = model->width, box = size - 8, cols = 16;
  int max_n = 0;
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);

  if (rec == NULL)
    g_error ("%s", error->message);
  for (int b = 0; b < n_batches; b++)
    max_n = MAX (max_n, batches[b]);

  {
    const int rows = (max_n + cols - 1) / cols;
    ClvLumaImage im = { {cols * size, rows * size, 1, cols * size, 0},
    -1, -1, -1
    };
    gsize bytes = im.image.stride * im.image.height;
    guint8 *frame = g_malloc0 (bytes), *face = g_malloc (box * box);
    ClvEigenRoi *rois = g_new (ClvEigenRoi, max_n);
    ClvEigenMatch *matches = g_new (ClvEigenMatch, max_n);
    cl_mem mem;

    for (int f = 0; f < max_n; f++) {
      ClvEigenRoi r = { (f % cols) * size + 4, (f / cols) * size + 4, box,
        box
      };
      rois[f] = r;
      synth_face (lfw, g_rand_int_range (rand, 0, lfw->n), rand, box, face);
      for (int y = 0; y < box; y++)
        memcpy (frame + (gsize) (r.y + y) * im.image.stride + r.x,
            face + y * box, box);
    }
    mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, bytes, &error);
    if (mem == NULL || clEnqueueWriteBuffer (dev->queue, mem, CL_TRUE, 0,
            bytes, frame, 0, NULL, NULL) != CL_SUCCESS)
      g_error ("frame upload failed");

    g_string_append (json, "],\n  \"recognise\": {\"trained_faces\": ");
    g_string_append_printf (json, "%d, \"components\": %d, \"box\": %d, "
        "\"batches\": [", model->n_train, model->n_components, box);
    for (int b = 0; b < n_batches; b++) {
      const int n = batches[b], iters = 30;
      double wall[30], device[30];
      for (int it = -3; it < iters; it++) {
        gint64 t0 = g_get_monotonic_time ();
        double dev_s;
        if (!clv_eigen_recogniser_run (rec, mem, &im, rois, n, G_MAXDOUBLE,
                matches, &dev_s, &error))
          g_error ("%s", error->message);
        if (it >= 0) {
          wall[it] = (g_get_monotonic_time () - t0) * 1e-6;
          device[it] = dev_s;
        }
      }
      g_string_append_printf (json, "%s\n    {\"faces\": %d, "
          "\"ms_per_batch\": %.4f, \"ms_per_face\": %.5f, "
          "\"device_ms_per_face\": %.5f}", b ? "," : "", n,
          bench_median (wall, iters) * 1e3, bench_median (wall, iters) * 1e3 / n,
          bench_median (device, iters) * 1e3 / n);
      g_printerr ("recognised %d faces per batch\n", n);
    }
    g_string_append (json, "]}");
    clReleaseMemObject (mem);
    g_free (frame);
    g_free (face);
    g_free (rois);
    g_free (matches);
  }
  clv_eigen_recogniser_free (rec);
}

int
main (int argc, char **argv)
{
  gchar *faces_opt = NULL, *batches_opt = NULL, *precision = NULL,
      *device = NULL, *write_faces = NULL;
  gint size = 128, repeat = 3;
  GOptionEntry entries[] = {
    {"faces", 0, 0, G_OPTION_ARG_STRING, &faces_opt,
        "Training set sizes (default 320,640,960,1280,1600,1920)", "M,…"},
    {"size", 0, 0, G_OPTION_ARG_INT, &size, "Face side (default 128)", "S"},
    {"repeat", 0, 0, G_OPTION_ARG_INT, &repeat,
        "Trainings per size, the median is reported (default 3)", "N"},
    {"batches", 0, 0, G_OPTION_ARG_STRING, &batches_opt,
        "Faces per recognition batch (default 1,16,64,256)", "N,…"},
    {"precision", 0, 0, G_OPTION_ARG_STRING, &precision,
        "double (default where the device has it) or float", "P"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &device, "OpenCL device", "SPEC"},
    {"write-faces", 0, 0, G_OPTION_ARG_FILENAME, &write_faces,
        "Write the faces (and 100 probes) for oracle-eigen bench --raw",
        "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- Eigenface benchmark");
  GError *error = NULL;
  GString *json = g_string_new (NULL);
  gchar *command = g_strjoinv (" ", argv);
  ClvDevice *dev;
  ClvEigenModel *model = NULL;
  int n_counts, n_batches, max_m = 0;
  int *counts, *batches, *labels;
  guint8 *faces;
  GRand *rand = g_rand_new_with_seed (2020);
  Lfw lfw;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  if (precision && strcmp (precision, "float") == 0) {
    const char *tune = g_getenv ("CLVISION_TUNE");
    gchar *t = g_strdup_printf ("%s%sEIG_FP64=0", tune ? tune : "",
        tune && *tune ? "," : "");
    g_setenv ("CLVISION_TUNE", t, TRUE);
    g_free (t);
  }
  counts = parse_list (faces_opt ? faces_opt : "320,640,960,1280,1600,1920",
      &n_counts);
  batches = parse_list (batches_opt ? batches_opt : "1,16,64,256",
      &n_batches);
  repeat = CLAMP (repeat, 1, 100);
  for (int c = 0; c < n_counts; c++)
    max_m = MAX (max_m, counts[c]);
  if (max_m < 2 || size < 2 || n_batches == 0)
    g_error ("nothing to measure");

  bench_time_kernels ();
  dev = clv_device_open (device, &error);
  if (dev == NULL)
    g_error ("%s", error->message);
  lfw = load_lfw ();

  /* The training faces, then the probes OpenCV predicts. */
  faces = g_malloc ((gsize) (max_m + N_PROBES) * size * size);
  labels = g_new (int, max_m);
  for (int i = 0; i < max_m + N_PROBES; i++)
    synth_face (&lfw, i % lfw.n, rand, size, faces + (gsize) i * size * size);
  for (int i = 0; i < max_m; i++)
    labels[i] = i % lfw.n;
  if (write_faces && !g_file_set_contents (write_faces, (const char *) faces,
          (gssize) (max_m + N_PROBES) * size * size, &error))
    g_error ("%s", error->message);

  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"impl\": \"clvision\", "
      "\"precision\": \"%s\", \"tune\": \"%s\", \"size\": %d, "
      "\"repeat\": %d,\n  \"data\": \"%d faces synthesised from the 100 "
      "LFW crops of python3-skimage (random sub-box resized to %dx%d, gain "
      "0.9-1.1, offset +-10, noise +-4)\",\n  \"train\": [",
      clv_tune_int ("EIG_FP64", dev->has_fp64) ? "double" : "float",
      g_getenv ("CLVISION_TUNE") ? g_getenv ("CLVISION_TUNE") : "", size,
      repeat, max_m, size, size);
  /* A first, small training builds (or loads) the programs. */
  {
    GString *scratch = g_string_new ("[");
    clv_eigen_model_free (bench_training (dev, faces, labels,
            MIN (max_m, 64), size, 1, scratch));
    g_string_free (scratch, TRUE);
  }
  for (int c = 0; c < n_counts; c++) {
    ClvEigenModel *m = bench_training (dev, faces, labels, counts[c], size,
        repeat, json);
    if (counts[c] == max_m && model == NULL)
      model = m;
    else
      clv_eigen_model_free (m);
  }
  bench_recognition (dev, model, &lfw, rand, batches, n_batches, json);
  g_string_append (json, "\n}\n");
  fputs (json->str, stdout);

  clv_eigen_model_free (model);
  g_string_free (json, TRUE);
  g_free (faces);
  g_free (labels);
  g_free (lfw.faces);
  g_free (counts);
  g_free (batches);
  g_free (write_faces);
  g_free (command);
  g_rand_free (rand);
  clv_device_unref (dev);
  g_option_context_free (ctx);
  return 0;
}
