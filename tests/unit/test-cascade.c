/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cascade loader: every Debian Haar and LBP cascade, both XML formats,
 * and every kind of malformed file giving an error that names the file and
 * the problem (never a crash, never a half-loaded cascade); the labels
 * cascade names give. */
#include "clv-cascade.h"
#include "clv-opencl.h"
#include "clv-test-util.h"
#include "vj-test-util.h"

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define HAAR_DIR clv_cascade_dir ()

/* A small valid new-format cascade: 2 stages, a stump and a 2-node tree,
 * one tilted feature.  Each malformed case below edits one piece of it. */
static const char mini_new[] =
    "<?xml version=\"1.0\"?>\n"
    "<opencv_storage>\n"
    "<cascade type_id=\"opencv-cascade-classifier\">\n"
    "  <stageType>BOOST</stageType>\n"
    "  <featureType>HAAR</featureType>\n"
    "  <height>20</height>\n"
    "  <width>24</width>\n"
    "  <stageParams><maxWeakCount>2</maxWeakCount></stageParams>\n"
    "  <featureParams><maxCatCount>0</maxCatCount></featureParams>\n"
    "  <stageNum>2</stageNum>\n"
    "  <stages>\n"
    "    <_>\n"
    "      <maxWeakCount>1</maxWeakCount>\n"
    "      <stageThreshold>-1.5</stageThreshold>\n"
    "      <weakClassifiers>\n"
    "        <_><internalNodes>0 -1 0 4.5e-03</internalNodes>\n"
    "          <leafValues>-0.75 0.5</leafValues></_>\n"
    "      </weakClassifiers></_>\n"
    "    <_>\n"
    "      <maxWeakCount>2</maxWeakCount>\n"
    "      <stageThreshold>0.25</stageThreshold>\n"
    "      <weakClassifiers>\n"
    "        <_><internalNodes>1 -1 1 -2.5e-02 0 -2 2 0.125</internalNodes>\n"
    "          <leafValues>0.5 -0.25 0.75</leafValues></_>\n"
    "        <_><internalNodes>0 -1 1 1e-02</internalNodes>\n"
    "          <leafValues>-0.5 0.375</leafValues></_>\n"
    "      </weakClassifiers></_>\n"
    "  </stages>\n"
    "  <features>\n"
    "    <_><rects><_>0 0 24 20 -1.</_><_>8 0 8 20 3.</_></rects></_>\n"
    "    <_><rects><_>2 3 6 4 -1.</_><_>2 5 6 2 2.</_></rects>\n"
    "      <tilted>0</tilted></_>\n"
    "    <_><rects><_>10 2 4 6 -1.</_><_>10 2 2 3 2.</_><_>12 5 2 3 2.</_>"
    "</rects>\n      <tilted>1</tilted></_>\n"
    "  </features>\n"
    "</cascade>\n"
    "</opencv_storage>\n";

/* The same classifier in the old format, as OpenCV's haar_cvt reads it:
 * a feature per node, leaves numbered in node order, left before right. */
static const char mini_old[] =
    "<?xml version=\"1.0\"?>\n"
    "<opencv_storage>\n"
    "<mini type_id=\"opencv-haar-classifier\">\n"
    "  <size>24 20</size>\n"
    "  <stages>\n"
    "    <_><trees>\n"
    "      <_><_><feature><rects><_>0 0 24 20 -1.</_><_>8 0 8 20 3.</_>"
    "</rects><tilted>0</tilted></feature>\n"
    "        <threshold>4.5e-03</threshold><left_val>-0.75</left_val>"
    "<right_val>0.5</right_val></_></_>\n"
    "      </trees><stage_threshold>-1.5</stage_threshold>"
    "<parent>-1</parent><next>-1</next></_>\n"
    "    <_><trees>\n"
    "      <_>\n"
    "        <_><feature><rects><_>2 3 6 4 -1.</_><_>2 5 6 2 2.</_></rects>"
    "<tilted>0</tilted></feature>\n"
    "          <threshold>-2.5e-02</threshold><left_node>1</left_node>"
    "<right_val>-0.25</right_val></_>\n"
    "        <_><feature><rects><_>10 2 4 6 -1.</_><_>10 2 2 3 2.</_>"
    "<_>12 5 2 3 2.</_></rects><tilted>1</tilted></feature>\n"
    "          <threshold>0.125</threshold><left_val>0.5</left_val>"
    "<right_val>0.75</right_val></_></_>\n"
    "      <_><_><feature><rects><_>2 3 6 4 -1.</_><_>2 5 6 2 2.</_></rects>"
    "<tilted>0</tilted></feature>\n"
    "        <threshold>1e-02</threshold><left_val>-0.5</left_val>"
    "<right_val>0.375</right_val></_></_>\n"
    "      </trees><stage_threshold>0.25</stage_threshold>"
    "<parent>0</parent><next>-1</next></_>\n"
    "  </stages>\n"
    "</mini>\n"
    "</opencv_storage>\n";

