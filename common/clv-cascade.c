/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCV cascade loader: GMarkup into a small element tree, then the tree
 * into flat arrays.  Both of OpenCV's XML formats are read; the old one
 * (Haar only) is turned into the new one's layout exactly as OpenCV 4.6
 * converts it (haar_cvt::convert: one feature per node, leaves numbered in
 * node order, left before right), so thresholds and leaf order match
 * OpenCV's.  LBP cascades (new format) carry a category subset per node
 * instead of a threshold. */
#include "clv-cascade.h"
#include "clv-opencl.h"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* OpenCV subtracts this from every stage threshold when it loads a cascade
 * (CascadeClassifierImpl::Data::read), in float. */
#define STAGE_THRESHOLD_EPS 1e-5f

/* A generous bound on a detection window so that nothing overflows. */
#define MAX_WINDOW 4096

/* An LBP code has 8 bits: 256 categories, 8 words of subset a node. */
#define LBP_CATEGORIES 256

typedef struct _Elem Elem;
struct _Elem
{
  const char *name;
  const char *text;             /* text content, "" for none */
  const char *type_id;          /* the type_id attribute or NULL */
  int line;
  Elem *parent;
  Elem *first_child;
  Elem *last_child;
  Elem *next;
};

typedef struct
{
  const char *name;             /* file name for messages */
  GStringChunk *strings;
  GPtrArray *elems;             /* owns every Elem */
  Elem root;                    /* document node; its children are top level */
  Elem *current;
  GString *text;                /* text of `current` so far */
  GMarkupParseContext *markup;
} Doc;

/* ---------------------------------------------------------------------- */
/* XML to element tree */

static void
doc_start (GMarkupParseContext * ctx, const char *name, const char **attr_names,
    const char **attr_values, gpointer user_data, GError ** error)
{
  Doc *doc = user_data;
  Elem *e = g_new0 (Elem, 1);
  int col;

  g_ptr_array_add (doc->elems, e);
  e->name = g_string_chunk_insert_const (doc->strings, name);
  e->text = "";
  /* GMarkup's position is one character past the tag's '>': column 1
   * means the tag ended the line before. */
  g_markup_parse_context_get_position (ctx, &e->line, &col);
  if (col == 1 && e->line > 1)
    e->line--;
  for (int i = 0; attr_names[i] != NULL; i++)
    if (strcmp (attr_names[i], "type_id") == 0)
      e->type_id = g_string_chunk_insert (doc->strings, attr_values[i]);
  e->parent = doc->current;
  if (doc->current->last_child != NULL)
    doc->current->last_child->next = e;
  else
    doc->current->first_child = e;
  doc->current->last_child = e;
  doc->current = e;
  g_string_truncate (doc->text, 0);
}

static void
doc_end (GMarkupParseContext * ctx, const char *name, gpointer user_data,
    GError ** error)
{
  Doc *doc = user_data;

  /* Only leaf elements carry values; containers' text is indentation. */
  if (doc->current->first_child == NULL && doc->text->len > 0)
    doc->current->text = g_string_chunk_insert (doc->strings, doc->text->str);
  g_string_truncate (doc->text, 0);
  doc->current = doc->current->parent;
}

static void
doc_text (GMarkupParseContext * ctx, const char *text, gsize len,
    gpointer user_data, GError ** error)
{
  Doc *doc = user_data;

  if (doc->current->first_child != NULL)
    return;
  /* Text split by a comment continues as another token. */
  g_string_append_c (doc->text, ' ');
  g_string_append_len (doc->text, text, len);
}

static const GMarkupParser doc_parser = {
  doc_start, doc_end, doc_text, NULL, NULL
};

static void
doc_clear (Doc * doc)
{
  if (doc->markup != NULL)
    g_markup_parse_context_free (doc->markup);
  if (doc->elems != NULL)
    g_ptr_array_free (doc->elems, TRUE);
  if (doc->strings != NULL)
    g_string_chunk_free (doc->strings);
  if (doc->text != NULL)
    g_string_free (doc->text, TRUE);
}

