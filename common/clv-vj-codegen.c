/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones on OpenCL: what the detector's kernels are built from: the
 * cascade's nodes laid out for the device, the stages compiled into
 * vj_detect_tiled as OpenCL C, the build options. */
#include "clv-vj-private.h"

#include <string.h>

/* OpenCV's HaarEvaluator::OptFeature::setOffsets for row stride `step`. */
static void
feature_offsets (const ClvCascadeFeature * f, int step, int tilt_ofs,
    ClvVjNode * o)
{
  for (int k = 0; k < f->n_rects && k < 3; k++) {
    const int x = f->x[k], y = f->y[k], w = f->w[k], h = f->h[k];
    if (f->tilted) {
      o->ofs[k][0] = tilt_ofs + x + step * y;
      o->ofs[k][1] = tilt_ofs + x - h + step * (y + h);
      o->ofs[k][2] = tilt_ofs + x + w + step * (y + w);
      o->ofs[k][3] = tilt_ofs + x + w - h + step * (y + w + h);
    } else {
      o->ofs[k][0] = x + step * y;
      o->ofs[k][1] = x + w + step * y;
      o->ofs[k][2] = x + step * (y + h);
      o->ofs[k][3] = x + w + step * (y + h);
    }
    o->weight[k] = f->weight[k];
  }
}

/* LBPEvaluator::OptFeature::setOffsets for row stride `step`: the corners
 * of the feature's 3 x 3 blocks, row by row. */
static void
lbp_offsets (const ClvCascadeFeature * f, int step, ClvVjLbpNode * o)
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      o->ofs[i * 4 + j] = f->x[0] + j * f->w[0] + step * (f->y[0]
          + i * f->h[0]);
}

/* The device nodes for row stride `step`: the roots first (tree t's at t),
 * then the other nodes tree by tree. */
void *
clv_vj_layout_nodes (const ClvVjDetector * d, int step, int tilt_ofs,
    gsize * bytes)
{
  const gboolean lbp = d->shape.feature_type == CLV_CASCADE_LBP;
  const gsize size = lbp ? sizeof (ClvVjLbpNode) : sizeof (ClvVjNode);
  const int n_trees = d->shape.n_trees;
  guint8 *out = g_malloc0 (size * MAX (d->shape.n_nodes, 1));
  int *base = g_new (int, MAX (n_trees, 1));

  /* Index of node k > 0 of tree t: base[t] + k - 1. */
  for (int t = 0, next = n_trees; t < n_trees; t++) {
    base[t] = next;
    next += d->trees[t].n_nodes - 1;
  }
  for (int t = 0; t < n_trees; t++) {
    const ClvCascadeTree *tree = &d->trees[t];
    for (int k = 0; k < tree->n_nodes; k++) {
      const int ni = tree->first_node + k;
      const ClvCascadeNode *n = &d->nodes[ni];
      void *o = out + size * (k == 0 ? t : base[t] + k - 1);
      const int child[2] = { n->left, n->right };
      cl_int *next;
      cl_float *leaf;

      if (lbp) {
        ClvVjLbpNode *l = o;
        lbp_offsets (&d->features[n->feature], step, l);
        memcpy (l->subset, d->subsets + ni * d->shape.subset_size,
            sizeof (l->subset));
        next = l->next;
        leaf = l->leaf;
      } else {
        ClvVjNode *h = o;
        feature_offsets (&d->features[n->feature], step, tilt_ofs, h);
        h->threshold = n->threshold;
        next = h->next;
        leaf = h->leaf;
      }
      for (int side = 0; side < 2; side++) {
        if (child[side] > 0)
          next[side] = base[t] + child[side] - 1;
        else
          leaf[side] = d->leaves[tree->first_leaf - child[side]];
      }
    }
  }
  g_free (base);
  *bytes = size * d->shape.n_nodes;
  return out;
}

/* Beyond this many trees the stages are not compiled in: the program
 * would build slowly and outgrow the instruction cache. */
#define MAX_UNROLLED_TREES 1024

/* Appends a float as an exact OpenCL C literal (hexadecimal). */
static void
append_float (GString * s, float v)
{
  g_string_append_printf (s, "%af", (double) v);
}

