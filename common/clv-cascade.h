/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boosted cascades: OpenCV's XML files (Haar in the new and old format, LBP
 * in the new one) loaded into flat arrays of fixed-size structs, so the same
 * memory can be copied to a cl_mem and indexed identically in OpenCL C.
 * GLib only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A stage: trees [first_tree, first_tree + n_trees) of `trees`.  The window
 * passes the stage when the sum of its trees' leaf values is not below
 * `threshold` (OpenCV: `if (sum < threshold) reject`). */
typedef struct
{
  int first_tree;
  int n_trees;
  float threshold;
} ClvCascadeStage;

/* A tree: nodes [first_node, first_node + n_nodes) of `nodes` and leaves
 * [first_leaf, first_leaf + n_nodes + 1) of `leaves`.  A stump is a tree with
 * one node. */
typedef struct
{
  int first_node;
  int n_nodes;
  int first_leaf;
} ClvCascadeTree;

/* A node, with OpenCV's convention for children: a value > 0 is the index of
 * the child node relative to the tree's first_node; a value <= 0 is a leaf,
 * -value being its index relative to the tree's first_leaf. */
typedef struct
{
  int left;                     /* Haar: taken when value < threshold; LBP:
                                 * when the code is in the node's subset */
  int right;                    /* taken otherwise */
  int feature;                  /* index into `features` */
  float threshold;              /* Haar only (LBP: 0) */
} ClvCascadeNode;

typedef enum
{
  CLV_CASCADE_HAAR,
  CLV_CASCADE_LBP,
} ClvCascadeFeatureType;

#define CLV_CASCADE_MAX_RECTS 3

/* A Haar feature: up to 3 weighted rectangles in window coordinates
 * (unused ones have weight 0 and zero size).  Upright rectangles cover
 * columns x..x+w-1, rows y..y+h-1.  Tilted ones (45°, OpenCV's definition)
 * have their top corner at (x, y) and extend w pixels down-right and h
 * pixels down-left.
 *
 * An LBP feature (OpenCV's multi-block LBP) is one rectangle, x[0], y[0],
 * w[0], h[0], weight 0: the top-left of a 3 x 3 grid of blocks of
 * w[0] x h[0] pixels.  Its value is an 8-bit code, one bit per outer block
 * whose sum is >= the centre block's, from the top-left block (bit 7)
 * clockwise to the left block (bit 0). */
typedef struct
{
  int x[CLV_CASCADE_MAX_RECTS];
  int y[CLV_CASCADE_MAX_RECTS];
  int w[CLV_CASCADE_MAX_RECTS];
  int h[CLV_CASCADE_MAX_RECTS];
  float weight[CLV_CASCADE_MAX_RECTS];
  int n_rects;                  /* 1 to 3 (OpenCV reads any of them);
                                 * unused rectangles are all zero */
  int tilted;                   /* 0 or 1 */
} ClvCascadeFeature;

/* How a window is classified (OpenCV 4.6 CascadeClassifierImpl, CPU path;
 * see clv-vj-ref.h for the value of a feature and the exact types; for LBP
 * read "code is in node's subset" for "feature_value < threshold"):
 *
 *   for each stage s:
 *     double sum = 0
 *     for t in [s.first_tree, s.first_tree + s.n_trees):
 *       tree = trees[t]; idx = 0
 *       do {
 *         node = nodes[tree.first_node + idx]
 *         idx = feature_value (node.feature) < node.threshold
 *             ? node.left : node.right
 *       } while (idx > 0)
 *       sum += leaves[tree.first_leaf - idx]
 *     if (sum < s.threshold) reject at stage s
 *   accept
 *
 * For a stump-based cascade (every tree one node) this is the same as
 * OpenCV's stump loop: sum += value < threshold ? leaves[2t] : leaves[2t+1]
 * (first_leaf == 2 * t, left == 0, right == -1). */
typedef struct
{
  char *path;                   /* the file it was loaded from */
  ClvCascadeFeatureType feature_type;
  int window_w;                 /* detection window, pixels */
  int window_h;
  gboolean has_tilted;          /* some feature is tilted: the detector needs
                                 * the tilted integral */
  gboolean is_stump_based;      /* every tree has exactly one node */

  int n_stages;
  ClvCascadeStage *stages;
  int n_trees;
  ClvCascadeTree *trees;
  int n_nodes;
  ClvCascadeNode *nodes;
  int n_leaves;                 /* sum over trees of n_nodes + 1 */
  float *leaves;
  int n_features;
  ClvCascadeFeature *features;
  /* LBP: the categories of each node that go left, a bit per code (OpenCV's
   * subsets): node i's are subsets[i * subset_size ..], code c's bit is
   * subsets[c >> 5] & (1 << (c & 31)).  Haar: subset_size 0, NULL. */
  int subset_size;
  gint32 *subsets;

  int max_tree_nodes;           /* largest n_nodes of a tree */
  int max_stage_trees;          /* largest n_trees of a stage */
} ClvCascade;

/* Loads an OpenCV cascade: Haar (new `opencv-cascade-classifier` or old
 * `opencv-haar-classifier` format) or LBP (new format).  On failure returns NULL and sets a
 * CLV_ERROR_INVALID error naming the file and what is wrong (and, for XML
 * errors, line and column).  Never returns a partly loaded cascade. */
ClvCascade *clv_cascade_load (const char *path, GError ** error);

/* Same, from a string in memory; `name` is used in error messages. */
ClvCascade *clv_cascade_load_from_data (const char *data, gsize length,
    const char *name, GError ** error);

void clv_cascade_free (ClvCascade * cascade);

/* Where the default cascades are: $CLVISION_CASCADE_DIR if set, else the
 * build's CLV_CASCADE_DIR (meson option `cascade-dir`). */
const char *clv_cascade_dir (void);

/* The default cascade: haarcascade_frontalface_default.xml in `dir`, or in
 * clv_cascade_dir() when `dir` is NULL.  The path is returned whether or not
 * the file exists; clv_cascade_load then says to install `opencv-data`. */
char *clv_cascade_default_path (const char *dir);

#define CLV_CASCADE_DEFAULT_NAME "haarcascade_frontalface_default.xml"

/* What a cascade file finds, from its name, for ROI labels: OpenCV's
 * haarcascade_/lbpcascade_ prefix and the extension dropped, then "face"
 * for (frontal or profile) faces, "cat-face", "eye" for every eye
 * cascade, "plate" for number plates, "full-body", "upper-body",
 * "lower-body", else the rest of the name as it is ("smile",
 * "silverware", "cascade" for cascade.xml).  Newly allocated. */
char *clv_cascade_label_for_path (const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ClvCascade, clv_cascade_free)

G_END_DECLS
