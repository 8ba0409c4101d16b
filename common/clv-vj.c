/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones on OpenCL: the detector, host side of kernels/vj_pyramid.cl
 * and kernels/vj_detect.cl (frame geometries, batches, launches, the raw
 * windows read back); see clv-vj.h.  Its tuning is in clv-vj-tune.c, its
 * kernels' code generation in clv-vj-codegen.c. */
#include "clv-vj-private.h"

#include <string.h>
#include "clv-resize.h"

/* Raw windows read back with the counters in one go; more grow the buffer. */
#define INITIAL_CAPACITY 4096
/* Scales of one batch: the detection kernel keeps their table in
 * __constant memory (64 KiB on most GPUs). */
#define MAX_BATCH_SCALES 2048

/* Geometries kept for frame sizes seen recently. */
#define GEOMETRY_CACHE 16
/* Raw windows read back with the counters in one read (more take a
 * second). */
#define READ_AHEAD 512
/* Values past the packed integrals (see prepare_batch). */
#define SBUF_PAD 64

int
clv_vj_detector_unrolled_stages (ClvVjDetector * d)
{
  return d->unrolled_stages;
}

gboolean
clv_vj_detector_shuffles (ClvVjDetector * d)
{
  return d->shuffle;
}

int
clv_vj_detector_last_detect_wg (ClvVjDetector * d)
{
  return d->last_detect_wg;
}

static void
release_event (gpointer ev)
{
  clReleaseEvent (ev);
}

static void
geometry_free (gpointer data)
{
  ClvVjGeometry *g = data;

  g_free (g->scales);
  g_free (g->levels);
  g_free (g->win);
  g_free (g->win_level);
  g_clear_pointer (&g->xtab, g_array_unref);
  g_clear_pointer (&g->ytab, g_array_unref);
  g_free (g);
}

/* `asked`: the tuning was passed in (refused where tiles do not fit),
 * not the device's own (which then falls back to chunks). */
static ClvVjDetector *
detector_new (ClvDevice * dev, const ClvCascade * c,
    const ClvVjTuning * tuning, gboolean asked, GError ** error)
{
  ClvVjDetector *d = g_new0 (ClvVjDetector, 1);
  cl_int st;

  d->dev = clv_device_ref (dev);
  d->events = g_ptr_array_new_with_free_func (release_event);
  d->event_kernels = g_ptr_array_new ();
  d->launches = g_ptr_array_new ();
  d->geometries = g_ptr_array_new_with_free_func (geometry_free);
  d->batch_levels = g_array_new (FALSE, FALSE, sizeof (ClvVjLevel));
  d->batch_win = g_array_new (FALSE, FALSE, sizeof (ClvVjWindows));
  d->win_frame = g_array_new (FALSE, FALSE, sizeof (int));
  d->win_level = g_array_new (FALSE, FALSE, sizeof (int));
  d->tab_serials = g_array_new (FALSE, FALSE, sizeof (guint64));
  d->sources = g_array_new (FALSE, FALSE, sizeof (ClvVjSource));
  d->last_win = g_array_new (FALSE, FALSE, sizeof (ClvVjWindows));
  d->last_levels = g_array_new (FALSE, FALSE, sizeof (ClvVjLevel));
  d->last_xtab = g_array_new (FALSE, FALSE, sizeof (cl_int2));
  d->last_ytab = g_array_new (FALSE, FALSE, sizeof (cl_int2));
  d->xtab_host = g_array_new (FALSE, FALSE, sizeof (cl_int2));
  d->ytab_host = g_array_new (FALSE, FALSE, sizeof (cl_int2));
  d->tune = *tuning;
  if (!clv_vj_tuning_check (dev, &d->tune, error)
      || !clv_vj_tuning_fit_tile (dev, &d->tune, c, asked, error))
    goto fail;
  /* The cpu variant's segments are the window table's tiles. */
  if (d->tune.variant == CLV_VJ_VARIANT_CPU) {
    d->tune.tile_x = d->tune.lanes;
    d->tune.tile_y = 1;
  }
  /* Without doubles the variance and stage sums are not OpenCV's. */
  d->fp64 = dev->has_fp64;
  if (!d->fp64)
    g_warning ("%s has no double precision: vjfacedetect results may differ "
        "slightly from OpenCV's", dev->device_name);
  d->coop_stage = clv_vj_cascade_sums_exact (c, d->tune.coop_stage) ?
      d->tune.coop_stage : NO_COOP_STAGE;
  d->shuffle = d->tune.shuffle == 1 || (d->tune.shuffle < 0
      && clv_vj_shuffle_fits (dev, &d->tune));

  d->shape = *c;
  d->shape.path = NULL;
  d->shape.stages = NULL;
  d->shape.trees = NULL;
  d->shape.nodes = NULL;
  d->shape.leaves = NULL;
  d->shape.features = NULL;
  d->shape.subsets = NULL;
  d->subsets = g_memdup2 (c->subsets,
      sizeof (gint32) * c->n_nodes * c->subset_size);
  d->trees = g_memdup2 (c->trees, sizeof (ClvCascadeTree) * c->n_trees);
  d->nodes = g_memdup2 (c->nodes, sizeof (ClvCascadeNode) * c->n_nodes);
  d->leaves = g_memdup2 (c->leaves, sizeof (float) * c->n_leaves);
  d->features = g_memdup2 (c->features,
      sizeof (ClvCascadeFeature) * c->n_features);
  if (!(d->stages = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
              c->stages, sizeof (ClvCascadeStage) * c->n_stages, error))
      || !clv_vj_build_kernels (d, c->stages, error))
    goto fail;
  CLV_CHECK ((d->copies = clCreateCommandQueue (dev->context, dev->device, 0,
              &st), st), error, fail);
  return d;

fail:
  clv_vj_detector_free (d);
  return NULL;
}

ClvVjDetector *
clv_vj_detector_new (ClvDevice * dev, const ClvCascade * c,
    const ClvVjTuning * tuning, GError ** error)
{
  ClvVjTuning own;

  if (tuning)
    return detector_new (dev, c, tuning, TRUE, error);
  clv_vj_tuning_for_device (dev, &own);
  return detector_new (dev, c, &own, FALSE, error);
}

ClvVjDetector *
clv_vj_detector_new_for_variant (ClvDevice * dev, const ClvCascade * c,
    ClvVjVariant variant, GError ** error)
{
  ClvVjTuning own;

  clv_vj_tuning_for_variant (dev, variant, &own);
  return detector_new (dev, c, &own, FALSE, error);
}

