/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside the Viola–Jones detector: the device tables it shares with
 * kernels/vj_pyramid.cl and kernels/vj_detect.cl, the detector's state, and
 * the functions its three files (the detector in clv-vj.c, its tuning in
 * clv-vj-tune.c, its kernels' code generation in clv-vj-codegen.c) call in
 * one another.  Not installed. */
#pragma once

#include "clv-vj.h"

G_BEGIN_DECLS

/* Past every stage: no cooperative evaluation. */
#define NO_COOP_STAGE (1 << 20)

/* kernels/vj_pyramid.cl's Level. */
typedef struct
{
  cl_int width, height;
  cl_int layer_ofs;
  cl_int xtab, ytab;
  cl_int xfirst, xend, yfirst, yend;
  cl_int first_tile, first_col;
  cl_int v_ofs, h_ofs;
  cl_int pix_ofs;
  cl_uint src_ofs;              /* its frame's luma in its launch's buffer */
  cl_int src_w, src_h;
} ClvVjLevel;

/* kernels/vj_detect.cl's Scale: the levels that have windows. */
typedef struct
{
  cl_int layer_ofs;
  cl_int ystep;
  cl_int nx;
  cl_int first_window;
  cl_int ny;
  cl_int tiles_x;               /* the tiled variant's tiles */
  cl_int first_tile;
  cl_int pad;
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

/* kernels/vj_detect.cl's Node of an LBP cascade: the offsets of the 4 x 4
 * corners of its feature's 3 x 3 blocks, row by row, its subset, the next
 * node (> 0) or the leaf value for either side. */
typedef struct
{
  cl_int ofs[16];
  cl_int subset[8];
  cl_int next[2];
  cl_float leaf[2];
} ClvVjLbpNode;

/* A launch of the pyramid's first pass: frames [first, first + n) of the
 * batch, which share a buffer and its layout (crops of one frame); for
 * packed RGB the luma of their bounding box (bx, by, bw x bh) goes into the
 * detector's luma buffer at luma_ofs. */
typedef struct
{
  guint first, n;
  int bx, by, bw, bh;
  gsize luma_ofs;
} ClvVjSource;

/* One frame geometry (size and parameters): OpenCV's scales, the packed
 * layout of the levels in a band `band_w` x `band_h` (levels[].layer_ofs
 * holds y * band_w + x, relative to the band), the resize tables and the
 * levels that have windows.  A batch stacks the frames' bands in one
 * buffer with a common row stride. */
typedef struct
{
  int w, h;
  ClvVjParams params;
  int n_levels;
  ClvVjScale *scales;
  ClvVjLevel *levels;
  int n_win;                    /* levels with windows */
  ClvVjWindows *win;
  int *win_level;               /* level of each win[] */
  int total_windows, max_level_w, pix;
  /* vj_band_*: tiles, columns, column sums of bands, row sums of tiles */
  int band_tiles, total_cols, total_sums, total_row_sums;
  int band_w, band_h;
  GArray *xtab, *ytab;          /* cl_int2: the resize tables (host) */
  guint64 serial;               /* the detector's count of geometries made */
} ClvVjGeometry;

struct _ClvVjDetector
{
  ClvDevice *dev;
  ClvVjTuning tune;
  gboolean fp64;
  int coop_stage;               /* as built: NO_COOP_STAGE if sums are not exact */
  int unrolled_stages;          /* stages compiled into vj_detect_tiled */
  gboolean shuffle;             /* the cooperative stages sum by shuffles */

  /* The cascade (its stages live on the device; its nodes are laid out for
   * each row stride and plane size). */
  ClvCascade shape;             /* counts and sizes; arrays below */
  ClvCascadeTree *trees;
  ClvCascadeNode *nodes;
  float *leaves;
  ClvCascadeFeature *features;
  gint32 *subsets;              /* LBP */
  cl_mem stages;

  /* k_uber: vj_detect_uber, or vj_detect_tiled for the tiled variant;
   * k_small: vj_detect_tiled built for VJ_SMALL_WG (NULL if none). */
  cl_kernel k_luma, k_sums, k_carry, k_integrals, k_tilted, k_simple,
      k_uber, k_small;
  int last_detect_wg;
  cl_kernel k_cpu_levels;       /* the cpu variant's pyramid */
  cl_mem tile_nodes;            /* the nodes laid out for a tile */

  GPtrArray *geometries;        /* ClvVjGeometry, most recent last */

  /* The last batch: its frames' geometries, bands stacked in one buffer
   * `sbuf_w` wide, planes `plane` values apart. */
  guint n_frames;
  ClvVjGeometry **frame_geo;
  int sbuf_w, plane, sq_ofs, tilt_ofs;
  int nodes_w, nodes_plane;     /* what nodes_mem is laid out for */
  cl_mem nodes_mem;
  /* Every frame's levels with batch offsets, frame after frame (the host
   * copy stays until the next batch: the write is not blocking). */
  GArray *batch_levels;         /* ClvVjLevel */
  guint *first_level;           /* per frame: its first in batch_levels */
  cl_mem levels_mem;
  gsize levels_mem_bytes;
  int total_cols;               /* vj_band_carry's columns over the batch */
  int band_tiles, total_sums, total_row_sums;    /* over the batch */
  int total_pix;                /* the levels' pixels over the batch */
  int total_windows, total_tiles;       /* over the batch */
  GArray *batch_win;            /* ClvVjWindows of every frame */
  GArray *win_frame, *win_level;        /* int per batch_win */
  cl_mem win_mem;
  gsize win_mem_bytes;
  int diag_w;                   /* vj_tilted's rows of diagonal sums */
  cl_mem sbuf, pixels, diag, band_sums, row_sums;
  gsize sbuf_bytes, pixels_bytes, diag_bytes, band_sums_bytes,
      row_sums_bytes;

  cl_mem luma;                  /* packed RGB frames: their luma */
  gsize luma_bytes;
  GArray *sources;              /* ClvVjSource of the batch */
  /* What the tables on the device hold (written again only when the
   * batch's differ, or the buffer is new). */
  GArray *last_win, *last_levels, *last_xtab, *last_ytab;
  gboolean win_fresh, levels_fresh;     /* their buffers made this batch */
  /* The batch's resize tables, every frame's geometry's in turn, and the
   * geometries they were made for (uploaded again only when those change). */
  cl_mem xtab, ytab;
  gsize xtab_bytes, ytab_bytes;
  GArray *xtab_host, *ytab_host;  /* the batch's (host) */
  GArray *tab_serials;          /* guint64: the geometries of the tables */
  gboolean tab_dirty;
  guint64 n_geometries;         /* made so far: their serials */
  cl_mem out;                   /* count, work counter, then (scale, y<<16|x) */
  cl_mem weights;               /* level weights (real_t) of out's windows */
  gboolean want_weights;        /* the batch has a frame with scores */
  /* The batch's tables, counters and read-back: an in-order queue of the
   * detector's own, so that they are copied while the batches before run,
   * not between their kernels and this batch's on the device's queue. */
  cl_command_queue copies;
  /* The last call's launches (every sub-batch): the cl_kernel of each
   * (not owned), and the events of those that keep one (see enqueue in
   * clv-vj.c) with their kernels. */
  GPtrArray *launches;
  GPtrArray *events;
  GPtrArray *event_kernels;
  guint out_cap;
  guint32 *out_host;
  void *weights_host;           /* out_cap doubles, or floats without fp64 */
};

/* clv-vj-tune.c */

/* Whether the cooperative stages can sum by warp shuffles on `dev`. */
gboolean clv_vj_shuffle_fits (ClvDevice * dev, const ClvVjTuning * t);

/* Whether `t` is a tuning `dev` can run; a message naming every value if
 * not. */
gboolean clv_vj_tuning_check (ClvDevice * dev, const ClvVjTuning * t,
    GError ** error);

/* Whether vj_detect_tiled's tile for cascade `c` fits `dev`; the device's
 * own tuning (`asked` FALSE) falls back to the uberkernel over chunks. */
gboolean clv_vj_tuning_fit_tile (ClvDevice * dev, ClvVjTuning * t,
    const ClvCascade * c, gboolean asked, GError ** error);

/* Columns and rows of vj_detect_tiled's tile of integrals. */
int clv_vj_tile_cols (const ClvVjTuning * t, const ClvCascade * c);
int clv_vj_tile_rows (const ClvVjTuning * t, const ClvCascade * c);
/* The nodes of a stage vj_detect_tiled's second shape (VJ_SMALL_WG)
 * copies into local memory: the cascade's most trees in a stage
 * (VJ_STAGE_NODES), or 0. */
int clv_vj_stage_nodes (const ClvVjTuning * t, const ClvCascade * c);

/* clv-vj-codegen.c */

/* The device nodes of the detector's cascade for row stride `step`:
 * ClvVjNode for Haar, ClvVjLbpNode for LBP, `*bytes` in all. */
void *clv_vj_layout_nodes (const ClvVjDetector * d, int step, int tilt_ofs,
    gsize * bytes);

/* Builds the detector's programs (with its stages compiled in where the
 * tuning asks) and creates its kernels and the tiled variant's nodes. */
gboolean clv_vj_build_kernels (ClvVjDetector * d,
    const ClvCascadeStage * stages, GError ** error);

G_END_DECLS