static ClvCascade *
load_string (const char *xml, GError ** error)
{
  return clv_cascade_load_from_data (xml, strlen (xml), "mini.xml", error);
}

/* Evaluates tree `t` with each node's "value < threshold" decided by bit i of
 * `decisions`; returns the leaf value reached. */
static float
tree_leaf (const ClvCascade * c, int t, guint decisions)
{
  const ClvCascadeTree *tree = &c->trees[t];
  int idx = 0;

  do {
    const ClvCascadeNode *n = &c->nodes[tree->first_node + idx];
    idx = (decisions >> idx) & 1 ? n->left : n->right;
  } while (idx > 0);
  return c->leaves[tree->first_leaf - idx];
}

static const ClvCascadeFeature *
tree_node_feature (const ClvCascade * c, int t, int i)
{
  return &c->features[c->nodes[c->trees[t].first_node + i].feature];
}

/* Same classifier: stages, trees, node thresholds, features and what every
 * path through every tree gives.  Feature numbering and leaf order may
 * differ between formats. */
static void
assert_same_classifier (const ClvCascade * a, const ClvCascade * b)
{
  g_assert_cmpint (a->window_w, ==, b->window_w);
  g_assert_cmpint (a->window_h, ==, b->window_h);
  g_assert_cmpint (a->n_stages, ==, b->n_stages);
  g_assert_cmpint (a->n_trees, ==, b->n_trees);
  g_assert_cmpint (a->n_nodes, ==, b->n_nodes);
  g_assert_cmpint (a->n_leaves, ==, b->n_leaves);
  g_assert_cmpint (a->has_tilted, ==, b->has_tilted);
  g_assert_cmpint (a->is_stump_based, ==, b->is_stump_based);
  for (int s = 0; s < a->n_stages; s++) {
    g_assert_cmpint (a->stages[s].first_tree, ==, b->stages[s].first_tree);
    g_assert_cmpint (a->stages[s].n_trees, ==, b->stages[s].n_trees);
    g_assert_cmpfloat (a->stages[s].threshold, ==, b->stages[s].threshold);
  }
  for (int t = 0; t < a->n_trees; t++) {
    int n = a->trees[t].n_nodes;
    g_assert_cmpint (n, ==, b->trees[t].n_nodes);
    for (int i = 0; i < n; i++) {
      const ClvCascadeNode *na = &a->nodes[a->trees[t].first_node + i];
      const ClvCascadeNode *nb = &b->nodes[b->trees[t].first_node + i];
      const ClvCascadeFeature *fa = tree_node_feature (a, t, i);
      const ClvCascadeFeature *fb = tree_node_feature (b, t, i);
      g_assert_cmpfloat (na->threshold, ==, nb->threshold);
      g_assert_cmpint (na->left > 0, ==, nb->left > 0);
      g_assert_cmpint (na->right > 0, ==, nb->right > 0);
      g_assert_cmpint (fa->n_rects, ==, fb->n_rects);
      g_assert_cmpint (fa->tilted, ==, fb->tilted);
      for (int k = 0; k < CLV_CASCADE_MAX_RECTS; k++) {
        g_assert_cmpint (fa->x[k], ==, fb->x[k]);
        g_assert_cmpint (fa->y[k], ==, fb->y[k]);
        g_assert_cmpint (fa->w[k], ==, fb->w[k]);
        g_assert_cmpint (fa->h[k], ==, fb->h[k]);
        g_assert_cmpfloat (fa->weight[k], ==, fb->weight[k]);
      }
    }
    for (guint d = 0; d < (1u << n); d++)
      g_assert_cmpfloat (tree_leaf (a, t, d), ==, tree_leaf (b, t, d));
  }
}

static void
test_mini_new_format (void)
{
  GError *error = NULL;
  ClvCascade *c = load_string (mini_new, &error);

  g_assert_no_error (error);
  g_assert_cmpint (c->window_w, ==, 24);
  g_assert_cmpint (c->window_h, ==, 20);
  g_assert_cmpint (c->n_stages, ==, 2);
  g_assert_cmpint (c->n_trees, ==, 3);
  g_assert_cmpint (c->n_nodes, ==, 4);
  g_assert_cmpint (c->n_leaves, ==, 7);
  g_assert_cmpint (c->n_features, ==, 3);
  g_assert_true (c->has_tilted);
  g_assert_false (c->is_stump_based);
  g_assert_cmpint (c->max_tree_nodes, ==, 2);
  g_assert_cmpint (c->max_stage_trees, ==, 2);
  /* OpenCV subtracts 1e-5 (float) from stage thresholds. */
  g_assert_cmpfloat (c->stages[0].threshold, ==, -1.5f - 1e-5f);
  g_assert_cmpfloat (c->stages[1].threshold, ==, 0.25f - 1e-5f);
  g_assert_cmpint (c->stages[1].first_tree, ==, 1);
  g_assert_cmpint (c->trees[1].first_node, ==, 1);
  g_assert_cmpint (c->trees[1].first_leaf, ==, 2);
  g_assert_cmpint (c->trees[2].first_leaf, ==, 5);
  g_assert_cmpint (c->nodes[1].left, ==, 1);
  g_assert_cmpint (c->nodes[1].right, ==, -1);
  g_assert_cmpint (c->nodes[2].feature, ==, 2);
  g_assert_cmpfloat (c->nodes[1].threshold, ==, -2.5e-02f);
  g_assert_cmpfloat (tree_leaf (c, 1, 0x3), ==, 0.5f);    /* left, left */
  g_assert_cmpfloat (tree_leaf (c, 1, 0x1), ==, 0.75f);   /* left, right */
  g_assert_cmpfloat (tree_leaf (c, 1, 0x0), ==, -0.25f);  /* right: leaf 1 */
  g_assert_cmpint (c->features[0].n_rects, ==, 2);
  g_assert_cmpint (c->features[2].n_rects, ==, 3);
  g_assert_cmpint (c->features[2].tilted, ==, 1);
  g_assert_cmpint (c->features[2].x[2], ==, 12);
  g_assert_cmpfloat (c->features[2].weight[2], ==, 2.f);
  g_assert_cmpfloat (c->features[0].weight[2], ==, 0.f);
  clv_cascade_free (c);
}