void
clv_vj_detector_free (ClvVjDetector * d)
{
  if (d == NULL)
    return;
  g_ptr_array_unref (d->geometries);
  g_array_unref (d->tab_serials);
  g_array_unref (d->sources);
  g_array_unref (d->last_win);
  g_array_unref (d->last_levels);
  g_array_unref (d->last_xtab);
  g_array_unref (d->last_ytab);
  g_array_unref (d->xtab_host);
  g_array_unref (d->ytab_host);
  g_clear_pointer (&d->xtab, clReleaseMemObject);
  g_clear_pointer (&d->ytab, clReleaseMemObject);
  g_free (d->frame_geo);
  g_array_unref (d->batch_levels);
  g_free (d->first_level);
  g_clear_pointer (&d->levels_mem, clReleaseMemObject);
  g_array_unref (d->batch_win);
  g_array_unref (d->win_frame);
  g_array_unref (d->win_level);
  g_clear_pointer (&d->nodes_mem, clReleaseMemObject);
  g_clear_pointer (&d->tile_nodes, clReleaseMemObject);
  g_clear_pointer (&d->win_mem, clReleaseMemObject);
  g_clear_pointer (&d->sbuf, clReleaseMemObject);
  g_clear_pointer (&d->pixels, clReleaseMemObject);
  g_clear_pointer (&d->diag, clReleaseMemObject);
  g_clear_pointer (&d->band_sums, clReleaseMemObject);
  g_clear_pointer (&d->row_sums, clReleaseMemObject);
  g_clear_pointer (&d->luma, clReleaseMemObject);
  g_clear_pointer (&d->out, clReleaseMemObject);
  g_clear_pointer (&d->weights, clReleaseMemObject);
  g_clear_pointer (&d->copies, clReleaseCommandQueue);
  g_clear_pointer (&d->stages, clReleaseMemObject);
  g_clear_pointer (&d->k_luma, clReleaseKernel);
  g_clear_pointer (&d->k_sums, clReleaseKernel);
  g_clear_pointer (&d->k_carry, clReleaseKernel);
  g_clear_pointer (&d->k_integrals, clReleaseKernel);
  g_clear_pointer (&d->k_tilted, clReleaseKernel);
  g_clear_pointer (&d->k_simple, clReleaseKernel);
  g_clear_pointer (&d->k_uber, clReleaseKernel);
  g_clear_pointer (&d->k_small, clReleaseKernel);
  g_clear_pointer (&d->k_cpu_levels, clReleaseKernel);
  g_ptr_array_unref (d->events);
  g_ptr_array_unref (d->event_kernels);
  g_ptr_array_unref (d->launches);
  g_free (d->trees);
  g_free (d->nodes);
  g_free (d->leaves);
  g_free (d->features);
  g_free (d->subsets);
  g_free (d->out_host);
  g_free (d->weights_host);
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

static gboolean
same_params (const ClvVjParams * a, const ClvVjParams * b)
{
  return a->scale_factor == b->scale_factor
      && a->min_width == b->min_width && a->min_height == b->min_height
      && a->max_width == b->max_width && a->max_height == b->max_height;
}

/* Scales, the packed layout of one frame's band (OpenCV's
 * updateScaleData) and the resize tables for frames of w x h with `p`. */
static ClvVjGeometry *
geometry_new (ClvVjDetector * d, int w, int h, const ClvVjParams * p,
    GError ** error)
{
  ClvVjGeometry *g = g_new0 (ClvVjGeometry, 1);
  GArray *xt, *yt;
  int x = 0, y = 0, band_h = 0;
  /* 64-bit sums: a huge frame is refused below, after the layout. */
  const int band_rows = d->tune.band_rows, band_wg = d->tune.band_wg;
  gint64 tiles = 0, cols = 0, sums = 0, row_sums = 0, pix = 0, windows = 0;
  gsize area;

  g->w = w;
  g->h = h;
  g->params = *p;
  g->serial = ++d->n_geometries;
  g->n_levels = clv_vj_scales (w, h, d->shape.window_w, d->shape.window_h, p,
      &g->scales);
  if (g->n_levels == 0)
    return g;

  g->levels = g_new0 (ClvVjLevel, g->n_levels);
  g->win = g_new0 (ClvVjWindows, g->n_levels);
  g->win_level = g_new0 (int, g->n_levels);
  xt = g_array_new (FALSE, FALSE, sizeof (cl_int) * 2);
  yt = g_array_new (FALSE, FALSE, sizeof (cl_int) * 2);
  g->band_w = (int) clv_round_up (g->scales[0].width + 31, 32);
  for (int i = 0; i < g->n_levels; i++) {
    const ClvVjScale *s = &g->scales[i];
    ClvVjLevel *l = &g->levels[i];
    const int iw = s->width + 1, ih = s->height + 1;
    int *ofs = g_new (int, MAX (s->width, s->height));
    guint16 *c1 = g_new (guint16, MAX (s->width, s->height));

    if (i == 0)
      band_h = ih;
    if (x + iw > g->band_w) {
      x = 0;
      y += band_h;
      band_h = ih;
    }
    l->width = s->width;
    l->height = s->height;
    l->layer_ofs = (cl_int) ((gint64) y * g->band_w + x);
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

    {
      const int bands = (s->height + band_rows - 1) / band_rows;
      const int across = (s->width + band_wg - 1) / band_wg;
      l->first_tile = tiles;
      l->first_col = cols;
      l->v_ofs = sums;
      l->h_ofs = row_sums;
      tiles += (gint64) bands * across;
      cols += iw;
      sums += (gint64) bands * s->width;
      row_sums += (gint64) s->height * across;
    }
    l->pix_ofs = pix;
    pix += (gint64) s->width * s->height;
    g->max_level_w = MAX (g->max_level_w, s->width);

    if (s->x_end > 0 && s->y_end > 0) {
      ClvVjWindows *wn = &g->win[g->n_win];
      wn->layer_ofs = l->layer_ofs;
      wn->ystep = s->step;
      wn->nx = (s->x_end + s->step - 1) / s->step;
      wn->first_window = windows;
      wn->ny = (s->y_end + s->step - 1) / s->step;
      g->win_level[g->n_win] = i;
      windows += (gint64) wn->nx * wn->ny;
      g->n_win++;
    }
  }
  g->band_h = y + band_h;
  area = (gsize) g->band_w * g->band_h;
  /* The kernels index the packed buffer, pixels and windows with ints. */
  if (area * (d->shape.has_tilted ? 3 : 2) > G_MAXINT || pix > G_MAXINT
      || windows > G_MAXINT || sums > G_MAXINT || tiles > G_MAXINT) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %dx%d frame is "
        "too large for the detector (%" G_GSIZE_FORMAT " integral values "
        "per plane); scale it down or raise min-size", w, h, area);
    g_array_free (xt, TRUE);
    g_array_free (yt, TRUE);
    geometry_free (g);
    return NULL;
  }
  g->band_tiles = (int) tiles;
  g->total_cols = (int) cols;
  g->total_sums = (int) sums;
  g->total_row_sums = (int) row_sums;
  g->total_windows = (int) windows;
  g->pix = (int) pix;
  g->xtab = xt;
  g->ytab = yt;
  return g;
}

