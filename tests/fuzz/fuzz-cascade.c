/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target: the OpenCV cascade XML loader (common/clv-cascade.c).
 * Every input (Haar or LBP) either fails with a message or loads into a
 * cascade whose indices the detectors can follow without a bounds check (what
 * clv-cascade.h promises); a crash, a leak or a sanitizer report is a
 * finding. */
#include "clv-cascade.h"
#include "fuzz-target.h"

/* An LBP feature: one rectangle whose 3 x 3 blocks lie in the window. */
static void
check_lbp_feature (const ClvCascade * c, const ClvCascadeFeature * f)
{
  gint64 x = f->x[0], y = f->y[0], w = f->w[0], h = f->h[0];

  if (f->n_rects != 1 || f->tilted || x < 0 || y < 0 || w < 1 || h < 1
      || x + 3 * w > c->window_w || y + 3 * h > c->window_h)
    abort ();
}

static void
check_feature (const ClvCascade * c, const ClvCascadeFeature * f)
{
  if (c->feature_type == CLV_CASCADE_LBP) {
    check_lbp_feature (c, f);
    return;
  }
  /* OpenCV reads 1 to 3 rectangles; the unused ones stay zero. */
  if (f->n_rects < 1 || f->n_rects > CLV_CASCADE_MAX_RECTS)
    abort ();
  for (int k = f->n_rects; k < CLV_CASCADE_MAX_RECTS; k++)
    if (f->w[k] != 0 || f->h[k] != 0 || f->weight[k] != 0.0f)
      abort ();
  for (int k = 0; k < f->n_rects; k++) {
    gint64 x = f->x[k], y = f->y[k], w = f->w[k], h = f->h[k];
    if (x < 0 || y < 0 || w < 0 || h < 0)
      abort ();
    if (f->tilted ? (x - h < 0 || x + w > c->window_w
            || y + w + h > c->window_h)
        : (x + w > c->window_w || y + h > c->window_h))
      abort ();
  }
}

static void
check_tree (const ClvCascade * c, const ClvCascadeTree * t)
{
  if (t->n_nodes < 1 || t->first_node < 0
      || t->first_node + t->n_nodes > c->n_nodes || t->first_leaf < 0
      || t->first_leaf + t->n_nodes + 1 > c->n_leaves)
    abort ();
  for (int i = 0; i < t->n_nodes; i++) {
    const ClvCascadeNode *n = &c->nodes[t->first_node + i];
    int child[2] = { n->left, n->right };
    if (n->feature < 0 || n->feature >= c->n_features)
      abort ();
    for (int k = 0; k < 2; k++)
      /* A node child must lie further down, or a walk could loop. */
      if (child[k] > 0 ? (child[k] <= i || child[k] >= t->n_nodes)
          : -child[k] > t->n_nodes)
        abort ();
  }
}

static void
check_cascade (const ClvCascade * c)
{
  if (c->window_w <= 0 || c->window_h <= 0 || c->n_stages < 1)
    abort ();
  for (int s = 0; s < c->n_stages; s++) {
    const ClvCascadeStage *st = &c->stages[s];
    if (st->n_trees < 1 || st->first_tree < 0
        || st->first_tree + st->n_trees > c->n_trees
        || st->n_trees > c->max_stage_trees)
      abort ();
  }
  for (int t = 0; t < c->n_trees; t++) {
    check_tree (c, &c->trees[t]);
    if (c->trees[t].n_nodes > c->max_tree_nodes)
      abort ();
  }
  for (int i = 0; i < c->n_features; i++)
    check_feature (c, &c->features[i]);
  /* An LBP code (0..255) indexes 8 words of subset per node. */
  if (c->feature_type == CLV_CASCADE_LBP) {
    if (c->subset_size != 8 || c->subsets == NULL || c->has_tilted)
      abort ();
  } else if (c->subset_size != 0 || c->subsets != NULL) {
    abort ();
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  ClvCascade *cascade;

  cascade = clv_cascade_load_from_data ((const char *) data, size, "fuzz.xml",
      &error);
  if (cascade == NULL) {
    if (error == NULL || error->message[0] == '\0')
      abort ();
    g_error_free (error);
    return 0;
  }
  if (error != NULL)
    abort ();
  check_cascade (cascade);
  clv_cascade_free (cascade);
  return 0;
}