static void
test_mini_old_format (void)
{
  GError *error = NULL;
  ClvCascade *n = load_string (mini_new, &error), *o;

  g_assert_no_error (error);
  o = load_string (mini_old, &error);
  g_assert_no_error (error);
  assert_same_classifier (n, o);
  /* Old format: one feature per node; leaves in node order, left first. */
  g_assert_cmpint (o->n_features, ==, 4);
  g_assert_cmpint (o->nodes[1].left, ==, 1);
  g_assert_cmpint (o->nodes[1].right, ==, 0);
  g_assert_cmpfloat (o->leaves[o->trees[1].first_leaf], ==, -0.25f);
  g_assert_cmpint (o->nodes[2].left, ==, -1);
  g_assert_cmpint (o->nodes[2].right, ==, -2);
  clv_cascade_free (n);
  clv_cascade_free (o);
}

/* Deeper trees and tilted features through the old format: Debian's
 * cascades with trees converted and read back. */
static void
test_old_format_trees (void)
{
  const char *names[] = { "haarcascade_frontalface_alt2.xml",
    "haarcascade_eye_tree_eyeglasses.xml"
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GError *error = NULL;
    char *path = g_build_filename (HAAR_DIR, names[i], NULL);
    ClvCascade *n = clv_cascade_load (path, &error), *o;
    char *xml;

    g_assert_no_error (error);
    g_assert_cmpint (n->max_tree_nodes, >=, 2);
    xml = vj_test_cascade_to_old_format (n);
    o = clv_cascade_load_from_data (xml, strlen (xml), "converted", &error);
    g_assert_no_error (error);
    for (int s = 0; s < n->n_stages; s++) {
      g_assert_cmpfloat (fabsf (o->stages[s].threshold - n->stages[s].threshold),
          <=, 1e-6f);
      o->stages[s].threshold = n->stages[s].threshold;
    }
    assert_same_classifier (n, o);
    g_assert_cmpint (o->n_features, ==, o->n_nodes);
    clv_cascade_free (n);
    clv_cascade_free (o);
    g_free (xml);
    g_free (path);
  }
}

static int
count_substr (const char *text, const char *needle)
{
  int n = 0;

  for (const char *p = strstr (text, needle); p != NULL;
      p = strstr (p + 1, needle))
    n++;
  return n;
}

/* Every Debian Haar cascade loads; the counts agree with a plain count of
 * the file's elements, and the face cascades have OpenCV's known sizes. */
static void
test_debian_cascades (void)
{
  GDir *dir = g_dir_open (HAAR_DIR, 0, NULL);
  const char *name;
  int n_files = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL) {
    GError *error = NULL;
    char *path, *text;
    ClvCascade *c;
    int trees, features, tilted;

    if (!g_str_has_suffix (name, ".xml"))
      continue;
    path = g_build_filename (HAAR_DIR, name, NULL);
    c = clv_cascade_load (path, &error);
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));

    g_assert_cmpstr (c->path, ==, path);
    g_assert_cmpint (c->n_stages, ==, count_substr (text, "<stageThreshold>")
        + count_substr (text, "<stage_threshold>"));
    trees = count_substr (text, "<internalNodes>");
    tilted = count_substr (text, "<tilted>1</tilted>");
    if (trees > 0) {
      g_assert_cmpint (c->n_trees, ==, trees);
      features = count_substr (text, "<rects>");
    } else {
      /* Old format: a node per <threshold>, a feature per node. */
      g_assert_cmpint (c->n_nodes, ==, count_substr (text, "<threshold>"));
      features = c->n_nodes;
    }
    g_assert_cmpint (c->n_features, ==, features);
    g_assert_cmpint (c->has_tilted, ==, tilted > 0);
    g_assert_cmpint (c->n_leaves, ==, c->n_nodes + c->n_trees);
    g_assert_cmpint (c->window_w, >, 0);
    clv_cascade_free (c);
    g_free (text);
    g_free (path);
    n_files++;
  }
  g_dir_close (dir);
  g_assert_cmpint (n_files, >=, 17);
}