/* The geometry for w x h with `p`, from the cache or new. */
static ClvVjGeometry *
get_geometry (ClvVjDetector * d, int w, int h, const ClvVjParams * p,
    GError ** error)
{
  ClvVjGeometry *g;

  for (guint i = 0; i < d->geometries->len; i++) {
    g = d->geometries->pdata[i];
    if (g->w == w && g->h == h && same_params (&g->params, p))
      return g;
  }
  g = geometry_new (d, w, h, p, error);
  if (g == NULL)
    return NULL;
  /* The last batch's geometries stay: read_level uses them. */
  if (d->geometries->len >= GEOMETRY_CACHE) {
    for (guint i = 0; i < d->geometries->len; i++) {
      gboolean used = FALSE;
      for (guint k = 0; k < d->n_frames; k++)
        used |= d->frame_geo[k] == d->geometries->pdata[i];
      if (!used) {
        g_ptr_array_remove_index (d->geometries, i);
        break;
      }
    }
  }
  g_ptr_array_add (d->geometries, g);
  return g;
}

/* Values of one plane of the packed buffer: the bands of `n` frames
 * stacked `w` wide.  Plane sizes only grow, in steps of 256 rows, so that
 * the node layout (which depends on them) rarely changes. */
static gsize
batch_plane (ClvVjGeometry ** geo, guint n, int w)
{
  gsize rows = 0;

  for (guint i = 0; i < n; i++)
    rows += geo[i]->band_h;
  return (gsize) w * clv_round_up (rows, 256);
}

/* Places frames' bands, lays out the nodes and fills the per-frame level
 * tables and the batch's window table. */
static gboolean
prepare_batch (ClvVjDetector * d, ClvVjGeometry ** geo, guint n,
    GError ** error)
{
  ClvDevice *dev = d->dev;
  const int planes = d->shape.has_tilted ? 3 : 2;
  int w = 0, y = 0, diag_w = 0;
  gsize plane;

  for (guint i = 0; i < n; i++) {
    w = MAX (w, geo[i]->band_w);
    diag_w = MAX (diag_w, geo[i]->max_level_w);
  }
  plane = MAX (batch_plane (geo, n, w), (gsize) d->plane);
  if (w != d->sbuf_w)
    plane = batch_plane (geo, n, w);
  d->sbuf_w = w;
  d->diag_w = diag_w;
  d->plane = (int) plane;
  d->tilt_ofs = d->shape.has_tilted ? (int) plane : 0;
  d->sq_ofs = (int) (d->shape.has_tilted ? 2 * plane : plane);
  if (d->nodes_w != w || d->nodes_plane != d->plane) {
    gsize bytes;
    void *nodes = clv_vj_layout_nodes (d, w, d->tilt_ofs, &bytes);
    g_clear_pointer (&d->nodes_mem, clReleaseMemObject);
    d->nodes_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, nodes,
        bytes, error);
    g_free (nodes);
    if (d->nodes_mem == NULL)
      return FALSE;
    d->nodes_w = w;
    d->nodes_plane = d->plane;
  }

  g_free (d->frame_geo);
  d->frame_geo = g_memdup2 (geo, sizeof (ClvVjGeometry *) * n);
  g_free (d->first_level);
  d->first_level = g_new (guint, n);
  d->n_frames = n;
  g_array_set_size (d->batch_levels, 0);
  g_array_set_size (d->batch_win, 0);
  g_array_set_size (d->win_frame, 0);
  g_array_set_size (d->win_level, 0);
  d->total_cols = 0;
  d->band_tiles = 0;
  d->total_sums = 0;
  d->total_row_sums = 0;
  d->total_pix = 0;
  d->total_windows = 0;
  d->total_tiles = 0;
  /* The batch's resize tables: the geometries' tables in turn, rebuilt
   * when the geometries change. */
  d->tab_dirty = d->tab_serials->len != n;
  for (guint i = 0; !d->tab_dirty && i < n; i++)
    d->tab_dirty = g_array_index (d->tab_serials, guint64, i)
        != geo[i]->serial;
  if (d->tab_dirty) {
    g_array_set_size (d->tab_serials, 0);
    g_array_set_size (d->xtab_host, 0);
    g_array_set_size (d->ytab_host, 0);
    for (guint i = 0; i < n; i++) {
      g_array_append_val (d->tab_serials, geo[i]->serial);
      g_array_append_vals (d->xtab_host, geo[i]->xtab->data,
          geo[i]->xtab->len);
      g_array_append_vals (d->ytab_host, geo[i]->ytab->data,
          geo[i]->ytab->len);
    }
  }
  for (guint i = 0, xt = 0, yt = 0; i < n; i++) {
    const ClvVjGeometry *g = geo[i];
    /* Band-relative offsets y' * band_w + x become batch ones; the
     * integral passes number the tiles, columns and sums of all frames. */
    d->first_level[i] = d->batch_levels->len;
    for (int l = 0; l < g->n_levels; l++) {
      ClvVjLevel lv = g->levels[l];
      lv.xtab += xt;
      lv.ytab += yt;
      lv.layer_ofs = (y + lv.layer_ofs / g->band_w) * w
          + lv.layer_ofs % g->band_w;
      lv.first_col += d->total_cols;
      lv.v_ofs += d->total_sums;
      lv.h_ofs += d->total_row_sums;
      lv.first_tile += d->band_tiles;
      lv.pix_ofs += d->total_pix;
      g_array_append_val (d->batch_levels, lv);
    }
    xt += g->xtab->len;
    yt += g->ytab->len;
    d->total_cols += g->total_cols;
    d->total_sums += g->total_sums;
    d->total_row_sums += g->total_row_sums;
    d->band_tiles += g->band_tiles;
    d->total_pix += g->pix;
    for (int k = 0; k < g->n_win; k++) {
      ClvVjWindows wn = g->win[k];
      int f = (int) i;
      wn.layer_ofs = (y + wn.layer_ofs / g->band_w) * w
          + wn.layer_ofs % g->band_w;
      wn.first_window = d->total_windows;
      d->total_windows += wn.nx * wn.ny;
      wn.tiles_x = (wn.nx + d->tune.tile_x - 1) / d->tune.tile_x;
      wn.first_tile = d->total_tiles;
      d->total_tiles += wn.tiles_x *
          ((wn.ny + d->tune.tile_y - 1) / d->tune.tile_y);
      g_array_append_val (d->batch_win, wn);
      g_array_append_val (d->win_frame, f);
      g_array_append_val (d->win_level, g->win_level[k]);
    }
    y += g->band_h;
  }
  /* Tables in buffers made now must be written whatever they hold. */
  d->win_fresh = sizeof (ClvVjWindows) * MAX (d->batch_win->len, 1)
      > d->win_mem_bytes;
  d->levels_fresh = sizeof (ClvVjLevel) * d->batch_levels->len
      > d->levels_mem_bytes;
  /* The cpu variant's vector loads read up to 4 x VJ_LANES values past
   * the last window's corners. */
  return ensure_buffer (dev, &d->sbuf, &d->sbuf_bytes,
      (plane * planes + SBUF_PAD) * sizeof (cl_uint), error)
      && ensure_buffer (dev, &d->pixels, &d->pixels_bytes,
      MAX (d->total_pix, 1), error)
      && ensure_buffer (dev, &d->band_sums, &d->band_sums_bytes,
      (gsize) MAX (d->total_sums, 1) * 2 * sizeof (cl_uint), error)
      && ensure_buffer (dev, &d->row_sums, &d->row_sums_bytes,
      (gsize) MAX (d->total_row_sums, 1) * 2 * sizeof (cl_uint), error)
      && (!d->shape.has_tilted || ensure_buffer (dev, &d->diag,
          &d->diag_bytes, (gsize) d->batch_levels->len * 2 * diag_w
          * sizeof (cl_uint),
          error))
      && ensure_buffer (dev, &d->win_mem, &d->win_mem_bytes,
      sizeof (ClvVjWindows) * MAX (d->batch_win->len, 1), error)
      && ensure_buffer (dev, &d->levels_mem, &d->levels_mem_bytes,
      sizeof (ClvVjLevel) * d->batch_levels->len, error)
      && (!d->tab_dirty || (ensure_buffer (dev, &d->xtab, &d->xtab_bytes,
              sizeof (cl_int2) * MAX (d->xtab_host->len, 1), error)
          && ensure_buffer (dev, &d->ytab, &d->ytab_bytes,
              sizeof (cl_int2) * MAX (d->ytab_host->len, 1), error)));
}

