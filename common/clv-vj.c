/* Viola–Jones on OpenCL: host side of kernels/vj_pyramid.cl and
 * kernels/vj_detect.cl; see clv-vj.h. */
#include "clv-vj.h"
#include "clv-resize.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pixels per work-item per pass of a row in vj_rows. */
#define ROW_PIX 8
/* Columns per work-group of vj_cols (its COL_GROUP). */
#define COL_GROUP 32
/* Raw windows read back with the counters in one go; more grow the buffer. */
#define INITIAL_CAPACITY 4096
/* Past every stage: no cooperative evaluation. */
#define NO_COOP_STAGE (1 << 20)

/* kernels/vj_pyramid.cl's Level. */
typedef struct
{
  cl_int width, height;
  cl_int layer_ofs;
  cl_int xtab, ytab;
  cl_int xfirst, xend, yfirst, yend;
  cl_int first_row, first_col;
  cl_int pix_ofs;
} ClvVjLevel;

/* kernels/vj_detect.cl's Scale: the levels that have windows. */
typedef struct
{
  cl_int layer_ofs;
  cl_int ystep;
  cl_int nx;
  cl_int first_window;
} ClvVjWindows;

/* kernels/vj_detect.cl's Node: a tree node with its feature as OpenCV's
 * OptFeature offsets for the current layout; the next node (> 0) or the
 * leaf value for either side.  Tree t's root is node t. */
typedef struct
{
  cl_int ofs[3][4];
  cl_float weight[3];
  cl_float threshold;
  cl_int next[2];
  cl_float leaf[2];
} ClvVjNode;

struct _ClvVjDetector
{
  ClvDevice *dev;
  ClvVjTuning tune;
  gboolean fp64;
  int coop_stage;               /* as built: NO_COOP_STAGE if sums are not exact */

  /* The cascade (its stages live on the device; its nodes are laid out for
   * each frame geometry). */
  ClvCascade shape;             /* counts and sizes; arrays below */
  ClvCascadeTree *trees;
  ClvCascadeNode *nodes;
  float *leaves;
  ClvCascadeFeature *features;
  cl_mem stages;

  cl_kernel k_luma, k_rows, k_cols, k_tilted, k_simple, k_uber;

  /* Geometry of the last frame size and parameters. */
  int img_w, img_h;
  ClvVjParams params;
  int n_levels;
  ClvVjScale *scales;
  ClvVjLevel *levels;
  int n_win;                    /* levels with windows */
  ClvVjWindows *win;
  int *win_level;               /* level of each win[] */
  int *win_ny;
  int total_windows, total_rows, total_cols, max_level_w;
  int sbuf_w, sbuf_h, sq_ofs, tilt_ofs;
  cl_mem levels_mem, xtab, ytab, win_mem, nodes_mem;
  cl_mem sbuf, pixels, diag;
  gsize sbuf_bytes, pixels_bytes, diag_bytes;

  cl_mem luma;                  /* packed RGB frames: their luma */
  gsize luma_bytes;
  cl_mem out;                   /* count, work counter, then (scale, y<<16|x) */
  /* Events of the last frame's launches: pyramid ones, then detection ones. */
  GPtrArray *events;
  guint first_detect_event;
  guint out_cap;
  guint32 *out_host;
};

static int
tune_int (ClvDevice * dev, const char *name, int def)
{
  return (int) clv_device_tune_int (dev, name, def);
}

void
clv_vj_tuning_for_device (ClvDevice * dev, ClvVjTuning * t)
{
  const gboolean gpu = dev->simd_width > 1;
  const char *variant = clv_device_tune_string (dev, "VJ_VARIANT", "uber");

  /* The seed's parameters (its Table 1): a work-group is one warp (32) or
   * wavefront (64); N = one window per work-item; M = 2 on NVIDIA, 4 on
   * AMD; 8 (AMD) groups per compute unit; stages 0-2 one window per
   * work-item.  On a CPU a group is a few SIMD lanes.  On NVIDIA 32 groups
   * per compute unit, not the seed's 12: a Hopper SM holds 64 warps, and
   * the H200 sweep in docs/PERFORMANCE.md was fastest at 32 on every frame. */
  t->variant = g_ascii_strcasecmp (variant, "simple") == 0 ?
      CLV_VJ_VARIANT_SIMPLE : g_ascii_strcasecmp (variant, "uber") == 0 ?
      CLV_VJ_VARIANT_UBER : CLV_VJ_VARIANT_INVALID;
  t->wg = tune_int (dev, "VJ_WG", gpu ? (int) dev->simd_width : 8);
  t->chunk = tune_int (dev, "VJ_CHUNK", gpu ? t->wg : 64);
  t->coop_windows = tune_int (dev, "VJ_COOP_WINDOWS",
      dev->simd_width >= 64 ? 4 : 2);
  t->coop_stage = tune_int (dev, "VJ_COOP_STAGE", 3);
  t->groups_per_cu = tune_int (dev, "VJ_GROUPS_PER_CU",
      !gpu ? 4 : dev->simd_width >= 64 ? 8 : 32);
  t->row_wg = tune_int (dev, "VJ_ROW_WG", gpu ? 128 : 16);
  t->col_segs = tune_int (dev, "VJ_COL_SEGS", gpu ? 8 : 1);
  t->simple_wg = tune_int (dev, "VJ_SIMPLE_WG", gpu ? 64 : 8);
  t->static_schedule = tune_int (dev, "VJ_STATIC", 0) != 0;
}