/* A small LBP cascade: one stage of two stumps. */
static const char mini_lbp[] =
    "<?xml version=\"1.0\"?>\n"
    "<opencv_storage>\n"
    "<cascade type_id=\"opencv-cascade-classifier\">\n"
    "  <stageType>BOOST</stageType>\n"
    "  <featureType>LBP</featureType>\n"
    "  <height>24</height>\n"
    "  <width>20</width>\n"
    "  <featureParams><maxCatCount>256</maxCatCount></featureParams>\n"
    "  <stages><_>\n"
    "    <stageThreshold>-0.75</stageThreshold>\n"
    "    <weakClassifiers>\n"
    "      <_><internalNodes>0 -1 1 -67130709 -21569 -1426120013 2147483647\n"
    "        -2147483648 -16385 587145899 -24005</internalNodes>\n"
    "        <leafValues>-0.5 0.875</leafValues></_>\n"
    "      <_><internalNodes>0 -1 0 1 2 3 4 5 6 7 8</internalNodes>\n"
    "        <leafValues>0.25 -0.125</leafValues></_>\n"
    "    </weakClassifiers></_></stages>\n"
    "  <features>\n"
    "    <_><rect>0 0 3 5</rect></_>\n"
    "    <_><rect>11 9 3 5</rect></_>\n"
    "  </features>\n"
    "</cascade>\n"
    "</opencv_storage>\n";

static void
test_mini_lbp (void)
{
  GError *error = NULL;
  ClvCascade *c = clv_cascade_load_from_data (mini_lbp, strlen (mini_lbp),
      "mini-lbp.xml", &error);

  g_assert_no_error (error);
  g_assert_cmpint (c->feature_type, ==, CLV_CASCADE_LBP);
  g_assert_cmpint (c->window_w, ==, 20);
  g_assert_cmpint (c->window_h, ==, 24);
  g_assert_cmpint (c->n_stages, ==, 1);
  g_assert_cmpfloat (c->stages[0].threshold, ==, -0.75f - 1e-5f);
  g_assert_cmpint (c->n_trees, ==, 2);
  g_assert_true (c->is_stump_based);
  g_assert_false (c->has_tilted);
  g_assert_cmpint (c->subset_size, ==, 8);
  g_assert_cmpint (c->nodes[0].feature, ==, 1);
  g_assert_cmpint (c->nodes[0].left, ==, 0);
  g_assert_cmpint (c->nodes[0].right, ==, -1);
  g_assert_cmpint (c->subsets[0], ==, -67130709);
  g_assert_cmpint (c->subsets[3], ==, G_MAXINT32);
  g_assert_cmpint (c->subsets[4], ==, G_MININT32);
  g_assert_cmpint (c->subsets[8 + 7], ==, 8);
  g_assert_cmpfloat (c->leaves[3], ==, -0.125f);
  g_assert_cmpint (c->n_features, ==, 2);
  g_assert_cmpint (c->features[1].x[0], ==, 11);
  g_assert_cmpint (c->features[1].y[0], ==, 9);
  g_assert_cmpint (c->features[1].w[0], ==, 3);
  g_assert_cmpint (c->features[1].h[0], ==, 5);
  clv_cascade_free (c);
}

/* Debian's LBP cascades (their stage and tree counts). */
static void
test_lbp_cascades (void)
{
  static const struct
  {
    const char *name, *window;
    int stages, trees;
  } known[] = {
    {"lbpcascade_frontalface.xml", "24x24", 20, 139},
    {"lbpcascade_frontalface_improved.xml", "45x45", 19, 149},
    {"lbpcascade_profileface.xml", "20x34", 16, 130},
    {"lbpcascade_frontalcatface.xml", "24x24", 20, 419},
    {"lbpcascade_silverware.xml", "12x80", 16, 130},
  };
  char *dir = g_build_filename (HAAR_DIR, "..", "lbpcascades", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (known); i++) {
    GError *error = NULL;
    char *path = g_build_filename (dir, known[i].name, NULL), *window, *text;
    ClvCascade *c = clv_cascade_load (path, &error);

    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    window = g_strdup_printf ("%dx%d", c->window_w, c->window_h);
    g_assert_cmpstr (window, ==, known[i].window);
    g_assert_cmpint (c->feature_type, ==, CLV_CASCADE_LBP);
    g_assert_cmpint (c->n_stages, ==, known[i].stages);
    g_assert_cmpint (c->n_trees, ==, known[i].trees);
    g_assert_cmpint (c->n_features, ==, count_substr (text, "<rect>"));
    g_assert_true (c->is_stump_based);
    g_assert_cmpint (c->subset_size, ==, 8);
    g_free (text);
    g_free (window);
    g_free (path);
    clv_cascade_free (c);
  }
  g_free (dir);
}