static gboolean
is_detection (ClvVjDetector * d, cl_kernel kernel)
{
  return kernel == d->k_uber || kernel == d->k_small || kernel == d->k_simple;
}

/* Enqueues a kernel.  A detection launch keeps its event, on which the
 * batch's read-back waits; the others keep theirs only where the device
 * records kernel times (clv_vj_detector_kernel_ms), as an event costs
 * every launch host time. */
static gboolean
enqueue (ClvVjDetector * d, cl_kernel kernel, cl_uint dims,
    const size_t * global, const size_t * local, GError ** error)
{
  const gboolean keep = d->dev->profiling || is_detection (d, kernel);
  cl_event ev = NULL;

  CLV_CHECK (clEnqueueNDRangeKernel (d->dev->queue, kernel, dims, NULL,
          global, local, 0, NULL, keep ? &ev : NULL), error, fail);
  g_ptr_array_add (d->launches, kernel);
  if (keep) {
    g_ptr_array_add (d->events, ev);
    g_ptr_array_add (d->event_kernels, kernel);
  }
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

/* The part of the frame searched: `region`, or all of it. */
static ClvRect
frame_region (const ClvVjFrame * fr)
{
  if (fr->region.width > 0)
    return fr->region;
  return (ClvRect) {
  0, 0, fr->image.image.width, fr->image.image.height};
}

static gboolean
same_source (const ClvVjFrame * a, const ClvVjFrame * b)
{
  const ClvLumaImage *x = &a->image, *y = &b->image;

  return a->frame == b->frame && x->image.width == y->image.width
      && x->image.height == y->image.height && x->image.bpp == y->image.bpp
      && x->image.stride == y->image.stride
      && x->image.offset == y->image.offset && x->r == y->r && x->g == y->g
      && x->b == y->b;
}

/* Groups the batch's frames into the pyramid's launches (d->sources) and
 * sets where each level reads its frame; packed RGB frames read the luma
 * of their group's bounding box, computed first into d->luma. */
static gboolean
plan_sources (ClvVjDetector * d, ClvVjFrame ** frames, guint n,
    GError ** error)
{
  gsize luma_bytes = 0;

  g_array_set_size (d->sources, 0);
  for (guint i = 0; i < n;) {
    ClvVjSource src = { i, 0, G_MAXINT, G_MAXINT, 0, 0, luma_bytes };
    int x1 = 0, y1 = 0;
    for (; i < n && same_source (frames[src.first], frames[i]); i++) {
      const ClvRect r = frame_region (frames[i]);
      src.bx = MIN (src.bx, r.x);
      src.by = MIN (src.by, r.y);
      x1 = MAX (x1, r.x + r.width);
      y1 = MAX (y1, r.y + r.height);
      src.n++;
    }
    src.bw = x1 - src.bx;
    src.bh = y1 - src.by;
    if (frames[src.first]->image.r >= 0)
      luma_bytes += (gsize) src.bw * src.bh;
    g_array_append_val (d->sources, src);
  }
  for (guint k = 0; k < d->sources->len; k++) {
    const ClvVjSource *src = &g_array_index (d->sources, ClvVjSource, k);
    for (guint i = src->first; i < src->first + src->n; i++) {
      const ClvLumaImage *f = &frames[i]->image;
      const ClvRect r = frame_region (frames[i]);
      const gsize ofs = f->r >= 0 ? src->luma_ofs + (gsize) (r.y - src->by)
          * src->bw + (r.x - src->bx) : f->image.offset + (gsize) r.y
          * f->image.stride + r.x;
      for (int l = 0; l < d->frame_geo[i]->n_levels; l++) {
        ClvVjLevel *lv = &g_array_index (d->batch_levels, ClvVjLevel,
            d->first_level[i] + l);
        lv->src_ofs = (cl_uint) ofs;
        lv->src_w = r.width;
        lv->src_h = r.height;
      }
    }
  }
  return luma_bytes == 0 || ensure_buffer (d->dev, &d->luma, &d->luma_bytes,
      luma_bytes, error);
}

/* Source k's luma plane: its frames' buffer, or for packed RGB their
 * bounding box's luma computed into d->luma; its row stride. */
static gboolean
enqueue_luma (ClvVjDetector * d, ClvVjFrame ** frames, guint k, cl_mem * luma,
    cl_uint * stride, GError ** error)
{
  const ClvVjSource *src = &g_array_index (d->sources, ClvVjSource, k);
  const ClvLumaImage *f = &frames[src->first]->image;
  cl_mem frame = frames[src->first]->frame;
  cl_uint ofs = (cl_uint) (f->image.offset + (gsize) src->by
      * f->image.stride + (gsize) src->bx * f->image.bpp);
  cl_uint fstride = (cl_uint) f->image.stride, ps = f->image.bpp;
  cl_uint r = f->r, g = f->g, b = f->b, dst_ofs = (cl_uint) src->luma_ofs;
  cl_int w = src->bw, h = src->bh;
  size_t g2[2] = { w, h };

  *luma = frame;
  *stride = fstride;
  if (f->r < 0)
    return TRUE;
  *luma = d->luma;
  *stride = (cl_uint) w;
  return clv_kernel_set_args (d->k_luma, error, CLV_ARG (frame),
      CLV_ARG (ofs), CLV_ARG (fstride), CLV_ARG (ps), CLV_ARG (r),
      CLV_ARG (g), CLV_ARG (b), CLV_ARG (w), CLV_ARG (h), CLV_ARG (d->luma),
      CLV_ARG (dst_ofs), CLV_ARGS_END)
      && enqueue (d, d->k_luma, 2, g2, NULL, error);
}

/* Step 1, first pass, one launch per source (d->sources): its frames'
 * luma (packed RGB only), then on a CPU (the cpu variant) their levels'
 * pixels and integrals, a work-item a level, else their levels' pixels
 * and the sums of their tiles.  A kernel cannot take a varying number of
 * buffers, so frames of different buffers take one launch each. */
static gboolean
enqueue_sources (ClvVjDetector * d, ClvVjFrame ** frames, GError ** error)
{
  const gboolean cpu = d->tune.variant == CLV_VJ_VARIANT_CPU;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs;
  const size_t wg = d->tune.band_wg;

  for (guint k = 0; k < d->sources->len; k++) {
    const ClvVjSource *src = &g_array_index (d->sources, ClvVjSource, k);
    cl_int first_level = (cl_int) d->first_level[src->first], n_levels = 0;
    size_t tiles = 0;
    cl_uint stride;
    cl_mem luma;

    for (guint i = src->first; i < src->first + src->n; i++) {
      n_levels += d->frame_geo[i]->n_levels;
      tiles += d->frame_geo[i]->band_tiles;
    }
    /* The first one clears the detection's counters. */
    cl_mem reset = k == 0 ? d->out : NULL;

    if (!enqueue_luma (d, frames, k, &luma, &stride, error))
      return FALSE;
    if (cpu ? !clv_kernel_set_args (d->k_cpu_levels, error, CLV_ARG (luma),
            CLV_ARG (stride), CLV_ARG (d->levels_mem), CLV_ARG (first_level),
            CLV_ARG (d->xtab), CLV_ARG (d->ytab), CLV_ARG (d->pixels),
            CLV_ARG (d->sbuf), CLV_ARG (sbuf_w), CLV_ARG (sq_ofs),
            CLV_ARG (reset), CLV_ARGS_END)
        || !enqueue_1d (d, d->k_cpu_levels, n_levels, 1, error)
        : !clv_kernel_set_args (d->k_sums, error, CLV_ARG (luma),
            CLV_ARG (stride), CLV_ARG (d->levels_mem), CLV_ARG (first_level),
            CLV_ARG (n_levels), CLV_ARG (d->xtab), CLV_ARG (d->ytab),
            CLV_ARG (d->pixels), CLV_ARG (d->band_sums),
            CLV_ARG (d->row_sums), CLV_ARG (reset), CLV_ARGS_END)
        || !enqueue_1d (d, d->k_sums, tiles * wg, wg, error))
      return FALSE;
  }
  return TRUE;
}

/* Step 1, second pass, one launch for the batch: the carries of every
 * band from the sums of the bands above it. */
static gboolean
enqueue_band_carry (ClvVjDetector * d, GError ** error)
{
  cl_int n_levels = d->batch_levels->len, total_cols = d->total_cols;
  const size_t wg = d->tune.band_wg;

  return clv_kernel_set_args (d->k_carry, error, CLV_ARG (d->levels_mem),
      CLV_ARG (n_levels), CLV_ARG (total_cols), CLV_ARG (d->band_sums),
      CLV_ARGS_END)
      && enqueue_1d (d, d->k_carry, clv_round_up (total_cols, wg), wg,
      error);
}

/* Step 1, last pass, one launch for the batch: every frame's integrals
 * (and tilted integrals) from its levels' pixels and the carries. */
static gboolean
enqueue_band_integrals (ClvVjDetector * d, GError ** error)
{
  cl_int first_level = 0, n_levels = d->batch_levels->len;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs;
  const size_t wg = d->tune.band_wg;

  return clv_kernel_set_args (d->k_integrals, error,
      CLV_ARG (d->levels_mem), CLV_ARG (first_level), CLV_ARG (n_levels),
      CLV_ARG (d->pixels), CLV_ARG (d->band_sums), CLV_ARG (d->row_sums),
      CLV_ARG (d->sbuf), CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARGS_END)
      && enqueue_1d (d, d->k_integrals, (size_t) d->band_tiles * wg, wg,
      error);
}

/* Step 1 for cascades with tilted features, one launch for the batch:
 * the tilted integrals from the levels' pixels. */
static gboolean
enqueue_tilted (ClvVjDetector * d, GError ** error)
{
  cl_int first_level = 0, n_levels = d->batch_levels->len;
  cl_int sbuf_w = d->sbuf_w, tilt_ofs = d->tilt_ofs, diag_w = d->diag_w;
  const size_t wg = d->tune.band_wg;

  return !d->shape.has_tilted
      || (clv_kernel_set_args (d->k_tilted, error, CLV_ARG (d->levels_mem),
          CLV_ARG (first_level), CLV_ARG (d->pixels), CLV_ARG (d->sbuf),
          CLV_ARG (sbuf_w), CLV_ARG (tilt_ofs), CLV_ARG (d->diag),
          CLV_ARG (diag_w), CLV_ARGS_END)
      && enqueue_1d (d, d->k_tilted, (size_t) n_levels * wg, wg, error));
}

/* Steps 2-5 on a CPU (the cpu variant): one launch over the segments of
 * every level of the batch, a few persistent work-items per core. */
static gboolean
enqueue_detect_cpu (ClvVjDetector * d, GError ** error)
{
  const int nx = d->shape.window_w - 2, ny = d->shape.window_h - 2;
  cl_int4 nofs = { {1 + d->sbuf_w, 1 + nx + d->sbuf_w,
          1 + d->sbuf_w * (1 + ny), 1 + nx + d->sbuf_w * (1 + ny)}
  };
  cl_double area = (double) nx * ny;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs;
  cl_int n_win = d->batch_win->len, total = d->total_tiles;
  cl_uint cap = d->out_cap;

  cl_int tilt_ofs = d->tilt_ofs;

  d->last_detect_wg = 1;
  return clv_kernel_set_args (d->k_uber, error, CLV_ARG (d->sbuf),
      CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARG (tilt_ofs), CLV_ARG (nofs),
      CLV_ARG (area),
      CLV_ARG (d->stages), CLV_ARG (d->nodes_mem), CLV_ARG (d->out),
      CLV_ARG (cap), CLV_ARG (d->weights), CLV_ARG (d->win_mem),
      CLV_ARG (n_win), CLV_ARG (total), CLV_ARGS_END)
      && enqueue_1d (d, d->k_uber, (size_t) d->tune.groups_per_cu
      * d->dev->compute_units, 1, error);
}

/* Steps 2-5 over every window of the batch: the detection kernel(s),
 * writing into d->out. */
static gboolean
enqueue_detect (ClvVjDetector * d, GError ** error)
{
  const int nx = d->shape.window_w - 2, ny = d->shape.window_h - 2;
  cl_int4 nofs = { {1 + d->sbuf_w, 1 + nx + d->sbuf_w,
          1 + d->sbuf_w * (1 + ny), 1 + nx + d->sbuf_w * (1 + ny)}
  };
  const double area_d = (double) nx * ny;
  const float area_f = (float) area_d;
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs, n_stages = d->shape.n_stages;
  cl_uint cap = d->out_cap;
  cl_int want = d->want_weights;
  const gboolean tiled = d->tune.variant == CLV_VJ_VARIANT_TILED;
  /* A batch of few tiles runs the small shape (VJ_SMALL_WG). */
  const gboolean small = tiled && d->k_small && d->total_tiles
      <= (gint64) d->tune.small_tiles * d->dev->compute_units;
  cl_kernel detect = small ? d->k_small : d->k_uber;
  size_t g[2], l[2];
  cl_uint arg;

  if (d->tune.variant == CLV_VJ_VARIANT_CPU)
    return enqueue_detect_cpu (d, error);

  for (int k = 0; k < 2; k++) {
    cl_kernel kern = k ? detect : d->k_simple;
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
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_mem), &d->weights),
        error, fail);
    CLV_CHECK (clSetKernelArg (kern, arg++, sizeof (cl_int), &want), error,
        fail);
  }

  if (d->tune.variant == CLV_VJ_VARIANT_SIMPLE) {
    d->last_detect_wg = d->tune.simple_wg;
    for (guint i = 0; i < d->batch_win->len; i++) {
      const ClvVjWindows *w = &g_array_index (d->batch_win, ClvVjWindows, i);
      cl_int si = i;
      arg = 12;
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int), &si),
          error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->layer_ofs), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->ystep), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->nx), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_simple, arg++, sizeof (cl_int),
              &w->ny), error, fail);
      l[0] = d->tune.simple_wg;
      l[1] = 1;
      g[0] = clv_round_up (w->nx, l[0]);
      g[1] = w->ny;
      if (!enqueue (d, d->k_simple, 2, g, l, error))
        return FALSE;
    }
  } else {
    cl_int n_win = d->batch_win->len;
    /* Windows, or the tiled variant's tiles. */
    cl_int total = tiled ? d->total_tiles : d->total_windows;
    arg = 12;
    CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_mem),
            &d->win_mem), error, fail);
    CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_int), &n_win),
        error, fail);
    CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_int), &total),
        error, fail);
    if (tiled) {
      const int tc = clv_vj_tile_cols (&d->tune, &d->shape);
      cl_int tilt_ofs = d->tilt_ofs;
      cl_int4 tile_nofs = { {1 + tc, 1 + nx + tc, 1 + tc * (1 + ny),
              1 + nx + tc * (1 + ny)}
      };
      CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_int),
              &tilt_ofs), error, fail);
      CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_mem),
              &d->tile_nodes), error, fail);
      CLV_CHECK (clSetKernelArg (detect, arg++, sizeof (cl_int4),
              &tile_nofs), error, fail);
    }
    d->last_detect_wg = small ? d->tune.small_wg : d->tune.wg;
    if (!enqueue_1d (d, detect, (size_t) d->last_detect_wg * (small ?
                d->tune.small_groups_per_cu : d->tune.groups_per_cu)
            * d->dev->compute_units, d->last_detect_wg, error))
      return FALSE;
  }
  return TRUE;

