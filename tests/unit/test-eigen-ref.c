/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The double-precision Eigenface reference: Jacobi, the component rules,
 * training and prediction equal to OpenCV's EigenFaceRecognizer on LFW
 * crops (golden files, and the live oracle where built), and the crop
 * resize bit-exact with cv::resize (INTER_LINEAR_EXACT). */
#include "clv-eigen.h"
#include "clv-resize.h"
#include "clv-test-eigen.h"
#include "clv-test-util.h"

#include <float.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Agreement with OpenCV: the issue asks 1e-3 relative for distances; the
 * reference follows OpenCV's arithmetic so closely that far less is seen. */
#define OPENCV_REL 1e-6

static void
assert_eigenpairs (const double *a, int n, const double *values,
    const double *vectors)
{
  double norm = 0;

  for (int i = 0; i < n * n; i++)
    norm += a[i] * a[i];
  norm = sqrt (norm);
  for (int j = 0; j < n; j++) {
    if (j > 0)
      g_assert_cmpfloat (values[j], <=, values[j - 1]);
    for (int r = 0; r < n; r++) {
      double av = 0;
      for (int c = 0; c < n; c++)
        av += a[r * n + c] * vectors[c * n + j];
      g_assert_cmpfloat (fabs (av - values[j] * vectors[r * n + j]), <,
          1e-12 * norm);
    }
    for (int k = 0; k < n; k++) {
      double dot = 0;
      for (int r = 0; r < n; r++)
        dot += vectors[r * n + j] * vectors[r * n + k];
      g_assert_cmpfloat (fabs (dot - (j == k)), <, 1e-12);
    }
  }
}

static void
test_jacobi (void)
{
  double a2[4] = { 2, 1, 1, 2 }, v2[2], e2[4];
  double a3[9] = { 1, 0, 0, 0, 5, 0, 0, 0, 3 }, v3[3], e3[9];
  const int n = 41;             /* odd, like a chess tournament with a bye */
  double *a = g_new (double, n * n), *copy = g_new (double, n * n);
  double *values = g_new (double, n), *vectors = g_new (double, n * n);
  GRand *rand = g_rand_new_with_seed (5);

  /* [[2,1],[1,2]]: 3 along (1,1)/√2 and 1 along (1,−1)/√2. */
  clv_eigen_jacobi_ref (a2, 2, v2, e2);
  g_assert_cmpfloat_with_epsilon (v2[0], 3, 1e-14);
  g_assert_cmpfloat_with_epsilon (v2[1], 1, 1e-14);
  g_assert_cmpfloat_with_epsilon (fabs (e2[0]), G_SQRT2 / 2, 1e-14);
  g_assert_cmpfloat_with_epsilon (e2[0] * e2[2], 0.5, 1e-14);
  g_assert_cmpfloat_with_epsilon (e2[1] * e2[3], -0.5, 1e-14);
  /* Diagonal already: sorted, no sweep. */
  g_assert_cmpint (clv_eigen_jacobi_ref (a3, 3, v3, e3), ==, 0);
  g_assert_cmpfloat (v3[0], ==, 5);
  g_assert_cmpfloat (v3[1], ==, 3);
  g_assert_cmpfloat (v3[2], ==, 1);
  g_assert_cmpfloat (e3[1 * 3 + 0], ==, 1);     /* 5 belongs to axis 1 */

  /* A Gram matrix like L (positive semi-definite, rank n − 1). */
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int d = 0; d < n - 1; d++)
        s += (d + 1.0) / (i + j + d + 1.0) * ((i * 7 + d) % 5 - 2.0 +
            g_rand_double (rand)) * ((j * 7 + d) % 5 - 2.0);
      a[i * n + j] = a[j * n + i] = s;
    }
  memcpy (copy, a, sizeof (double) * n * n);
  clv_eigen_jacobi_ref (a, n, values, vectors);
  assert_eigenpairs (copy, n, values, vectors);

  g_rand_free (rand);
  g_free (a);
  g_free (copy);
  g_free (values);
  g_free (vectors);
}

