/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones on OpenCL: host side of kernels/vj_pyramid.cl and
 * kernels/vj_detect.cl; see clv-vj.h. */
#include "clv-vj.h"
#include "clv-resize.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Raw windows read back with the counters in one go; more grow the buffer. */
#define INITIAL_CAPACITY 4096
/* Scales of one batch: the detection kernel keeps their table in
 * __constant memory (64 KiB on most GPUs). */
#define MAX_BATCH_SCALES 2048
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
  cl_mem xtab, ytab;
} ClvVjGeometry;

/* Geometries kept for frame sizes seen recently. */
#define GEOMETRY_CACHE 16

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
  cl_mem stages;

  /* k_uber: vj_detect_uber, or vj_detect_tiled for the tiled variant. */
  cl_kernel k_luma, k_sums, k_carry, k_integrals, k_tilted, k_simple,
      k_uber;
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
  cl_mem out;                   /* count, work counter, then (scale, y<<16|x) */
  /* The batch's tables, counters and read-back: an in-order queue of the
   * detector's own, so that they are copied while the batches before run,
   * not between their kernels and this batch's on the device's queue. */
  cl_command_queue copies;
  /* Events of the last call's launches (every sub-batch). */
  GPtrArray *events;
  GPtrArray *event_kernels;     /* the cl_kernel of each event (not owned) */
  guint out_cap;
  guint32 *out_host;
};

static int
tune_int (ClvDevice * dev, const char *name, int def)
{
  return (int) clv_device_tune_int (dev, name, def);
}

/* Whether the device's OpenCL compiler takes NVIDIA's -cl-nv-* options. */
static gboolean
has_nv_compiler_options (ClvDevice * dev)
{
  size_t n = 0;
  char *ext;
  gboolean found;

  if (clGetDeviceInfo (dev->device, CL_DEVICE_EXTENSIONS, 0, NULL, &n)
      != CL_SUCCESS || n == 0)
    return FALSE;
  ext = g_malloc0 (n + 1);
  clGetDeviceInfo (dev->device, CL_DEVICE_EXTENSIONS, n, ext, NULL);
  found = strstr (ext, "cl_nv_compiler_options") != NULL;
  g_free (ext);
  return found;
}

/* Whether the cooperative stages can sum by warp shuffles: NVIDIA's
 * compiler (inline PTX), warps of 32 and a window's work-items in one. */
static gboolean
shuffle_fits (ClvDevice * dev, const ClvVjTuning * t)
{
  return has_nv_compiler_options (dev) && dev->simd_width == 32
      && t->wg % 32 == 0 && t->coop_windows > 0
      && t->wg / t->coop_windows <= 32;
}