static void
test_labels (void)
{
  static const char *const cases[][2] = {
    {"/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
        "face"},
    {"haarcascade_profileface.xml", "face"},
    {"lbpcascade_frontalface_improved.xml", "face"},
    {"lbpcascade_frontalcatface.xml", "cat-face"},
    {"haarcascade_frontalcatface_extended.xml", "cat-face"},
    {"haarcascade_eye_tree_eyeglasses.xml", "eye"},
    {"haarcascade_lefteye_2splits.xml", "eye"},
    {"haarcascade_licence_plate_rus_16stages.xml", "plate"},
    {"haarcascade_russian_plate_number.xml", "plate"},
    {"haarcascade_fullbody.xml", "full-body"},
    {"haarcascade_upperbody.xml", "upper-body"},
    {"haarcascade_smile.xml", "smile"},
    {"lbpcascade_silverware.xml", "silverware"},
    {"/home/me/models/cascade.xml", "cascade"},
    {"my.cars.xml", "my.cars"},
    {".xml", ".xml"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *label = clv_cascade_label_for_path (cases[i][0]);
    g_assert_cmpstr (label, ==, cases[i][1]);
    g_free (label);
  }
}

typedef struct
{
  const char *name, *window;
  int stages, trees, nodes, max_nodes;
} Known;

static void
test_face_cascades (void)
{
  /* From OpenCV's data files (the stage/tree counts in their headers). */
  static const Known known[] = {
    {"haarcascade_frontalface_default.xml", "24x24", 25, 2913, 2913, 1},
    {"haarcascade_frontalface_alt.xml", "20x20", 22, 2135, 2135, 1},
    {"haarcascade_frontalface_alt2.xml", "20x20", 20, 1047, 2094, 2},
    {"haarcascade_frontalface_alt_tree.xml", "20x20", 47, 8468, 8468, 1},
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++) {
    GError *error = NULL;
    char *path = g_build_filename (HAAR_DIR, known[i].name, NULL), *window;
    ClvCascade *c = clv_cascade_load (path, &error);

    g_assert_no_error (error);
    window = g_strdup_printf ("%dx%d", c->window_w, c->window_h);
    g_assert_cmpstr (window, ==, known[i].window);
    g_assert_cmpint (c->n_stages, ==, known[i].stages);
    g_assert_cmpint (c->n_trees, ==, known[i].trees);
    g_assert_cmpint (c->n_nodes, ==, known[i].nodes);
    g_assert_cmpint (c->max_tree_nodes, ==, known[i].max_nodes);
    g_assert_cmpint (c->is_stump_based, ==, known[i].max_nodes == 1);
    g_assert_false (c->has_tilted);
    g_free (window);
    g_free (path);
    clv_cascade_free (c);
  }
}

static void
test_default_path (void)
{
  char *p = clv_cascade_default_path (NULL), *q;
  char *expected = g_build_filename (clv_cascade_dir (),
      CLV_CASCADE_DEFAULT_NAME, NULL);

  g_assert_cmpstr (p, ==, expected);
  g_free (expected);
  q = clv_cascade_default_path ("/somewhere");
  g_assert_cmpstr (q, ==, "/somewhere/" CLV_CASCADE_DEFAULT_NAME);
  g_free (p);
  g_free (q);
}

/* ---------------------------------------------------------------------- */
/* Malformed input */

static void
assert_load_fails (const char *xml, gssize len, const char *expect1,
    const char *expect2)
{
  GError *error = NULL;
  ClvCascade *c = clv_cascade_load_from_data (xml,
      len < 0 ? strlen (xml) : (gsize) len, "bad.xml", &error);

  g_assert_null (c);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  if (strstr (error->message, "bad.xml") == NULL
      || strstr (error->message, expect1) == NULL
      || (expect2 != NULL && strstr (error->message, expect2) == NULL))
    g_error ("message \"%s\" lacks \"%s\"%s%s", error->message, expect1,
        expect2 ? " or " : "", expect2 ? expect2 : "");
  g_error_free (error);
}

/* `base` with every `from` replaced by `to` fails with the messages. */
static void
assert_replaced_fails (const char *base, const char *from, const char *to,
    const char *expect1, const char *expect2)
{
  GString *s = g_string_new (base);

  g_assert_cmpuint (g_string_replace (s, from, to, 0), >, 0);
  assert_load_fails (s->str, -1, expect1, expect2);
  g_string_free (s, TRUE);
}

static void
assert_edit_fails (const char *from, const char *to, const char *expect1,
    const char *expect2)
{
  assert_replaced_fails (mini_new, from, to, expect1, expect2);
}

static void
test_malformed_xml (void)
{
  assert_load_fails ("", 0, "is empty", NULL);
  assert_load_fails ("<opencv_storage><cascade><stageType>BOOST</stageTyp>",
      -1, "not valid XML (line 1, column", NULL);
  assert_edit_fails ("</features>", "</featres>", "not valid XML (line 35",
      NULL);
  assert_load_fails ("\n\n<opencv_storage><cascade>\n<width>2&x;</width>", -1,
      "not valid XML (line", "Entity");
  /* Truncated: everything before the end of the document is a prefix. */
  assert_load_fails (mini_new, strlen (mini_new) / 2, "not valid XML",
      "ended unexpectedly");
}

static void
test_malformed_structure (void)
{
  assert_load_fails ("<html><body/></html>", -1, "root element is <html>",
      NULL);
  assert_load_fails ("<opencv_storage></opencv_storage>", -1,
      "<opencv_storage> is empty", NULL);
  assert_load_fails ("<opencv_storage><m type_id=\"opencv-matrix\"><rows>1"
      "</rows></m></opencv_storage>", -1, "type_id \"opencv-matrix\"", NULL);
  assert_load_fails ("<opencv_storage><x><rows>1</rows></x></opencv_storage>",
      -1, "neither <stageType>", NULL);
  assert_edit_fails ("<featureType>HAAR", "<featureType>LBP",
      "maxCatCount is 0: an LBP cascade has 256 categories", NULL);
  assert_edit_fails ("<featureType>HAAR", "<featureType>HOG",
      "featureType \"HOG\" is not supported", NULL);
  assert_edit_fails ("BOOST", "GAB", "stageType \"GAB\"", NULL);
  assert_edit_fails ("<maxCatCount>0", "<maxCatCount>256",
      "categorical", NULL);
  /* Missing elements, with the line of the element that lacks them. */
  assert_edit_fails ("<width>24</width>", "", "has no <width>", NULL);
  assert_edit_fails ("<stageThreshold>0.25</stageThreshold>", "",
      "stage 1 has no <stageThreshold>", "(line 19)");
  assert_edit_fails ("<leafValues>-0.5 0.375</leafValues>", "",
      "stage 1, weak classifier 1 has no <leafValues>", NULL);
  assert_edit_fails ("features>", "notfeatures>", "has no <features>", NULL);
  assert_edit_fails ("<rects><_>0 0 24 20 -1.</_><_>8 0 8 20 3.</_></rects>",
      "", "feature 0 has no <rects>", NULL);
  assert_edit_fails ("<_><rects><_>0 0 24 20 -1.</_><_>8 0 8 20 3.</_>"
      "</rects></_>", "", "uses feature 2 but there are 2 features", NULL);
  assert_edit_fails ("<weakClassifiers>\n        <_><internalNodes>0 -1 0 "
      "4.5e-03</internalNodes>\n          <leafValues>-0.75 0.5</leafValues>"
      "</_>\n      </weakClassifiers>", "<weakClassifiers/>",
      "stage 0 has no weak classifiers", NULL);
  assert_load_fails ("<opencv_storage><c><stageType>BOOST</stageType>"
      "<featureType>HAAR</featureType><width>24</width><height>24</height>"
      "<featureParams/><stages/><features/></c></opencv_storage>", -1,
      "<stages> is empty", NULL);
  assert_load_fails ("<opencv_storage><c><stageType>BOOST</stageType>"
      "<featureType>HAAR</featureType><width>24</width><height>24</height>"
      "<featureParams/><stages><_><stageThreshold>1</stageThreshold>"
      "<weakClassifiers><_><internalNodes>0 -1 0 1</internalNodes>"
      "<leafValues>1 2</leafValues></_></weakClassifiers></_></stages>"
      "<features/></c></opencv_storage>", -1, "has no features", NULL);
}

static void
test_malformed_counts (void)
{
  assert_edit_fails ("<maxWeakCount>1</maxWeakCount>",
      "<maxWeakCount>3</maxWeakCount>",
      "stage 0 <maxWeakCount> is 3 but there are 1 weak classifiers", NULL);
  assert_edit_fails ("<stageNum>2</stageNum>", "<stageNum>3</stageNum>",
      "<stageNum> is 3 but there are 2 stages", NULL);
  assert_edit_fails ("<stageParams><maxWeakCount>2", "<stageParams>"
      "<maxWeakCount>1", "stage 1 has 2 weak classifiers, more than", NULL);
  assert_edit_fails ("<leafValues>-0.75 0.5</leafValues>",
      "<leafValues>-0.75</leafValues>", "has 1 leaf values for 1 nodes", NULL);
  assert_edit_fails ("0 -1 0 4.5e-03", "0 -1 0 4.5e-03 1",
      "has 5 values, expected groups of 4", NULL);
  assert_edit_fails ("<_>8 0 8 20 3.</_>", "<_>8 0 8 20</_>",
      "rectangle 1 has 4 values", NULL);
  assert_edit_fails ("<_>8 0 8 20 3.</_>", "<_>8 0 8 20 3.</_><_>0 0 1 1 1"
      "</_><_>0 0 1 1 1</_>", "more than 3 rectangles", NULL);
}

static void
test_malformed_values (void)
{
  assert_edit_fails ("<stageThreshold>-1.5", "<stageThreshold>abc",
      "stage 0 <stageThreshold>: \"abc\" is not a number", NULL);
  assert_edit_fails ("4.5e-03", "4.5e-03x", "\"4.5e-03x\" is not a number",
      NULL);
  assert_edit_fails ("<leafValues>-0.75", "<leafValues>nan",
      "\"nan\" is not a number", NULL);
  assert_edit_fails ("<width>24", "<width>24.5", "24.5 is not an integer",
      NULL);
  assert_edit_fails ("<width>24", "<width>0", "window size 0 x 20", NULL);
  assert_edit_fails ("<stageThreshold>-1.5</stageThreshold>",
      "<stageThreshold></stageThreshold>", "<stageThreshold> is empty", NULL);
  assert_edit_fails ("0 -1 0 4.5e-03", "0 -1 0.5 4.5e-03",
      "0.5 is not an integer", NULL);
  assert_edit_fails ("0 -1 0 4.5e-03", "0 -1 9 4.5e-03",
      "uses feature 9 but there are 3 features", NULL);
  assert_edit_fails ("0 -1 0 4.5e-03", "0 -1 -1 4.5e-03",
      "uses feature -1", NULL);
  assert_edit_fails ("0 -1 0 4.5e-03", "0 -3 0 4.5e-03",
      "right child -3 is out of range", NULL);
  /* A node pointing back at itself would never reach a leaf. */
  assert_edit_fails ("1 -1 1 -2.5e-02 0 -2 2 0.125",
      "1 -1 1 -2.5e-02 1 -2 2 0.125", "left child 1 is out of range", NULL);
  assert_edit_fails ("<_>8 0 8 20 3.</_>", "<_>8 0 17 20 3.</_>",
      "rectangle 1 (8, 0, 17 x 20) is outside the 24 x 20 window", NULL);
  assert_edit_fails ("<_>8 0 8 20 3.</_>", "<_>-1 0 8 20 3.</_>",
      "is outside the", NULL);
  assert_edit_fails ("<_>8 0 8 20 3.</_>", "<_>8 0 8 -2 3.</_>",
      "is outside the", NULL);
  /* Inside the window as an upright box, but a tilted one spans
   * x - h .. x + w: it would read outside the window. */
  assert_edit_fails ("<_>10 2 4 6 -1.</_>", "<_>10 2 4 16 -1.</_>",
      "tilted rectangle 0 (10, 2, 4 x 16) reaches outside the 24 x 20 window",
      NULL);
}

static void
assert_old_edit_fails (const char *from, const char *to, const char *expect)
{
  assert_replaced_fails (mini_old, from, to, expect, NULL);
}

static void
test_malformed_old_format (void)
{
  assert_old_edit_fails ("<size>24 20</size>", "<size>24</size>",
      "<size> must be \"width height\"");
  assert_old_edit_fails ("<left_node>1</left_node>", "",
      "stage 1, tree 0, node 0 has neither <left_val> nor <left_node>");
  assert_old_edit_fails ("<left_node>1</left_node>", "<left_node>5</left_node>",
      "left child 5 is out of range");
  assert_old_edit_fails ("<stage_threshold>-1.5</stage_threshold>", "",
      "stage 0 has no <stage_threshold>");
  assert_old_edit_fails ("<threshold>0.125</threshold>",
      "<threshold>x</threshold>", "\"x\" is not a number");
  assert_old_edit_fails ("trees>", "tres>", "stage 0 has no <trees>");
  assert_old_edit_fails ("</trees>", "</tres>", "not valid XML");
}

static void
assert_lbp_edit_fails (const char *from, const char *to, const char *expect)
{
  assert_replaced_fails (mini_lbp, from, to, expect, NULL);
}

static void
test_malformed_lbp (void)
{
  assert_lbp_edit_fails ("<maxCatCount>256", "<maxCatCount>255",
      "maxCatCount is 255: an LBP cascade has 256 categories");
  assert_lbp_edit_fails ("<featureParams><maxCatCount>256</maxCatCount>"
      "</featureParams>", "", "has no <featureParams>");
  assert_lbp_edit_fails ("0 -1 0 1 2 3 4 5 6 7 8", "0 -1 0 1 2 3 4 5 6 7",
      "has 10 values, expected groups of 11");
  assert_lbp_edit_fails ("2147483647", "2147483648",
      "2.14748e+09 is not a 32-bit integer");
  assert_lbp_edit_fails ("-2147483648", "1.5", "1.5 is not a 32-bit integer");
  assert_lbp_edit_fails ("<rect>11 9 3 5</rect>", "<rect>11 10 3 5</rect>",
      "feature 1: 3 x 3 blocks of 3 x 5 from (11, 10) are not inside the "
      "20 x 24 window");
  assert_lbp_edit_fails ("<rect>11 9 3 5</rect>", "<rect>12 9 3 5</rect>",
      "are not inside");
  assert_lbp_edit_fails ("<rect>0 0 3 5</rect>", "<rect>0 0 0 5</rect>",
      "are not inside");
  assert_lbp_edit_fails ("<rect>0 0 3 5</rect>", "<rect>0 0 3</rect>",
      "feature 0 <rect> has 3 values, expected \"x y width height\"");
  assert_lbp_edit_fails ("<rect>0 0 3 5</rect>", "<rects>0 0 3 5</rects>",
      "feature 0 has no <rect>");
  assert_lbp_edit_fails ("0 -1 1 -67130709", "0 -1 2 -67130709",
      "uses feature 2 but there are 2 features");
}

static char *
write_temp (const char *data, gssize len)
{
  GError *error = NULL;
  char *path;
  int fd = g_file_open_tmp ("clv-cascade-XXXXXX.xml", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, data, len, &error));
  return path;
}

