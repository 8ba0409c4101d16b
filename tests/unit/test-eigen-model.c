/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Eigenface model file: OpenCV's FileStorage YAML read and written
 * (byte for byte as OpenCV writes it), models exchanged with OpenCV both
 * ways, and every kind of broken file rejected with a clear error. */
#include "clv-eigen.h"
#include "clv-test-eigen.h"
#include "clv-test-util.h"

#include <float.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FIXTURE "tests/data/eigen-opencv-small.yml"

static char *
read_fixture (gsize * length)
{
  g_autofree char *path = clv_test_data_path (FIXTURE);
  char *text = NULL;
  GError *error = NULL;

  g_file_get_contents (path, &text, length, &error);
  g_assert_no_error (error);
  return text;
}

static void
assert_models_equal (const ClvEigenModel * a, const ClvEigenModel * b)
{
  gsize k = a->n_components;

  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  g_assert_cmpint (a->n_components, ==, b->n_components);
  g_assert_cmpint (a->n_train, ==, b->n_train);
  g_assert_true (a->threshold == b->threshold);
  /* "%.16e" round-trips doubles exactly. */
  for (int d = 0; d < a->dim; d++) {
    g_assert_true (a->mean[d] == b->mean[d]);
    for (gsize c = 0; c < k; c++)
      g_assert_true (a->eigenvectors[d * k + c] == b->eigenvectors[d * k + c]);
  }
  for (gsize c = 0; c < k; c++)
    g_assert_true (a->eigenvalues[c] == b->eigenvalues[c]);
  for (int i = 0; i < a->n_train; i++) {
    g_assert_cmpint (a->labels[i], ==, b->labels[i]);
    for (gsize c = 0; c < k; c++)
      g_assert_true (a->projections[i * k + c] == b->projections[i * k + c]);
  }
  g_assert_cmpuint (g_hash_table_size (a->label_names), ==,
      g_hash_table_size (b->label_names));
  {
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, (GHashTable *) a->label_names);
    while (g_hash_table_iter_next (&it, &key, &value))
      g_assert_cmpstr (value, ==, clv_eigen_model_get_label_name (b,
              GPOINTER_TO_INT (key)));
  }
}

/* Awkward values and names: integral, tiny, huge, negative; names that
 * need quoting and escaping, UTF-8 beyond ASCII. */