static int
choose (const double *ev, int n, int m, ClvEigenKeepRule rule, int count,
    double threshold)
{
  ClvEigenComponents c = { rule, count, threshold };
  return clv_eigen_choose_components (ev, n, m, &c);
}

/* Spectra checked by hand against formulas (1) and (2) of
 * Li, Yan and Zhang, "Optimization of GPU-based Eigenface Algorithm". */
static void
test_component_rules (void)
{
  /* Σλ = 100; cumulative 50, 75, 87.5, 93.75, 96.875, 100. */
  static const double ev[] = { 50, 25, 12.5, 6.25, 3.125, 3.125 };
  static const double trivial[] = { 10, 1, 1e-12, 0 };
  static const double zero[] = { 0, 0 };

  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_ENERGY, 0, 0.9), ==, 4);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_ENERGY, 0, 0.75), ==, 3);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_ENERGY, 0, 0.7), ==, 2);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_ENERGY, 0, 1.0), ==, 6);
  /* λ₂..λ₆ / λ₁ = .5, .25, .125, .0625, .0625. */
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_STRETCH, 0, 0.1), ==, 4);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_STRETCH, 0, 0.3), ==, 2);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_STRETCH, 0, 0.01), ==, 6);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_COUNT, 0, 0), ==, 6);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_COUNT, 3, 0), ==, 3);
  g_assert_cmpint (choose (ev, 6, 7, CLV_EIGEN_KEEP_COUNT, 100, 0), ==, 6);
  /* At most M − 1 from M images. */
  g_assert_cmpint (choose (ev, 6, 4, CLV_EIGEN_KEEP_COUNT, 0, 0), ==, 3);
  g_assert_cmpint (choose (ev, 6, 4, CLV_EIGEN_KEEP_ENERGY, 0, 0.95), ==, 3);
  /* Rounding-noise eigenvalues never count. */
  g_assert_cmpint (choose (trivial, 4, 10, CLV_EIGEN_KEEP_COUNT, 0, 0), ==,
      2);
  g_assert_cmpint (choose (trivial, 4, 10, CLV_EIGEN_KEEP_STRETCH, 0, 1e-20),
      ==, 2);
  g_assert_cmpint (choose (zero, 2, 3, CLV_EIGEN_KEEP_COUNT, 0, 0), ==, 0);
}

typedef struct
{
  guint8 *faces;
  int *labels;
  char **paths;
  int n, width, height;
} FaceSet;

static void
face_set_load (FaceSet * s, const char *list)
{
  s->faces = clv_test_lfw_load (list, &s->n, &s->width, &s->height,
      &s->labels, &s->paths);
}

static void
face_set_clear (FaceSet * s)
{
  g_free (s->faces);
  g_free (s->labels);
  g_strfreev (s->paths);
}

static const guint8 *
face_by_path (const FaceSet * s, const char *path)
{
  for (int i = 0; i < s->n; i++)
    if (strcmp (s->paths[i], path) == 0)
      return s->faces + (gsize) i * s->width * s->height;
  g_error ("%s is not in the test set", path);
}

/* Trained on the LFW split, the reference gives OpenCV's eigenvalues, and
 * on the test faces OpenCV's labels and distances, with and without a
 * threshold. */