/* For vj_detect_tiled with VJ_UNROLLED: the definition of
 * unrolled_stages_pass, stages [0, n) of `stages` with the tile's `nodes`
 * as constants, or NULL where they are not compiled in (the tuning says
 * not to, trees with more than one node, too many trees). */
static char *
unrolled_stages_source (const ClvVjDetector * d,
    const ClvCascadeStage * stages, const ClvVjNode * nodes, int n)
{
  GString *s;

  if (!d->tune.unroll || !d->shape.is_stump_based || n < 1
      || d->shape.feature_type != CLV_CASCADE_HAAR
      || stages[n - 1].first_tree + stages[n - 1].n_trees > MAX_UNROLLED_TREES)
    return NULL;
  s = g_string_new ("#line 1 \"stages compiled in (common/clv-vj-codegen.c, "
      "unrolled_stages_source)\"\n"
      "bool\nunrolled_stages_pass (const __local uint * p, float vnf, "
      "int first, int last)\n{\n  real_t sum;\n\n");
  for (int si = 0; si < n; si++) {
    g_string_append_printf (s, "  if (first <= %d && %d < last) {\n"
        "    sum = 0;\n", si, si);
    for (int t = stages[si].first_tree;
        t < stages[si].first_tree + stages[si].n_trees; t++) {
      const ClvVjNode *o = &nodes[t];
      g_string_append (s, "    sum += unrolled_stump (p, vnf");
      for (int k = 0; k < 3; k++)
        g_string_append_printf (s, ", (int4) (%d, %d, %d, %d)", o->ofs[k][0],
            o->ofs[k][1], o->ofs[k][2], o->ofs[k][3]);
      g_string_append (s, ", (float4) (");
      for (int k = 0; k < 4; k++) {
        append_float (s, k < 3 ? o->weight[k] : o->threshold);
        g_string_append (s, k < 3 ? ", " : "), (float2) (");
      }
      append_float (s, o->leaf[0]);
      g_string_append (s, ", ");
      append_float (s, o->leaf[1]);
      g_string_append (s, "));\n");
    }
    g_string_append (s, "    if (sum < (real_t) ");
    append_float (s, stages[si].threshold);
    g_string_append (s, ")\n      return false;\n  }\n");
  }
  g_string_append (s, "  return true;\n}\n");
  return g_string_free (s, FALSE);
}

/* The stumps `nodes` (tree t's at t) as vj_detect.cl's CASCADE_FUNCTIONS
 * read them with ARRAYS: three planes of n 16-byte blocks, the first two
 * rectangles' offsets (short4 each: clv_vj_tuning_fit_tile keeps them
 * below 2^15), the third's and the leaves, the weights with the
 * threshold. */
static cl_int4 *
stump_arrays (const ClvVjNode * nodes, int n)
{
  cl_int4 *a = g_new0 (cl_int4, 3 * (gsize) MAX (n, 1));

  for (int t = 0; t < n; t++) {
    const ClvVjNode *o = &nodes[t];
    cl_short ofs[3][4];
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 4; i++)
        ofs[k][i] = (cl_short) o->ofs[k][i];
    memcpy (a[t].s, ofs, 2 * sizeof (ofs[0]));
    memcpy (a[n + t].s, ofs[2], sizeof (ofs[2]));
    memcpy (&a[n + t].s[2], o->leaf, 2 * sizeof (cl_float));
    memcpy (&a[2 * n + t].s[0], o->weight, 3 * sizeof (cl_float));
    memcpy (&a[2 * n + t].s[3], &o->threshold, sizeof (cl_float));
  }
  return a;
}

/* The cpu variant compiles in the stages of a stump Haar cascade up to
 * this many trees: the early stages, where most of the work is (stages 0-5
 * of frontalface_default, 85% of its tree evaluations on astronaut).  PoCL
 * 3.1 took 10 s of CPU to build 100 trees, 31 s for 200, and more than 20
 * minutes for 512; 200 against 100 cut the frame's CPU time by 13%. */
#define MAX_CPU_UNROLLED_TREES 200

