/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for the Viola–Jones tests: test images, golden files, oracle. */
#include "vj-test-util.h"
#include "clv-pgm.h"
#include "clv-test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vj_test_images[] = {
  "astronaut", "grace_hopper", "franck-1000", "franck-2500", "franck-4000",
  NULL
};

const char *const vj_test_cascades[] = {
  "frontalface_default", "frontalface_alt", "frontalface_alt2",
  "frontalface_alt_tree", NULL
};

const char *const vj_test_lbp_cascades[] = {
  "lbp_frontalface", "lbp_frontalface_improved", "lbp_profileface", NULL
};

const double vj_test_scale_factors[2] = { 1.1, 1.2 };
const int vj_test_min_neighbors[2] = { 0, 3 };

char *
vj_test_cascade_path (const char *name)
{
  char *file, *path;

  if (g_str_has_prefix (name, "lbp_")) {
    char *dir = g_path_get_dirname (clv_cascade_dir ());
    file = g_strdup_printf ("lbpcascade_%s.xml", name + strlen ("lbp_"));
    path = g_build_filename (dir, "lbpcascades", file, NULL);
    g_free (dir);
  } else {
    file = g_strdup_printf ("haarcascade_%s.xml", name);
    path = g_build_filename (clv_cascade_dir (), file, NULL);
  }
  g_free (file);
  return path;
}

/* Runs tests/fetch-data.sh once per process. */
static gpointer
fetch_data (gpointer unused)
{
  char *script = clv_test_data_path ("tests/fetch-data.sh");
  const char *tool = g_getenv ("CLV_GRAY_PGM");
  const char *argv[] = { script, tool, NULL };
  char *out = NULL, *err = NULL;
  GError *error = NULL;
  int status;

  if (tool == NULL)
    g_error ("CLV_GRAY_PGM is not set: run the tests with meson test");
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error))
    g_error ("cannot run %s: %s", script, error->message);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s could not prepare the test images:\n%s%s", script, out, err);
  g_free (out);
  g_free (err);
  g_free (script);
  return NULL;
}

char *
vj_test_image_path (const char *name)
{
  static GOnce once = G_ONCE_INIT;
  char *file = g_strconcat (name, ".pgm", NULL);
  char *path = clv_test_data_path ("tests/data/cache");
  char *full = g_build_filename (path, file, NULL);

  g_once (&once, fetch_data, NULL);
  g_free (file);
  g_free (path);
  return full;
}

static char *
read_golden (const char *name)
{
  char *path = clv_test_data_path (name), *text;
  GError *error = NULL;

  if (!g_file_get_contents (path, &text, NULL, &error))
    g_error ("%s", error->message);
  g_free (path);
  return text;
}

guint8 *
vj_test_load_image (const char *name, int *width, int *height)
{
  char *path = vj_test_image_path (name), *sums, *line, *sum, *data;
  GError *error = NULL;
  gsize len;
  guint8 *pixels;

  if (!g_file_get_contents (path, &data, &len, &error))
    g_error ("%s", error->message);
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) data, len);
  sums = read_golden ("tests/data/golden/images.sha256");
  line = g_strdup_printf ("%s  %s.pgm\n", sum, name);
  if (strstr (sums, line) == NULL)
    g_error ("%s (sha256 %s) is not the image the golden files were made "
        "from (tests/data/golden/images.sha256): the decoder differs? "
        "Regenerate with tests/oracle/make-golden.sh", path, sum);
  pixels = clv_pgm_read (path, width, height, &error);
  g_assert_no_error (error);
  g_free (line);
  g_free (sums);
  g_free (sum);
  g_free (data);
  g_free (path);
  return pixels;
}

GArray *
vj_test_parse_faces (const char *text)
{
  GArray *faces = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
  char **lines = g_strsplit (text, "\n", -1);

  for (char **l = lines; *l != NULL; l++) {
    ClvVjFace f;
    if (**l == '#' || **l == '\0')
      continue;
    if (sscanf (*l, "%d %d %d %d %d", &f.rect.x, &f.rect.y, &f.rect.width,
            &f.rect.height, &f.neighbors) != 5)
      g_error ("bad face line \"%s\"", *l);
    g_array_append_val (faces, f);
  }
  g_strfreev (lines);
  return faces;
}

GArray *
vj_test_parse_scores (const char *text)
{
  GArray *faces = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
  char **lines = g_strsplit (text, "\n", -1);

  for (char **l = lines; *l != NULL; l++) {
    ClvVjFace f = { 0 };
    char weight[64];
    if (**l == '#' || **l == '\0')
      continue;
    if (sscanf (*l, "%d %d %d %d %d %63s", &f.rect.x, &f.rect.y,
            &f.rect.width, &f.rect.height, &f.reject_level, weight) != 6)
      g_error ("bad score line \"%s\"", *l);
    f.level_weight = g_ascii_strtod (weight, NULL);
    g_array_append_val (faces, f);
  }
  g_strfreev (lines);
  return faces;
}