void
clv_vj_tuning_for_device (ClvDevice * dev, ClvVjTuning * t)
{
  const gboolean gpu = dev->simd_width > 1;
  /* On CPUs (PoCL) the plain kernel is 10-17% faster than the uberkernel,
   * whose barriers and local queues keep PoCL from vectorising across
   * work-items.  On GPUs the uberkernel over tiles in local memory: 11%
   * less detection time than over chunks at 1920x1280 in batches of 16
   * frames, 17% at 640x480, 20% on the crowded canvas (H100). */
  const char *variant = clv_device_tune_string (dev, "VJ_VARIANT",
      gpu ? "tiled" : "simple");

  t->variant = g_ascii_strcasecmp (variant, "simple") == 0 ?
      CLV_VJ_VARIANT_SIMPLE : g_ascii_strcasecmp (variant, "uber") == 0 ?
      CLV_VJ_VARIANT_UBER : g_ascii_strcasecmp (variant, "tiled") == 0 ?
      CLV_VJ_VARIANT_TILED : CLV_VJ_VARIANT_INVALID;
  /* The uberkernel over chunks, from the parameters of Table 1 of Jia,
   * Zhang, Yuan and Li, "Performance optimization of the Viola-Jones face
   * detection algorithm with OpenCL" (in Chinese):
   * N = one window per work-item; 8 (AMD) groups per compute unit; stages
   * 0-2 one window per work-item.  Its groups of one warp (32) and M = 2
   * on NVIDIA became groups of two warps with M = 4, as on AMD (a
   * wavefront, 64): fewer registers (40 against 57), more resident warps,
   * and the kernel 3-11% faster on an H100 and an H200.  Over tiles,
   * groups of four warps sharing a tile of 32 x 8 windows, 8 work-items to
   * a window in the cooperative stages (M = 16), were fastest in the H100
   * sweep; with stages compiled in, 16 to a window (M = 8) are 2-5%
   * faster, 5-8% with warp shuffles (below).  On NVIDIA 32 groups per
   * compute unit, not the paper's 12: a Hopper SM holds 64 warps, and an
   * H200 sweep was fastest at 32 on every frame.  On a CPU a group is a
   * few SIMD lanes. */
  const gboolean tiled = gpu && t->variant == CLV_VJ_VARIANT_TILED;
  t->wg = tune_int (dev, "VJ_WG", !gpu ? 8 : tiled ? 128 :
      (int) MAX (dev->simd_width, 64));
  t->chunk = tune_int (dev, "VJ_CHUNK", gpu ? t->wg : 64);
  t->tile_x = tune_int (dev, "VJ_TILE_X", 32);
  t->tile_y = tune_int (dev, "VJ_TILE_Y", 8);
  t->coop_windows = tune_int (dev, "VJ_COOP_WINDOWS", !gpu ? 2 : tiled ?
      8 : 4);
  t->unroll = tune_int (dev, "VJ_UNROLL", 1) != 0;
  /* Stages compiled in are cheap enough one window per work-item that the
   * cooperative stages start one later: 34% less detection time than the
   * node loop with stage 3 at 1920x1280 on the H100, against 31% with
   * stage 3. */
  t->coop_stage = tune_int (dev, "VJ_COOP_STAGE", tiled && t->unroll ? 4 : 3);
  /* With shuffles a warp needs no barrier between its windows: 5-7% less
   * detection time than without on the H100. */
  t->shuffle = tune_int (dev, "VJ_SHUFFLE", -1);
  t->groups_per_cu = tune_int (dev, "VJ_GROUPS_PER_CU",
      !gpu ? 4 : dev->simd_width >= 64 ? 8 : 32);
  /* Tiles of 16 rows by 128 columns were fastest on an H200 (64: as
   * fast; 8 or 32 rows: 5-23% slower); by 64 columns on PoCL, 13% less
   * than 16 at 1920x1280. */
  t->band_wg = tune_int (dev, "VJ_BAND_WG", gpu ? 128 : 64);
  t->band_rows = tune_int (dev, "VJ_BAND_ROWS", 16);
  t->simple_wg = tune_int (dev, "VJ_SIMPLE_WG", gpu ? 64 : 8);
  t->static_schedule = tune_int (dev, "VJ_STATIC", 0) != 0;
  t->max_registers = tune_int (dev, "VJ_MAX_REGISTERS", 0);
}