static void
test_matches_opencv_golden (gconstpointer data)
{
  const int k = GPOINTER_TO_INT (data);
  ClvTestEigenGolden *golden = clv_test_eigen_golden_load (k);
  ClvEigenComponents keep = { CLV_EIGEN_KEEP_COUNT, k, 0 };
  FaceSet train, test;
  g_autoptr (ClvEigenModel) m = NULL;
  GError *error = NULL;
  int unknown = 0;

  face_set_load (&train, "train.txt");
  face_set_load (&test, "test.txt");
  m = clv_eigen_train_ref (train.faces, train.n, train.labels, train.width,
      train.height, &keep, &error);
  g_assert_no_error (error);
  g_assert_cmpint (m->n_components, ==, k);
  for (int c = 0; c < k; c++)
    g_assert_cmpfloat_with_epsilon (m->eigenvalues[c] /
        g_array_index (golden->eigenvalues, double, c), 1, OPENCV_REL);

  for (guint i = 0; i < golden->predictions->len; i++) {
    const ClvTestPrediction *p = &g_array_index (golden->predictions,
        ClvTestPrediction, i);
    double dist;
    int label = clv_eigen_predict_ref (m, face_by_path (&test, p->path),
        p->threshold, &dist);

    g_assert_cmpint (label, ==, p->label);
    if (p->label == CLV_EIGEN_UNKNOWN) {
      g_assert_cmpfloat (p->distance, ==, DBL_MAX);
      g_assert_cmpfloat (dist, >=, p->threshold);
      unknown++;
    } else {
      g_assert_cmpfloat_with_epsilon (dist / p->distance, 1, OPENCV_REL);
    }
  }
  /* The golden threshold (near the median) leaves some faces unknown. */
  g_assert_cmpint (unknown, >, 0);
  g_assert_cmpint (unknown, <, (int) golden->predictions->len / 2);

  face_set_clear (&train);
  face_set_clear (&test);
  clv_test_eigen_golden_free (golden);
}

/* With every non-trivial component, training faces lie in the face space:
 * each is nearest to itself at distance ~0. */
static void
test_training_faces_recognised (void)
{
  ClvEigenComponents keep = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  FaceSet train;
  g_autoptr (ClvEigenModel) m = NULL;
  GError *error = NULL;
  double *w;

  face_set_load (&train, "train.txt");
  m = clv_eigen_train_ref (train.faces, train.n, train.labels, train.width,
      train.height, &keep, &error);
  g_assert_no_error (error);
  g_assert_cmpint (m->n_components, ==, train.n - 1);
  w = g_new (double, m->n_components);
  for (int i = 0; i < train.n; i++) {
    double dist;
    g_assert_cmpint (clv_eigen_predict_ref (m, train.faces + (gsize) i *
            m->dim, INFINITY, &dist), ==, train.labels[i]);
    g_assert_cmpfloat (dist, <, 1e-6);
    /* The stored projections are those of the training faces. */
    clv_eigen_project_ref (m, train.faces + (gsize) i * m->dim, w);
    for (int c = 0; c < m->n_components; c++)
      g_assert_cmpfloat (fabs (w[c] - m->projections[i * m->n_components +
                  c]), <, 1e-8);
  }
  g_free (w);
  face_set_clear (&train);
}

/* OpenCV's rule: strictly nearer wins, the first on ties; at or past the
 * threshold → unknown. */
static void
test_nearest_rule (void)
{
  g_autoptr (ClvEigenModel) m = clv_eigen_model_new (1, 1, 4, 2);
  static const double proj[] = { 3, 4, 0, 5, 0, 5, -3, -4 };
  static const int labels[] = { 7, 8, 9, 10 };
  double origin[2] = { 0, 0 }, near9[2] = { 0, 4.5 }, dist;

  memcpy (m->projections, proj, sizeof proj);
  memcpy (m->labels, labels, sizeof labels);
  /* All four at distance 5: the first. */
  g_assert_cmpint (clv_eigen_nearest (m, origin, INFINITY, &dist), ==, 7);
  g_assert_cmpfloat (dist, ==, 5);
  /* Rows 1 and 2 equal: the first of them. */
  g_assert_cmpint (clv_eigen_nearest (m, near9, INFINITY, &dist), ==, 8);
  g_assert_cmpfloat_with_epsilon (dist, 0.5, 1e-15);
  g_assert_cmpint (clv_eigen_nearest (m, near9, 0.5, &dist), ==,
      CLV_EIGEN_UNKNOWN);
  g_assert_cmpfloat_with_epsilon (dist, 0.5, 1e-15);
  g_assert_cmpint (clv_eigen_nearest (m, near9, 0.5000001, NULL), ==, 8);
}