gboolean
clv_vj_cascade_sums_exact (const ClvCascade * c, int first_stage)
{
  for (int si = MAX (first_stage, 0); si < c->n_stages; si++) {
    const ClvCascadeStage *s = &c->stages[si];
    double bound = 0;
    int q = G_MAXINT;

    /* Every leaf is a multiple of 2^q; no partial sum exceeds `bound`. */
    for (int t = s->first_tree; t < s->first_tree + s->n_trees; t++) {
      const ClvCascadeTree *tree = &c->trees[t];
      double m = 0;
      for (int l = 0; l <= tree->n_nodes; l++) {
        float v = c->leaves[tree->first_leaf + l];
        int e;
        if (v == 0.0f)
          continue;
        frexpf (v, &e);
        q = MIN (q, e - FLT_MANT_DIG);
        m = MAX (m, fabs (v));
      }
      bound += m;
    }
    if (q != G_MAXINT && !(bound < ldexp (1.0, q + DBL_MANT_DIG)))
      return FALSE;
  }
  return TRUE;
}

static gboolean
is_pow2 (int v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

static gboolean
check_tuning (ClvDevice * dev, const ClvVjTuning * t, GError ** error)
{
  const gsize local_bytes = (gsize) (t->wg + t->chunk) * 12 + t->wg * 8 + 64;

  if (t->variant == CLV_VJ_VARIANT_INVALID) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid VJ_VARIANT=%s in CLVISION_TUNE: uber or simple",
        clv_device_tune_string (dev, "VJ_VARIANT", ""));
    return FALSE;
  }
  if (t->wg < 1 || (gsize) t->wg > dev->max_work_group_size
      || t->chunk < 1 || t->coop_windows < 1 || t->coop_windows > t->wg
      || t->wg % t->coop_windows != 0 || !is_pow2 (t->wg / t->coop_windows)
      || t->coop_stage < 0 || t->groups_per_cu < 1 || t->row_wg < 1
      || (gsize) t->row_wg > dev->max_work_group_size || t->col_segs < 1
      || (gsize) t->col_segs * COL_GROUP > dev->max_work_group_size
      || t->simple_wg < 1
      || (gsize) t->simple_wg > dev->max_work_group_size
      || local_bytes > dev->local_mem_size) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid vjfacedetect tuning for %s: VJ_WG=%d VJ_CHUNK=%d "
        "VJ_COOP_WINDOWS=%d VJ_COOP_STAGE=%d VJ_GROUPS_PER_CU=%d "
        "VJ_ROW_WG=%d VJ_COL_SEGS=%d VJ_SIMPLE_WG=%d (work-groups up to %"
        G_GSIZE_FORMAT
        ", VJ_WG / VJ_COOP_WINDOWS a power of two, local memory %"
        G_GUINT64_FORMAT " bytes)", dev->device_name, t->wg, t->chunk,
        t->coop_windows, t->coop_stage, t->groups_per_cu, t->row_wg,
        t->col_segs, t->simple_wg, dev->max_work_group_size,
        dev->local_mem_size);
    return FALSE;
  }
  return TRUE;
}