void
clv_vj_uber_tuning_for_device (ClvDevice * dev, ClvVjTuning * t)
{
  clv_vj_tuning_for_device (dev, t);
  if (t->variant == CLV_VJ_VARIANT_SIMPLE)
    t->variant = CLV_VJ_VARIANT_UBER;
}

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
  /* vj_detect_uber's queues A and B (12 bytes a window), reduction. */
  const gsize local_bytes = (gsize) (2 * t->wg + t->chunk) * 12 * 2
      + t->wg * 8 + 64;
  /* vj_band_integrals' tile, segment totals and carries (uint2). */
  const gsize band_bytes = t->band_rows < 1 ? 0 : ((gsize) t->band_rows
      * (t->band_wg + t->band_wg / t->band_rows) + t->band_wg
      + 2 * t->band_rows) * 8;

  if (t->variant == CLV_VJ_VARIANT_INVALID) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid VJ_VARIANT=%s in CLVISION_TUNE: uber, tiled or simple",
        clv_device_tune_string (dev, "VJ_VARIANT", ""));
    return FALSE;
  }
  if (t->max_registers != 0) {
    const gboolean nv = has_nv_compiler_options (dev);
    if (t->max_registers < 0 || !nv) {
      g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
          "Invalid VJ_MAX_REGISTERS=%d in CLVISION_TUNE: a register count "
          "for NVIDIA's OpenCL compiler (cl_nv_compiler_options), which %s "
          "%s", t->max_registers, dev->device_name, nv ? "has" :
          "does not have");
      return FALSE;
    }
  }
  if (t->wg < 1 || (gsize) t->wg > dev->max_work_group_size
      || t->chunk < 1 || t->tile_x < 1 || t->tile_y < 1
      || t->coop_windows < 1 || t->coop_windows > t->wg
      || t->wg % t->coop_windows != 0 || !is_pow2 (t->wg / t->coop_windows)
      || t->coop_stage < 0 || t->groups_per_cu < 1 || t->band_rows < 1
      || t->band_wg < t->band_rows || t->band_wg % t->band_rows != 0
      || (gsize) t->band_wg > dev->max_work_group_size
      || t->simple_wg < 1
      || (gsize) t->simple_wg > dev->max_work_group_size
      || local_bytes > dev->local_mem_size
      || band_bytes > dev->local_mem_size) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid vjfacedetect tuning for %s: VJ_WG=%d VJ_CHUNK=%d "
        "VJ_TILE_X=%d VJ_TILE_Y=%d VJ_COOP_WINDOWS=%d VJ_COOP_STAGE=%d "
        "VJ_GROUPS_PER_CU=%d VJ_BAND_WG=%d VJ_BAND_ROWS=%d VJ_SIMPLE_WG=%d "
        "(work-groups up to %" G_GSIZE_FORMAT
        ", VJ_WG / VJ_COOP_WINDOWS a power of two, VJ_BAND_WG a multiple "
        "of VJ_BAND_ROWS, local memory %"
        G_GUINT64_FORMAT " bytes)", dev->device_name, t->wg, t->chunk,
        t->tile_x, t->tile_y, t->coop_windows, t->coop_stage,
        t->groups_per_cu, t->band_wg, t->band_rows, t->simple_wg,
        dev->max_work_group_size, dev->local_mem_size);
    return FALSE;
  }
  if (t->shuffle < -1 || t->shuffle > 1
      || (t->shuffle == 1 && !shuffle_fits (dev, t))) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid VJ_SHUFFLE=%d in CLVISION_TUNE for %s: 0, 1 or -1 (where "
        "they can); warp shuffles need NVIDIA's OpenCL compiler, VJ_WG a "
        "multiple of 32 and VJ_WG / VJ_COOP_WINDOWS at most 32 (here "
        "VJ_WG=%d VJ_COOP_WINDOWS=%d)", t->shuffle, dev->device_name, t->wg,
        t->coop_windows);
    return FALSE;
  }
  return TRUE;
}

/* vj_detect_tiled's tile: the integrals under tile_x x tile_y windows at
 * OpenCV's largest step (2). */
static int
tile_cols (const ClvVjTuning * t, const ClvCascade * c)
{
  return (t->tile_x - 1) * 2 + c->window_w + 1;
}

static int
tile_rows (const ClvVjTuning * t, const ClvCascade * c)
{
  return (t->tile_y - 1) * 2 + c->window_h + 1;
}

/* The integrals in vj_detect_tiled's tile (sums, and tilted sums if the
 * cascade has tilted features). */
static gsize
tile_values (const ClvVjTuning * t, const ClvCascade * c)
{
  return (gsize) tile_cols (t, c) * tile_rows (t, c)
      * (c->has_tilted ? 2 : 1);
}

/* Local memory vj_detect_tiled needs: its tile, its two queues of a
 * tile's windows (each window's corner, index and variance
 * normalisation), the reduction's doubles and a few counters. */
#define TILE_QUEUES 2
#define QUEUE_ENTRY_BYTES (2 * sizeof (cl_int) + sizeof (cl_float))

static gsize
tile_local_bytes (const ClvVjTuning * t, const ClvCascade * c)
{
  return tile_values (t, c) * sizeof (cl_uint)
      + (gsize) t->tile_x * t->tile_y * TILE_QUEUES * QUEUE_ENTRY_BYTES
      + (gsize) t->wg * sizeof (cl_double) + 64;
}