/* Appends one rectangle's corners for vj_detect_cpu's STUMP: R (x, y)
 * or, tilted, T (x, y) (OpenCV's CV_SUM_OFS / CV_TILTED_OFS). */
static void
append_corners (GString * s, const ClvCascadeFeature * f, int k)
{
  const int x = f->x[k], y = f->y[k], w = f->w[k], h = f->h[k];

  if (k >= f->n_rects)
    g_string_append (s, "(int4) (0, 0, 0, 0)");
  else if (f->tilted)
    g_string_append_printf (s, "(int4) (T (%d, %d), T (%d, %d), T (%d, %d), "
        "T (%d, %d))", x, y, x - h, y + h, x + w, y + w, x + w - h,
        y + w + h);
  else
    g_string_append_printf (s, "(int4) (R (%d, %d), R (%d, %d), R (%d, %d), "
        "R (%d, %d))", x, y, x + w, y, x, y + h, x + w, y + h);
}

/* For vj_detect_cpu with VJ_UNROLLED: unrolled_sum_seg and
 * unrolled_sum_queue over stages [0, n), or NULL where they are not
 * compiled in (the tuning says not to, LBP or trees of more than one
 * node); *n_out receives n. */
static char *
cpu_stages_source (const ClvVjDetector * d, const ClvCascadeStage * stages,
    int *n_out)
{
  const char *const kinds[] = { "seg", "queue" };
  const char *const windows[] = { "const __global uint * p, const int step",
    "const __global uint * sbuf, const intv pos"
  };
  int n = 0;
  GString *s;

  while (n < d->shape.n_stages && stages[n].first_tree + stages[n].n_trees
      <= MAX_CPU_UNROLLED_TREES)
    n++;
  *n_out = 0;
  if (!d->tune.unroll || !d->shape.is_stump_based || n == 0
      || d->shape.feature_type != CLV_CASCADE_HAAR)
    return NULL;
  s = g_string_new ("#line 1 \"stages compiled in (common/clv-vj-codegen.c, "
      "cpu_stages_source)\"\n");
  for (int k = 0; k < 2; k++) {
    g_string_append_printf (s, "doublev\nunrolled_sum_%s (%s, const floatv "
        "vnf, const int w, const int tilt, const int si)\n{\n  doublev sum "
        "= 0.0;\n\n  switch (si) {\n", kinds[k], windows[k]);
    for (int si = 0; si < n; si++) {
      g_string_append_printf (s, "    case %d:\n", si);
      for (int t = stages[si].first_tree;
          t < stages[si].first_tree + stages[si].n_trees; t++) {
        const ClvCascadeNode *nd = &d->nodes[d->trees[t].first_node];
        const ClvCascadeFeature *f = &d->features[nd->feature];
        g_string_append_printf (s, "      STUMP_%s (", k ? "QUEUE" : "SEG");
        for (int r = 0; r < 3; r++) {
          append_corners (s, f, r);
          g_string_append (s, ", ");
        }
        g_string_append (s, "(float4) (");
        for (int r = 0; r < 3; r++) {
          append_float (s, f->weight[r]);
          g_string_append (s, ", ");
        }
        append_float (s, nd->threshold);
        g_string_append (s, "), ");
        append_float (s, d->leaves[d->trees[t].first_leaf]);
        g_string_append (s, ", ");
        append_float (s, d->leaves[d->trees[t].first_leaf + 1]);
        g_string_append (s, ");\n");
      }
      g_string_append (s, "      break;\n");
    }
    g_string_append (s, "  }\n  return sum;\n}\n");
  }
  *n_out = n;
  return g_string_free (s, FALSE);
}

/* The cpu variant's detection kernel (vj_detect_cpu of kernels/vj_detect.cl
 * built with VJ_CPU), as k_uber. */