static gboolean
build_kernels (ClvVjDetector * d, GError ** error)
{
  const ClvVjTuning *t = &d->tune;
  char *opts;
  cl_program prog;

  opts = g_strdup_printf ("-DVJ_ROW_WG=%d -DVJ_ROW_PIX=%d -DVJ_COL_SEGS=%d",
      t->row_wg, ROW_PIX, t->col_segs);
  prog = clv_device_get_program (d->dev, "vj_pyramid", opts, error);
  g_free (opts);
  if (prog == NULL)
    return FALSE;
  d->k_luma = clv_kernel_new (prog, "vj_luma", error);
  d->k_rows = d->k_luma ? clv_kernel_new (prog, "vj_rows", error) : NULL;
  d->k_cols = d->k_rows ? clv_kernel_new (prog, "vj_cols", error) : NULL;
  d->k_tilted = d->k_cols ? clv_kernel_new (prog, "vj_tilted", error) : NULL;
  clReleaseProgram (prog);
  if (d->k_tilted == NULL)
    return FALSE;

  opts = g_strdup_printf ("-DVJ_FP64=%d -DVJ_WG=%d -DVJ_CHUNK=%d "
      "-DVJ_COOP_WINDOWS=%d -DVJ_COOP_STAGE=%d -DVJ_STATIC=%d", d->fp64,
      t->wg, t->chunk, t->coop_windows, d->coop_stage, t->static_schedule);
  prog = clv_device_get_program (d->dev, "vj_detect", opts, error);
  g_free (opts);
  if (prog == NULL)
    return FALSE;
  d->k_simple = clv_kernel_new (prog, "vj_detect_simple", error);
  d->k_uber = d->k_simple ? clv_kernel_new (prog, "vj_detect_uber",
      error) : NULL;
  clReleaseProgram (prog);
  return d->k_uber != NULL;
}

static void
release_event (gpointer ev)
{
  clReleaseEvent (ev);
}

ClvVjDetector *
clv_vj_detector_new (ClvDevice * dev, const ClvCascade * c,
    const ClvVjTuning * tuning, GError ** error)
{
  ClvVjDetector *d = g_new0 (ClvVjDetector, 1);

  d->dev = clv_device_ref (dev);
  d->events = g_ptr_array_new_with_free_func (release_event);
  if (tuning)
    d->tune = *tuning;
  else
    clv_vj_tuning_for_device (dev, &d->tune);
  if (!check_tuning (dev, &d->tune, error))
    goto fail;
  /* Without doubles the variance and stage sums are not OpenCV's. */
  d->fp64 = dev->has_fp64;
  if (!d->fp64)
    g_warning ("%s has no double precision: vjfacedetect results may differ "
        "slightly from OpenCV's", dev->device_name);
  d->coop_stage = clv_vj_cascade_sums_exact (c, d->tune.coop_stage) ?
      d->tune.coop_stage : NO_COOP_STAGE;

  d->shape = *c;
  d->shape.path = NULL;
  d->shape.stages = NULL;
  d->shape.trees = NULL;
  d->shape.nodes = NULL;
  d->shape.leaves = NULL;
  d->shape.features = NULL;
  d->trees = g_memdup2 (c->trees, sizeof (ClvCascadeTree) * c->n_trees);
  d->nodes = g_memdup2 (c->nodes, sizeof (ClvCascadeNode) * c->n_nodes);
  d->leaves = g_memdup2 (c->leaves, sizeof (float) * c->n_leaves);
  d->features = g_memdup2 (c->features,
      sizeof (ClvCascadeFeature) * c->n_features);
  if (!(d->stages = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
              c->stages, sizeof (ClvCascadeStage) * c->n_stages, error))
      || !build_kernels (d, error))
    goto fail;
  return d;

fail:
  clv_vj_detector_free (d);
  return NULL;
}

static void
clear_geometry (ClvVjDetector * d)
{
  g_clear_pointer (&d->scales, g_free);
  g_clear_pointer (&d->levels, g_free);
  g_clear_pointer (&d->win, g_free);
  g_clear_pointer (&d->win_level, g_free);
  g_clear_pointer (&d->win_ny, g_free);
  g_clear_pointer (&d->levels_mem, clReleaseMemObject);
  g_clear_pointer (&d->xtab, clReleaseMemObject);
  g_clear_pointer (&d->ytab, clReleaseMemObject);
  g_clear_pointer (&d->win_mem, clReleaseMemObject);
  g_clear_pointer (&d->nodes_mem, clReleaseMemObject);
  d->n_levels = d->n_win = 0;
  d->img_w = d->img_h = 0;
}