/* Whether vj_detect_tiled's tile and queues for cascade `c` fit the
 * device's local memory, and the nodes' 16-bit offsets the tile (see
 * stump_arrays).  Where they do not, the device's own tuning
 * (`asked` FALSE: what the elements use) runs the uberkernel over chunks
 * instead; a tuning passed in is taken as asked, and refused. */
static gboolean
fit_tile (ClvDevice * dev, ClvVjTuning * t, const ClvCascade * c,
    gboolean asked, GError ** error)
{
  const gsize bytes = tile_local_bytes (t, c);

  if (t->variant != CLV_VJ_VARIANT_TILED || (bytes <= dev->local_mem_size
          && tile_values (t, c) <= G_MAXINT16))
    return TRUE;
  if (!asked) {
    g_info ("%s: tiles of %d x %d windows of %d x %d would need %"
        G_GSIZE_FORMAT " bytes of local memory for %" G_GSIZE_FORMAT
        " integrals (at most %d); the detector runs over chunks instead",
        dev->device_name, t->tile_x, t->tile_y, c->window_w, c->window_h,
        bytes, tile_values (t, c), G_MAXINT16);
    t->variant = CLV_VJ_VARIANT_UBER;
    return TRUE;
  }
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Invalid vjfacedetect tuning for %s: tiles of VJ_TILE_X=%d x "
      "VJ_TILE_Y=%d windows of %d x %d need %" G_GSIZE_FORMAT " bytes of "
      "local memory (the device has %" G_GUINT64_FORMAT ") for %"
      G_GSIZE_FORMAT " integrals (at most %d: the nodes address them in 16 "
      "bits)", dev->device_name, t->tile_x, t->tile_y, c->window_w,
      c->window_h, bytes, dev->local_mem_size, tile_values (t, c),
      G_MAXINT16);
  return FALSE;
}

static ClvVjNode *layout_nodes (const ClvVjDetector * d, int step,
    int tilt_ofs, int *count);

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
      || stages[n - 1].first_tree + stages[n - 1].n_trees > MAX_UNROLLED_TREES)
    return NULL;
  s = g_string_new ("#line 1 \"stages compiled in (common/clv-vj.c, "
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
 * rectangles' offsets (short4 each: fit_tile keeps them below 2^15), the
 * third's and the leaves, the weights with the threshold. */
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

static gboolean
build_kernels (ClvVjDetector * d, const ClvCascadeStage * stages,
    GError ** error)
{
  const ClvVjTuning *t = &d->tune;
  const gboolean tiled = t->variant == CLV_VJ_VARIANT_TILED;
  ClvVjNode *nodes = NULL;
  int n_nodes = 0;
  char *opts, *regs, *unrolled = NULL;
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
  clReleaseProgram (prog);
  if (d->k_tilted == NULL)
    return FALSE;

  if (tiled) {
    const int one_per_item = MIN (d->coop_stage, d->shape.n_stages);
    nodes = layout_nodes (d, tile_cols (t, &d->shape),
        tile_cols (t, &d->shape) * tile_rows (t, &d->shape), &n_nodes);
    unrolled = unrolled_stages_source (d, stages, nodes, one_per_item);
    d->unrolled_stages = unrolled ? one_per_item : 0;
  }
  regs = t->max_registers ? g_strdup_printf (" -cl-nv-maxrregcount=%d",
      t->max_registers) : g_strdup ("");
  opts = g_strdup_printf ("-DVJ_FP64=%d -DVJ_WG=%d -DVJ_CHUNK=%d "
      "-DVJ_COOP_WINDOWS=%d -DVJ_COOP_STAGE=%d -DVJ_STATIC=%d "
      "-DVJ_MAX_REGISTERS=%d -DVJ_TILE_X=%d -DVJ_TILE_Y=%d -DVJ_WIN_W=%d "
      "-DVJ_WIN_H=%d -DVJ_TILTED=%d -DVJ_STUMPS=%d -DVJ_N_TREES=%d "
      "-DVJ_UNROLLED=%d -DVJ_SHUFFLE=%d%s", d->fp64, t->wg, t->chunk,
      t->coop_windows, d->coop_stage, t->static_schedule, t->max_registers,
      tiled ? t->tile_x : 0, t->tile_y, d->shape.window_w, d->shape.window_h,
      d->shape.has_tilted, d->shape.is_stump_based, d->shape.n_trees,
      unrolled != NULL, d->shuffle, regs);
  g_free (regs);
  prog = clv_device_get_program_generated (d->dev, "vj_detect", unrolled,
      opts, error);
  g_free (opts);
  g_free (unrolled);
  if (prog) {
    d->k_simple = clv_kernel_new (prog, "vj_detect_simple", error);
    d->k_uber = d->k_simple ? clv_kernel_new (prog,
        tiled ? "vj_detect_tiled" : "vj_detect_uber", error) : NULL;
    clReleaseProgram (prog);
  }
  if (d->k_uber && tiled && d->shape.is_stump_based) {
    cl_int4 *arrays = stump_arrays (nodes, d->shape.n_trees);
    d->tile_nodes = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
        arrays, sizeof (cl_int4) * 3 * d->shape.n_trees, error);
    g_free (arrays);
  } else if (d->k_uber && tiled) {
    d->tile_nodes = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
        nodes, sizeof (ClvVjNode) * n_nodes, error);
  }
  g_free (nodes);
  return d->k_uber != NULL && (!tiled || d->tile_nodes != NULL);
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
  g_clear_pointer (&g->xtab, clReleaseMemObject);
  g_clear_pointer (&g->ytab, clReleaseMemObject);
  g_free (g);
}