static gboolean
doc_parse (Doc * doc, const char *data, gsize length, GError ** error)
{
  GError *err = NULL;
  const char *msg;
  int line, col;

  doc->strings = g_string_chunk_new (64 * 1024);
  doc->elems = g_ptr_array_new_with_free_func (g_free);
  doc->text = g_string_new (NULL);
  doc->root.name = "";
  doc->root.text = "";
  doc->current = &doc->root;
  doc->markup = g_markup_parse_context_new (&doc_parser, 0, doc, NULL);

  if (length == 0) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Cascade file %s is empty", doc->name);
    return FALSE;
  }
  if (g_markup_parse_context_parse (doc->markup, data, length, &err)
      && g_markup_parse_context_end_parse (doc->markup, &err))
    return TRUE;

  /* GMarkup says "Error on line L char C: ..." only for some errors. */
  g_markup_parse_context_get_position (doc->markup, &line, &col);
  msg = err->message;
  if (g_str_has_prefix (msg, "Error on line") && strstr (msg, ": ") != NULL)
    msg = strstr (msg, ": ") + 2;
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Cascade file %s is not valid XML (line %d, column %d): %s",
      doc->name, line, col, msg);
  g_error_free (err);
  return FALSE;
}

static Elem *
elem_child (const Elem * e, const char *name)
{
  for (Elem * c = e->first_child; c != NULL; c = c->next)
    if (strcmp (c->name, name) == 0)
      return c;
  return NULL;
}

static int
elem_n_children (const Elem * e)
{
  int n = 0;

  for (Elem * c = e->first_child; c != NULL; c = c->next)
    n++;
  return n;
}

/* ---------------------------------------------------------------------- */
/* Reading values, with errors that say where */

typedef struct
{
  const char *name;
  GError **error;
  GArray *stages, *trees, *nodes, *leaves, *features, *subsets;
  int window_w, window_h;
  ClvCascadeFeatureType type;
  int subset_size;              /* LBP: words of a node's subset */
} Loader;