void
clv_vj_detector_free (ClvVjDetector * d)
{
  if (d == NULL)
    return;
  clear_geometry (d);
  g_clear_pointer (&d->sbuf, clReleaseMemObject);
  g_clear_pointer (&d->pixels, clReleaseMemObject);
  g_clear_pointer (&d->diag, clReleaseMemObject);
  g_clear_pointer (&d->luma, clReleaseMemObject);
  g_clear_pointer (&d->out, clReleaseMemObject);
  g_clear_pointer (&d->stages, clReleaseMemObject);
  g_clear_pointer (&d->k_luma, clReleaseKernel);
  g_clear_pointer (&d->k_rows, clReleaseKernel);
  g_clear_pointer (&d->k_cols, clReleaseKernel);
  g_clear_pointer (&d->k_tilted, clReleaseKernel);
  g_clear_pointer (&d->k_simple, clReleaseKernel);
  g_clear_pointer (&d->k_uber, clReleaseKernel);
  g_ptr_array_unref (d->events);
  g_free (d->trees);
  g_free (d->nodes);
  g_free (d->leaves);
  g_free (d->features);
  g_free (d->out_host);
  clv_device_unref (d->dev);
  g_free (d);
}

/* Grows *mem to at least `size` bytes. */
static gboolean
ensure_buffer (ClvDevice * dev, cl_mem * mem, gsize * have, gsize size,
    GError ** error)
{
  if (*mem && *have >= size)
    return TRUE;
  g_clear_pointer (mem, clReleaseMemObject);
  *have = 0;
  *mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, MAX (size, 16), error);
  if (*mem)
    *have = size;
  return *mem != NULL;
}

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

/* The device nodes for row stride `step`: the roots first (tree t's at t),
 * then the other nodes tree by tree. */
static ClvVjNode *
layout_nodes (const ClvVjDetector * d, int step, int tilt_ofs, int *count)
{
  const int n_trees = d->shape.n_trees;
  ClvVjNode *out = g_new0 (ClvVjNode, MAX (d->shape.n_nodes, 1));
  int *base = g_new (int, MAX (n_trees, 1));

  /* Index of node k > 0 of tree t: base[t] + k - 1. */
  for (int t = 0, next = n_trees; t < n_trees; t++) {
    base[t] = next;
    next += d->trees[t].n_nodes - 1;
  }
  for (int t = 0; t < n_trees; t++) {
    const ClvCascadeTree *tree = &d->trees[t];
    for (int k = 0; k < tree->n_nodes; k++) {
      const ClvCascadeNode *n = &d->nodes[tree->first_node + k];
      ClvVjNode *o = &out[k == 0 ? t : base[t] + k - 1];
      const int child[2] = { n->left, n->right };

      feature_offsets (&d->features[n->feature], step, tilt_ofs, o);
      o->threshold = n->threshold;
      for (int side = 0; side < 2; side++) {
        if (child[side] > 0)
          o->next[side] = base[t] + child[side] - 1;
        else
          o->leaf[side] = d->leaves[tree->first_leaf - child[side]];
      }
    }
  }
  g_free (base);
  *count = d->shape.n_nodes;
  return out;
}

static gboolean
same_params (const ClvVjParams * a, const ClvVjParams * b)
{
  return a->scale_factor == b->scale_factor
      && a->min_width == b->min_width && a->min_height == b->min_height
      && a->max_width == b->max_width && a->max_height == b->max_height;
}

/* Scales, the packed layout (OpenCV's updateScaleData), resize tables and
 * feature offsets for frames of w x h with `p`. */