ClvVjDetector *
clv_vj_detector_new (ClvDevice * dev, const ClvCascade * c,
    const ClvVjTuning * tuning, GError ** error)
{
  ClvVjDetector *d = g_new0 (ClvVjDetector, 1);
  cl_int st;

  d->dev = clv_device_ref (dev);
  d->events = g_ptr_array_new_with_free_func (release_event);
  d->event_kernels = g_ptr_array_new ();
  d->geometries = g_ptr_array_new_with_free_func (geometry_free);
  d->batch_levels = g_array_new (FALSE, FALSE, sizeof (ClvVjLevel));
  d->batch_win = g_array_new (FALSE, FALSE, sizeof (ClvVjWindows));
  d->win_frame = g_array_new (FALSE, FALSE, sizeof (int));
  d->win_level = g_array_new (FALSE, FALSE, sizeof (int));
  if (tuning)
    d->tune = *tuning;
  else
    clv_vj_tuning_for_device (dev, &d->tune);
  if (!check_tuning (dev, &d->tune, error)
      || !fit_tile (dev, &d->tune, c, tuning != NULL, error))
    goto fail;
  /* Without doubles the variance and stage sums are not OpenCV's. */
  d->fp64 = dev->has_fp64;
  if (!d->fp64)
    g_warning ("%s has no double precision: vjfacedetect results may differ "
        "slightly from OpenCV's", dev->device_name);
  d->coop_stage = clv_vj_cascade_sums_exact (c, d->tune.coop_stage) ?
      d->tune.coop_stage : NO_COOP_STAGE;
  d->shuffle = d->tune.shuffle == 1 || (d->tune.shuffle < 0
      && shuffle_fits (dev, &d->tune));

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
      || !build_kernels (d, c->stages, error))
    goto fail;
  CLV_CHECK ((d->copies = clCreateCommandQueue (dev->context, dev->device, 0,
              &st), st), error, fail);
  return d;

fail:
  clv_vj_detector_free (d);
  return NULL;
}