static void
test_training_errors (void)
{
  guint8 same[3 * 4];
  int labels[3] = { 1, 2, 3 };
  ClvEigenComponents keep = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  GError *error = NULL;

  memset (same, 77, sizeof same);
  g_assert_null (clv_eigen_train_ref (same, 1, labels, 2, 2, &keep, &error));
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING);
  g_clear_error (&error);
  g_assert_null (clv_eigen_train_ref (same, 3, labels, 2, 2, &keep, &error));
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING);
  g_assert_nonnull (strstr (error->message, "all the same"));
  g_clear_error (&error);
}

/* ---- Crop and resize ---------------------------------------------------- */

static void
test_linear_coeffs (void)
{
  int first[4];
  guint16 frac[4];

  /* Halving: positions 0.5 and 2.5. */
  clv_resize_axis_exact (4, 2, first, frac, NULL, NULL);
  g_assert_cmpint (first[0], ==, 0);
  g_assert_cmpint (frac[0], ==, 128);
  g_assert_cmpint (first[1], ==, 2);
  g_assert_cmpint (frac[1], ==, 128);
  /* Doubling: −0.25 (clamped), 0.25, 0.75, 1.25 (clamped). */
  clv_resize_axis_exact (2, 4, first, frac, NULL, NULL);
  g_assert_cmpint (first[0], ==, 0);
  g_assert_cmpint (frac[0], ==, 0);
  g_assert_cmpint (frac[1], ==, 64);
  g_assert_cmpint (frac[2], ==, 192);
  g_assert_cmpint (first[3], ==, 1);
  g_assert_cmpint (frac[3], ==, 0);
  /* One source pixel. */
  clv_resize_axis_exact (1, 3, first, frac, NULL, NULL);
  for (int i = 0; i < 3; i++)
    g_assert_true (first[i] == 0 && frac[i] == 0);
}

static void
test_crop_resize_golden (void)
{
  g_autofree char *golden_path =
      clv_test_data_path ("tests/data/golden/eigen-resize.txt");
  g_autofree char *face_path = g_build_filename (clv_test_lfw_dir (),
      "faces", "3", "05.pgm", NULL);
  g_autofree char *text = NULL;
  g_autofree guint8 *frame = NULL;
  g_auto (GStrv) lines = NULL;
  GError *error = NULL;
  ClvImage im;
  int w, h, cases = 0;

  frame = clv_test_read_pgm (face_path, &w, &h);
  im = clv_image_make (w, h, 1, w);
  g_file_get_contents (golden_path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++) {
    int x, y, cw, ch, ow, oh;
    char hex[4096];
    g_autofree guint8 *out = NULL;

    if (lines[i][0] == '#' || lines[i][0] == '\0')
      continue;
    g_assert_cmpint (sscanf (lines[i], "%d %d %d %d %d %d %4095s", &x, &y,
            &cw, &ch, &ow, &oh, hex), ==, 7);
    g_assert_cmpuint (strlen (hex), ==, 2 * ow * oh);
    out = g_malloc (ow * oh);
    clv_eigen_crop_resize_ref (frame, &im, x, y, cw, ch, out, ow, oh);
    for (int p = 0; p < ow * oh; p++) {
      char byte[3] = { hex[2 * p], hex[2 * p + 1], 0 };
      if (out[p] != strtol (byte, NULL, 16))
        g_error ("crop %d,%d %dx%d → %dx%d: pixel %d is %u, OpenCV %s", x, y,
            cw, ch, ow, oh, p, out[p], byte);
    }
    cases++;
  }
  g_assert_cmpint (cases, ==, 12);
}

/* Random crops of a noise frame (every rounding shows), with a stride and
 * offset, against cv::resize itself. */
