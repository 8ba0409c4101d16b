/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones detection exactly as OpenCV 4.6's
 * CascadeClassifier::detectMultiScale computes it on the CPU: the C
 * reference, split so the OpenCL path can reuse and test against its pieces.
 *
 * What must match, operation by operation (OpenCV compiles this without FMA;
 * clv-vj-ref.c is built with -ffp-contract=off, OpenCL code needs
 * `#pragma OPENCL FP_CONTRACT OFF`):
 *
 * 1. Scales (clv_vj_scales): factors multiply in double from 1, each stored
 *    as float; every later size uses that float.  Scaled image
 *    cvRound((float) W / scale) (float division), window in image pixels
 *    cvRound(window * scale) (float product), candidate rectangle
 *    (cvRound(x * scale), cvRound(y * scale)) (float products).  cvRound is
 *    round-half-to-even (rint).
 * 2. Pyramid (clv_vj_resize): every level from the original image with
 *    OpenCV's bit-exact bilinear (INTER_LINEAR_EXACT): 8-bit fractions,
 *    integer arithmetic, described in clv-vj-ref.c.
 * 3. Integrals (clv_vj_integrals_compute): sum as int32; squared sum as int32 that
 *    wraps (OpenCV uses CV_32S): keep it modulo 2^32 (uint) and take window
 *    differences modulo 2^32; tilted sum as int32.
 * 4. Window (clv_vj_eval_window): normrect = (1, 1, W-2, H-2) of the window;
 *    s = its sum (int), q = its squared sum (uint, modulo 2^32);
 *    nf = (double) area * q - (double) s * s (exact in double);
 *    nf <= 0 rejects; else vnf = (float) (1.0 / sqrt (nf)) in double, and
 *    the window is rejected unless (double) area * vnf < 0.1.  These
 *    rejections are not "stage 0" rejections (see the step rule below).
 * 5. Feature value, in float: v = w0 * (float) r0 + w1 * (float) r1, then
 *    v += w2 * (float) r2 only if w2 != 0, then v = v * vnf; ri are the
 *    int rectangle sums.  Each product rounded to float before the add.
 * 6. Node: go left when v < threshold (float compare).  Stage: the leaf
 *    values are summed in DOUBLE, in tree order, from 0; the window fails
 *    the stage when sum < (double) stage threshold.  A float sum is almost
 *    the same but not quite: on astronaut/grace_hopper/franck it changed
 *    the rejecting stage of 7 of 12.3M windows (all positions, the four
 *    face cascades; no acceptance changed); sum in
 *    double, or in float and redo in double when |sum - threshold| is
 *    within the float error bound.  The stage thresholds in ClvCascade
 *    already include OpenCV's "- 1e-5f".
 * 7. Step: windows at x, y multiples of `step` with x < x_end, y < y_end;
 *    along a row, a window rejected by stage 0 makes OpenCV skip the next
 *    window (x += step) — only when that window was itself evaluated, and
 *    not after a variance rejection.  So a GPU that evaluates every window
 *    must then walk each row in order: window k is evaluated unless window
 *    k-1 was evaluated and rejected by stage 0 (clv_vj_apply_skip does it;
 *    rare with face cascades, common with e.g. the smile cascade).
 * 8. Grouping (clv_vj_group_rectangles), then clipping to the image.
 *
 * LBP cascades (LBPEvaluator) differ in 3 to 6: only the sum integral is
 * used; a window inside the level is always evaluated (no variance test);
 * a feature's value is its 8-bit code from nine block sums (int compares,
 * clv-cascade.h), and a node goes left when the code's bit is set in the
 * node's subset.  Stage sums, thresholds, step and grouping are as above.
 *
 * Scores (detectMultiScale with outputRejectLevels = true, the Python
 * binding's detectMultiScale3): OpenCV 4.6 keeps exactly the windows that
 * pass every stage, as without scores; each has reject level n_stages and
 * level weight the double sum of its last stage.  Grouping keeps the same
 * classes and rectangles; a group's level is the largest of its members'
 * and its weight the largest weight among the members at that level, and
 * with min_neighbors <= 0 every candidate keeps its own.
 */
#pragma once

#include "clv-cascade.h"

G_BEGIN_DECLS

typedef struct
{
  int x, y, width, height;
} ClvRect;

typedef struct
{
  ClvRect rect;
  int neighbors;                /* raw windows merged into it (1 without grouping) */
  int reject_level;             /* with scores: OpenCV's reject level, else 0 */
  double level_weight;          /* with scores: OpenCV's level weight, else 0 */
} ClvVjFace;

typedef struct
{
  double scale_factor;          /* > 1 */
  int min_neighbors;            /* 0: no grouping */
  int min_width, min_height;    /* 0: the cascade's window */
  int max_width, max_height;    /* 0 (either): the image size */
  gboolean output_reject_levels;        /* scores, as detectMultiScale3 */
} ClvVjParams;

#define CLV_VJ_PARAMS_DEFAULT { 1.1, 3, 0, 0, 0, 0, FALSE }

/* A size "WxH" (or "WXH"), decimal, each within 0..G_MAXINT, nothing else
 * (vjfacedetect's min-size and max-size).  FALSE leaves the outputs alone. */
gboolean clv_vj_parse_size (const char *str, int *width, int *height);

/* One pyramid level. */
typedef struct
{
  float scale;                  /* OpenCV's factor, the float it stores */
  int width, height;            /* scaled image: cvRound (image / scale) */
  int win_width, win_height;    /* window in image pixels */
  int step;                     /* 2 below scale 2, else 1 */
  int x_end, y_end;             /* window origins x < x_end, y < y_end */
} ClvVjScale;

/* OpenCV's scale list for an image, with min/max size handling.  Returns the
 * number of scales (0 if the image is smaller than the window); *scales is
 * newly allocated (g_free). */
int clv_vj_scales (int image_width, int image_height, int window_width,
    int window_height, const ClvVjParams * params, ClvVjScale ** scales);

/* The candidate rectangle of the window at (x, y) of a level. */
ClvRect clv_vj_candidate_rect (const ClvVjScale * s, int x, int y);

/* OpenCV's resize (src → dst, INTER_LINEAR_EXACT) for 8-bit gray; its
 * per-axis tables come from clv_resize_axis_exact (clv-resize.h). */

void clv_vj_resize (const guint8 * src, int src_width, int src_height,
    gsize src_stride, guint8 * dst, int dst_width, int dst_height,
    gsize dst_stride);

/* Integral images of a level: (height + 1) rows of `stride` >= width + 1
 * values; row 0 and column 0 are zero.  LBP cascades read only `sum`. */
typedef struct
{
  int width, height;
  int stride;                   /* elements */
  gint32 *sum;
  guint32 *sqsum;               /* squared sums modulo 2^32 */
  gint32 *tilted;               /* 45° sums; NULL when not computed */
} ClvVjIntegrals;

/* Allocates integrals for images up to width x height. */
ClvVjIntegrals *clv_vj_integrals_new (int width, int height,
    gboolean with_tilted);
void clv_vj_integrals_free (ClvVjIntegrals * in);
/* Computes them for `img` (width x height <= the allocated size). */
void clv_vj_integrals_compute (ClvVjIntegrals * in, const guint8 * img,
    int width, int height, gsize img_stride);

/* HaarEvaluator::setWindow (LBPEvaluator's for an LBP cascade) for the
 * window at (x, y): FALSE where OpenCV does not evaluate it (outside the
 * level, or too little variance); else *vnf receives its variance
 * normalisation factor (1 for LBP). */
gboolean clv_vj_window_norm (const ClvCascade * cascade,
    const ClvVjIntegrals * in, int x, int y, float *vnf);

/* OpenCV's runAt for the window whose top-left corner is (x, y) in the
 * level: 1 accepted; 0 rejected by stage 0; -k rejected by stage k (k >= 1);
 * -1 also for a window rejected by its variance or outside the level. */
int clv_vj_eval_window (const ClvCascade * cascade,
    const ClvVjIntegrals * level, int x, int y);
/* The stages of clv_vj_eval_window for a window that clv_vj_window_norm
 * let through with `vnf`: 1 accepted, 0 or -k rejected by stage k.
 * `weight` (nullable) receives the sum of the last stage evaluated (the
 * level weight of an accepted window). */
int clv_vj_eval_stages (const ClvCascade * cascade,
    const ClvVjIntegrals * level, int x, int y, float vnf, double *weight);

/* Applies rule 7 to one row of results (results[i] for x = i * step) and
 * returns how many windows of the row are detections; `detected` (nullable)
 * receives their indices i. */
int clv_vj_apply_skip (const int *results, int n, int *detected);

/* Raw candidates (before grouping) in OpenCV's single-thread order: scale,
 * then row, then column.  GArray of ClvRect. */
GArray *clv_vj_detect_raw (const ClvCascade * cascade, const guint8 * gray,
    int width, int height, gsize stride, const ClvVjParams * params);

/* The same, with each candidate's level weight appended to `weights`
 * (GArray of double, nullable). */
GArray *clv_vj_detect_raw_weighted (const ClvCascade * cascade,
    const guint8 * gray, int width, int height, gsize stride,
    const ClvVjParams * params, GArray * weights);

/* What clv_vj_sort_keyed sorts: a key and the index of what it stands
 * for. */
typedef struct
{
  guint64 key;
  guint index;
} ClvVjKeyed;

/* Sorts items[0..n) by key; items with equal keys keep their order. */
void clv_vj_sort_keyed (ClvVjKeyed * items, guint n);

/* OpenCV's groupRectangles(rects, weights, group_threshold, eps): merges
 * `rects` in place and returns how many remain; `neighbors` (nullable,
 * n_rects long) receives each one's count.  group_threshold <= 0 leaves the
 * rectangles as they are with 1 neighbour each.  The classes come from a
 * sweep over x that compares each rectangle with the classes within its
 * reach, not cv::partition's O(n^2) pairs; they are the same classes, in
 * the same order. */
int clv_vj_group_rectangles (ClvRect * rects, int n_rects,
    int group_threshold, double eps, int *neighbors);

/* groupRectangles(rects, rejectLevels, levelWeights, group_threshold, eps):
 * the same groups, and levels[i], weights[i] (n_rects long, in and out)
 * become each group's reject level and level weight; below or at a
 * group_threshold of 0 they stay as they are. */
int clv_vj_group_rectangles_scored (ClvRect * rects, int n_rects,
    int group_threshold, double eps, int *neighbors, int *levels,
    double *weights);

/* The same with cv::partition's literal all-pairs loop: the reference the
 * sweep is tested against. */
int clv_vj_group_rectangles_pairwise (ClvRect * rects, int n_rects,
    int group_threshold, double eps, int *neighbors);

/* The end of detectMultiScale for raw candidates (GArray of ClvRect, left
 * as they are): grouping with eps 0.2, then clipping to the width x height
 * image.  GArray of ClvVjFace. */
GArray *clv_vj_group_faces (GArray * candidates, int min_neighbors,
    int width, int height);

/* The same with scores (detectMultiScale3 with outputRejectLevels):
 * `weights` holds each candidate's level weight (GArray of double), every
 * candidate's reject level is `n_stages`; the faces carry their groups'
 * reject levels and level weights. */
GArray *clv_vj_group_faces_scored (GArray * candidates, GArray * weights,
    int n_stages, int min_neighbors, int width, int height);

/* The whole of detectMultiScale(image, objects, numDetections, ...), or
 * with params->output_reject_levels of detectMultiScale(image, objects,
 * rejectLevels, levelWeights, ..., true): raw candidates, grouping with eps
 * 0.2, clipping to the image.  GArray of ClvVjFace, in OpenCV's
 * single-thread order. */
GArray *clv_vj_detect_ref (const ClvCascade * cascade, const guint8 * gray,
    int width, int height, gsize stride, const ClvVjParams * params);

/* OpenCV 4.6's RGB→GRAY for 8 bits (cvtColor, RGB2Gray<uchar>), 15-bit
 * fixed point: (R*9798 + G*19235 + B*3735 + 16384) >> 15.  (Not the 14-bit
 * 4899/9617/1868 of the YUV conversions, which differ on many pixels.)
 * `bpp` is 3 or 4; r, g, b are the byte offsets of the channels in a
 * pixel. */
void clv_rgb_to_gray_ref (const guint8 * src, gsize src_stride, int bpp,
    int r, int g, int b, int width, int height, guint8 * dst,
    gsize dst_stride);

G_END_DECLS