fail:
  return FALSE;
}

/* Clears the count and work counter of d->out through `queue`. */
static gboolean
zero_counters (ClvVjDetector * d, cl_command_queue queue, cl_event * event,
    GError ** error)
{
  /* Static: the write is not blocking. */
  static const cl_uint zero[2] = { 0, 0 };

  CLV_CHECK (clEnqueueWriteBuffer (queue, d->out, CL_FALSE, 0, sizeof (zero),
          zero, 0, NULL, event), error, fail);
  return TRUE;
fail:
  return FALSE;
}

gboolean
clv_vj_request_valid (const ClvLumaImage * f, const ClvVjParams * p,
    GError ** error)
{
  /* Window corners travel as 16-bit coordinates. */
  if (f->image.width < 1 || f->image.height < 1
      || f->image.width > CLV_VJ_MAX_SIDE
      || f->image.height > CLV_VJ_MAX_SIDE) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "A %dx%d frame is larger than the detector takes (%d pixels a "
        "side at most): scale it down (videoscale) or crop it",
        f->image.width, f->image.height, CLV_VJ_MAX_SIDE);
    return FALSE;
  }
  if (!(p->scale_factor > 1.0)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "scale-factor %g must be larger than 1", p->scale_factor);
    return FALSE;
  }
  return TRUE;
}