static gboolean
prepare_geometry (ClvVjDetector * d, int w, int h, const ClvVjParams * p,
    GError ** error)
{
  ClvDevice *dev = d->dev;
  GArray *xt, *yt;
  ClvVjNode *nodes;
  int x = 0, y = 0, band_h = 0;
  /* 64-bit sums: a huge frame is refused below, after the layout. */
  gint64 rows = 0, cols = 0, pix = 0, windows = 0;
  int n_nodes;
  gsize area;
  gboolean ok;

  if (d->img_w == w && d->img_h == h && same_params (&d->params, p))
    return TRUE;
  clear_geometry (d);
  d->n_levels = clv_vj_scales (w, h, d->shape.window_w, d->shape.window_h, p,
      &d->scales);
  d->img_w = w;
  d->img_h = h;
  d->params = *p;
  if (d->n_levels == 0)
    return TRUE;

  d->levels = g_new0 (ClvVjLevel, d->n_levels);
  d->win = g_new0 (ClvVjWindows, d->n_levels);
  d->win_level = g_new0 (int, d->n_levels);
  d->win_ny = g_new0 (int, d->n_levels);
  xt = g_array_new (FALSE, FALSE, sizeof (cl_int) * 2);
  yt = g_array_new (FALSE, FALSE, sizeof (cl_int) * 2);
  d->sbuf_w = (int) clv_round_up (d->scales[0].width + 31, 32);
  d->max_level_w = 0;
  for (int i = 0; i < d->n_levels; i++) {
    const ClvVjScale *s = &d->scales[i];
    ClvVjLevel *l = &d->levels[i];
    const int iw = s->width + 1, ih = s->height + 1;
    int *ofs = g_new (int, MAX (s->width, s->height));
    guint16 *c1 = g_new (guint16, MAX (s->width, s->height));

    if (i == 0)
      band_h = ih;
    if (x + iw > d->sbuf_w) {
      x = 0;
      y += band_h;
      band_h = ih;
    }
    l->width = s->width;
    l->height = s->height;
    l->layer_ofs = (cl_int) ((gint64) y * d->sbuf_w + x);
    x += iw;

    l->xtab = xt->len;
    clv_resize_axis_exact (w, s->width, ofs, c1, &l->xfirst, &l->xend);
    for (int k = 0; k < s->width; k++) {
      cl_int e[2] = { ofs[k], c1[k] };
      g_array_append_val (xt, e);
    }
    l->ytab = yt->len;
    clv_resize_axis_exact (h, s->height, ofs, c1, &l->yfirst, &l->yend);
    for (int k = 0; k < s->height; k++) {
      cl_int e[2] = { ofs[k], c1[k] };
      g_array_append_val (yt, e);
    }
    g_free (ofs);
    g_free (c1);

    l->first_row = rows;
    l->first_col = cols;
    l->pix_ofs = pix;
    rows += s->height;
    cols += iw;
    pix += (gint64) s->width * s->height;
    d->max_level_w = MAX (d->max_level_w, s->width);

    if (s->x_end > 0 && s->y_end > 0) {
      ClvVjWindows *wn = &d->win[d->n_win];
      wn->layer_ofs = l->layer_ofs;
      wn->ystep = s->step;
      wn->nx = (s->x_end + s->step - 1) / s->step;
      wn->first_window = windows;
      d->win_ny[d->n_win] = (s->y_end + s->step - 1) / s->step;
      d->win_level[d->n_win] = i;
      windows += (gint64) wn->nx * d->win_ny[d->n_win];
      d->n_win++;
    }
  }
  d->sbuf_h = y + band_h;
  d->total_rows = rows;
  d->total_cols = cols;
  d->total_windows = windows;
  area = (gsize) d->sbuf_w * d->sbuf_h;
  /* The kernels index the packed buffer, pixels and windows with ints. */
  if (area * (d->shape.has_tilted ? 3 : 2) > G_MAXINT || pix > G_MAXINT
      || windows > G_MAXINT) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %dx%d frame is "
        "too large for the detector (%" G_GSIZE_FORMAT " integral values "
        "per plane); scale it down or raise min-size", w, h, area);
    g_array_free (xt, TRUE);
    g_array_free (yt, TRUE);
    clear_geometry (d);
    return FALSE;
  }
  d->tilt_ofs = d->shape.has_tilted ? (int) area : 0;
  d->sq_ofs = (int) (d->shape.has_tilted ? 2 * area : area);

  nodes = layout_nodes (d, d->sbuf_w, d->tilt_ofs, &n_nodes);

  ok = (d->levels_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
          d->levels, sizeof (ClvVjLevel) * d->n_levels, error))
      && (d->xtab = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
          xt->data, xt->len * 8, error))
      && (d->ytab = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
          yt->data, yt->len * 8, error))
      && (d->win_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
          d->win, sizeof (ClvVjWindows) * d->n_win, error))
      && (d->nodes_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
          nodes, sizeof (ClvVjNode) * n_nodes, error))
      && ensure_buffer (dev, &d->sbuf, &d->sbuf_bytes,
      area * (d->shape.has_tilted ? 3 : 2) * sizeof (cl_uint), error)
      && ensure_buffer (dev, &d->pixels, &d->pixels_bytes, pix, error)
      && (!d->shape.has_tilted || ensure_buffer (dev, &d->diag, &d->diag_bytes,
          (gsize) d->n_levels * 2 * d->max_level_w * sizeof (cl_uint),
          error));
  g_free (nodes);
  g_array_free (xt, TRUE);
  g_array_free (yt, TRUE);
  if (!ok)
    clear_geometry (d);
  return ok;
}