GArray *
vj_test_golden_faces (const char *image, const char *cascade,
    double scale_factor, int min_neighbors)
{
  char *name = g_strdup_printf ("tests/data/golden/%s.%s.s%g.n%d.txt", image,
      cascade, scale_factor, min_neighbors);
  char *text = read_golden (name);
  GArray *faces = vj_test_parse_faces (text);

  g_free (text);
  g_free (name);
  return faces;
}

GArray *
vj_test_golden_scores (const char *image, const char *cascade,
    int min_neighbors)
{
  char *name = g_strdup_printf ("tests/data/golden/%s.%s.s1.1.n%d.levels.txt",
      image, cascade, min_neighbors);
  char *text = read_golden (name);
  GArray *faces = vj_test_parse_scores (text);

  g_free (text);
  g_free (name);
  return faces;
}

GArray *
vj_test_golden_children (const char *image, const char *child,
    const char *parent, GArray ** parents)
{
  char *name = g_strdup_printf ("tests/data/golden/%s.%s-in-%s.txt", image,
      child, parent);
  char *text = read_golden (name), **lines = g_strsplit (text, "\n", -1);
  GArray *children = g_array_new (FALSE, FALSE, sizeof (VjTestChild));

  *parents = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
  for (char **l = lines; *l != NULL; l++) {
    VjTestChild c = { 0 };
    int n;
    if (sscanf (*l, "# parent %d %d %d %d %d %d", &n, &c.face.rect.x,
            &c.face.rect.y, &c.face.rect.width, &c.face.rect.height,
            &c.face.neighbors) == 6) {
      g_assert_cmpint (n, ==, (*parents)->len);
      g_array_append_val (*parents, c.face);
    } else if (**l != '#' && **l != '\0') {
      if (sscanf (*l, "%d %d %d %d %d %d", &c.parent, &c.face.rect.x,
              &c.face.rect.y, &c.face.rect.width, &c.face.rect.height,
              &c.face.neighbors) != 6)
        g_error ("bad line \"%s\" in %s", *l, name);
      g_array_append_val (children, c);
    }
  }
  g_strfreev (lines);
  g_free (text);
  g_free (name);
  return children;
}

gboolean
vj_test_have_oracle (void)
{
  return g_getenv ("CLV_ORACLE_DETECT") != NULL;
}

GArray *
vj_test_oracle_faces (const char *cascade_path, const char *pgm_path,
    const ClvVjParams * p)
{
  char scale[32], neighbors[16], min[32], max[32], *out = NULL, *err = NULL;
  const char *argv[] = { g_getenv ("CLV_ORACLE_DETECT"), "--cascade",
    cascade_path, "--image", pgm_path, "--scale-factor", scale,
    "--min-neighbors", neighbors, "--min-size", min, "--max-size", max,
    p->output_reject_levels ? "--reject-levels" : NULL, NULL
  };
  GError *error = NULL;
  GArray *faces;
  int status;

  g_assert_nonnull (argv[0]);
  g_ascii_dtostr (scale, sizeof scale, p->scale_factor);
  g_snprintf (neighbors, sizeof neighbors, "%d", p->min_neighbors);
  g_snprintf (min, sizeof min, "%dx%d", p->min_width, p->min_height);
  g_snprintf (max, sizeof max, "%dx%d", p->max_width, p->max_height);
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error))
    g_error ("cannot run the oracle: %s", error->message);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("the oracle failed on %s: %s", pgm_path, err);
  faces = p->output_reject_levels ? vj_test_parse_scores (out)
      : vj_test_parse_faces (out);
  g_free (out);
  g_free (err);
  return faces;
}

