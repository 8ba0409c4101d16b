/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-eigen-train: trains an Eigenface model on an OpenCL device from
 * a directory of face images and writes it as OpenCV's FileStorage YAML
 * (loadable by eigenrecognise and by cv::face::EigenFaceRecognizer::read).
 *
 *   clvision-eigen-train --input DIR --output model.yml [--size 64x64]
 *       [--components N | --energy 0.9 | --stretch 0.01] [--device SPEC]
 *
 * DIR/<label>/<image>: one subdirectory per person, PGM, PNG or JPEG
 * images, decoded by GStreamer, made gray and resized to the model size
 * the way eigenrecognise resizes face boxes. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

#include "clv-eigen-gpu.h"
#include "gstclvfaceimages.h"

typedef struct
{
  gboolean tty;
} Progress;

static void
show_progress (int done, int total, const char *path, gpointer data)
{
  Progress *p = data;
  const int width = 40;
  int filled = total ? done * width / total : width;

  if (!p->tty)
    return;
  printf ("\r  decoding [%.*s%*s] %d/%d", filled,
      "########################################", width - filled, "", done,
      total);
  if (done == total)
    printf ("\n");
  fflush (stdout);
}

static gboolean
parse_size (const char *s, int *w, int *h)
{
  char *end;
  long a = strtol (s, &end, 10), b;

  if (end == s || (*end != 'x' && *end != 'X'))
    return FALSE;
  s = end + 1;
  b = strtol (s, &end, 10);
  if (end == s || *end || a < 1 || b < 1 || a > 4096 || b > 4096)
    return FALSE;
  *w = (int) a;
  *h = (int) b;
  return TRUE;
}

static void
print_summary (const GstClvFaceImages * images, const ClvEigenModel * model,
    const ClvEigenTrainStats * st, double decode_s, double write_s,
    const char *device, const char *output)
{
  int *counts = g_new0 (int, images->n_labels);
  double kept = 0;

  for (int i = 0; i < images->n; i++)
    counts[images->labels[i]]++;
  for (int c = 0; c < model->n_components; c++)
    kept += model->eigenvalues[c];

  printf ("Images per label:\n");
  for (int l = 0; l < images->n_labels; l++)
    printf ("  %4d  %-32s %5d\n", l, images->label_names[l], counts[l]);
  printf ("  total %d images of %d×%d from %d labels\n", images->n,
      images->width, images->height, images->n_labels);
  printf ("Components kept: %d of %d; energy retained %.4f\n",
      model->n_components, images->n,
      st->eigenvalue_sum > 0 ? kept / st->eigenvalue_sum : 1.0);
  printf ("Time on %s:\n", device);
  printf ("  decode + resize      %9.3f ms (host, GStreamer)\n",
      decode_s * 1e3);
  printf ("  build kernels        %9.3f ms (or load them from the cache)\n",
      st->build * 1e3);
  printf ("  1 mean               %9.3f ms\n", st->mean * 1e3);
  printf ("  2 zero mean          %9.3f ms\n", st->zero_mean * 1e3);
  printf ("  3 covariance L       %9.3f ms\n", st->covariance * 1e3);
  printf ("  4 Jacobi             %9.3f ms (%d sweeps)\n", st->jacobi * 1e3,
      st->sweeps);
  printf ("  6 eigenfaces U       %9.3f ms\n", st->eigenfaces * 1e3);
  printf ("  7 normalise          %9.3f ms\n", st->normalise * 1e3);
  printf ("  8 projections        %9.3f ms\n", st->projections * 1e3);
  printf ("  training (wall)      %9.3f ms (with the build, uploads and "
      "read-backs)\n", st->wall * 1e3);
  printf ("  write %s %9.3f ms\n", output, write_s * 1e3);
  g_free (counts);
}