static void
test_round_trip (void)
{
  static const double values[] = { 67, -0.5, 1e-300, -1.7e300, 0.1, 3,
    -2, 2147483648.0, 1.0 / 3
  };
  g_autoptr (ClvEigenModel) m = clv_eigen_model_new (3, 2, 5, 3);
  g_autoptr (ClvEigenModel) back = NULL;
  g_autoptr (ClvEigenModel) from_file = NULL;
  g_autofree char *text = NULL, *dir = NULL, *path = NULL;
  GError *error = NULL;
  int v = 0;

  for (int d = 0; d < m->dim; d++) {
    m->mean[d] = values[v++ % G_N_ELEMENTS (values)];
    for (int c = 0; c < 3; c++)
      m->eigenvectors[d * 3 + c] = values[v++ % G_N_ELEMENTS (values)] / 7;
  }
  for (int c = 0; c < 3; c++)
    m->eigenvalues[c] = 1000.5 / (c + 1);
  for (int i = 0; i < 5; i++) {
    m->labels[i] = i * 3 - 4;
    for (int c = 0; c < 3; c++)
      m->projections[i * 3 + c] = values[v++ % G_N_ELEMENTS (values)] * i;
  }
  m->threshold = 123.25;
  clv_eigen_model_set_label_name (m, -4, "Ada Lovelace");
  clv_eigen_model_set_label_name (m, -1, "O'Brien \"Bob\" \\ x: y #1");
  clv_eigen_model_set_label_name (m, 2, "");
  clv_eigen_model_set_label_name (m, 5, "na\xc3\xafve \xe2\x98\xba\ttab\n");
  clv_eigen_model_set_label_name (m, 8, "-3rd");

  text = clv_eigen_model_to_string (m);
  back = clv_eigen_model_parse (text, strlen (text), "round-trip", 0, 0,
      &error);
  g_assert_no_error (error);
  assert_models_equal (m, back);

  dir = g_dir_make_tmp ("clv-eigen-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "model.yml", NULL);
  g_assert_true (clv_eigen_model_save (m, path, TRUE, &error));
  g_assert_no_error (error);
  from_file = clv_eigen_model_load (path, 0, 0, &error);
  g_assert_no_error (error);
  assert_models_equal (m, from_file);
  g_unlink (path);
  g_rmdir (dir);
}

/* A model OpenCV wrote loads, and we write it back byte for byte (plus our
 * two size keys). */
static void
test_opencv_fixture (void)
{
  gsize length;
  g_autofree char *text = read_fixture (&length);
  g_autofree char *expected = g_strconcat (text, "   clvision_width: 8\n"
      "   clvision_height: 6\n", NULL);
  g_autofree char *written = NULL;
  g_autoptr (ClvEigenModel) m = NULL;
  g_autoptr (ClvEigenModel) transposed = NULL;
  ClvEigenModel *bad;
  GError *error = NULL;

  m = clv_eigen_model_parse (text, length, FIXTURE, 8, 6, &error);
  g_assert_no_error (error);
  g_assert_cmpint (m->dim, ==, 48);
  g_assert_cmpint (m->n_components, ==, 4);
  g_assert_cmpint (m->n_train, ==, 12);
  g_assert_cmpfloat (m->threshold, ==, 2500);
  g_assert_cmpfloat (m->mean[0], ==, 54);
  g_assert_cmpfloat (m->eigenvalues[0], ==, 3.1708071563550438e+04);
  g_assert_cmpint (m->labels[11], ==, 3);
  g_assert_cmpstr (clv_eigen_model_get_label_name (m, 0), ==, "Ada Lovelace");
  g_assert_cmpstr (clv_eigen_model_get_label_name (m, 1), ==,
      "O'Brien \"Bob\"");
  g_assert_cmpstr (clv_eigen_model_get_label_name (m, 2), ==, "x: y #1");
  g_assert_cmpstr (clv_eigen_model_get_label_name (m, 3), ==, "3rd");
  g_assert_null (clv_eigen_model_get_label_name (m, 4));

  written = clv_eigen_model_to_string (m);
  g_assert_cmpstr (written, ==, expected);

  /* Only the area is in OpenCV's file: 48 pixels is no square. */
  bad = clv_eigen_model_parse (text, length, FIXTURE, 0, 0, &error);
  g_assert_null (bad);
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE);
  g_assert_nonnull (strstr (error->message, "48 pixels"));
  g_clear_error (&error);
  bad = clv_eigen_model_parse (text, length, FIXTURE, 7, 7, &error);
  g_assert_null (bad);
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE);
  g_clear_error (&error);
  transposed = clv_eigen_model_parse (text, length, FIXTURE, 6, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpint (transposed->width, ==, 6);

  /* Our own size keys win over a square guess. */
  {
    g_autoptr (ClvEigenModel) again = clv_eigen_model_parse (written,
        strlen (written), "written", 0, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpint (again->width, ==, 8);
    g_assert_cmpint (again->height, ==, 6);
  }
}

/* ---- Broken files ------------------------------------------------------ */

/* The fixture with `from` (which must occur) replaced by `to`. */
static char *
mutate (const char *text, const char *from, const char *to)
{
  const char *at = strstr (text, from);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, to,
      at + strlen (from));
}

/* The fixture without the key `key` (at indent 3) and its block. */
static char *
remove_key (const char *text, const char *key)
{
  g_autofree char *start = g_strdup_printf ("\n   %s:", key);
  const char *at = strstr (text, start), *end;

  g_assert_nonnull (at);
  for (end = at + 1; (end = strchr (end, '\n')) != NULL; end++)
    if (strncmp (end, "\n   ", 4) == 0 && end[4] != ' ')
      break;
  return g_strdup_printf ("%.*s%s", (int) (at - text), text, end ? end : "\n");
}

typedef struct
{
  const char *what;
  const char *from, *to;        /* a replacement, or NULL and: */
  const char *remove;           /* a key to remove */
  int code;
  const char *key;              /* must appear in the message */
} BadCase;