static gboolean
build_cpu_kernel (ClvVjDetector * d, const ClvCascadeStage * stages,
    GError ** error)
{
  const int n = d->shape.n_stages;
  int unrolled;
  char *source = cpu_stages_source (d, stages, &unrolled);
  char *opts = g_strdup_printf ("-DVJ_CPU=1 -DVJ_LANES=%d -DVJ_QUEUE_STAGE=%d "
      "-DVJ_N_STAGES=%d -DVJ_MAX_NODES=%d -DVJ_STUMPS=%d -DVJ_LBP=%d "
      "-DVJ_UNROLLED=%d -DVJ_FP64=1", d->tune.lanes,
      CLAMP (d->tune.queue_stage, 0, n - 1), n, d->shape.max_tree_nodes,
      d->shape.is_stump_based, d->shape.feature_type == CLV_CASCADE_LBP,
      unrolled);
  cl_program prog = clv_device_get_program_generated (d->dev,
      "vj_detect", source, opts, error);

  d->unrolled_stages = unrolled;
  g_free (source);
  g_free (opts);
  if (prog == NULL)
    return FALSE;
  d->k_uber = clv_kernel_new (prog, "vj_detect_cpu", error);
  clReleaseProgram (prog);
  return d->k_uber != NULL;
}

/* vj_detect.cl built for the detector's cascade and tuning, with work-groups
 * of `wg` and `coop_windows` windows at once in the cooperative stages;
 * `unrolled`: the stages compiled in, or NULL; `stage_nodes`: see
 * clv_vj_stage_nodes, or 0. */
static cl_program
build_detect_program (ClvVjDetector * d, const char *unrolled, int wg,
    int coop_windows, int stage_nodes, gboolean shuffle, GError ** error)
{
  const ClvVjTuning *t = &d->tune;
  const gboolean tiled = t->variant == CLV_VJ_VARIANT_TILED;
  char *regs, *opts;
  cl_program prog;

  regs = t->max_registers ? g_strdup_printf (" -cl-nv-maxrregcount=%d",
      t->max_registers) : g_strdup ("");
  opts = g_strdup_printf ("-DVJ_FP64=%d -DVJ_WG=%d -DVJ_CHUNK=%d "
      "-DVJ_COOP_WINDOWS=%d -DVJ_COOP_STAGE=%d -DVJ_STATIC=%d "
      "-DVJ_MAX_REGISTERS=%d -DVJ_TILE_X=%d -DVJ_TILE_Y=%d -DVJ_WIN_W=%d "
      "-DVJ_WIN_H=%d -DVJ_TILTED=%d -DVJ_STUMPS=%d -DVJ_N_TREES=%d "
      "-DVJ_UNROLLED=%d -DVJ_SHUFFLE=%d -DVJ_LBP=%d -DVJ_STAGE_NODES=%d%s",
      d->fp64, wg,
      t->chunk, coop_windows, d->coop_stage, t->static_schedule,
      t->max_registers, tiled ? t->tile_x : 0, t->tile_y, d->shape.window_w,
      d->shape.window_h, d->shape.has_tilted, d->shape.is_stump_based,
      d->shape.n_trees, unrolled != NULL, shuffle,
      d->shape.feature_type == CLV_CASCADE_LBP,
      stage_nodes, regs);
  g_free (regs);
  prog = clv_device_get_program_generated (d->dev, "vj_detect", unrolled,
      opts, error);
  g_free (opts);
  return prog;
}

/* d->k_small: vj_detect_tiled with work-groups of VJ_SMALL_WG, left NULL
 * where the compiled kernel cannot run groups that large
 * (CL_KERNEL_WORK_GROUP_SIZE). */
static gboolean
build_small_kernel (ClvVjDetector * d, const char *unrolled, GError ** error)
{
  ClvVjTuning small = d->tune;
  size_t max_wg = 0;
  cl_program prog;

  small.wg = d->tune.small_wg;
  small.coop_windows = d->tune.small_coop_windows;
  prog = build_detect_program (d, unrolled, small.wg, small.coop_windows,
      clv_vj_stage_nodes (&d->tune, &d->shape), d->tune.shuffle != 0
      && clv_vj_shuffle_fits (d->dev, &small), error);
  if (prog == NULL)
    return FALSE;
  d->k_small = clv_kernel_new (prog, "vj_detect_tiled", error);
  clReleaseProgram (prog);
  if (d->k_small == NULL)
    return FALSE;
  CLV_CHECK (clGetKernelWorkGroupInfo (d->k_small, d->dev->device,
          CL_KERNEL_WORK_GROUP_SIZE, sizeof (max_wg), &max_wg, NULL), error,
      fail);
  if (max_wg < (size_t) small.wg) {
    g_info ("%s: vj_detect_tiled runs work-groups of at most %"
        G_GSIZE_FORMAT " work-items, not VJ_SMALL_WG=%d: small frames run "
        "the usual shape", d->dev->device_name, (gsize) max_wg, small.wg);
    g_clear_pointer (&d->k_small, clReleaseKernel);
  }
  return TRUE;

fail:
  g_clear_pointer (&d->k_small, clReleaseKernel);
  return FALSE;
}