int
main (int argc, char **argv)
{
  gchar *input = NULL, *output = NULL, *size = NULL, *device = NULL;
  gint components = -1;
  gdouble energy = 0, stretch = 0;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    {"input", 'i', 0, G_OPTION_ARG_FILENAME, &input,
        "Training images: DIR/<label>/<image>", "DIR"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
        "Model file to write (OpenCV YAML)", "FILE"},
    {"size", 's', 0, G_OPTION_ARG_STRING, &size,
        "Model image size (default 64x64)", "WxH"},
    {"components", 'k', 0, G_OPTION_ARG_INT, &components,
        "Eigenfaces to keep (0: all that are not noise; the default)", "N"},
    {"energy", 0, 0, G_OPTION_ARG_DOUBLE, &energy,
        "Keep the fewest eigenfaces holding more than this fraction of the "
          "variance", "0.9"},
    {"stretch", 0, 0, G_OPTION_ARG_DOUBLE, &stretch,
        "Keep eigenfaces until λ(K+1)/λ(1) falls below this", "0.01"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device: auto, P:D, or part of its name", "SPEC"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "Print nothing but errors", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- train an Eigenface model");
  GError *error = NULL;
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  GstClvFaceImages *images = NULL;
  ClvEigenModel *model = NULL;
  ClvEigenTrainStats stats;
  ClvDevice *dev = NULL;
  Progress progress = { FALSE };
  int width = 64, height = 64, rules = 0, ret = 1;
  gint64 t0, t1;
  char *desc = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "Images are read from DIR/<label>/ "
      "(PGM, PNG, JPEG; one subdirectory per person, its name is the "
      "label's name) and decoded by GStreamer.");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    goto usage;
  if (input == NULL || output == NULL) {
    g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "--input and --output are required");
    goto usage;
  }
  if (size && !parse_size (size, &width, &height)) {
    g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--size %s: expected WIDTHxHEIGHT, e.g. 64x64", size);
    goto usage;
  }
  rules = (components >= 0) + (energy != 0) + (stretch != 0);
  if (rules > 1) {
    g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "give only one of --components, --energy and --stretch");
    goto usage;
  }
  if (energy != 0 || stretch != 0) {
    double v = energy != 0 ? energy : stretch;
    if (!(v > 0 && v <= 1)) {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--%s %g: expected a fraction in (0, 1]",
          energy != 0 ? "energy" : "stretch", v);
      goto usage;
    }
    comp.rule = energy != 0 ? CLV_EIGEN_KEEP_ENERGY : CLV_EIGEN_KEEP_STRETCH;
    comp.threshold = v;
  } else {
    comp.count = MAX (components, 0);
  }

  /* The steps' device times below need a queue that records them. */
  g_setenv ("CLVISION_PROFILE", "1", FALSE);
  dev = clv_device_open (device, &error);
  if (dev == NULL)
    goto failed;
  desc = clv_device_describe (dev);
  progress.tty = !quiet && isatty (STDOUT_FILENO);

  t0 = g_get_monotonic_time ();
  images = gst_clv_face_images_load (input, width, height, show_progress,
      &progress, &error);
  if (images == NULL)
    goto failed;
  t1 = g_get_monotonic_time ();
  model = clv_eigen_train_gpu (dev, images->pixels, images->n,
      images->labels, width, height, &comp, &stats, &error);
  if (model == NULL)
    goto failed;
  gst_clv_face_images_name_labels (images, model);
  {
    gint64 w0 = g_get_monotonic_time ();
    if (!clv_eigen_model_save (model, output, TRUE, &error))
      goto failed;
    if (!quiet)
      print_summary (images, model, &stats, (t1 - t0) * 1e-6,
          (g_get_monotonic_time () - w0) * 1e-6, desc, output);
  }
  ret = 0;
  goto out;

usage:
  {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
    fprintf (stderr, "%s: %s\n\n%s", g_get_prgname (), error->message, help);
    g_free (help);
    goto out;
  }
failed:
  fprintf (stderr, "%s: %s\n", g_get_prgname (), error->message);
out:
  g_clear_error (&error);
  gst_clv_face_images_free (images);
  clv_eigen_model_free (model);
  if (dev)
    clv_device_unref (dev);
  g_free (desc);
  g_option_context_free (ctx);
  g_free (input);
  g_free (output);
  g_free (size);
  g_free (device);
  return ret;
}