/* Whether the packed planes of frames of `g` fit: the kernels index them
 * with ints, and they take a quarter of the device's memory at most. */
static gboolean
geometry_fits (ClvVjDetector * d, const ClvVjGeometry * g, GError ** error)
{
  const gsize planes = d->shape.has_tilted ? 3 : 2;
  const gsize max_values = MIN ((gsize) G_MAXINT,
      d->dev->global_mem_size / 4 / sizeof (cl_uint));

  if ((gsize) g->band_w * clv_round_up (g->band_h, 256) * planes <=
      max_values)
    return TRUE;
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %dx%d frame is too "
      "large for the detector on %s (%" G_GSIZE_FORMAT " integral values per "
      "plane, %" G_GSIZE_FORMAT " at most): scale it down or raise min-size",
      g->w, g->h, d->dev->device_name, (gsize) g->band_w * g->band_h,
      max_values / planes);
  return FALSE;
}

gboolean
clv_vj_detector_check_frame (ClvVjDetector * d, int width, int height,
    const ClvVjParams * p, GError ** error)
{
  const ClvLumaImage f = clv_luma_image_gray (width, height, 0, width);
  ClvVjGeometry *g;

  if (!clv_vj_request_valid (&f, p, error))
    return FALSE;
  if (width < d->shape.window_w || height < d->shape.window_h) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %dx%d frame is "
        "smaller than the cascade's %dx%d detection window: no face fits; "
        "use larger frames or a cascade with a smaller window", width, height,
        d->shape.window_w, d->shape.window_h);
    return FALSE;
  }
  g = get_geometry (d, width, height, p, error);
  return g != NULL && (g->n_win == 0 || geometry_fits (d, g, error));
}

/* Bytes of a level weight on the device (real_t). */
static gsize
weight_size (const ClvVjDetector * d)
{
  return d->fp64 ? sizeof (cl_double) : sizeof (cl_float);
}

/* The raw windows' buffers (device and host) for `cap` windows. */
static gboolean
alloc_out (ClvVjDetector * d, guint cap, GError ** error)
{
  g_clear_pointer (&d->out, clReleaseMemObject);
  g_clear_pointer (&d->weights, clReleaseMemObject);
  g_free (d->out_host);
  g_free (d->weights_host);
  d->out_cap = cap;
  d->out_host = g_new (guint32, 2 + 2 * (gsize) cap);
  d->weights_host = g_malloc (weight_size (d) * cap);
  d->out = clv_buffer_new (d->dev, CL_MEM_READ_WRITE,
      (2 + 2 * (gsize) cap) * sizeof (cl_uint), error);
  d->weights = d->out ? clv_buffer_new (d->dev, CL_MEM_READ_WRITE,
      weight_size (d) * cap, error) : NULL;
  return d->weights != NULL;
}

/* Level weight k of the last read-back. */
static double
read_weight (const ClvVjDetector * d, guint k)
{
  return d->fp64 ? ((const double *) d->weights_host)[k]
      : ((const float *) d->weights_host)[k];
}