static const BadCase bad_cases[] = {
  {"no mean", NULL, NULL, "mean", CLV_EIGEN_ERROR_MISSING_KEY, "'mean'"},
  {"no eigenvalues", NULL, NULL, "eigenvalues", CLV_EIGEN_ERROR_MISSING_KEY,
      "'eigenvalues'"},
  {"no eigenvectors", NULL, NULL, "eigenvectors",
      CLV_EIGEN_ERROR_MISSING_KEY, "'eigenvectors'"},
  {"no projections", NULL, NULL, "projections", CLV_EIGEN_ERROR_MISSING_KEY,
      "'projections'"},
  {"no labels", NULL, NULL, "labels", CLV_EIGEN_ERROR_MISSING_KEY,
      "'labels'"},
  {"no num_components", NULL, NULL, "num_components",
      CLV_EIGEN_ERROR_MISSING_KEY, "'num_components'"},
  {"matrix without dt", "      dt: d\n      data: [ 54.", "      data: [ 54.",
      NULL, CLV_EIGEN_ERROR_MISSING_KEY, "'mean'"},
  {"num_components not a number", "num_components: 4", "num_components: x",
      NULL, CLV_EIGEN_ERROR_BAD_VALUE, "'num_components'"},
  {"mean data too short", "cols: 48", "cols: 49", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'mean'"},
  {"mean not a row", "rows: 1\n      cols: 48", "rows: 2\n      cols: 24",
      NULL, CLV_EIGEN_ERROR_BAD_VALUE, "'mean'"},
  {"eigenvalues count", "rows: 4\n      cols: 1", "rows: 5\n      cols: 1",
      NULL, CLV_EIGEN_ERROR_BAD_VALUE, "'eigenvalues'"},
  {"eigenvectors shape", "rows: 48\n      cols: 4",
      "rows: 24\n      cols: 8", NULL, CLV_EIGEN_ERROR_BAD_VALUE,
      "'eigenvectors'"},
  {"projection shape", "         rows: 1\n         cols: 4",
      "         rows: 2\n         cols: 2", NULL, CLV_EIGEN_ERROR_BAD_VALUE,
      "'projections[0]'"},
  {"labels count", "cols: 12", "cols: 11", NULL, CLV_EIGEN_ERROR_BAD_VALUE,
      "'labels'"},
  {"labels not ints", "dt: i", "dt: d", NULL, CLV_EIGEN_ERROR_BAD_VALUE,
      "'labels'"},
  {"label 1.5", "data: [ 0, 1,", "data: [ 0, 1.5,", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'labels'"},
  {"non-numeric data", "data: [ 54.,", "data: [ abc,", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "found 'abc'"},
  {"NaN data", "data: [ 54.,", "data: [ .Nan,", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "finite"},
  {"quoted number", "data: [ 54.,", "data: [ \"54\",", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'mean'"},
  {"matrix is a scalar", "mean: !!opencv-matrix\n      rows: 1\n",
      "mean: 5\n   meanx: !!opencv-matrix\n      rows: 1\n", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'mean'"},
  {"threshold text", "threshold: 2500.", "threshold: high", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'threshold'"},
  {"label name not UTF-8", "Ada Lovelace", "\"\\xff\"", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "'labelsInfo'"},
  {"labelsInfo item without value", "         value: Ada Lovelace\n", "",
      NULL, CLV_EIGEN_ERROR_BAD_VALUE, "'labelsInfo'"},
  {"half of our size keys", "   labelsInfo:", "   clvision_width: 8\n"
        "   labelsInfo:", NULL, CLV_EIGEN_ERROR_BAD_VALUE, "clvision_"},
  {"size keys disagree", "   labelsInfo:", "   clvision_width: 7\n"
        "   clvision_height: 7\n   labelsInfo:", NULL,
      CLV_EIGEN_ERROR_BAD_VALUE, "clvision_width"},
  {"unterminated quote", "\"3rd\"", "\"3rd", NULL, CLV_EIGEN_ERROR_PARSE,
      "quoted"},
  {"tab indentation", "\n   num_components", "\n\tnum_components", NULL,
      CLV_EIGEN_ERROR_PARSE, "tabs"},
  {"bad indentation", "\n   num_components", "\n     num_components", NULL,
      CLV_EIGEN_ERROR_PARSE, "indentation"},
  {"no key", "   num_components: 4\n", "   num_components 4\n", NULL,
      CLV_EIGEN_ERROR_PARSE, "key: value"},
  {"text after ]", "1, 2, 3 ]", "1, 2, 3 ] x", NULL, CLV_EIGEN_ERROR_PARSE,
      "after"},
  {"missing comma", "data: [ 54., ", "data: [ 54. [ ", NULL,
      CLV_EIGEN_ERROR_PARSE, "sequence"},
  {"not YAML", "%YAML:1.0", "<?xml version=\"1.0\"?>", NULL,
      CLV_EIGEN_ERROR_PARSE, "XML"},
  {"model not a map", "opencv_eigenfaces:\n", "opencv_eigenfaces: 5\n"
        "other:\n", NULL, CLV_EIGEN_ERROR_BAD_VALUE, "opencv_eigenfaces"},
};

static void
assert_bad (const char *text, gsize length, int code, const char *needle)
{
  GError *error = NULL;
  ClvEigenModel *m = clv_eigen_model_parse (text, length, "bad.yml", 8, 6,
      &error);

  g_assert_null (m);
  g_assert_error (error, CLV_EIGEN_ERROR, code);
  g_assert_nonnull (strstr (error->message, "bad.yml"));
  if (strstr (error->message, needle) == NULL)
    g_error ("expected \"%s\" in: %s", needle, error->message);
  g_error_free (error);
}

static void
test_malformed (void)
{
  gsize length;
  g_autofree char *text = read_fixture (&length);

  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++) {
    const BadCase *c = &bad_cases[i];
    g_autofree char *bad = c->remove ? remove_key (text, c->remove) :
        mutate (text, c->from, c->to);
    g_test_message ("case: %s", c->what);
    assert_bad (bad, strlen (bad), c->code, c->key);
  }
}

/* Files that are not models at all. */
static void
test_not_a_model (void)
{
  g_autofree char *deep = NULL;
  GString *nest = g_string_new ("%YAML:1.0\n---\nm: ");
  GError *error = NULL;
  static const char binary[] = "%YAML:1.0\n---\nmean: \0\1\2";

  assert_bad ("", 0, CLV_EIGEN_ERROR_PARSE, "empty");
  assert_bad ("%YAML:1.0\n---\n", 14, CLV_EIGEN_ERROR_PARSE, "no content");
  assert_bad (binary, sizeof binary - 1, CLV_EIGEN_ERROR_PARSE, "NUL");
  assert_bad ("%YAML:1.0\n---\n- 1\n- 2\n", 22, CLV_EIGEN_ERROR_PARSE,
      "not a map");
  assert_bad ("%YAML:1.0\n---\nopencv_eigenfaces:\n   []\n", 39,
      CLV_EIGEN_ERROR_BAD_VALUE, "model's map");
  for (int i = 0; i < 1000; i++)
    g_string_append_c (nest, '[');
  deep = g_string_free (nest, FALSE);
  assert_bad (deep, strlen (deep), CLV_EIGEN_ERROR_PARSE, "nested");

  g_assert_null (clv_eigen_model_load ("/nonexistent/model.yml", 0, 0,
          &error));
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/model.yml"));
  g_clear_error (&error);
}

/* Cut anywhere before the last required key ends, the file is refused
 * with an error; cut anywhere at all, nothing crashes. */
static void
test_truncated (void)
{
  gsize length;
  g_autofree char *text = read_fixture (&length);
  gsize required_end = strstr (text, "\n   labelsInfo:") - text;

  for (gsize cut = 0; cut < length; cut++) {
    GError *error = NULL;
    g_autofree char *part = g_strndup (text, cut);
    ClvEigenModel *m = clv_eigen_model_parse (part, cut, "cut.yml", 8, 6,
        &error);

    if (cut < required_end) {
      if (m != NULL)
        g_error ("a file cut at byte %" G_GSIZE_FORMAT " loaded", cut);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "cut.yml"));
    }
    g_assert_true ((m == NULL) == (error != NULL));
    g_clear_error (&error);
    clv_eigen_model_free (m);
  }
}

/* ---- Models exchanged with OpenCV (the live oracle) -------------------- */

/* Every line "path label distance" of the oracle equals our prediction
 * with the model's threshold; OpenCV reports unknown faces at DBL_MAX.
 * Returns how many were unknown. */
static int
assert_same_predictions (const char *oracle_output, const ClvEigenModel * m)
{
  g_auto (GStrv) lines = g_strsplit (oracle_output, "\n", -1);
  int n = 0, unknown = 0;

  for (int i = 0; lines[i] && lines[i][0]; i++) {
    char path[1024];
    int label, w, h, ours;
    double dist, our_dist;
    g_autofree guint8 *face = NULL;

    g_assert_cmpint (sscanf (lines[i], "%1023s %d %lf", path, &label, &dist),
        ==, 3);
    face = clv_test_read_pgm (path, &w, &h);
    g_assert_cmpint (w * h, ==, m->dim);
    ours = clv_eigen_predict_ref (m, face, m->threshold, &our_dist);
    g_assert_cmpint (ours, ==, label);
    if (label == CLV_EIGEN_UNKNOWN) {
      g_assert_cmpfloat (dist, ==, DBL_MAX);
      g_assert_cmpfloat (our_dist, >=, m->threshold);
      unknown++;
    } else {
      g_assert_cmpfloat_with_epsilon (our_dist / dist, 1, 1e-9);
    }
    n++;
  }
  g_assert_cmpint (n, ==, 50);
  return unknown;
}

/* OpenCV trains and writes; we load and predict as it does. */
static void
test_opencv_model_loads_here (void)
{
  g_autofree char *dir = g_dir_make_tmp ("clv-eigen-XXXXXX", NULL);
  g_autofree char *model_path = g_build_filename (dir, "cv.yml", NULL);
  g_autofree char *train = g_build_filename (clv_test_lfw_dir (),
      "train.txt", NULL);
  g_autofree char *test = g_build_filename (clv_test_lfw_dir (), "test.txt",
      NULL);
  g_autofree char *out = NULL;
  g_autoptr (ClvEigenModel) m = NULL;
  GError *error = NULL;

  g_free (clv_test_oracle_run ("train", train, model_path, "--components",
          "12", NULL));
  m = clv_eigen_model_load (model_path, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (m->width, ==, 25);
  g_assert_cmpint (m->n_components, ==, 12);
  g_assert_cmpstr (clv_eigen_model_get_label_name (m, 7), ==, "person7");
  out = clv_test_oracle_run ("predict", model_path, "--list", test, NULL);
  g_assert_cmpint (assert_same_predictions (out, m), ==, 0);
  g_unlink (model_path);
  g_rmdir (dir);
}

/* We train and write; OpenCV loads and predicts as we do. */
static void
test_our_model_loads_in_opencv (void)
{
  g_autofree char *dir = g_dir_make_tmp ("clv-eigen-XXXXXX", NULL);
  g_autofree char *model_path = g_build_filename (dir, "ours.yml", NULL);
  g_autofree char *test = g_build_filename (clv_test_lfw_dir (), "test.txt",
      NULL);
  g_autofree char *out = NULL;
  g_autofree guint8 *faces = NULL;
  g_autofree int *labels = NULL;
  g_autoptr (ClvEigenModel) m = NULL;
  ClvEigenComponents keep = { CLV_EIGEN_KEEP_COUNT, 12, 0 };
  int n, w, h, unknown;
  GError *error = NULL;

  faces = clv_test_lfw_load ("train.txt", &n, &w, &h, &labels, NULL);
  m = clv_eigen_train_ref (faces, n, labels, w, h, &keep, &error);
  g_assert_no_error (error);
  /* OpenCV uses the stored threshold: some faces come out unknown. */
  m->threshold = 650;
  clv_eigen_model_set_label_name (m, 3, "Grace Hopper");
  g_assert_true (clv_eigen_model_save (m, model_path, TRUE, &error));
  g_assert_no_error (error);
  out = clv_test_oracle_run ("predict", model_path, "--list", test, NULL);
  unknown = assert_same_predictions (out, m);
  g_assert_cmpint (unknown, >, 0);
  g_assert_cmpint (unknown, <, 50);
  g_unlink (model_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eigen-model/round-trip", test_round_trip);
  g_test_add_func ("/eigen-model/opencv-fixture", test_opencv_fixture);
  g_test_add_func ("/eigen-model/malformed", test_malformed);
  g_test_add_func ("/eigen-model/not-a-model", test_not_a_model);
  g_test_add_func ("/eigen-model/truncated", test_truncated);
  /* Live exchanges where the oracle was built; the fixture above covers
   * OpenCV's format on machines without it. */
  if (clv_test_oracle_eigen ()) {
    g_test_add_func ("/eigen-model/opencv-model-loads-here",
        test_opencv_model_loads_here);
    g_test_add_func ("/eigen-model/our-model-loads-in-opencv",
        test_our_model_loads_in_opencv);
  }
  return g_test_run ();
}