static gboolean fail (Loader * ld, const Elem * e, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

static gboolean
fail (Loader * ld, const Elem * e, const char *format, ...)
{
  va_list args;
  char *msg;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (e != NULL && e->line > 0)
    g_set_error (ld->error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid cascade %s (line %d): %s", ld->name, e->line, msg);
  else
    g_set_error (ld->error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid cascade %s: %s", ld->name, msg);
  g_free (msg);
  return FALSE;
}

static Elem *
require (Loader * ld, const Elem * e, const char *name, const char *where)
{
  Elem *c = elem_child (e, name);

  if (c == NULL)
    fail (ld, e, "%s has no <%s> element", where, name);
  return c;
}

/* Parses the whitespace-separated numbers of `e` into `out` (at most `max`);
 * `n` receives how many there were. */
static gboolean
read_numbers (Loader * ld, const Elem * e, const char *where, double *out,
    int max, int *n)
{
  const char *p = e->text;

  *n = 0;
  for (;;) {
    char *end;
    double v;

    while (g_ascii_isspace (*p))
      p++;
    if (*p == '\0')
      return TRUE;
    if (*n == max)
      return fail (ld, e, "%s <%s> has more than %d values", where, e->name,
          max);
    errno = 0;
    v = g_ascii_strtod (p, &end);
    if (end == p || (*end != '\0' && !g_ascii_isspace (*end))
        || errno == ERANGE || !isfinite (v)) {
      int len = 0;
      while (p[len] != '\0' && !g_ascii_isspace (p[len]) && len < 40)
        len++;
      return fail (ld, e, "%s <%s>: \"%.*s\" is not a number", where, e->name,
          len, p);
    }
    out[(*n)++] = v;
    p = end;
  }
}

static gboolean
to_int (Loader * ld, const Elem * e, const char *where, double v, int *out)
{
  if (v != floor (v) || fabs (v) > G_MAXINT / 2)
    return fail (ld, e, "%s <%s>: %g is not an integer", where, e->name, v);
  *out = (int) v;
  return TRUE;
}

/* A 32-bit word of an LBP subset, written by OpenCV as a signed int. */
static gboolean
to_word (Loader * ld, const Elem * e, const char *where, double v,
    gint32 * out)
{
  if (v != floor (v) || v < G_MININT32 || v > G_MAXINT32)
    return fail (ld, e, "%s <%s>: %g is not a 32-bit integer", where,
        e->name, v);
  *out = (gint32) v;
  return TRUE;
}

static gboolean
read_double (Loader * ld, const Elem * parent, const char *name,
    const char *where, double *out)
{
  Elem *e = require (ld, parent, name, where);
  int n;

  if (e == NULL || !read_numbers (ld, e, where, out, 1, &n))
    return FALSE;
  if (n == 0)
    return fail (ld, e, "%s <%s> is empty", where, name);
  return TRUE;
}

static gboolean
read_int (Loader * ld, const Elem * parent, const char *name,
    const char *where, int *out)
{
  double v;

  return read_double (ld, parent, name, where, &v)
      && to_int (ld, elem_child (parent, name), where, v, out);
}

/* An optional count that must equal `actual` when present. */
static gboolean
check_count (Loader * ld, const Elem * parent, const char *name,
    const char *where, int actual, const char *what)
{
  int declared;

  if (elem_child (parent, name) == NULL)
    return TRUE;
  if (!read_int (ld, parent, name, where, &declared))
    return FALSE;
  if (declared != actual)
    return fail (ld, elem_child (parent, name),
        "%s <%s> is %d but there are %d %s", where, name, declared, actual,
        what);
  return TRUE;
}

static const char *
trim (const char *s, char *buf, gsize size)
{
  while (g_ascii_isspace (*s))
    s++;
  g_strlcpy (buf, s, size);
  g_strchomp (buf);
  return buf;
}

/* ---------------------------------------------------------------------- */
/* Features */

/* One rectangle "x y w h weight", validated as OpenCV 4.6 does
 * (HaarEvaluator::Feature::read) plus non-negative sizes. */
static gboolean
read_rect (Loader * ld, const Elem * r, const char *where,
    ClvCascadeFeature * f)
{
  double v[5];
  int n, k = f->n_rects, x = 0, y = 0, w = 0, h = 0;

  if (k == CLV_CASCADE_MAX_RECTS)
    return fail (ld, r, "%s has more than %d rectangles", where,
        CLV_CASCADE_MAX_RECTS);
  if (!read_numbers (ld, r, where, v, 5, &n))
    return FALSE;
  if (n != 5)
    return fail (ld, r, "%s rectangle %d has %d values, expected "
        "\"x y width height weight\"", where, k, n);
  if (!to_int (ld, r, where, v[0], &x) || !to_int (ld, r, where, v[1], &y)
      || !to_int (ld, r, where, v[2], &w) || !to_int (ld, r, where, v[3], &h))
    return FALSE;
  if (x < 0 || y < 0 || w < 0 || h < 0 || x >= ld->window_w
      || y >= ld->window_h || x + w > ld->window_w || y + h > ld->window_h)
    return fail (ld, r, "%s rectangle %d (%d, %d, %d x %d) is outside the "
        "%d x %d window", where, k, x, y, w, h, ld->window_w, ld->window_h);
  f->x[k] = x;
  f->y[k] = y;
  f->w[k] = w;
  f->h[k] = h;
  f->weight[k] = (float) v[4];
  f->n_rects++;
  return TRUE;
}

/* A <feature> (old format) or features/_ (new format) element. */
static gboolean
read_feature (Loader * ld, const Elem * fe, const char *where)
{
  ClvCascadeFeature f = { 0 };
  Elem *rects = require (ld, fe, "rects", where), *t;

  if (rects == NULL)
    return FALSE;
  for (Elem * r = rects->first_child; r != NULL; r = r->next)
    if (!read_rect (ld, r, where, &f))
      return FALSE;
  if (f.n_rects == 0)
    return fail (ld, rects, "%s has no rectangles", where);
  t = elem_child (fe, "tilted");
  if (t != NULL) {
    int tilted;
    if (!read_int (ld, fe, "tilted", where, &tilted))
      return FALSE;
    f.tilted = tilted != 0;
  }
  /* A tilted rectangle covers x - h .. x + w across and y .. y + w + h
   * down: it must stay inside the window too. */
  for (int k = 0; f.tilted && k < f.n_rects; k++)
    if (f.x[k] - f.h[k] < 0 || f.x[k] + f.w[k] > ld->window_w
        || f.y[k] + f.w[k] + f.h[k] > ld->window_h)
      return fail (ld, rects, "%s tilted rectangle %d (%d, %d, %d x %d) "
          "reaches outside the %d x %d window", where, k, f.x[k], f.y[k],
          f.w[k], f.h[k], ld->window_w, ld->window_h);
  g_array_append_val (ld->features, f);
  return TRUE;
}

/* A features/_ element of an LBP cascade: <rect>x y width height</rect>,
 * the top-left block of the 3 x 3 grid, which must lie in the window. */
static gboolean
read_lbp_feature (Loader * ld, const Elem * fe, const char *where)
{
  ClvCascadeFeature f = { 0 };
  Elem *r = require (ld, fe, "rect", where);
  double v[4];
  int n;

  if (r == NULL || !read_numbers (ld, r, where, v, 4, &n))
    return FALSE;
  if (n != 4)
    return fail (ld, r, "%s <rect> has %d values, expected \"x y width "
        "height\"", where, n);
  if (!to_int (ld, r, where, v[0], &f.x[0])
      || !to_int (ld, r, where, v[1], &f.y[0])
      || !to_int (ld, r, where, v[2], &f.w[0])
      || !to_int (ld, r, where, v[3], &f.h[0]))
    return FALSE;
  if (f.x[0] < 0 || f.y[0] < 0 || f.w[0] <= 0 || f.h[0] <= 0
      || f.x[0] + 3 * f.w[0] > ld->window_w
      || f.y[0] + 3 * f.h[0] > ld->window_h)
    return fail (ld, r, "%s: 3 x 3 blocks of %d x %d from (%d, %d) are not "
        "inside the %d x %d window", where, f.w[0], f.h[0], f.x[0], f.y[0],
        ld->window_w, ld->window_h);
  f.n_rects = 1;
  g_array_append_val (ld->features, f);
  return TRUE;
}

static gboolean
check_window (Loader * ld, const Elem * e)
{
  if (ld->window_w <= 0 || ld->window_h <= 0 || ld->window_w > MAX_WINDOW
      || ld->window_h > MAX_WINDOW)
    return fail (ld, e, "window size %d x %d is not in 1..%d", ld->window_w,
        ld->window_h, MAX_WINDOW);
  return TRUE;
}

static Elem *
require_stages (Loader * ld, const Elem * root)
{
  Elem *stages = require (ld, root, "stages", "the cascade");

  if (stages != NULL && stages->first_child == NULL) {
    fail (ld, stages, "<stages> is empty");
    return NULL;
  }
  return stages;
}

/* What a stage has in both formats: a threshold and a non-empty list of
 * trees (`trees_name`), returned. */
static Elem *
read_stage (Loader * ld, const Elem * se, const char *threshold_name,
    const char *trees_name, const char *what, const char *where,
    ClvCascadeStage * stage)
{
  double threshold;
  Elem *trees;

  if (!read_double (ld, se, threshold_name, where, &threshold))
    return NULL;
  trees = require (ld, se, trees_name, where);
  if (trees == NULL)
    return NULL;
  stage->first_tree = ld->trees->len;
  stage->n_trees = elem_n_children (trees);
  stage->threshold = (float) threshold - STAGE_THRESHOLD_EPS;
  if (stage->n_trees == 0) {
    fail (ld, trees, "%s has no %s", where, what);
    return NULL;
  }
  return trees;
}

/* ---------------------------------------------------------------------- */
/* New format: opencv-cascade-classifier */

/* The nodes of a tree: groups of `step` values, "left right feature
 * threshold" (Haar) or "left right feature" and the subset's words
 * (LBP). */
static gboolean
read_new_nodes (Loader * ld, const Elem * in, const char *where,
    const double *v, int n, ClvCascadeTree * tree)
{
  const int step = ld->type == CLV_CASCADE_LBP ? 3 + ld->subset_size : 4;

  if (n == 0 || n % step != 0)
    return fail (ld, in, "%s <internalNodes> has %d values, expected groups "
        "of %d (%s)", where, n, step, ld->type == CLV_CASCADE_LBP ?
        "left right feature and the category subset" :
        "left right feature threshold");
  tree->n_nodes = n / step;
  for (int i = 0; i < tree->n_nodes; i++) {
    const double *g = v + step * i;
    ClvCascadeNode node = { 0 };

    if (!to_int (ld, in, where, g[0], &node.left)
        || !to_int (ld, in, where, g[1], &node.right)
        || !to_int (ld, in, where, g[2], &node.feature))
      return FALSE;
    if (ld->type == CLV_CASCADE_HAAR)
      node.threshold = (float) g[3];
    for (int k = 0; ld->type == CLV_CASCADE_LBP && k < ld->subset_size; k++) {
      gint32 word;
      if (!to_word (ld, in, where, g[3 + k], &word))
        return FALSE;
      g_array_append_val (ld->subsets, word);
    }
    g_array_append_val (ld->nodes, node);
  }
  return TRUE;
}

static gboolean
read_new_tree (Loader * ld, const Elem * we, const char *where)
{
  Elem *in = require (ld, we, "internalNodes", where);
  Elem *lv = in ? require (ld, we, "leafValues", where) : NULL;
  ClvCascadeTree tree;
  double *v = NULL;
  int n, n_leaves, cap;
  gboolean ok = FALSE;

  if (in == NULL || lv == NULL)
    return FALSE;
  /* Values are separated by spaces: at most one per two characters. */
  cap = MAX (strlen (in->text), strlen (lv->text)) / 2 + 1;
  v = g_new (double, cap);
  tree.first_node = ld->nodes->len;
  tree.first_leaf = ld->leaves->len;
  if (!read_numbers (ld, in, where, v, cap, &n)
      || !read_new_nodes (ld, in, where, v, n, &tree)
      || !read_numbers (ld, lv, where, v, cap, &n_leaves))
    goto out;
  if (n_leaves != tree.n_nodes + 1) {
    fail (ld, lv, "%s has %d leaf values for %d nodes, expected %d", where,
        n_leaves, tree.n_nodes, tree.n_nodes + 1);
    goto out;
  }
  for (int i = 0; i < n_leaves; i++) {
    float leaf = (float) v[i];
    g_array_append_val (ld->leaves, leaf);
  }
  g_array_append_val (ld->trees, tree);
  ok = TRUE;
out:
  g_free (v);
  return ok;
}

/* featureType and featureParams: HAAR without categories, or LBP with 256
 * (an 8-bit code). */
static gboolean
read_feature_type (Loader * ld, const Elem * root)
{
  char buf[64];
  int cats = 0;
  Elem *e = require (ld, root, "featureType", "the cascade"), *params;

  if (e == NULL)
    return FALSE;
  trim (e->text, buf, sizeof buf);
  if (strcmp (buf, "LBP") == 0)
    ld->type = CLV_CASCADE_LBP;
  else if (strcmp (buf, "HAAR") != 0)
    return fail (ld, e, "featureType \"%s\" is not supported (only HAAR "
        "and LBP)", buf);
  params = require (ld, root, "featureParams", "the cascade");
  if (params == NULL)
    return FALSE;
  if (elem_child (params, "maxCatCount") != NULL
      && !read_int (ld, params, "maxCatCount", "featureParams", &cats))
    return FALSE;
  if (ld->type == CLV_CASCADE_HAAR && cats != 0)
    return fail (ld, params, "maxCatCount is %d: categorical features are "
        "not supported in Haar cascades", cats);
  if (ld->type == CLV_CASCADE_LBP && cats != LBP_CATEGORIES)
    return fail (ld, params, "maxCatCount is %d: an LBP cascade has %d "
        "categories (8-bit codes)", cats, LBP_CATEGORIES);
  ld->subset_size = (cats + 31) / 32;
  return TRUE;
}

static gboolean
read_new_format (Loader * ld, const Elem * root)
{
  char where[96], buf[64];
  Elem *e, *stages, *features;
  int si = 0, max_weak = -1;

  e = require (ld, root, "stageType", "the cascade");
  if (e == NULL)
    return FALSE;
  if (strcmp (trim (e->text, buf, sizeof buf), "BOOST") != 0)
    return fail (ld, e, "stageType \"%s\" is not supported (only BOOST)", buf);
  if (!read_feature_type (ld, root)
      || !read_int (ld, root, "width", "the cascade", &ld->window_w)
      || !read_int (ld, root, "height", "the cascade", &ld->window_h))
    return FALSE;
  if (!check_window (ld, elem_child (root, "width")))
    return FALSE;
  e = elem_child (root, "stageParams");
  if (e != NULL && elem_child (e, "maxWeakCount") != NULL
      && !read_int (ld, e, "maxWeakCount", "stageParams", &max_weak))
    return FALSE;

  stages = require_stages (ld, root);
  if (stages == NULL)
    return FALSE;
  for (Elem * se = stages->first_child; se != NULL; se = se->next, si++) {
    ClvCascadeStage stage;
    Elem *weaks;

    g_snprintf (where, sizeof where, "stage %d", si);
    weaks = read_stage (ld, se, "stageThreshold", "weakClassifiers",
        "weak classifiers", where, &stage);
    if (weaks == NULL)
      return FALSE;
    if (!check_count (ld, se, "maxWeakCount", where, stage.n_trees,
            "weak classifiers"))
      return FALSE;
    if (max_weak >= 0 && stage.n_trees > max_weak)
      return fail (ld, weaks, "%s has %d weak classifiers, more than "
          "stageParams maxWeakCount %d", where, stage.n_trees, max_weak);
    int wi = 0;
    for (Elem * we = weaks->first_child; we != NULL; we = we->next, wi++) {
      g_snprintf (where, sizeof where, "stage %d, weak classifier %d", si, wi);
      if (!read_new_tree (ld, we, where))
        return FALSE;
    }
    g_array_append_val (ld->stages, stage);
  }
  if (!check_count (ld, root, "stageNum", "the cascade", si, "stages"))
    return FALSE;

  features = require (ld, root, "features", "the cascade");
  if (features == NULL)
    return FALSE;
  int fi = 0;
  for (Elem * fe = features->first_child; fe != NULL; fe = fe->next, fi++) {
    g_snprintf (where, sizeof where, "feature %d", fi);
    if (!(ld->type == CLV_CASCADE_LBP ? read_lbp_feature (ld, fe, where)
            : read_feature (ld, fe, where)))
      return FALSE;
  }
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Old format: opencv-haar-classifier */

/* A child of an old-format node: a leaf value (`val_name`) or a node index
 * (`node_name`).  Leaves are numbered in the order they appear. */
static gboolean
read_old_child (Loader * ld, const Elem * ne, const char *val_name,
    const char *node_name, const char *where, ClvCascadeTree * tree, int *out)
{
  double v;

  if (elem_child (ne, val_name) != NULL) {
    float leaf;
    if (!read_double (ld, ne, val_name, where, &v))
      return FALSE;
    leaf = (float) v;
    *out = -(int) (ld->leaves->len - tree->first_leaf);
    g_array_append_val (ld->leaves, leaf);
    return TRUE;
  }
  if (elem_child (ne, node_name) == NULL)
    return fail (ld, ne, "%s has neither <%s> nor <%s>", where, val_name,
        node_name);
  return read_int (ld, ne, node_name, where, out);
}

static gboolean
read_old_format (Loader * ld, const Elem * root)
{
  char where[96];
  double size[2];
  Elem *e, *stages;
  int n, si = 0;

  e = require (ld, root, "size", "the cascade");
  if (e == NULL || !read_numbers (ld, e, "the cascade", size, 2, &n))
    return FALSE;
  if (n != 2)
    return fail (ld, e, "<size> must be \"width height\"");
  if (!to_int (ld, e, "the cascade", size[0], &ld->window_w)
      || !to_int (ld, e, "the cascade", size[1], &ld->window_h))
    return FALSE;
  if (!check_window (ld, e))
    return FALSE;

  stages = require_stages (ld, root);
  if (stages == NULL)
    return FALSE;
  for (Elem * se = stages->first_child; se != NULL; se = se->next, si++) {
    ClvCascadeStage stage;
    Elem *trees;
    int ti = 0;

    g_snprintf (where, sizeof where, "stage %d", si);
    trees = read_stage (ld, se, "stage_threshold", "trees", "trees", where,
        &stage);
    if (trees == NULL)
      return FALSE;

    for (Elem * te = trees->first_child; te != NULL; te = te->next, ti++) {
      ClvCascadeTree tree;
      int ni = 0;

      tree.first_node = ld->nodes->len;
      tree.n_nodes = elem_n_children (te);
      tree.first_leaf = ld->leaves->len;
      if (tree.n_nodes == 0)
        return fail (ld, te, "stage %d, tree %d has no nodes", si, ti);
      for (Elem * ne = te->first_child; ne != NULL; ne = ne->next, ni++) {
        ClvCascadeNode node;
        Elem *fe;
        double threshold_v;

        g_snprintf (where, sizeof where, "stage %d, tree %d, node %d", si, ti,
            ni);
        fe = require (ld, ne, "feature", where);
        if (fe == NULL || !read_feature (ld, fe, where)
            || !read_double (ld, ne, "threshold", where, &threshold_v)
            || !read_old_child (ld, ne, "left_val", "left_node", where, &tree,
                &node.left)
            || !read_old_child (ld, ne, "right_val", "right_node", where,
                &tree, &node.right))
          return FALSE;
        node.feature = ld->features->len - 1;
        node.threshold = (float) threshold_v;
        g_array_append_val (ld->nodes, node);
      }
      if ((int) (ld->leaves->len - tree.first_leaf) != tree.n_nodes + 1)
        return fail (ld, te, "stage %d, tree %d has %d leaves for %d nodes, "
            "expected %d", si, ti, ld->leaves->len - tree.first_leaf,
            tree.n_nodes, tree.n_nodes + 1);
      g_array_append_val (ld->trees, tree);
    }
    g_array_append_val (ld->stages, stage);
  }
  return TRUE;
}

/* ---------------------------------------------------------------------- */

/* Indices in range and every path ending at a leaf: children must come after
 * their parent (true of every cascade OpenCV writes), so no cycles. */
static gboolean
check_trees (Loader * ld)
{
  const ClvCascadeStage *stages = (const ClvCascadeStage *) ld->stages->data;
  const ClvCascadeTree *trees = (const ClvCascadeTree *) ld->trees->data;
  const ClvCascadeNode *nodes = (const ClvCascadeNode *) ld->nodes->data;

  for (guint s = 0; s < ld->stages->len; s++)
    for (int w = 0; w < stages[s].n_trees; w++) {
      const ClvCascadeTree *tree = &trees[stages[s].first_tree + w];

      for (int i = 0; i < tree->n_nodes; i++) {
        const ClvCascadeNode *n = &nodes[tree->first_node + i];
        int child[2] = { n->left, n->right };

        if (n->feature < 0 || n->feature >= (int) ld->features->len)
          return fail (ld, NULL, "stage %u, weak classifier %d, node %d uses "
              "feature %d but there are %u features", s, w, i, n->feature,
              ld->features->len);
        for (int c = 0; c < 2; c++)
          if (child[c] > 0 ? (child[c] <= i || child[c] >= tree->n_nodes)
              : -child[c] > tree->n_nodes)
            return fail (ld, NULL, "stage %u, weak classifier %d, node %d: "
                "%s child %d is out of range (%d nodes, %d leaves)", s, w, i,
                c ? "right" : "left", child[c], tree->n_nodes,
                tree->n_nodes + 1);
      }
    }
  return TRUE;
}

static ClvCascade *
build (Loader * ld)
{
  ClvCascade *c = g_new0 (ClvCascade, 1);

  c->path = g_strdup (ld->name);
  c->window_w = ld->window_w;
  c->window_h = ld->window_h;
  c->n_stages = ld->stages->len;
  c->stages = (ClvCascadeStage *) g_array_free (ld->stages, FALSE);
  c->n_trees = ld->trees->len;
  c->trees = (ClvCascadeTree *) g_array_free (ld->trees, FALSE);
  c->n_nodes = ld->nodes->len;
  c->nodes = (ClvCascadeNode *) g_array_free (ld->nodes, FALSE);
  c->n_leaves = ld->leaves->len;
  c->leaves = (float *) g_array_free (ld->leaves, FALSE);
  c->n_features = ld->features->len;
  c->features = (ClvCascadeFeature *) g_array_free (ld->features, FALSE);
  c->feature_type = ld->type;
  if (ld->type == CLV_CASCADE_LBP) {
    c->subset_size = ld->subset_size;
    c->subsets = (gint32 *) g_array_free (ld->subsets, FALSE);
  } else {
    g_array_free (ld->subsets, TRUE);
  }
  ld->stages = ld->trees = ld->nodes = ld->leaves = ld->features = NULL;
  ld->subsets = NULL;

  c->is_stump_based = TRUE;
  for (int i = 0; i < c->n_trees; i++) {
    c->max_tree_nodes = MAX (c->max_tree_nodes, c->trees[i].n_nodes);
    if (c->trees[i].n_nodes != 1)
      c->is_stump_based = FALSE;
  }
  for (int i = 0; i < c->n_stages; i++)
    c->max_stage_trees = MAX (c->max_stage_trees, c->stages[i].n_trees);
  for (int i = 0; i < c->n_features; i++)
    if (c->features[i].tilted)
      c->has_tilted = TRUE;
  return c;
}

ClvCascade *
clv_cascade_load_from_data (const char *data, gsize length, const char *name,
    GError ** error)
{
  Doc doc = { 0 };
  Loader ld = { 0 };
  ClvCascade *cascade = NULL;
  Elem *top, *cascade_elem;
  gboolean ok;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  ld.name = doc.name = name;
  ld.error = error;
  if (!doc_parse (&doc, data, length, error))
    goto out;

  top = doc.root.first_child;
  if (top == NULL || strcmp (top->name, "opencv_storage") != 0) {
    fail (&ld, top, "the root element is <%s>, expected <opencv_storage> "
        "(an OpenCV cascade XML file)", top ? top->name : "");
    goto out;
  }
  cascade_elem = top->first_child;
  if (cascade_elem == NULL) {
    fail (&ld, top, "<opencv_storage> is empty");
    goto out;
  }

  ld.stages = g_array_new (FALSE, FALSE, sizeof (ClvCascadeStage));
  ld.trees = g_array_new (FALSE, FALSE, sizeof (ClvCascadeTree));
  ld.nodes = g_array_new (FALSE, FALSE, sizeof (ClvCascadeNode));
  ld.leaves = g_array_new (FALSE, FALSE, sizeof (float));
  ld.features = g_array_new (FALSE, FALSE, sizeof (ClvCascadeFeature));
  ld.subsets = g_array_new (FALSE, FALSE, sizeof (gint32));

  /* type_id is optional (traincascade omits it); the content decides. */
  if (cascade_elem->type_id != NULL
      && strcmp (cascade_elem->type_id, "opencv-cascade-classifier") != 0
      && strcmp (cascade_elem->type_id, "opencv-haar-classifier") != 0) {
    fail (&ld, cascade_elem, "<%s> has type_id \"%s\", expected "
        "opencv-cascade-classifier or opencv-haar-classifier",
        cascade_elem->name, cascade_elem->type_id);
    goto out;
  }
  if (elem_child (cascade_elem, "stageType") != NULL)
    ok = read_new_format (&ld, cascade_elem);
  else if (elem_child (cascade_elem, "size") != NULL)
    ok = read_old_format (&ld, cascade_elem);
  else
    ok = fail (&ld, cascade_elem, "<%s> is not a cascade: it has neither "
        "<stageType> (new format) nor <size> (old format)", cascade_elem->name);
  if (ok && ld.features->len == 0)
    ok = fail (&ld, cascade_elem, "the cascade has no features");
  if (ok && check_trees (&ld))
    cascade = build (&ld);

out:
  if (ld.stages != NULL) {
    g_array_free (ld.stages, TRUE);
    g_array_free (ld.trees, TRUE);
    g_array_free (ld.nodes, TRUE);
    g_array_free (ld.leaves, TRUE);
    g_array_free (ld.features, TRUE);
    g_array_free (ld.subsets, TRUE);
  }
  doc_clear (&doc);
  return cascade;
}

ClvCascade *
clv_cascade_load (const char *path, GError ** error)
{
  GError *err = NULL;
  char *data, *dir;
  gsize length;
  ClvCascade *cascade;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &data, &length, &err)) {
    dir = g_path_get_dirname (path);
    if (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT)
        && strcmp (dir, clv_cascade_dir ()) == 0)
      g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "Cannot read cascade "
          "%s: %s. It is part of Debian's opencv-data package: install it "
          "with \"sudo apt install opencv-data\" or set the cascade property",
          path, err->message);
    else
      g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
          "Cannot read cascade %s: %s", path, err->message);
    g_free (dir);
    g_error_free (err);
    return NULL;
  }
  cascade = clv_cascade_load_from_data (data, length, path, error);
  g_free (data);
  return cascade;
}