gboolean
clv_vj_region_valid (const ClvLumaImage * f, const ClvRect * r,
    const ClvVjParams * p, GError ** error)
{
  if (!clv_vj_request_valid (f, p, error))
    return FALSE;
  if (r->width != 0 && (r->x < 0 || r->y < 0 || r->width < 1
          || r->height < 1 || r->x + r->width > f->image.width
          || r->y + r->height > f->image.height)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "Invalid detection "
        "request: region %dx%d at %d,%d is not inside the %dx%d frame",
        r->width, r->height, r->x, r->y, f->image.width, f->image.height);
    return FALSE;
  }
  return TRUE;
}

/* Writes `data` to `mem` on the detector's copies queue unless it is what
 * was written there last (`last`, updated), and counts the write. */
static gboolean
upload_changed (ClvVjDetector * d, cl_mem mem, GArray * last,
    const GArray * data, gboolean force, guint * writes, GError ** error)
{
  const gsize bytes = (gsize) data->len * g_array_get_element_size (last);

  if (!force && last->len == data->len
      && memcmp (last->data, data->data, bytes) == 0)
    return TRUE;
  g_array_set_size (last, 0);
  g_array_append_vals (last, data->data, data->len);
  CLV_CHECK (clEnqueueWriteBuffer (d->copies, mem, CL_FALSE, 0, bytes,
          last->data, 0, NULL, NULL), error, fail);
  (*writes)++;
  return TRUE;
fail:
  return FALSE;
}

/* After a failed batch the device's tables are unknown: the next batch
 * writes them all. */
static void
forget_tables (ClvVjDetector * d)
{
  g_array_set_size (d->tab_serials, 0);
  g_array_set_size (d->last_win, 0);
  g_array_set_size (d->last_levels, 0);
  g_array_set_size (d->last_xtab, 0);
  g_array_set_size (d->last_ytab, 0);
}

/* The batch's tables on the device: those that changed since the last
 * batch (a stream of one frame size changes none), on the copies queue,
 * which the device's queue then waits for. */
static gboolean
upload_tables (ClvVjDetector * d, GError ** error)
{
  guint writes = 0;
  cl_event copied = NULL;
  gboolean ok;

  /* A buffer grown by prepare_batch holds nothing yet. */
  ok = upload_changed (d, d->win_mem, d->last_win, d->batch_win,
      d->win_fresh, &writes, error)
      && upload_changed (d, d->levels_mem, d->last_levels, d->batch_levels,
      d->levels_fresh, &writes, error)
      && (!d->tab_dirty || (upload_changed (d, d->xtab, d->last_xtab,
              d->xtab_host, TRUE, &writes, error)
          && upload_changed (d, d->ytab, d->last_ytab, d->ytab_host, TRUE,
              &writes, error)));
  if (!ok || writes == 0)
    return ok;
  CLV_CHECK (clEnqueueMarkerWithWaitList (d->copies, 0, NULL, &copied),
      error, fail);
  CLV_CHECK (clFlush (d->copies), error, fail);
  CLV_CHECK (clEnqueueBarrierWithWaitList (d->dev->queue, 1, &copied, NULL),
      error, fail);
  clReleaseEvent (copied);
  return TRUE;
fail:
  g_clear_pointer (&copied, clReleaseEvent);
  return FALSE;
}

/* The raw windows of the batch, read back: the counters and the first
 * windows in one read, the rest (rare) in a second. */
static gboolean
read_windows (ClvVjDetector * d, guint * count, GError ** error)
{
  const gsize first = MIN (d->out_cap, READ_AHEAD);

  if (!clv_read_buffer_after (d->dev, d->copies,
          g_ptr_array_index (d->events, d->events->len - 1), d->out, 0,
          (2 + 2 * first) * sizeof (cl_uint), d->out_host, error))
    return FALSE;
  *count = d->out_host[0];
  return *count <= first || *count > d->out_cap
      || clv_read_buffer (d->dev, d->out, (2 + 2 * first) * sizeof (cl_uint),
      2 * (gsize) (*count - first) * sizeof (cl_uint),
      d->out_host + 2 + 2 * first, error);
}

/* Runs frames[0..n) (all with windows, fitting in one packed buffer) as
 * one batch and fills their candidates. */
static gboolean
run_batch (ClvVjDetector * d, ClvVjFrame ** frames, ClvVjGeometry ** geo,
    guint n, GError ** error)
{
  ClvVjKeyed *keyed;
  guint count;
  gboolean ok = FALSE;

  if (!prepare_batch (d, geo, n, error) || !plan_sources (d, frames, n,
          error))
    goto fail;
  d->want_weights = FALSE;
  for (guint i = 0; i < n; i++)
    d->want_weights |= frames[i]->params.output_reject_levels;
  if (d->out == NULL && !alloc_out (d, INITIAL_CAPACITY, error))
    goto fail;
  if (!upload_tables (d, error) || !enqueue_sources (d, frames, error)
      || (d->tune.variant != CLV_VJ_VARIANT_CPU
          && (!enqueue_band_carry (d, error)
              || !enqueue_band_integrals (d, error)))
      || !enqueue_tilted (d, error) || !enqueue_detect (d, error))
    goto fail;
  for (;;) {
    if (!read_windows (d, &count, error))
      goto fail;
    if (count <= d->out_cap)
      break;
    /* More windows than room: grow and run the detection again. */
    if (!alloc_out (d, (guint) clv_round_up (count + count / 2, 1024), error)
        || !zero_counters (d, d->dev->queue, NULL, error)
        || !enqueue_detect (d, error))
      goto fail;
  }
  if (d->want_weights && count > 0
      && !clv_read_buffer (d->dev, d->weights, 0, weight_size (d) * count,
          d->weights_host, error))
    goto fail;

  /* A window's frame, level, row and column as one key: in key order each
   * frame's windows come as OpenCV finds them (level, row, column). */
  keyed = g_new (ClvVjKeyed, MAX (count, 1));
  for (guint i = 0; i < count; i++) {
    const guint32 *e = d->out_host + 2 + 2 * i;
    keyed[i].key = (guint64) g_array_index (d->win_frame, int, e[0]) << 48
        | (guint64) g_array_index (d->win_level, int, e[0]) << 32 | e[1];
    keyed[i].index = i;
  }
  clv_vj_sort_keyed (keyed, count);
  for (guint k = 0; k < count; k++) {
    const guint64 key = keyed[k].key;
    const guint f = (guint) (key >> 48);
    const ClvRect r = clv_vj_candidate_rect (&geo[f]->scales[(key >> 32)
            & 0xffff], (int) (key & 0xffff), (int) ((key >> 16) & 0xffff));
    g_array_append_val (frames[f]->candidates, r);
    if (frames[f]->params.output_reject_levels) {
      const double w = read_weight (d, keyed[k].index);
      g_array_append_val (frames[f]->weights, w);
    }
  }
  g_free (keyed);
  ok = TRUE;
fail:
  /* Commands of a failed batch may still run, reading the host tables and
   * writing the detector's buffers: they finish before a retry reuses
   * them (what finish says adds nothing to the batch's own error). */
  if (!ok) {
    clFinish (d->copies);
    clFinish (d->dev->queue);
    forget_tables (d);
  }
  return ok;
}

