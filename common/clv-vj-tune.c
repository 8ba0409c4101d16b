/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones on OpenCL: the kernels' tuning (the device's defaults,
 * CLVISION_TUNE, what a device can run); see clv-vj.h. */
#include "clv-vj-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

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
gboolean
clv_vj_shuffle_fits (ClvDevice * dev, const ClvVjTuning * t)
{
  return has_nv_compiler_options (dev) && dev->simd_width == 32
      && t->wg % 32 == 0 && t->coop_windows > 0
      && t->wg / t->coop_windows <= 32;
}

/* VJ_VARIANT, or the device's default.  On CPUs (PoCL) the cpu variant,
 * whose vector types PoCL compiles into SIMD instructions across windows
 * (the work-item kernels' loops, which end at different stages, keep it
 * from vectorising across work-items).  On GPUs the uberkernel over tiles
 * in local memory: 11% less detection time than over chunks at 1920x1280
 * in batches of 16 frames, 17% at 640x480, 20% on the crowded canvas
 * (H100). */
static ClvVjVariant
tuned_variant (ClvDevice * dev)
{
  const char *variant = clv_device_tune_string (dev, "VJ_VARIANT",
      dev->simd_width > 1 ? "tiled" : dev->has_fp64 ? "cpu" : "simple");

  return g_ascii_strcasecmp (variant, "simple") == 0 ?
      CLV_VJ_VARIANT_SIMPLE : g_ascii_strcasecmp (variant, "uber") == 0 ?
      CLV_VJ_VARIANT_UBER : g_ascii_strcasecmp (variant, "tiled") == 0 ?
      CLV_VJ_VARIANT_TILED : g_ascii_strcasecmp (variant, "cpu") == 0 ?
      CLV_VJ_VARIANT_CPU : CLV_VJ_VARIANT_INVALID;
}

void
clv_vj_tuning_for_device (ClvDevice * dev, ClvVjTuning * t)
{
  clv_vj_tuning_for_variant (dev, CLV_VJ_VARIANT_AUTO, t);
}

void
clv_vj_tuning_for_variant (ClvDevice * dev, ClvVjVariant variant,
    ClvVjTuning * t)
{
  const gboolean gpu = dev->simd_width > 1;

  t->variant = variant == CLV_VJ_VARIANT_AUTO ? tuned_variant (dev) :
      variant;
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
  t->stage_nodes = tune_int (dev, "VJ_STAGE_NODES", gpu) != 0;
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
  /* Eight lanes (AVX-512's doubles, two AVX2 registers): PoCL's code for
   * sixteen was 3-4x slower on the stage sums in double.  Stage 0 over a
   * row's segment, the rest from the queues: 45% of windows pass stage 0
   * of frontalface_default; stage 1 on the segment too cost 4% more CPU
   * time per frame, stages 1 and 2 17% more (astronaut, franck-2500, one
   * PoCL thread). */
  t->lanes = tune_int (dev, "VJ_LANES", 8);
  t->queue_stage = tune_int (dev, "VJ_QUEUE_STAGE", 1);
  /* A small frame has few tiles (about 800 at 360x288, 2,500 at 640x480,
   * 22,000 at 1920x1280): most of the GPU waits on the few windows that
   * pass many stages, so more work-items to a window (32, M = 8) shorten
   * the detection; with many tiles per compute unit the usual shape is
   * faster.  NVIDIA's compiler runs this kernel in groups of at most
   * 256. */
  t->small_wg = tune_int (dev, "VJ_SMALL_WG", tiled
      && has_nv_compiler_options (dev) ? 256 : 0);
  t->small_coop_windows = tune_int (dev, "VJ_SMALL_COOP_WINDOWS", 8);
  t->small_tiles = tune_int (dev, "VJ_SMALL_TILES", 48);
  /* As many groups as a Hopper SM holds at once (2,048 work-items): with
   * few tiles, groups beyond that only start to find the queue empty. */
  t->small_groups_per_cu = tune_int (dev, "VJ_SMALL_GROUPS_PER_CU", 8);
}