void
clv_cascade_free (ClvCascade * cascade)
{
  if (cascade == NULL)
    return;
  g_free (cascade->path);
  g_free (cascade->stages);
  g_free (cascade->trees);
  g_free (cascade->nodes);
  g_free (cascade->leaves);
  g_free (cascade->features);
  g_free (cascade->subsets);
  g_free (cascade);
}

const char *
clv_cascade_dir (void)
{
  const char *env = g_getenv ("CLVISION_CASCADE_DIR");

  return env && *env ? env : CLV_CASCADE_DIR;
}

char *
clv_cascade_default_path (const char *dir)
{
  return g_build_filename (dir ? dir : clv_cascade_dir (),
      CLV_CASCADE_DEFAULT_NAME, NULL);
}

/* Labels for the words of OpenCV's cascade names, the first that matches
 * (catface before face). */
static const struct
{
  const char *word, *label;
} cascade_labels[] = {
  {"catface", "cat-face"}, {"face", "face"}, {"eye", "eye"},
  {"plate", "plate"}, {"fullbody", "full-body"},
  {"upperbody", "upper-body"}, {"lowerbody", "lower-body"},
};

char *
clv_cascade_label_for_path (const char *path)
{
  char *base = g_path_get_basename (path), *name = base, *dot;
  char *label;

  if (g_str_has_prefix (name, "haarcascade_"))
    name += strlen ("haarcascade_");
  else if (g_str_has_prefix (name, "lbpcascade_"))
    name += strlen ("lbpcascade_");
  dot = strrchr (name, '.');
  if (dot != NULL && dot != name)
    *dot = '\0';
  label = g_strdup (*name != '\0' ? name : "object");
  for (guint i = 0; i < G_N_ELEMENTS (cascade_labels); i++)
    if (strstr (name, cascade_labels[i].word) != NULL) {
      g_free (label);
      label = g_strdup (cascade_labels[i].label);
      break;
    }
  g_free (base);
  return label;
}
