/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones detection on an OpenCL device: luma, every pyramid level and
 * its integrals built on the device in one packed buffer; then either the
 * persistent load-balancing uberkernel of Nguyen et al. and Jia et al.
 * (docs/design.md, References) over all scales or, for comparison, the
 * simple one-work-item-per-window kernel launched per scale.  Raw windows
 * come back compactly and are grouped on the host with the C reference's
 * groupRectangles, so the faces equal clv_vj_detect_ref's (and OpenCV
 * 4.6's).  GLib only. */
#pragma once

#include "clv-cascade.h"
#include "clv-image.h"
#include "clv-opencl.h"
#include "clv-vj-ref.h"

G_BEGIN_DECLS

typedef enum
{
  CLV_VJ_VARIANT_UBER,          /* persistent uberkernel, dynamic mapping */
  CLV_VJ_VARIANT_SIMPLE,        /* one work-item per window, one launch per scale */
  CLV_VJ_VARIANT_TILED,         /* the uberkernel over tiles in local memory */
  CLV_VJ_VARIANT_CPU,           /* SIMD lanes of a CPU over segments of a
                                 * row, local queues per stage */
  CLV_VJ_VARIANT_INVALID,       /* CLVISION_TUNE named none */
  CLV_VJ_VARIANT_AUTO,          /* asked for: VJ_VARIANT, or the device's
                                 * default (tiled on GPUs, cpu on CPUs with
                                 * doubles, else simple) */
} ClvVjVariant;

/* Kernel tuning, the -D macros of vj_detect.cl / vj_pyramid.cl.  Defaults
 * come from device queries (Jia et al.'s values for NVIDIA and AMD); every
 * field can be overridden through CLVISION_TUNE (names in brackets). */
typedef struct
{
  ClvVjVariant variant;         /* [VJ_VARIANT=uber|simple|tiled|cpu] */
  int wg;                       /* [VJ_WG] work-group size: one warp */
  int chunk;                    /* [VJ_CHUNK] windows per atomic fetch (N) */
  int tile_x, tile_y;           /* [VJ_TILE_X, VJ_TILE_Y] windows of a
                                 * tile of the tiled variant */
  int coop_windows;             /* [VJ_COOP_WINDOWS] windows evaluated by
                                 * the whole group at once (M) */
  int coop_stage;               /* [VJ_COOP_STAGE] first cooperative stage */
  int groups_per_cu;            /* [VJ_GROUPS_PER_CU] */
  int band_wg;                  /* [VJ_BAND_WG] columns of a tile of the
                                 * integral passes, their work-group size */
  int band_rows;                /* [VJ_BAND_ROWS] rows of a tile */
  int simple_wg;                /* [VJ_SIMPLE_WG] work-group of the simple
                                 * variant (x, 1) */
  gboolean static_schedule;     /* [VJ_STATIC=1] benchmarks: chunks dealt
                                 * round-robin instead of by the counter */
  int max_registers;            /* [VJ_MAX_REGISTERS] registers per
                                 * work-item of the detection kernels, for
                                 * more resident warps (NVIDIA's
                                 * -cl-nv-maxrregcount); 0: the compiler's */
  gboolean unroll;              /* [VJ_UNROLL] the tiled variant compiles a
                                 * stump cascade's stages before
                                 * coop_stage into its code */
  gboolean stage_nodes;         /* [VJ_STAGE_NODES] the tiled variant's
                                 * second shape (small_wg): its
                                 * cooperative stages copy a stump
                                 * cascade's stage into local memory first */
  int lanes;                    /* [VJ_LANES] the cpu variant's vector
                                 * lanes: 8 or 16 windows at once */
  int queue_stage;              /* [VJ_QUEUE_STAGE] the cpu variant's first
                                 * stage taken from its local queues */
  int shuffle;                  /* [VJ_SHUFFLE] 1: the cooperative stages
                                 * sum a window's trees by warp shuffles
                                 * (NVIDIA, inline PTX) instead of in
                                 * local memory between barriers; 0: not;
                                 * -1: where they can */
  int small_wg;                 /* [VJ_SMALL_WG] the tiled variant's
                                 * work-group for batches of few tiles
                                 * (small frames); 0: one shape for all */
  int small_coop_windows;       /* [VJ_SMALL_COOP_WINDOWS] its M */
  int small_tiles;              /* [VJ_SMALL_TILES] a batch of at most
                                 * this many tiles per compute unit runs
                                 * the small shape */
  int small_groups_per_cu;      /* [VJ_SMALL_GROUPS_PER_CU] its resident
                                 * work-groups per compute unit */
} ClvVjTuning;

/* The defaults for `dev`, with CLVISION_TUNE applied. */
void clv_vj_tuning_for_device (ClvDevice * dev, ClvVjTuning * tuning);
/* The same for `variant` (the other values' defaults depend on it). */
void clv_vj_tuning_for_variant (ClvDevice * dev, ClvVjVariant variant,
    ClvVjTuning * tuning);

/* The same for an uberkernel: the tuned variant, or the uberkernel over
 * chunks where that is the simple kernel. */
void clv_vj_uber_tuning_for_device (ClvDevice * dev, ClvVjTuning * tuning);


typedef struct _ClvVjDetector ClvVjDetector;

/* Uploads the cascade and builds the kernels for `dev`, with `tuning` (an
 * error if it cannot run) or, NULL, the device's own. */
ClvVjDetector *clv_vj_detector_new (ClvDevice * dev,
    const ClvCascade * cascade, const ClvVjTuning * tuning, GError ** error);
/* The same with the device's own tuning for `variant`, which falls back
 * from tiles to chunks where the cascade's tiles do not fit. */