/* Through files: missing, empty, truncated real cascade, and the message
 * for a missing default cascade. */
static void
test_files (void)
{
  GError *error = NULL;
  char *text, *path, *missing;
  gsize len;
  ClvCascade *c;

  c = clv_cascade_load ("/nonexistent/dir/cascade.xml", &error);
  g_assert_null (c);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "/nonexistent/dir/cascade.xml"));
  g_assert_null (strstr (error->message, "opencv-data"));
  g_clear_error (&error);

  missing = g_build_filename (clv_cascade_dir (), "haarcascade_missing.xml",
      NULL);
  c = clv_cascade_load (missing, &error);
  g_assert_null (c);
  g_assert_nonnull (strstr (error->message, missing));
  g_assert_nonnull (strstr (error->message, "opencv-data"));
  g_clear_error (&error);
  g_free (missing);

  path = write_temp ("", 0);
  c = clv_cascade_load (path, &error);
  g_assert_null (c);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "is empty"));
  g_clear_error (&error);
  g_unlink (path);
  g_free (path);

  path = clv_cascade_default_path (NULL);
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_free (path);
  path = write_temp (text, len * 2 / 3);
  c = clv_cascade_load (path, &error);
  g_assert_null (c);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "not valid XML"));
  g_clear_error (&error);
  g_unlink (path);
  g_free (path);
  g_free (text);
}

