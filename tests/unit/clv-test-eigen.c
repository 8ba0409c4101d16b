/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface test data helpers. */
#include "clv-test-eigen.h"
#include "clv-test-util.h"
#include "clv-eigen.h"

#include <float.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

guint8 *
clv_test_read_pgm (const char *path, int *width, int *height)
{
  g_autofree char *text = NULL;
  gsize length;
  int maxval, offset = 0;
  guint8 *pixels;
  GError *error = NULL;

  g_file_get_contents (path, &text, &length, &error);
  g_assert_no_error (error);
  if (sscanf (text, "P5 %d %d %d%n", width, height, &maxval, &offset) != 3 ||
      maxval != 255 || (gsize) offset + 1 + (gsize) * width * *height >
      length)
    g_error ("%s is not an 8-bit binary PGM", path);
  pixels = g_malloc ((gsize) * width * *height);
  memcpy (pixels, text + offset + 1, (gsize) * width * *height);
  return pixels;
}

void
clv_test_write_pgm (const char *path, const guint8 * pixels, int width,
    int height)
{
  GString *s = g_string_new (NULL);
  GError *error = NULL;

  g_string_printf (s, "P5\n%d %d\n255\n", width, height);
  g_string_append_len (s, (const char *) pixels, (gssize) width * height);
  g_file_set_contents (path, s->str, (gssize) s->len, &error);
  g_assert_no_error (error);
  g_string_free (s, TRUE);
}

const char *
clv_test_lfw_dir (void)
{
  static char *dir;

  if (dir == NULL) {
    g_autofree char *path = clv_test_data_path ("tests/data/cache/lfw");
    /* Absolute, as make-lfw.py writes the paths in its lists. */
    dir = g_canonicalize_filename (path, NULL);
  }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_error ("%s is missing: the build makes it with tests/data/make-lfw.py "
        "from Debian python3-skimage's lfw_subset.npy (install "
        "python3-skimage and rebuild)", dir);
  return dir;
}

guint8 *
clv_test_lfw_load (const char *list, int *n, int *width, int *height,
    int **labels, char ***paths)
{
  const char *dir = clv_test_lfw_dir ();
  g_autofree char *list_path = g_build_filename (dir, list, NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  GByteArray *faces = g_byte_array_new ();
  GArray *label_array = g_array_new (FALSE, FALSE, sizeof (int));
  GPtrArray *path_array = g_ptr_array_new ();
  GError *error = NULL;
  gsize prefix = strlen (dir) + 1;

  g_file_get_contents (list_path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  *n = 0;
  for (int i = 0; lines[i] != NULL; i++) {
    char path[1024];
    int label, w, h;
    guint8 *pixels;

    if (sscanf (lines[i], "%1023s %d", path, &label) != 2)
      continue;
    pixels = clv_test_read_pgm (path, &w, &h);
    if (*n > 0)
      g_assert_true (w == *width && h == *height);
    *width = w;
    *height = h;
    g_byte_array_append (faces, pixels, w * h);
    g_free (pixels);
    g_array_append_val (label_array, label);
    g_assert_true (strlen (path) > prefix && strncmp (path, dir, prefix - 1)
        == 0);
    g_ptr_array_add (path_array, g_strdup (path + prefix));
    (*n)++;
  }
  g_assert_cmpint (*n, >, 0);
  g_ptr_array_add (path_array, NULL);
  if (labels)
    *labels = (int *) (void *) g_array_free (label_array, FALSE);
  else
    g_array_free (label_array, TRUE);
  if (paths)
    *paths = (char **) g_ptr_array_free (path_array, FALSE);
  else
    g_strfreev ((char **) g_ptr_array_free (path_array, FALSE));
  return g_byte_array_free (faces, FALSE);
}

static void
clear_prediction (gpointer data)
{
  g_free (((ClvTestPrediction *) data)->path);
}

ClvTestEigenGolden *
clv_test_eigen_golden_load (int k)
{
  g_autofree char *name = g_strdup_printf ("tests/data/golden/eigen-lfw-k%d"
      ".txt", k);
  g_autofree char *path = clv_test_data_path (name);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  ClvTestEigenGolden *g = g_new0 (ClvTestEigenGolden, 1);
  GError *error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  g->eigenvalues = g_array_new (FALSE, FALSE, sizeof (double));
  g->predictions = g_array_new (FALSE, FALSE, sizeof (ClvTestPrediction));
  g_array_set_clear_func (g->predictions, clear_prediction);
  lines = g_strsplit (text, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++) {
    g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);
    guint nf = g_strv_length (f);

    if (nf == 3 && strcmp (f[0], "eigenvalue") == 0) {
      double v = g_ascii_strtod (f[2], NULL);
      g_assert_cmpint (atoi (f[1]), ==, (int) g->eigenvalues->len);
      g_array_append_val (g->eigenvalues, v);
    } else if (nf == 5 && strcmp (f[0], "predict") == 0) {
      ClvTestPrediction p;
      p.threshold = strcmp (f[1], "inf") == 0 ? INFINITY :
          g_ascii_strtod (f[1], NULL);
      p.path = g_strdup (f[2]);
      p.label = atoi (f[3]);
      p.distance = g_ascii_strtod (f[4], NULL);
      g_array_append_val (g->predictions, p);
    } else {
      g_assert_true (lines[i][0] == '#' || lines[i][0] == '\0');
    }
  }
  g_assert_cmpuint (g->eigenvalues->len, ==, k);
  g_assert_cmpuint (g->predictions->len, >, 0);
  return g;
}

void
clv_test_eigen_golden_free (ClvTestEigenGolden * g)
{
  g_array_unref (g->eigenvalues);
  g_array_unref (g->predictions);
  g_free (g);
}

const char *
clv_test_oracle_eigen (void)
{
  const char *path = g_getenv ("CLV_ORACLE_EIGEN");
  return path && *path ? path : NULL;
}

char *
clv_test_oracle_run (const char *first_arg, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  char *out = NULL, *err = NULL;
  int status;
  va_list ap;
  GError *error = NULL;

  g_ptr_array_add (argv, (char *) clv_test_oracle_eigen ());
  va_start (ap, first_arg);
  for (const char *a = first_arg; a != NULL; a = va_arg (ap, const char *))
      g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL,
      NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("oracle-eigen %s failed: %s", first_arg, err);
  g_ptr_array_free (argv, TRUE);
  g_free (err);
  return out;
}

char *
clv_test_eigen_model_file (void)
{
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_ENERGY, 0, 0.9 };
  GError *error = NULL;
  int n, w, h, *labels;
  guint8 *faces = clv_test_lfw_load ("train.txt", &n, &w, &h, &labels, NULL);
  ClvEigenModel *model = clv_eigen_train_ref (faces, n, labels, w, h, &comp,
      &error);
  char *dir, *path;

  g_assert_no_error (error);
  dir = g_dir_make_tmp ("clv-model-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "model.yml", NULL);
  clv_eigen_model_save (model, path, TRUE, &error);
  g_assert_no_error (error);
  clv_eigen_model_free (model);
  g_free (faces);
  g_free (labels);
  g_free (dir);
  return path;
}

void
clv_test_eigen_model_file_remove (char *path)
{
  char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}