/* Enqueues a kernel and keeps its event for clv_vj_detector_kernel_ms. */
static gboolean
enqueue (ClvVjDetector * d, cl_kernel kernel, cl_uint dims,
    const size_t * global, const size_t * local, GError ** error)
{
  cl_event ev = NULL;

  CLV_CHECK (clEnqueueNDRangeKernel (d->dev->queue, kernel, dims, NULL,
          global, local, 0, NULL, &ev), error, fail);
  g_ptr_array_add (d->events, ev);
  return TRUE;
fail:
  return FALSE;
}

static gboolean
enqueue_1d (ClvVjDetector * d, cl_kernel kernel, size_t global, size_t local,
    GError ** error)
{
  return enqueue (d, kernel, 1, &global, &local, error);
}

/* Step 1: luma (packed RGB only), pyramid, integrals. */
static gboolean
enqueue_pyramid (ClvVjDetector * d, cl_mem frame, const ClvLumaImage * f,
    GError ** error)
{
  cl_mem luma = frame;
  cl_uint luma_ofs = (cl_uint) f->image.offset;
  cl_uint luma_stride = (cl_uint) f->image.stride;
  cl_int lw = f->image.width, lh = f->image.height, n_levels = d->n_levels;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs, tilt_ofs = d->tilt_ofs;
  cl_int total_cols = d->total_cols, diag_w = d->max_level_w;
  size_t g2[2], l2[2];

  if (f->r >= 0) {
    cl_uint ps = f->image.bpp, r = f->r, g = f->g, b = f->b;
    if (!ensure_buffer (d->dev, &d->luma, &d->luma_bytes,
            (gsize) lw * lh, error)
        || !clv_kernel_set_args (d->k_luma, error, CLV_ARG (frame),
            CLV_ARG (luma_ofs), CLV_ARG (luma_stride), CLV_ARG (ps),
            CLV_ARG (r), CLV_ARG (g), CLV_ARG (b), CLV_ARG (lw), CLV_ARG (lh),
            CLV_ARG (d->luma), CLV_ARGS_END))
      return FALSE;
    g2[0] = lw;
    g2[1] = lh;
    if (!enqueue (d, d->k_luma, 2, g2, NULL, error))
      return FALSE;
    luma = d->luma;
    luma_ofs = 0;
    luma_stride = lw;
  }

  if (!clv_kernel_set_args (d->k_rows, error, CLV_ARG (luma),
          CLV_ARG (luma_ofs), CLV_ARG (luma_stride), CLV_ARG (lw),
          CLV_ARG (lh), CLV_ARG (d->levels_mem), CLV_ARG (n_levels),
          CLV_ARG (d->xtab), CLV_ARG (d->ytab), CLV_ARG (d->sbuf),
          CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARG (d->pixels),
          CLV_ARGS_END))
    return FALSE;
  if (!enqueue_1d (d, d->k_rows, (size_t) d->total_rows * d->tune.row_wg,
          d->tune.row_wg, error))
    return FALSE;

  if (!clv_kernel_set_args (d->k_cols, error, CLV_ARG (d->levels_mem),
          CLV_ARG (n_levels), CLV_ARG (total_cols), CLV_ARG (d->sbuf),
          CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARGS_END))
    return FALSE;
  g2[0] = clv_round_up (d->total_cols, COL_GROUP);
  g2[1] = d->tune.col_segs;
  l2[0] = COL_GROUP;
  l2[1] = d->tune.col_segs;
  if (!enqueue (d, d->k_cols, 2, g2, l2, error))
    return FALSE;

  if (d->shape.has_tilted) {
    if (!clv_kernel_set_args (d->k_tilted, error, CLV_ARG (d->levels_mem),
            CLV_ARG (d->pixels), CLV_ARG (d->sbuf), CLV_ARG (sbuf_w),
            CLV_ARG (tilt_ofs), CLV_ARG (d->diag), CLV_ARG (diag_w),
            CLV_ARGS_END))
      return FALSE;
    if (!enqueue_1d (d, d->k_tilted, (size_t) d->n_levels * d->tune.row_wg,
            d->tune.row_wg, error))
      return FALSE;
  }
  return TRUE;
}