/* Cuts and byte flips anywhere in a cascade: a cascade or an error, never a
 * crash or both. */
static void
test_corruption (void)
{
  GRand *rand = g_rand_new_with_seed (4);
  gsize len = strlen (mini_new);

  for (int i = 0; i < 400; i++) {
    char *xml = g_strdup (mini_new);
    GError *error = NULL;
    gsize cut = len;
    ClvCascade *c;

    if (i % 2 == 0)
      cut = g_rand_int_range (rand, 0, len);
    else
      for (int k = 0; k < 3; k++)
        xml[g_rand_int_range (rand, 0, len)] =
            " <>/_01-9.e\"x"[g_rand_int_range (rand, 0, 13)];
    c = clv_cascade_load_from_data (xml, cut, "corrupt.xml", &error);
    g_assert_true ((c == NULL) != (error == NULL));
    if (c != NULL) {
      /* Whatever loads is consistent enough to evaluate safely. */
      for (int t = 0; t < c->n_trees; t++)
        for (int n = 0; n < c->trees[t].n_nodes; n++) {
          const ClvCascadeNode *nd = &c->nodes[c->trees[t].first_node + n];
          g_assert_cmpint (nd->feature, <, c->n_features);
          g_assert_cmpint (-nd->left, <=, c->trees[t].n_nodes);
        }
      clv_cascade_free (c);
    } else {
      g_assert_nonnull (strstr (error->message, "corrupt.xml"));
      g_error_free (error);
    }
    if (cut < len)
      g_assert_null (c);
    g_free (xml);
  }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cascade/mini-new-format", test_mini_new_format);
  g_test_add_func ("/cascade/mini-old-format", test_mini_old_format);
  g_test_add_func ("/cascade/old-format-trees", test_old_format_trees);
  g_test_add_func ("/cascade/debian-cascades", test_debian_cascades);
  g_test_add_func ("/cascade/face-cascades", test_face_cascades);
  g_test_add_func ("/cascade/mini-lbp", test_mini_lbp);
  g_test_add_func ("/cascade/lbp-cascades", test_lbp_cascades);
  g_test_add_func ("/cascade/labels", test_labels);
  g_test_add_func ("/cascade/malformed/lbp", test_malformed_lbp);
  g_test_add_func ("/cascade/default-path", test_default_path);
  g_test_add_func ("/cascade/malformed/xml", test_malformed_xml);
  g_test_add_func ("/cascade/malformed/structure", test_malformed_structure);
  g_test_add_func ("/cascade/malformed/counts", test_malformed_counts);
  g_test_add_func ("/cascade/malformed/values", test_malformed_values);
  g_test_add_func ("/cascade/malformed/old-format", test_malformed_old_format);
  g_test_add_func ("/cascade/malformed/files", test_files);
  g_test_add_func ("/cascade/malformed/corruption", test_corruption);
  return g_test_run ();
}