static void
test_crop_resize_opencv (void)
{
  const int fw = 97, fh = 61, stride = 104, offset = 3 * stride + 5;
  g_autofree char *dir = g_dir_make_tmp ("clv-eigen-XXXXXX", NULL);
  g_autofree char *frame_path = g_build_filename (dir, "frame.pgm", NULL);
  g_autofree char *out_path = g_build_filename (dir, "out.pgm", NULL);
  g_autofree guint8 *packed = g_malloc (fw * fh);
  g_autofree guint8 *buffer = g_malloc0 (offset + stride * fh);
  GRand *rand = g_rand_new_with_seed (11);
  ClvImage im = clv_image_make (fw, fh, 1, stride);

  im.offset = offset;
  for (int y = 0; y < fh; y++)
    for (int x = 0; x < fw; x++)
      packed[y * fw + x] = buffer[offset + y * stride + x] =
          (guint8) g_rand_int_range (rand, 0, 256);
  clv_test_write_pgm (frame_path, packed, fw, fh);

  for (int t = 0; t < 24; t++) {
    int w = g_rand_int_range (rand, 1, fw + 1);
    int h = g_rand_int_range (rand, 1, fh + 1);
    int x = g_rand_int_range (rand, 0, fw - w + 1);
    int y = g_rand_int_range (rand, 0, fh - h + 1);
    int ow = t % 4 == 0 ? MAX (w / 2, 1) : g_rand_int_range (rand, 1, 70);
    int oh = t % 4 == 0 ? MAX (h / 2, 1) : g_rand_int_range (rand, 1, 70);
    char a[6][16];
    g_autofree guint8 *ours = g_malloc (ow * oh);
    g_autofree guint8 *theirs = NULL;
    int tw, th;

    g_snprintf (a[0], 16, "%d", x);
    g_snprintf (a[1], 16, "%d", y);
    g_snprintf (a[2], 16, "%d", w);
    g_snprintf (a[3], 16, "%d", h);
    g_snprintf (a[4], 16, "%d", ow);
    g_snprintf (a[5], 16, "%d", oh);
    g_free (clv_test_oracle_run ("crop-resize", frame_path, a[0], a[1], a[2],
            a[3], a[4], a[5], out_path, NULL));
    theirs = clv_test_read_pgm (out_path, &tw, &th);
    g_assert_true (tw == ow && th == oh);
    clv_eigen_crop_resize_ref (buffer, &im, x, y, w, h, ours, ow, oh);
    for (int p = 0; p < ow * oh; p++)
      if (ours[p] != theirs[p])
        g_error ("crop %d,%d %dx%d → %dx%d: pixel %d is %u, OpenCV %u", x, y,
            w, h, ow, oh, p, ours[p], theirs[p]);
  }
  g_rand_free (rand);
  g_unlink (frame_path);
  g_unlink (out_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eigen-ref/jacobi", test_jacobi);
  g_test_add_func ("/eigen-ref/component-rules", test_component_rules);
  g_test_add_data_func ("/eigen-ref/matches-opencv/k5", GINT_TO_POINTER (5),
      test_matches_opencv_golden);
  g_test_add_data_func ("/eigen-ref/matches-opencv/k20",
      GINT_TO_POINTER (20), test_matches_opencv_golden);
  g_test_add_data_func ("/eigen-ref/matches-opencv/k69",
      GINT_TO_POINTER (69), test_matches_opencv_golden);
  g_test_add_func ("/eigen-ref/training-faces-recognised",
      test_training_faces_recognised);
  g_test_add_func ("/eigen-ref/nearest-rule", test_nearest_rule);
  g_test_add_func ("/eigen-ref/training-errors", test_training_errors);
  g_test_add_func ("/eigen-ref/linear-coeffs", test_linear_coeffs);
  g_test_add_func ("/eigen-ref/crop-resize-golden", test_crop_resize_golden);
  /* Live against cv::resize where the oracle was built; the golden file
   * covers machines without it. */
  if (clv_test_oracle_eigen ())
    g_test_add_func ("/eigen-ref/crop-resize-opencv",
        test_crop_resize_opencv);
  return g_test_run ();
}