void
clv_vj_uber_tuning_for_device (ClvDevice * dev, ClvVjTuning * t)
{
  clv_vj_tuning_for_device (dev, t);
  if (t->variant == CLV_VJ_VARIANT_SIMPLE)
    t->variant = CLV_VJ_VARIANT_UBER;
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

gboolean
clv_vj_tuning_check (ClvDevice * dev, const ClvVjTuning * t, GError ** error)
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
        "Invalid VJ_VARIANT=%s in CLVISION_TUNE: uber, tiled, simple or cpu",
        clv_device_tune_string (dev, "VJ_VARIANT", ""));
    return FALSE;
  }
  if (t->variant == CLV_VJ_VARIANT_CPU && !dev->has_fp64) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "The detector's cpu variant needs double precision, which %s "
        "lacks: use variant=auto or simple", dev->device_name);
    return FALSE;
  }
  if (t->variant == CLV_VJ_VARIANT_CPU && ((t->lanes != 8 && t->lanes != 16)
          || t->queue_stage < 0)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid vjfacedetect tuning for %s: the cpu variant takes VJ_LANES "
        "8 or 16 (%d) and VJ_QUEUE_STAGE >= 0 (%d)", dev->device_name,
        t->lanes, t->queue_stage);
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
  if (t->small_wg != 0 && (t->small_wg < 0
          || (gsize) t->small_wg > dev->max_work_group_size
          || t->small_coop_windows < 1 || t->small_coop_windows > t->small_wg
          || t->small_wg % t->small_coop_windows != 0
          || !is_pow2 (t->small_wg / t->small_coop_windows)
          || t->small_tiles < 0 || t->small_groups_per_cu < 1)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Invalid vjfacedetect tuning for %s: VJ_SMALL_WG=%d "
        "VJ_SMALL_COOP_WINDOWS=%d VJ_SMALL_TILES=%d "
        "VJ_SMALL_GROUPS_PER_CU=%d (0 or a work-group up to %" G_GSIZE_FORMAT
        ", VJ_SMALL_WG / VJ_SMALL_COOP_WINDOWS a power of two, "
        "VJ_SMALL_TILES >= 0, VJ_SMALL_GROUPS_PER_CU >= 1)", dev->device_name,
        t->small_wg, t->small_coop_windows, t->small_tiles,
        t->small_groups_per_cu, dev->max_work_group_size);
    return FALSE;
  }
  if (t->shuffle < -1 || t->shuffle > 1
      || (t->shuffle == 1 && !clv_vj_shuffle_fits (dev, t))) {
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
int
clv_vj_tile_cols (const ClvVjTuning * t, const ClvCascade * c)
{
  return (t->tile_x - 1) * 2 + c->window_w + 1;
}

int
clv_vj_tile_rows (const ClvVjTuning * t, const ClvCascade * c)
{
  return (t->tile_y - 1) * 2 + c->window_h + 1;
}

/* The integrals in vj_detect_tiled's tile (sums, and tilted sums if the
 * cascade has tilted features). */
static gsize
tile_values (const ClvVjTuning * t, const ClvCascade * c)
{
  return (gsize) clv_vj_tile_cols (t, c) * clv_vj_tile_rows (t, c)
      * (c->has_tilted ? 2 : 1);
}

int
clv_vj_stage_nodes (const ClvVjTuning * t, const ClvCascade * c)
{
  return t->variant == CLV_VJ_VARIANT_TILED && t->stage_nodes
      && t->small_wg > 0 && c->is_stump_based
      && c->feature_type != CLV_CASCADE_LBP ? c->max_stage_trees : 0;
}

/* Local memory vj_detect_tiled needs: its tile, its two queues of a
 * tile's windows (each window's corner, index and variance
 * normalisation), the reduction's doubles (for the larger of its two
 * work-groups) and a few counters; the second shape a stage's nodes
 * besides (clv_vj_stage_nodes). */
#define TILE_QUEUES 2
#define QUEUE_ENTRY_BYTES (2 * sizeof (cl_int) + sizeof (cl_float))

static gsize
tile_local_bytes (const ClvVjTuning * t, const ClvCascade * c)
{
  return tile_values (t, c) * sizeof (cl_uint)
      + (gsize) t->tile_x * t->tile_y * TILE_QUEUES * QUEUE_ENTRY_BYTES
      + (gsize) MAX (t->wg, t->small_wg) * sizeof (cl_double) + 64;
}

/* Whether vj_detect_tiled's tile and queues for cascade `c` fit the
 * device's local memory, and the nodes' 16-bit offsets the tile (see
 * stump_arrays in clv-vj-codegen.c).  Where they do not, the device's own
 * tuning (`asked` FALSE: what the elements use) runs the uberkernel over
 * chunks instead; a tuning passed in is taken as asked, and refused. */
gboolean
clv_vj_tuning_fit_tile (ClvDevice * dev, ClvVjTuning * t,
    const ClvCascade * c, gboolean asked, GError ** error)
{
  const gsize bytes = tile_local_bytes (t, c);

  if (t->variant != CLV_VJ_VARIANT_TILED || (bytes <= dev->local_mem_size
          && tile_values (t, c) <= G_MAXINT16)) {
    /* The stage's nodes in local memory only speed the second shape up;
     * where they do not fit, it reads them from global memory. */
    if (bytes + (gsize) clv_vj_stage_nodes (t, c) * 3 * sizeof (cl_int4)
        > dev->local_mem_size)
      t->stage_nodes = FALSE;
    return TRUE;
  }
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