gboolean
clv_vj_detector_candidates_batch (ClvVjDetector * d, ClvVjFrame * frames,
    guint n, GError ** error)
{
  const int planes = d->shape.has_tilted ? 3 : 2;
  /* As geometry_fits; the window table is __constant. */
  const gsize max_values = MIN ((gsize) G_MAXINT,
      d->dev->global_mem_size / 4 / sizeof (cl_uint));
  const guint max_win = MAX_BATCH_SCALES;
  ClvVjGeometry **geo = g_new0 (ClvVjGeometry *, MAX (n, 1));
  ClvVjFrame **fr = g_new0 (ClvVjFrame *, MAX (n, 1));
  guint m = 0, n_win = 0;
  int w = 0;
  gboolean ok = FALSE;

  g_ptr_array_set_size (d->events, 0);
  g_ptr_array_set_size (d->event_kernels, 0);
  g_ptr_array_set_size (d->launches, 0);

  for (guint i = 0; i < n; i++) {
    const ClvLumaImage *f = &frames[i].image;
    const ClvVjParams *p = &frames[i].params;
    ClvVjGeometry *g;
    ClvRect r;

    if (frames[i].candidates == NULL)
      frames[i].candidates = g_array_new (FALSE, FALSE, sizeof (ClvRect));
    if (frames[i].weights == NULL)
      frames[i].weights = g_array_new (FALSE, FALSE, sizeof (double));
    g_array_set_size (frames[i].candidates, 0);
    g_array_set_size (frames[i].weights, 0);
    if (!clv_vj_region_valid (f, &frames[i].region, p, error))
      goto out;
    r = frame_region (&frames[i]);
    if (!(g = get_geometry (d, r.width, r.height, p, error)))
      goto out;
    if (g->n_win == 0)
      continue;
    if (!geometry_fits (d, g, error))
      goto out;
    /* Start a new batch where this frame would not fit. */
    geo[m] = g;
    if (m > 0 && (batch_plane (geo, m + 1, MAX (w, g->band_w))
            * planes > max_values || n_win + g->n_win > max_win)) {
      if (!run_batch (d, fr, geo, m, error))
        goto out;
      geo[0] = g;
      m = 0;
      n_win = 0;
      w = 0;
    }
    fr[m++] = &frames[i];
    n_win += g->n_win;
    w = MAX (w, g->band_w);
  }
  ok = m == 0 || run_batch (d, fr, geo, m, error);
  if (ok)                       /* the batches have been read back */
    clv_device_busy_note (d->dev, d->events);
out:
  g_free (geo);
  g_free (fr);
  return ok;
}

GArray *
clv_vj_detector_candidates (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, GError ** error)
{
  ClvVjFrame fr = { frame, *f, {0, 0, 0, 0}, *p, NULL, NULL };
  gboolean ok = clv_vj_detector_candidates_batch (d, &fr, 1, error);

  g_clear_pointer (&fr.weights, g_array_unref);
  if (!ok)
    g_clear_pointer (&fr.candidates, g_array_unref);
  return fr.candidates;
}

GArray *
clv_vj_frame_faces (const ClvVjFrame * fr, int n_stages)
{
  return clv_vj_group_faces_scored (fr->candidates,
      fr->params.output_reject_levels ? fr->weights : NULL, n_stages,
      fr->params.min_neighbors, frame_region (fr).width,
      frame_region (fr).height);
}

GArray *
clv_vj_detector_detect (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, GError ** error)
{
  ClvVjFrame fr = { frame, *f, {0, 0, 0, 0}, *p, NULL, NULL };
  GArray *faces = NULL;

  if (clv_vj_detector_candidates_batch (d, &fr, 1, error))
    faces = clv_vj_frame_faces (&fr, d->shape.n_stages);
  g_clear_pointer (&fr.candidates, g_array_unref);
  g_clear_pointer (&fr.weights, g_array_unref);
  return faces;
}

GPtrArray *
clv_vj_detector_detect_regions (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvRect * regions, guint n,
    const ClvVjParams * p, GError ** error)
{
  ClvVjFrame *fr = g_new0 (ClvVjFrame, MAX (n, 1));
  GPtrArray *faces = NULL;

  for (guint i = 0; i < n; i++)
    fr[i] = (ClvVjFrame) {
    frame, *f, regions[i], *p, NULL, NULL};
  if (clv_vj_detector_candidates_batch (d, fr, n, error)) {
    faces = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    for (guint i = 0; i < n; i++)
      g_ptr_array_add (faces, clv_vj_frame_faces (&fr[i], d->shape.n_stages));
  }
  for (guint i = 0; i < n; i++) {
    g_clear_pointer (&fr[i].candidates, g_array_unref);
    g_clear_pointer (&fr[i].weights, g_array_unref);
  }
  g_free (fr);
  return faces;
}

guint
clv_vj_detector_launches (ClvVjDetector * d, const char *kernel)
{
  guint n = 0;

  for (guint i = 0; i < d->launches->len; i++) {
    char name[64] = "";
    clGetKernelInfo (d->launches->pdata[i], CL_KERNEL_FUNCTION_NAME,
        sizeof name - 1, name, NULL);
    n += kernel == NULL || strcmp (name, kernel) == 0;
  }
  return n;
}

void
clv_vj_detector_kernel_ms (ClvVjDetector * d, double *pyramid_ms,
    double *detect_ms)
{
  *pyramid_ms = *detect_ms = 0;
  for (guint i = 0; i < d->events->len; i++) {
    const double ms = clv_event_seconds (d->events->pdata[i]) * 1e3;
    if (is_detection (d, d->event_kernels->pdata[i]))
      *detect_ms += ms;
    else
      *pyramid_ms += ms;
  }
}

char *
clv_vj_detector_kernel_profile (ClvVjDetector * d)
{
  GString *json = g_string_new ("{");
  GHashTable *ms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GHashTableIter it;
  gpointer k, v;

  for (guint i = 0; i < d->events->len; i++) {
    char name[64] = "";
    double *t;

    clGetKernelInfo (d->event_kernels->pdata[i], CL_KERNEL_FUNCTION_NAME,
        sizeof (name) - 1, name, NULL);
    if (!(t = g_hash_table_lookup (ms, name))) {
      t = g_new0 (double, 1);
      g_hash_table_insert (ms, g_strdup (name), t);
    }
    *t += clv_event_seconds (d->events->pdata[i]) * 1e3;
  }
  g_hash_table_iter_init (&it, ms);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_string_append_printf (json, "%s\"%s\": %.3f", json->len > 1 ? ", " : "",
        (char *) k, *(double *) v);
  g_hash_table_unref (ms);
  g_string_append (json, "}");
  return g_string_free (json, FALSE);
}

gboolean
clv_vj_detector_read_level (ClvVjDetector * d, int level, guint8 * pixels,
    ClvVjIntegrals * in, GError ** error)
{
  cl_command_queue q = d->dev->queue;
  const ClvVjLevel *l;
  size_t origin[3], region[3];

  if (d->n_frames != 1 || level < 0 || level >= d->frame_geo[0]->n_levels)
    return FALSE;
  l = &g_array_index (d->batch_levels, ClvVjLevel, level);
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