ClvVjDetector *clv_vj_detector_new_for_variant (ClvDevice * dev,
    const ClvCascade * cascade, ClvVjVariant variant, GError ** error);
void clv_vj_detector_free (ClvVjDetector * det);

/* Runs steps 1–5 on the frame in `frame` (a device buffer laid out as `f`
 * says) and returns the raw candidate windows (GArray of ClvRect) in
 * OpenCV's single-thread order (scale, row, column), as clv_vj_detect_raw
 * does.  Waits for the device. */
GArray *clv_vj_detector_candidates (ClvVjDetector * det, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * params, GError ** error);

/* The largest frame side: window corners travel as 16-bit coordinates. */
#define CLV_VJ_MAX_SIDE 65535

/* Whether frames of width x height can be detected with `params`: not
 * smaller than the cascade's window, not larger than the detector and the
 * device take (else an error that says which and what to change).
 * Prepares the detector for them.  Not while `det` detects. */
gboolean clv_vj_detector_check_frame (ClvVjDetector * det, int width,
    int height, const ClvVjParams * params, GError ** error);

/* Whether a frame of that size can be detected with `params` (else an
 * error a user can act on). */
gboolean clv_vj_request_valid (const ClvLumaImage * f,
    const ClvVjParams * params, GError ** error);

/* The same for a region of it (width 0: all of it). */
gboolean clv_vj_region_valid (const ClvLumaImage * f, const ClvRect * region,
    const ClvVjParams * params, GError ** error);

/* One frame of a batch: the device buffer `frame` laid out as `image`
 * says, the part of it searched, its parameters, and (filled by the
 * detector) its raw candidates and, with params.output_reject_levels,
 * their level weights.  Frames of one buffer and layout (crops of one
 * frame) share their pyramid's launches. */
typedef struct
{
  cl_mem frame;
  ClvLumaImage image;
  ClvRect region;               /* width 0: the whole frame; else inside it,
                                 * candidates in its coordinates */
  ClvVjParams params;
  GArray *candidates;           /* ClvRect; created when NULL */
  GArray *weights;              /* double per candidate; created when NULL
                                 * (empty without scores) */
} ClvVjFrame;

/* Candidates of several frames at once (batching): their
 * pyramids are packed into one buffer and one detection launch covers
 * every window of every frame (the uberkernel's queue spans them all).
 * Frames that do not fit the packed buffer's limits go into further
 * batches.  Each frame's candidates equal clv_vj_detector_candidates'.
 * Waits for the device. */
gboolean clv_vj_detector_candidates_batch (ClvVjDetector * det,
    ClvVjFrame * frames, guint n, GError ** error);

/* The faces of a frame whose candidates a batch filled: grouping with eps
 * 0.2 and clipping, with scores when its params ask for them (reject level
 * `n_stages`, the cascade's). */
GArray *clv_vj_frame_faces (const ClvVjFrame * frame, int n_stages);

/* The whole detection: candidates, grouping with eps 0.2 and clipping to
 * the frame, as clv_vj_detect_ref does (GArray of ClvVjFace; with scores
 * when params->output_reject_levels). */
GArray *clv_vj_detector_detect (ClvVjDetector * det, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * params, GError ** error);

/* The faces in `n` regions of one frame (rectangles inside it), detected
 * in one batch, whose pyramid and detection are one launch each: a
 * GPtrArray of n GArrays of ClvVjFace in each region's coordinates. */
GPtrArray *clv_vj_detector_detect_regions (ClvVjDetector * det, cl_mem frame,
    const ClvLumaImage * f, const ClvRect * regions, guint n,
    const ClvVjParams * params, GError ** error);

/* For benchmarks: the device time of the last call's pyramid launches
 * (luma, levels, integrals) and of its detection launches, in ms, summed
 * over the launches of every frame and sub-batch from the queue's
 * profiling events (0 where the device gives none). */
void clv_vj_detector_kernel_ms (ClvVjDetector * det, double *pyramid_ms,
    double *detect_ms);

/* For tests and benchmarks: how many launches of the kernel named
 * `kernel` (every kernel: NULL) the last call made. */
guint clv_vj_detector_launches (ClvVjDetector * det, const char *kernel);

/* For benchmarks: the device time of each kernel in the last batch,
 * summed over its launches, as a JSON object {"vj_band_sums": ms, ...}. */
char *clv_vj_detector_kernel_profile (ClvVjDetector * det);

/* For tests: after a run, copies level `level`'s pyramid picture (nullable,
 * width bytes per row) and integrals (sized for it, tilted one if the
 * cascade has tilted features) out of the packed device buffer.  Returns
 * FALSE when there is no such level or the last run was a batch of
 * several frames. */
gboolean clv_vj_detector_read_level (ClvVjDetector * det, int level,
    guint8 * pixels, ClvVjIntegrals * integrals, GError ** error);

/* For tests and benchmarks: how many of the cascade's stages the detection
 * kernel has compiled in (VJ_UNROLL: the tiled variant, a stump cascade),
 * 0 if none. */
int clv_vj_detector_unrolled_stages (ClvVjDetector * det);

/* For tests and benchmarks: whether the cooperative stages sum by warp
 * shuffles (VJ_SHUFFLE). */
gboolean clv_vj_detector_shuffles (ClvVjDetector * det);

/* For tests and benchmarks: the work-group size of the last detection
 * launch (for the tiled variant VJ_WG, or VJ_SMALL_WG for a batch of few
 * tiles), 0 before the first. */
int clv_vj_detector_last_detect_wg (ClvVjDetector * det);

/* Whether stage sums may be split across work-items: every partial sum of
 * the leaf values of stages >= `first_stage` is exact in double. */
gboolean clv_vj_cascade_sums_exact (const ClvCascade * cascade,
    int first_stage);

G_END_DECLS