gboolean
clv_vj_build_kernels (ClvVjDetector * d, const ClvCascadeStage * stages,
    GError ** error)
{
  const ClvVjTuning *t = &d->tune;
  const gboolean tiled = t->variant == CLV_VJ_VARIANT_TILED;
  const gboolean lbp = d->shape.feature_type == CLV_CASCADE_LBP;
  void *nodes = NULL;
  gsize nodes_bytes = 0;
  char *opts, *unrolled = NULL;
  cl_program prog;

  opts = g_strdup_printf ("-DVJ_BAND_WG=%d -DVJ_BAND_ROWS=%d", t->band_wg,
      t->band_rows);
  prog = clv_device_get_program (d->dev, "vj_pyramid", opts, error);
  g_free (opts);
  if (prog == NULL)
    return FALSE;
  d->k_luma = clv_kernel_new (prog, "vj_luma", error);
  d->k_sums = d->k_luma ? clv_kernel_new (prog, "vj_band_sums", error) : NULL;
  d->k_carry = d->k_sums ? clv_kernel_new (prog, "vj_band_carry", error)
      : NULL;
  d->k_integrals = d->k_carry ? clv_kernel_new (prog, "vj_band_integrals",
      error) : NULL;
  d->k_tilted = d->k_integrals ? clv_kernel_new (prog, "vj_tilted", error)
      : NULL;
  d->k_cpu_levels = d->k_tilted ? clv_kernel_new (prog, "vj_cpu_levels",
      error) : NULL;
  clReleaseProgram (prog);
  if (d->k_cpu_levels == NULL)
    return FALSE;
  if (t->variant == CLV_VJ_VARIANT_CPU)
    return build_cpu_kernel (d, stages, error);

  if (tiled) {
    const int one_per_item = MIN (d->coop_stage, d->shape.n_stages);
    const int cols = clv_vj_tile_cols (t, &d->shape);
    nodes = clv_vj_layout_nodes (d, cols,
        cols * clv_vj_tile_rows (t, &d->shape), &nodes_bytes);
    unrolled = unrolled_stages_source (d, stages, nodes, one_per_item);
    d->unrolled_stages = unrolled ? one_per_item : 0;
  }
  prog = build_detect_program (d, unrolled, t->wg, t->coop_windows, 0,
      d->shuffle, error);
  if (prog) {
    d->k_simple = clv_kernel_new (prog, "vj_detect_simple", error);
    d->k_uber = d->k_simple ? clv_kernel_new (prog,
        tiled ? "vj_detect_tiled" : "vj_detect_uber", error) : NULL;
    clReleaseProgram (prog);
  }
  if (d->k_uber && tiled && t->small_wg > 0
      && !build_small_kernel (d, unrolled, error))
    g_clear_pointer (&d->k_uber, clReleaseKernel);
  g_free (unrolled);
  if (d->k_uber && tiled && d->shape.is_stump_based && !lbp) {
    cl_int4 *arrays = stump_arrays (nodes, d->shape.n_trees);
    d->tile_nodes = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
        arrays, sizeof (cl_int4) * 3 * d->shape.n_trees, error);
    g_free (arrays);
  } else if (d->k_uber && tiled) {
    d->tile_nodes = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
        nodes, nodes_bytes, error);
  }
  g_free (nodes);
  return d->k_uber != NULL && (!tiled || d->tile_nodes != NULL);
}