/* Steps 2-5: the detection kernel(s), writing into d->out. */
static gboolean
enqueue_detect (ClvVjDetector * d, GError ** error)
{
  cl_command_queue q = d->dev->queue;
  /* Static: the write is not blocking. */
  static const cl_uint zero[2] = { 0, 0 };
  const int nx = d->shape.window_w - 2, ny = d->shape.window_h - 2;
  cl_int4 nofs = { {1 + d->sbuf_w, 1 + nx + d->sbuf_w,
          1 + d->sbuf_w * (1 + ny), 1 + nx + d->sbuf_w * (1 + ny)}
  };
  const double area_d = (double) nx * ny;
  const float area_f = (float) area_d;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs, n_stages = d->shape.n_stages;
  cl_uint cap = d->out_cap;
  size_t g[2], l[2];
  cl_uint arg;

  CLV_CHECK (clEnqueueWriteBuffer (q, d->out, CL_FALSE, 0, sizeof (zero),
          zero, 0, NULL, NULL), error, fail);
  for (int k = 0; k < 2; k++) {
    cl_kernel kern = k ? d->k_uber : d->k_simple;
    if (!clv_kernel_set_args (kern, error, CLV_ARG (d->sbuf),
            CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARG (nofs), CLV_ARGS_END))
      return FALSE;
    CLV_CHECK (d->fp64 ? clSetKernelArg (kern, 4, sizeof (area_d), &area_d)
        : clSetKernelArg (kern, 4, sizeof (area_f), &area_f), error, fail);
    arg = 5;
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_mem), &d->stages),
        error, fail);
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_int), &n_stages),
        error, fail);
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_mem), &d->nodes_mem),
        error, fail);
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_mem), &d->out),
        error, fail);
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_uint), &cap), error,
        fail);
  }

  if (d->tune.variant == CLV_VJ_VARIANT_SIMPLE) {
    for (int i = 0; i < d->n_win; i++) {
      const ClvVjWindows *w = &d->win[i];
      cl_int si = i, wny = d->win_ny[i];
      arg = 10;
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int), &si),
          error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->layer_ofs), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->ystep), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->nx), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int), &wny),
          error, fail);
      l[0] = d->tune.simple_wg;
      l[1] = 1;
      g[0] = clv_round_up (w->nx, l[0]);
      g[1] = wny;
      if (!enqueue (d, d->k_simple, 2, g, l, error))
        return FALSE;
    }
  } else {
    cl_int n_win = d->n_win, total = d->total_windows;
    arg = 10;
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_mem),
            &d->win_mem), error, fail);
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int), &n_win),
        error, fail);
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int), &total),
        error, fail);
    if (!enqueue_1d (d, d->k_uber, (size_t) d->tune.wg *
            d->tune.groups_per_cu * d->dev->compute_units, d->tune.wg, error))
      return FALSE;
  }
  return TRUE;

fail:
  return FALSE;
}

typedef struct
{
  int level, x, y;
} RawWindow;

static int
raw_window_cmp (const void *pa, const void *pb)
{
  const RawWindow *a = pa, *b = pb;

  if (a->level != b->level)
    return a->level - b->level;
  if (a->y != b->y)
    return a->y - b->y;
  return a->x - b->x;
}

GArray *
clv_vj_detector_candidates (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, GError ** error)
{
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (ClvRect));
  RawWindow *raw;
  guint count;

  /* Window corners travel as 16-bit coordinates. */
  if (f->image.width < 1 || f->image.height < 1 || f->image.width > 65535 || f->image.height > 65535
      || p->scale_factor <= 1.0)
    goto invalid;
  if (!prepare_geometry (d, f->image.width, f->image.height, p, error))
    goto fail;
  if (d->n_win == 0)
    return rects;
  if (d->out == NULL) {
    d->out_cap = INITIAL_CAPACITY;
    d->out = clv_buffer_new (d->dev, CL_MEM_READ_WRITE,
        (2 + 2 * (gsize) d->out_cap) * sizeof (cl_uint), error);
    if (d->out == NULL)
      goto fail;
    g_free (d->out_host);
    d->out_host = g_new (guint32, 2 + 2 * d->out_cap);
  }
  g_ptr_array_set_size (d->events, 0);
  if (!enqueue_pyramid (d, frame, f, error))
    goto fail;
  d->first_detect_event = d->events->len;
  if (!enqueue_detect (d, error))
    goto fail;
  for (;;) {
    CLV_CHECK (clEnqueueReadBuffer (d->dev->queue, d->out, CL_TRUE, 0,
            (2 + 2 * (gsize) d->out_cap) * sizeof (cl_uint), d->out_host, 0,
            NULL, NULL), error, fail);
    count = d->out_host[0];
    if (count <= d->out_cap)
      break;
    /* More windows than room: grow and run the detection again. */
    g_clear_pointer (&d->out, clReleaseMemObject);
    g_free (d->out_host);
    d->out_cap = (guint) clv_round_up (count + count / 2, 1024);
    d->out = clv_buffer_new (d->dev, CL_MEM_READ_WRITE,
        (2 + 2 * (gsize) d->out_cap) * sizeof (cl_uint), error);
    d->out_host = g_new (guint32, 2 + 2 * d->out_cap);
    d->first_detect_event = d->events->len;
    if (d->out == NULL || !enqueue_detect (d, error))
      goto fail;
  }

  raw = g_new (RawWindow, MAX (count, 1));
  for (guint i = 0; i < count; i++) {
    const guint32 *e = d->out_host + 2 + 2 * i;
    raw[i].level = d->win_level[e[0]];
    raw[i].x = e[1] & 0xffff;
    raw[i].y = e[1] >> 16;
  }
  qsort (raw, count, sizeof (RawWindow), raw_window_cmp);
  g_array_set_size (rects, count);
  for (guint i = 0; i < count; i++)
    g_array_index (rects, ClvRect, i) =
        clv_vj_candidate_rect (&d->scales[raw[i].level], raw[i].x, raw[i].y);
  g_free (raw);
  return rects;