void
clv_vj_detector_free (ClvVjDetector * d)
{
  if (d == NULL)
    return;
  g_ptr_array_unref (d->geometries);
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
  g_clear_pointer (&d->copies, clReleaseCommandQueue);
  g_clear_pointer (&d->stages, clReleaseMemObject);
  g_clear_pointer (&d->k_luma, clReleaseKernel);
  g_clear_pointer (&d->k_sums, clReleaseKernel);
  g_clear_pointer (&d->k_carry, clReleaseKernel);
  g_clear_pointer (&d->k_integrals, clReleaseKernel);
  g_clear_pointer (&d->k_tilted, clReleaseKernel);
  g_clear_pointer (&d->k_simple, clReleaseKernel);
  g_clear_pointer (&d->k_uber, clReleaseKernel);
  g_ptr_array_unref (d->events);
  g_ptr_array_unref (d->event_kernels);
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
  gboolean ok;

  g->w = w;
  g->h = h;
  g->params = *p;
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

  ok = (g->xtab = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
          xt->data, xt->len * 8, error))
      && (g->ytab = clv_buffer_new_with_data (d->dev, CL_MEM_READ_ONLY,
          yt->data, yt->len * 8, error));
  g_array_free (xt, TRUE);
  g_array_free (yt, TRUE);
  if (!ok)
    g_clear_pointer (&g, geometry_free);
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
    int n_nodes;
    ClvVjNode *nodes = layout_nodes (d, w, d->tilt_ofs, &n_nodes);
    g_clear_pointer (&d->nodes_mem, clReleaseMemObject);
    d->nodes_mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, nodes,
        sizeof (ClvVjNode) * n_nodes, error);
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
  for (guint i = 0; i < n; i++) {
    const ClvVjGeometry *g = geo[i];
    /* Band-relative offsets y' * band_w + x become batch ones; the
     * integral passes number the tiles, columns and sums of all frames. */
    d->first_level[i] = d->batch_levels->len;
    for (int l = 0; l < g->n_levels; l++) {
      ClvVjLevel lv = g->levels[l];
      lv.layer_ofs = (y + lv.layer_ofs / g->band_w) * w
          + lv.layer_ofs % g->band_w;
      lv.first_col += d->total_cols;
      lv.v_ofs += d->total_sums;
      lv.h_ofs += d->total_row_sums;
      lv.first_tile += d->band_tiles;
      lv.pix_ofs += d->total_pix;
      g_array_append_val (d->batch_levels, lv);
    }
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
  return ensure_buffer (dev, &d->sbuf, &d->sbuf_bytes,
      plane * planes * sizeof (cl_uint), error)
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
      sizeof (ClvVjLevel) * d->batch_levels->len, error);
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
  g_ptr_array_add (d->event_kernels, kernel);
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

/* Step 1, first pass, for frame `i` of the batch: its luma (packed RGB
 * only), its levels' pixels and the sums of their tiles.  A kernel cannot
 * take a varying number of frame buffers, so this pass is launched per
 * frame. */