char *
vj_test_cascade_to_old_format (const ClvCascade * c)
{
  GString *s = g_string_new ("<?xml version=\"1.0\"?>\n<opencv_storage>\n");

  g_string_append_printf (s, "<conv type_id=\"opencv-haar-classifier\">"
      "<size>%d %d</size><stages>\n", c->window_w, c->window_h);
  for (int si = 0; si < c->n_stages; si++) {
    const ClvCascadeStage *st = &c->stages[si];
    g_string_append (s, "<_><trees>\n");
    for (int t = st->first_tree; t < st->first_tree + st->n_trees; t++) {
      const ClvCascadeTree *tree = &c->trees[t];
      g_string_append (s, "<_>");
      for (int i = 0; i < tree->n_nodes; i++) {
        const ClvCascadeNode *nd = &c->nodes[tree->first_node + i];
        const ClvCascadeFeature *f = &c->features[nd->feature];
        int child[2] = { nd->left, nd->right };
        g_string_append (s, "<_><feature><rects>");
        for (int k = 0; k < f->n_rects; k++)
          g_string_append_printf (s, "<_>%d %d %d %d %.9g</_>", f->x[k],
              f->y[k], f->w[k], f->h[k], f->weight[k]);
        g_string_append_printf (s, "</rects><tilted>%d</tilted></feature>"
            "<threshold>%.9g</threshold>", f->tilted, nd->threshold);
        for (int k = 0; k < 2; k++) {
          const char *side = k ? "right" : "left";
          if (child[k] > 0)
            g_string_append_printf (s, "<%s_node>%d</%s_node>", side,
                child[k], side);
          else
            g_string_append_printf (s, "<%s_val>%.9g</%s_val>", side,
                c->leaves[tree->first_leaf - child[k]], side);
        }
        g_string_append (s, "</_>");
      }
      g_string_append (s, "</_>\n");
    }
    /* The loader subtracts the 1e-5 again. */
    g_string_append_printf (s, "</trees><stage_threshold>%.17g"
        "</stage_threshold><parent>%d</parent><next>-1</next></_>\n",
        (double) st->threshold + 1e-5, si - 1);
  }
  g_string_append (s, "</stages></conv>\n</opencv_storage>\n");
  return g_string_free (s, FALSE);
}

/* Faces in rectangle order (x, y, width, height). */
static int
compare_rects (gconstpointer pa, gconstpointer pb)
{
  const ClvVjFace *a = pa, *b = pb;
  const int ka[4] = { a->rect.x, a->rect.y, a->rect.width, a->rect.height };
  const int kb[4] = { b->rect.x, b->rect.y, b->rect.width, b->rect.height };

  for (int i = 0; i < 4; i++)
    if (ka[i] != kb[i])
      return ka[i] < kb[i] ? -1 : 1;
  return 0;
}

/* The same, then by neighbours. */
static int
compare_faces (gconstpointer pa, gconstpointer pb)
{
  const ClvVjFace *a = pa, *b = pb;
  const int c = compare_rects (a, b);

  return c ? c : (a->neighbors > b->neighbors) - (a->neighbors < b->neighbors);
}

/* One line a face: its rectangle, then its neighbours or (`scores`) its
 * reject level and level weight. */
static char *
describe_faces (GArray * faces, gboolean scores)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < faces->len; i++) {
    const ClvVjFace *f = &g_array_index (faces, ClvVjFace, i);
    g_string_append_printf (s, "\n  %d %d %d %d", f->rect.x, f->rect.y,
        f->rect.width, f->rect.height);
    if (scores)
      g_string_append_printf (s, " %d %.17g", f->reject_level,
          f->level_weight);
    else
      g_string_append_printf (s, " %d", f->neighbors);
  }
  return g_string_free (s, FALSE);
}

void
vj_test_assert_faces (GArray * expected, GArray * actual, int tol,
    const char *what)
{
  gboolean ok = expected->len == actual->len;

  g_array_sort (expected, compare_faces);
  g_array_sort (actual, compare_faces);
  for (guint i = 0; ok && i < expected->len; i++) {
    const ClvVjFace *e = &g_array_index (expected, ClvVjFace, i);
    const ClvVjFace *a = &g_array_index (actual, ClvVjFace, i);
    ok = abs (e->rect.x - a->rect.x) <= tol && abs (e->rect.y - a->rect.y) <= tol
        && abs (e->rect.width - a->rect.width) <= tol
        && abs (e->rect.height - a->rect.height) <= tol
        && (tol > 0 || e->neighbors == a->neighbors);
  }
  if (!ok) {
    char *de = describe_faces (expected, FALSE);
    char *da = describe_faces (actual, FALSE);
    g_error ("%s: faces differ (x y width height neighbors)\nexpected %u:%s"
        "\nactual %u:%s", what, expected->len, de, actual->len, da);
  }
}

/* Scores are compared after sorting by rectangle. */
void
vj_test_assert_scores (GArray * expected, GArray * actual, const char *what)
{
  gboolean ok = expected->len == actual->len;

  g_array_sort (expected, compare_rects);
  g_array_sort (actual, compare_rects);
  for (guint i = 0; ok && i < expected->len; i++) {
    const ClvVjFace *e = &g_array_index (expected, ClvVjFace, i);
    const ClvVjFace *a = &g_array_index (actual, ClvVjFace, i);
    ok = compare_rects (e, a) == 0 && e->reject_level == a->reject_level
        && fabs (e->level_weight - a->level_weight)
        <= 1e-5 * fabs (e->level_weight);
  }
  if (!ok) {
    char *de = describe_faces (expected, TRUE);
    char *da = describe_faces (actual, TRUE);
    g_error ("%s: scores differ (x y width height reject_level "
        "level_weight)\nexpected %u:%s\nactual %u:%s", what, expected->len,
        de, actual->len, da);
  }
}