invalid:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Invalid detection request: %dx%d frame (1 to 65535 pixels a side), "
      "scale factor %g (must be > 1)",
      f->image.width, f->image.height, p->scale_factor);
fail:
  g_array_free (rects, TRUE);
  return NULL;
}

GArray *
clv_vj_detector_detect (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, GError ** error)
{
  GArray *raw = clv_vj_detector_candidates (d, frame, f, p, error);
  GArray *faces;

  if (raw == NULL)
    return NULL;
  faces = clv_vj_group_faces (raw, p->min_neighbors, f->image.width, f->image.height);
  g_array_free (raw, TRUE);
  return faces;
}

void
clv_vj_detector_kernel_ms (ClvVjDetector * d, double *pyramid_ms,
    double *detect_ms)
{
  const guint n = d->events->len, k = d->first_detect_event;

  *pyramid_ms = k > 0 ? clv_event_span_seconds (d->events->pdata[0],
      d->events->pdata[k - 1]) * 1e3 : 0;
  *detect_ms = n > k ? clv_event_span_seconds (d->events->pdata[k],
      d->events->pdata[n - 1]) * 1e3 : 0;
}

gboolean
clv_vj_detector_read_level (ClvVjDetector * d, int level, guint8 * pixels,
    ClvVjIntegrals * in, GError ** error)
{
  cl_command_queue q = d->dev->queue;
  const ClvVjLevel *l;
  size_t origin[3], region[3];

  if (level < 0 || level >= d->n_levels)
    return FALSE;
  l = &d->levels[level];
  if (pixels)
    CLV_CHECK (clEnqueueReadBuffer (q, d->pixels, CL_TRUE, l->pix_ofs,
            (gsize) l->width * l->height, pixels, 0, NULL, NULL), error,
        fail);
  if (in == NULL)
    return TRUE;
  /* Each plane's (w + 1) x (h + 1) block, row by row. */
  for (int plane = 0; plane < 3; plane++) {
    void *dst = plane == 0 ? (void *) in->sum : plane == 1 ?
        (void *) in->sqsum : (void *) in->tilted;
    const gsize base = plane == 0 ? 0 : plane == 1 ? (gsize) d->sq_ofs :
        (gsize) d->tilt_ofs;
    size_t buf_row = d->sbuf_w * sizeof (cl_uint);
    size_t host_row = in->stride * sizeof (cl_uint);
    if (dst == NULL || (plane == 2 && !d->shape.has_tilted))
      continue;
    origin[0] = ((base + l->layer_ofs) % d->sbuf_w) * sizeof (cl_uint);
    origin[1] = (base + l->layer_ofs) / d->sbuf_w;
    origin[2] = 0;
    region[0] = (l->width + 1) * sizeof (cl_uint);
    region[1] = l->height + 1;
    region[2] = 1;
    {
      size_t host_origin[3] = { 0, 0, 0 };
      CLV_CHECK (clEnqueueReadBufferRect (q, d->sbuf, CL_TRUE, origin,
              host_origin, region, buf_row, 0, host_row, 0, dst, 0, NULL,
              NULL), error, fail);
    }
  }
  return TRUE;

fail:
  return FALSE;
}