static gboolean
enqueue_band_sums (ClvVjDetector * d, guint i, const ClvVjFrame * fr,
    GError ** error)
{
  const ClvVjGeometry *g = d->frame_geo[i];
  const ClvLumaImage *f = &fr->image;
  cl_mem frame = fr->frame, luma = frame;
  cl_uint luma_ofs = (cl_uint) f->image.offset;
  cl_uint luma_stride = (cl_uint) f->image.stride;
  cl_int lw = f->image.width, lh = f->image.height, n_levels = g->n_levels;
  cl_int first_level = (cl_int) d->first_level[i];
  const size_t wg = d->tune.band_wg;

  if (f->r >= 0) {
    cl_uint ps = f->image.bpp, r = f->r, gr = f->g, b = f->b;
    size_t g2[2] = { lw, lh };
    if (!ensure_buffer (d->dev, &d->luma, &d->luma_bytes,
            (gsize) lw * lh, error)
        || !clv_kernel_set_args (d->k_luma, error, CLV_ARG (frame),
            CLV_ARG (luma_ofs), CLV_ARG (luma_stride), CLV_ARG (ps),
            CLV_ARG (r), CLV_ARG (gr), CLV_ARG (b), CLV_ARG (lw),
            CLV_ARG (lh), CLV_ARG (d->luma), CLV_ARGS_END)
        || !enqueue (d, d->k_luma, 2, g2, NULL, error))
      return FALSE;
    luma = d->luma;
    luma_ofs = 0;
    luma_stride = lw;
  }
  return clv_kernel_set_args (d->k_sums, error, CLV_ARG (luma),
      CLV_ARG (luma_ofs), CLV_ARG (luma_stride), CLV_ARG (lw), CLV_ARG (lh),
      CLV_ARG (d->levels_mem), CLV_ARG (first_level), CLV_ARG (n_levels),
      CLV_ARG (g->xtab), CLV_ARG (g->ytab), CLV_ARG (d->pixels),
      CLV_ARG (d->band_sums), CLV_ARG (d->row_sums), CLV_ARGS_END)
      && enqueue_1d (d, d->k_sums, (size_t) g->band_tiles * wg, wg, error);
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
  cl_int sbuf_w = d->sbuf_w, sq_ofs = d->sq_ofs, tilt_ofs = d->tilt_ofs;
  cl_int diag_w = d->diag_w;
  const size_t wg = d->tune.band_wg;

  if (!clv_kernel_set_args (d->k_integrals, error, CLV_ARG (d->levels_mem),
          CLV_ARG (first_level), CLV_ARG (n_levels), CLV_ARG (d->pixels),
          CLV_ARG (d->band_sums), CLV_ARG (d->row_sums), CLV_ARG (d->sbuf),
          CLV_ARG (sbuf_w), CLV_ARG (sq_ofs), CLV_ARGS_END)
      || !enqueue_1d (d, d->k_integrals, (size_t) d->band_tiles * wg,
          wg, error))
    return FALSE;
  return !d->shape.has_tilted
      || (clv_kernel_set_args (d->k_tilted, error, CLV_ARG (d->levels_mem),
          CLV_ARG (first_level), CLV_ARG (d->pixels), CLV_ARG (d->sbuf),
          CLV_ARG (sbuf_w), CLV_ARG (tilt_ofs), CLV_ARG (d->diag),
          CLV_ARG (diag_w), CLV_ARGS_END)
      && enqueue_1d (d, d->k_tilted, (size_t) n_levels * wg, wg, error));
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
  size_t g[2], l[2];
  cl_uint arg;

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
    for (guint i = 0; i < d->batch_win->len; i++) {
      const ClvVjWindows *w = &g_array_index (d->batch_win, ClvVjWindows, i);
      cl_int si = i;
      arg = 10;
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
    const gboolean tiled = d->tune.variant == CLV_VJ_VARIANT_TILED;
    /* Windows, or the tiled variant's tiles. */
    cl_int total = tiled ? d->total_tiles : d->total_windows;
    arg = 10;
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_mem),
            &d->win_mem), error, fail);
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int), &n_win),
        error, fail);
    CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int), &total),
        error, fail);
    if (tiled) {
      const int tc = tile_cols (&d->tune, &d->shape);
      cl_int tilt_ofs = d->tilt_ofs;
      cl_int4 tile_nofs = { {1 + tc, 1 + nx + tc, 1 + tc * (1 + ny),
              1 + nx + tc * (1 + ny)}
      };
      CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int),
              &tilt_ofs), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_mem),
              &d->tile_nodes), error, fail);
      CLV_CHECK (clSetKernelArg (d->k_uber, arg++, sizeof (cl_int4),
              &tile_nofs), error, fail);
    }
    if (!enqueue_1d (d, d->k_uber, (size_t) d->tune.wg *
            d->tune.groups_per_cu * d->dev->compute_units, d->tune.wg, error))
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
      || f->image.width > 65535 || f->image.height > 65535
      || p->scale_factor <= 1.0) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid detection request: %dx%d frame (1 to 65535 pixels a "
        "side), scale factor %g (must be > 1)", f->image.width,
        f->image.height, p->scale_factor);
    return FALSE;
  }
  return TRUE;
}

/* Runs frames[0..n) (all with windows, fitting in one packed buffer) as
 * one batch and fills their candidates. */
static gboolean
run_batch (ClvVjDetector * d, ClvVjFrame ** frames, ClvVjGeometry ** geo,
    guint n, GError ** error)
{
  ClvVjKeyed *keyed;
  cl_event copied = NULL;
  guint count;
  gboolean ok = FALSE;

  if (!prepare_batch (d, geo, n, error))
    return FALSE;
  if (d->out == NULL) {
    d->out_cap = INITIAL_CAPACITY;
    d->out = clv_buffer_new (d->dev, CL_MEM_READ_WRITE,
        (2 + 2 * (gsize) d->out_cap) * sizeof (cl_uint), error);
    if (d->out == NULL)
      return FALSE;
    g_free (d->out_host);
    d->out_host = g_new (guint32, 2 + 2 * d->out_cap);
  }
  CLV_CHECK (clEnqueueWriteBuffer (d->copies, d->win_mem, CL_FALSE, 0,
          sizeof (ClvVjWindows) * d->batch_win->len, d->batch_win->data, 0,
          NULL, NULL), error, fail);
  CLV_CHECK (clEnqueueWriteBuffer (d->copies, d->levels_mem, CL_FALSE, 0,
          sizeof (ClvVjLevel) * d->batch_levels->len, d->batch_levels->data,
          0, NULL, NULL), error, fail);
  if (!zero_counters (d, d->copies, &copied, error))
    goto fail;
  CLV_CHECK (clFlush (d->copies), error, fail);
  CLV_CHECK (clEnqueueBarrierWithWaitList (d->dev->queue, 1, &copied, NULL),
      error, fail);
  for (guint i = 0; i < n; i++)
    if (!enqueue_band_sums (d, i, frames[i], error))
      goto fail;
  if (!enqueue_band_carry (d, error) || !enqueue_band_integrals (d, error))
    goto fail;
  if (!enqueue_detect (d, error))
    goto fail;
  for (;;) {
    if (!clv_read_buffer_after (d->dev, d->copies,
            g_ptr_array_index (d->events, d->events->len - 1), d->out, 0,
            (2 + 2 * (gsize) d->out_cap) * sizeof (cl_uint), d->out_host,
            error))
      goto fail;
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
    if (d->out == NULL || !zero_counters (d, d->dev->queue, NULL, error)
        || !enqueue_detect (d, error))
      goto fail;
  }

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
  }
  g_free (keyed);
  ok = TRUE;
fail:
  g_clear_pointer (&copied, clReleaseEvent);
  return ok;
}

gboolean
clv_vj_detector_candidates_batch (ClvVjDetector * d, ClvVjFrame * frames,
    guint n, GError ** error)
{
  const int planes = d->shape.has_tilted ? 3 : 2;
  /* The kernels index the packed buffer with ints; a quarter of the
   * device's memory at most; the window table is __constant. */
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

  for (guint i = 0; i < n; i++) {
    const ClvLumaImage *f = &frames[i].image;
    const ClvVjParams *p = &frames[i].params;
    ClvVjGeometry *g;

    if (frames[i].candidates == NULL)
      frames[i].candidates = g_array_new (FALSE, FALSE, sizeof (ClvRect));
    g_array_set_size (frames[i].candidates, 0);
    if (!clv_vj_request_valid (f, p, error))
      goto out;
    if (!(g = get_geometry (d, f->image.width, f->image.height, p, error)))
      goto out;
    if (g->n_win == 0)
      continue;
    if ((gsize) g->band_w * clv_round_up (g->band_h, 256) * planes >
        max_values) {
      g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %dx%d frame is "
          "too large for the detector (%" G_GSIZE_FORMAT " integral values "
          "per plane); scale it down or raise min-size", f->image.width,
          f->image.height, (gsize) g->band_w * g->band_h);
      goto out;
    }
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
  ClvVjFrame fr = { frame, *f, *p, NULL };

  if (!clv_vj_detector_candidates_batch (d, &fr, 1, error)) {
    g_clear_pointer (&fr.candidates, g_array_unref);
    return NULL;
  }
  return fr.candidates;
}

GArray *
clv_vj_detector_detect (ClvVjDetector * d, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, GError ** error)
{
  GArray *raw = clv_vj_detector_candidates (d, frame, f, p, error);
  GArray *faces;

  if (raw == NULL)
    return NULL;
  faces = clv_vj_group_faces (raw, p->min_neighbors, f->image.width,
      f->image.height);
  g_array_free (raw, TRUE);
  return faces;
}

void
clv_vj_detector_kernel_ms (ClvVjDetector * d, double *pyramid_ms,
    double *detect_ms)
{
  *pyramid_ms = *detect_ms = 0;
  for (guint i = 0; i < d->events->len; i++) {
    cl_kernel k = d->event_kernels->pdata[i];
    const double ms = clv_event_seconds (d->events->pdata[i]) * 1e3;
    if (k == d->k_uber || k == d->k_simple)
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
