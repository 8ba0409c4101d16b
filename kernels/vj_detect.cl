/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjfacedetect: the cascade over every window of every
 * pyramid level (integrals from vj_pyramid.cl).
 *
 * vj_detect_uber is the load-balancing framework of Nguyen et al. and
 * Jia et al. (docs/design.md, References): one persistent
 * kernel over all scales; work-groups of VJ_WG work-items (two warps on
 * NVIDIA) take chunks of VJ_CHUNK consecutive windows from a global atomic
 * counter until none remain (dynamic mapping); a window that passes stage
 * 0, evaluated one window per work-item, goes into a first queue in local
 * memory; once that holds a window per work-item, the work-items take its
 * windows through stages 1 .. VJ_COOP_STAGE - 1 (so no work-item idles
 * behind a window stage 0 rejected) and the survivors go into a second
 * queue; once that holds a window per work-item (or the work has run out)
 * the whole group evaluates the remaining stages VJ_COOP_WINDOWS windows at
 * a time, each window's trees shared among VJ_WG / VJ_COOP_WINDOWS
 * work-items and summed by a local reduction, and re-queues the survivors
 * after every stage.  On NVIDIA (VJ_SHUFFLE) a window's work-items are in
 * one warp and sum by warp shuffles in inline PTX (it has no
 * cl_khr_subgroups), so a warp waits for the others only between stages.
 *
 * vj_detect_tiled (the GPU default) is the same framework over tiles of
 * windows whose integrals a work-group first copies into local memory (see
 * there).  vj_detect_simple is the plain variant for comparison: one
 * work-item per window, one launch per scale.  VJ_STATIC=1 (benchmarks
 * only) deals the uberkernels' chunks or tiles round-robin instead of
 * through the atomic counter, to show what dynamic mapping buys.
 * VJ_STUMPS=1 (every tree one node, as in most of OpenCV's cascades) drops
 * the walk down a tree.
 *
 * All give exactly OpenCV 4.6's CPU results (CascadeClassifierInvoker):
 *  - the same types and operation order (float feature values, double
 *    variance and stage sums; FP_CONTRACT off, no fused multiply-add);
 *  - stage sums split across work-items are only used when the host has
 *    proved that every partial sum of the stage's leaves is exact in double
 *    (then any order gives the sequential sum); otherwise VJ_COOP_STAGE is
 *    past the last stage;
 *  - OpenCV skips the window after one rejected by stage 0 in the same row
 *    (`if (result == 0) x += yStep`).  A window that passes every stage is
 *    therefore reported only if the run of stage-0 rejections right before
 *    it in its row has even length, which the kernel checks by walking left.
 *
 * LBP cascades (VJ_LBP) take the same paths: no variance test, a node's
 * feature is the 8-bit code of its 3 x 3 blocks (16 corners), and it goes
 * left when the code's bit is set in its 256-bit subset (OpenCV's
 * LBPEvaluator and predictCategorical).
 *
 * Raw windows are written compactly as (scale, y << 16 | x) through an
 * atomic counter; the host groups them.  With `want_weights` (scores)
 * each one's level weight, the sum of its last stage in tree order, is
 * written too.
 *
 * With VJ_CPU the program holds vj_detect_cpu instead, the framework
 * shaped for a CPU's SIMD lanes (see there); both read the cascade's
 * tables and scales below. */

#pragma OPENCL FP_CONTRACT OFF

#if VJ_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
#else
typedef float real_t;
#endif

/* Matches ClvCascadeStage: trees [first_tree, first_tree + n_trees). */
typedef struct
{
  int first_tree;
  int n_trees;
  float threshold;
} Stage;

#if VJ_LBP
/* An LBP tree node (the host's ClvVjLbpNode): the offsets of the 4 x 4
 * corners of its feature's blocks from the window's corner in sbuf, row by
 * row, the 8 words of its subset, and per side the next node (> 0) or the
 * leaf value. */
typedef struct
{
  int ofs[16];
  int subset[8];
  int2 next;
  float2 leaf;
} Node;
#else
/* A tree node with its feature resolved for the current layout (the host's
 * ClvVjNode): OpenCV's OptFeature offsets from the window's corner in sbuf,
 * the rectangles' weights and the node threshold, and per side either the
 * next node (> 0) or the leaf value.  Tree t's root is node t, so a tree
 * costs one chain of loads: node, integrals, (node, integrals,) done. */
typedef struct
{
  int4 ofs[3];
  float4 weight;                /* w0, w1, w2, threshold */
  int2 next;                    /* left, right: next node, or <= 0: a leaf */
  float2 leaf;                  /* left, right leaf values */
} Node;
#endif

/* A scale: nx x ny windows ystep apart, numbered from first_window row by
 * row; for vj_detect_tiled, tiles of VJ_TILE_X x VJ_TILE_Y of them, tiles_x
 * a row, numbered from first_tile. */
typedef struct
{
  int layer_ofs;
  int ystep;
  int nx;
  int first_window;
  int ny;
  int tiles_x;
  int first_tile;
  int pad;
} Scale;

/* The scale whose windows (or tiles) are numbered from `first` on. */
inline int
find_scale (__constant const Scale * sc, const int n_scales, const int g,
    const bool tiles)
{
  int lo = 0, hi = n_scales - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if ((tiles ? sc[mid].first_tile : sc[mid].first_window) <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

#if !VJ_CPU

typedef struct
{
  const __global uint *sbuf;
  int sbuf_w;
  int sq_ofs;
  int4 nofs;                    /* the variance rectangle's corners */
  real_t area;
  const __global Stage *stages;
  const __global Node *nodes;
} Cascade;


/* Where the kernels write the raw windows (see emit). */
typedef struct
{
  __global uint *out;
  uint cap;
  __global real_t *weights;     /* NULL: no scores */
  int n_stages;
} Out;

/* OptFeature::calc (pwin) * varianceNormFactor, in float, into `r`: a
 * node's weights W and its rectangles' offsets O0 .. O2 (macro arguments,
 * so that a feature of two rectangles never reads a third's offsets),
 * summed by RECT_SUM over the integrals at p. */
#define FEATURE_VALUE(r, RECT_SUM, p, O0, O1, O2, W, vnf)                \
  do {                                                                  \
    r = (W).x * (float) RECT_SUM (p, O0)                                \
        + (W).y * (float) RECT_SUM (p, O1);                             \
    if ((W).z != 0.0f)                                                  \
      r = r + (W).z * (float) RECT_SUM (p, O2);                         \
    r = r * (vnf);                                                      \
  } while (0)

#if VJ_LBP
/* Block (i, j) of an LBP node's 3 x 3 grid at p, summed by RECT_SUM. */
#define LBP_BLOCK(RECT_SUM, nd, p, i, j)                                \
  RECT_SUM (p, (int4) (nd->ofs[(i) * 4 + (j)], nd->ofs[(i) * 4 + (j) + 1], \
          nd->ofs[(i) * 4 + (j) + 4], nd->ofs[(i) * 4 + (j) + 5]))
/* Whether the window at p goes left at node nd: its code's bit in the
 * node's subset (outer blocks >= the centre, clockwise from the top left,
 * bit 7 first). */
#define NODE_LEFT(RECT_SUM, nd, p, vnf)                                 \
  node_left_lbp (LBP_BLOCK (RECT_SUM, nd, p, 1, 1), (int8) (            \
          LBP_BLOCK (RECT_SUM, nd, p, 0, 0),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 0, 1),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 0, 2),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 1, 2),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 2, 2),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 2, 1),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 2, 0),                            \
          LBP_BLOCK (RECT_SUM, nd, p, 1, 0)), nd->subset)

inline bool
node_left_lbp (const int centre, const int8 outer,
    const __global int *subset)
{
  const int8 bits = (int8) (128, 64, 32, 16, 8, 4, 2, 1);
  const int8 set = select ((int8) 0, bits, outer >= centre);
  const int code = set.s0 | set.s1 | set.s2 | set.s3 | set.s4 | set.s5
      | set.s6 | set.s7;

  return (subset[code >> 5] >> (code & 31)) & 1;
}
#else
#define NODE_LEFT(RECT_SUM, nd, p, vnf)                                 \
  (feature_value_##RECT_SUM (nd, p, vnf) < nd->weight.w)
#endif

#if VJ_LBP
#define FEATURE_BODY(f, RECT_SUM) (void) f; (void) p; return vnf
#else
/* A Haar node's feature value (OptFeature::calc * varianceNormFactor). */
#define FEATURE_BODY(f, RECT_SUM)                                       \
  const float4 w = f->weight;                                           \
  float r;                                                              \
  FEATURE_VALUE (r, RECT_SUM, p, f->ofs[0], f->ofs[1], f->ofs[2], w, vnf); \
  return r
#endif

/* The cascade's evaluation over integrals in address space AS (suffix S):
 * __global for the frame's integrals, __local for a tile of them.  With
 * ARRAYS the nodes are a stump cascade's laid out as arrays, three planes
 * of VJ_N_TREES 16-byte blocks (the first two rectangles' offsets as
 * short4 each, the third's and the leaves, the weights with the
 * threshold): the work-items of a window in the cooperative stages take
 * neighbouring trees, and so read one block of memory per load instead of
 * one node apart each, and three loads a tree instead of five. */
/* The leaf of stump k of the arrays `a` (planes of n blocks, as below)
 * for the window at p, into `leaf`. */
#define STUMP_LEAF(leaf, a, n, k, RECT_SUM, p, vnf)                     \
  do {                                                                  \
    const int4 o01 = (a)[k], o2_leaf = (a)[(n) + (k)];                  \
    const float4 w = as_float4 ((a)[2 * (n) + (k)]);                    \
    float r;                                                            \
    FEATURE_VALUE (r, RECT_SUM, p, convert_int4 (as_short4 (o01.xy)),   \
        convert_int4 (as_short4 (o01.zw)),                              \
        convert_int4 (as_short4 (o2_leaf.xy)), w, vnf);                 \
    leaf = as_float (r < w.w ? o2_leaf.z : o2_leaf.w);                  \
  } while (0)

#define CASCADE_FUNCTIONS(AS, S, ARRAYS)                                \
inline int                                                              \
rect_sum##S (const AS uint * p, const int4 o)                           \
{                                                                       \
  return (int) (p[o.x] - p[o.y] - p[o.z] + p[o.w]);                     \
}                                                                       \
                                                                        \
inline float                                                            \
feature_value_rect_sum##S (const __global Node * f, const AS uint * p,  \
    const float vnf)                                                    \
{                                                                       \
  FEATURE_BODY (f, rect_sum##S);                                        \
}                                                                       \
                                                                        \
/* The leaf tree `t` gives the window. */                               \
inline float                                                            \
tree_leaf##S (const Cascade * c, const AS uint * p, const float vnf,    \
    const int t)                                                        \
{                                                                       \
  int n = t;                                                            \
                                                                        \
  if (ARRAYS) {                                                         \
    float leaf;                                                         \
    STUMP_LEAF (leaf, (const __global int4 *) c->nodes, VJ_N_TREES, t,  \
        rect_sum##S, p, vnf);                                           \
    return leaf;                                                        \
  }                                                                     \
  for (;;) {                                                            \
    const __global Node *nd = c->nodes + n;                             \
    const bool left = NODE_LEFT (rect_sum##S, nd, p, vnf);              \
    if (VJ_STUMPS)                                                      \
      return left ? nd->leaf.x : nd->leaf.y;                            \
    const int next = left ? nd->next.x : nd->next.y;                    \
    if (next <= 0)                                                      \
      return left ? nd->leaf.x : nd->leaf.y;                            \
    n = next;                                                           \
  }                                                                     \
}                                                                       \
                                                                        \
/* The sum of stage si's leaves, in tree order. */                      \
inline real_t                                                           \
stage_sum##S (const Cascade * c, const AS uint * p, const float vnf,    \
    const int si)                                                       \
{                                                                       \
  const Stage s = c->stages[si];                                        \
  real_t sum = 0;                                                       \
                                                                        \
  for (int t = 0; t < s.n_trees; t++)                                   \
    sum += (real_t) tree_leaf##S (c, p, vnf, s.first_tree + t);         \
  return sum;                                                           \
}                                                                       \
                                                                        \
inline bool                                                             \
stage_passes##S (const Cascade * c, const AS uint * p, const float vnf, \
    const int si)                                                       \
{                                                                       \
  return !(stage_sum##S (c, p, vnf, si) < (real_t) c->stages[si].threshold); \
}                                                                       \
                                                                        \
/* Stages [first, last) one after the other, as OpenCV runs them. */    \
inline bool                                                             \
stages_pass##S (const Cascade * c, const AS uint * p, const float vnf,  \
    const int first, const int last)                                    \
{                                                                       \
  for (int si = first; si < last; si++)                                 \
    if (!stage_passes##S (c, p, vnf, si))                               \
      return false;                                                     \
  return true;                                                          \
}

CASCADE_FUNCTIONS (__global, _g, 0)
/* Only vj_detect_tiled evaluates over a tile. */
CASCADE_FUNCTIONS (__local, _l, VJ_STUMPS && VJ_TILE_X && !VJ_LBP)

/* HaarEvaluator::setWindow from the window's sum `s` and squared sum `q`
 * over the variance rectangle: its normalisation; false for windows OpenCV
 * does not evaluate (runAt returns -1). */
inline bool
window_norm_sums (const Cascade * c, const int s, const uint q, float *vnf)
{
#if VJ_LBP
  /* LBPEvaluator::setWindow: every window inside the level. */
  *vnf = 1.0f;
  return true;
#endif
  const real_t a = c->area * (real_t) q;
  const real_t b = (real_t) s * (real_t) s;
  real_t nf = a - b;

  if (nf > 0) {
    nf = sqrt (nf);
    *vnf = (float) ((real_t) 1 / nf);
    return c->area * (real_t) * vnf < (real_t) 0.1;
  }
  *vnf = 1.0f;
  return false;
}

/* The same for the window at `p` in the frame's integrals. */
inline bool
window_norm (const Cascade * c, const __global uint * p, float *vnf)
{
  if (VJ_LBP)
    return window_norm_sums (c, 0, 0, vnf);
  return window_norm_sums (c, rect_sum_g (p, c->nofs),
      (uint) rect_sum_g (p + c->sq_ofs, c->nofs), vnf);
}

/* Whether OpenCV evaluates the window at (x, y) of a level whose windows
 * start at `layer`: it does unless the run of windows to its left that
 * stage 0 rejected has odd length. */
inline bool
not_skipped (const Cascade * c, const int layer, const int x, const int y,
    const int ystep)
{
  int run = 0;

  for (int xl = x - ystep; xl >= 0; xl -= ystep) {
    const __global uint *p = c->sbuf + layer + y * c->sbuf_w + xl;
    float vnf;
    if (!window_norm (c, p, &vnf) || stage_passes_g (c, p, vnf, 0))
      break;
    run++;
  }
  return (run & 1) == 0;
}

/* out[0] counts the windows, out[1] is the uberkernel's work counter,
 * window k is out[2 + 2k], out[3 + 2k]; with weights (scores) its level
 * weight, its last stage's sum evaluated here in tree order from the
 * frame's integrals, is weights[k]. */
inline void
emit (const Cascade * c, const Out o, const int scale, const int layer,
    const int x, const int y)
{
  const uint k = atomic_inc (o.out);

  if (k >= o.cap)
    return;
  vstore2 ((uint2) (scale, ((uint) y << 16) | (uint) x), k + 1, o.out);
  if (o.weights) {
    const __global uint *p = c->sbuf + layer + y * c->sbuf_w + x;
    float vnf;
    window_norm (c, p, &vnf);
    o.weights[k] = stage_sum_g (c, p, vnf, o.n_stages - 1);
  }
}

/* Which scale window `g` belongs to, and where it is. */
inline int
decode_window (__constant const Scale * sc, const int n_scales, const int g,
    int *x, int *y)
{
  const int lo = find_scale (sc, n_scales, g, false);
  const int i = g - sc[lo].first_window;
  const int row = i / sc[lo].nx;
  *x = (i - row * sc[lo].nx) * sc[lo].ystep;
  *y = row * sc[lo].ystep;
  return lo;
}

#define CASCADE_ARGS                                                    \
    const __global uint *sbuf, const int sbuf_w, const int sq_ofs,      \
    const int4 nofs, const real_t area,                                 \
    const __global Stage *stages, const int n_stages,                   \
    const __global Node *nodes, __global uint *out, const uint out_cap, \
    __global real_t *weights, const int want_weights

#define CASCADE_INIT                                                    \
  const Cascade c = { sbuf, sbuf_w, sq_ofs, nofs, area, stages, nodes }; \
  const Out o = { out, out_cap, want_weights ? weights : 0, n_stages }

__kernel void
vj_detect_simple (CASCADE_ARGS, const int scale, const int layer_ofs,
    const int ystep, const int nx, const int ny)
{
  CASCADE_INIT;
  const int i = get_global_id (0), j = get_global_id (1);

  if (i >= nx || j >= ny)
    return;
  const int x = i * ystep, y = j * ystep;
  const __global uint *p = sbuf + layer_ofs + y * sbuf_w + x;
  float vnf;

  if (window_norm (&c, p, &vnf) && stages_pass_g (&c, p, vnf, 0, n_stages)
      && not_skipped (&c, layer_ofs, x, y, ystep))
    emit (&c, o, scale, layer_ofs, x, y);
}

/* A queue of windows in local memory: per window its corner (in the
 * integrals read), its number and its variance normalisation. */
typedef struct
{
  __local int *pos;
  __local int *win;
  __local float *vnf;
} Queue;

/* Appends a window to `q`, whose length is `*count`. */
inline void
queue_push (const Queue q, __local int *count, const int pos, const int win,
    const float vnf)
{
  const int k = atomic_inc (count);

  q.pos[k] = pos;
  q.win[k] = win;
  q.vnf[k] = vnf;
}

/* After a stage: its survivors' queue becomes the one read next. */
inline void
queue_swap (Queue * a, Queue * b)
{
  const Queue t = *a;

  *a = *b;
  *b = t;
}

#if VJ_SHUFFLE
/* shfl.sync.bfly through inline PTX: NVIDIA's OpenCL has no
 * cl_khr_subgroups.  Every work-item of the warp must call it. */
inline uint
warp_xor (const uint v, const int mask)
{
  uint r;

  asm volatile ("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
      : "=r" (r) : "r" (v), "r" (mask));
  return r;
}
#endif

#define VJ_LANES (VJ_WG / VJ_COOP_WINDOWS)

/* The sum of `v` over the VJ_LANES work-items of a window, in each of
 * them.  With VJ_SHUFFLE a butterfly of warp shuffles (a window's
 * work-items are in one warp); otherwise a reduction in local memory,
 * with barriers, so the whole work-group calls it. */
inline real_t
lanes_sum (real_t v, __local real_t * red)
{
#if VJ_SHUFFLE
  for (int m = 1; m < VJ_LANES; m <<= 1) {
#if VJ_FP64
    const uint2 u = as_uint2 (v);
    v += as_double ((uint2) (warp_xor (u.x, m), warp_xor (u.y, m)));
#else
    v += as_float (warp_xor (as_uint (v), m));
#endif
  }
  (void) red;
#else
  const int lid = get_local_id (0), lane = lid % VJ_LANES;

  red[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int off = VJ_LANES / 2; off > 0; off >>= 1) {
    if (lane < off)
      red[lid] += red[lid + off];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  v = red[lid - lane];
  barrier (CLK_LOCAL_MEM_FENCE);
#endif
  return v;
}

/* Stages coop .. n_stages - 1 of the n windows queued in *q (at base +
 * pos): VJ_COOP_WINDOWS windows at a time, VJ_LANES work-items per window;
 * a stage's survivors go to the other queue of *q and *spare, which then
 * swap, so *q ends up holding those of the last stage; returns their
 * number.  Called by the whole work-group; keep: three counters, stage si
 * counting in keep[si % 3] and clearing the next stage's, so that one
 * barrier a stage suffices.  With VJ_SHUFFLE each warp goes through its
 * own windows of the stage without waiting for the others.  With
 * STAGE_NODES (a stump cascade's arrays) the group first copies the
 * stage's nodes into `snodes`: every work-item then reads its trees from
 * local memory instead of each one from the caches in turn. */
#define COOPERATIVE_STAGES(AS, S, STAGE_NODES)                          \
inline int                                                              \
cooperative_stages##S (const Cascade * c, const AS uint * base,         \
    const int coop, const int n_stages, int n, Queue * q, Queue * spare,\
    __local real_t * red, __local int *keep, __local int4 * snodes)     \
{                                                                       \
  const int lid = get_local_id (0);                                     \
  const int w_off = lid / VJ_LANES, lane = lid % VJ_LANES;              \
  /* The first of the warp's windows in a batch (shuffles), else 0: the  \
   * batch loop is uniform over what must call lanes_sum together. */   \
  const int lead = VJ_SHUFFLE ? w_off - lid % 32 / VJ_LANES : 0;        \
                                                                        \
  if (lid == 0)                                                         \
    keep[coop % 3] = 0;                                                 \
  barrier (CLK_LOCAL_MEM_FENCE);                                        \
  for (int si = coop; si < n_stages && n > 0; si++) {                   \
    const Stage st = c->stages[si];                                     \
    if (lid == 0)                                                       \
      keep[(si + 1) % 3] = 0;                                           \
    if (STAGE_NODES) {                                                  \
      const __global int4 *a = (const __global int4 *) c->nodes          \
          + st.first_tree;                                              \
      for (int k = lid; k < st.n_trees; k += VJ_WG) {                   \
        snodes[k] = a[k];                                               \
        snodes[st.n_trees + k] = a[VJ_N_TREES + k];                     \
        snodes[2 * st.n_trees + k] = a[2 * VJ_N_TREES + k];             \
      }                                                                 \
      barrier (CLK_LOCAL_MEM_FENCE);                                    \
    }                                                                   \
    for (int b = 0; b + lead < n; b += VJ_COOP_WINDOWS) {               \
      const int w = b + w_off;                                          \
      int pos = 0, win = 0;                                             \
      float vnf = 0.0f;                                                 \
      real_t part = 0;                                                  \
      if (w < n) {                                                      \
        pos = q->pos[w];                                                \
        win = q->win[w];                                                \
        vnf = q->vnf[w];                                                \
        for (int t = lane; t < st.n_trees; t += VJ_LANES) {             \
          float leaf;                                                   \
          if (STAGE_NODES)                                              \
            STUMP_LEAF (leaf, snodes, st.n_trees, t, rect_sum##S,       \
                base + pos, vnf);                                       \
          else                                                          \
            leaf = tree_leaf##S (c, base + pos, vnf, st.first_tree + t); \
          part += (real_t) leaf;                                        \
        }                                                               \
      }                                                                 \
      const real_t sum = lanes_sum (part, red);                         \
      if (lane == 0 && w < n && !(sum < (real_t) st.threshold))         \
        queue_push (*spare, &keep[si % 3], pos, win, vnf);              \
    }                                                                   \
    barrier (CLK_LOCAL_MEM_FENCE);                                      \
    n = keep[si % 3];                                                   \
    queue_swap (q, spare);                                              \
  }                                                                     \
  return n;                                                             \
}

COOPERATIVE_STAGES (__global, _g, 0)
/* VJ_STAGE_NODES: the cascade's most trees in a stage, or 0. */
COOPERATIVE_STAGES (__local, _l, VJ_STAGE_NODES && VJ_STUMPS && VJ_TILE_X
    && !VJ_LBP)

/* Queue A holds at most VJ_WG - 1 + VJ_CHUNK windows, and queue B fewer
 * than VJ_WG before a round adds A's; A has B's size as the cooperative
 * stages' spare queue. */
#define VJ_QUEUE (2 * VJ_WG + VJ_CHUNK)

/* NVIDIA's compiler ignores a register cap (-cl-nv-maxrregcount) on a
 * kernel with a required work-group size, as CUDA's does on one with
 * launch bounds (seen in ptxas' report: 57 registers under every cap). */
#if VJ_MAX_REGISTERS
#define VJ_UBER_GROUP
#else
#define VJ_UBER_GROUP __attribute__ ((reqd_work_group_size (VJ_WG, 1, 1)))
#endif

__kernel VJ_UBER_GROUP
void
vj_detect_uber (CASCADE_ARGS, __constant const Scale * scales,
    const int n_scales, const int total)
{
  CASCADE_INIT;
  /* Queue A: windows that passed stage 0; queue B: those that passed
   * stages 1 .. VJ_COOP_STAGE - 1 too, for the cooperative stages. */
  __local int a_pos[VJ_QUEUE];  /* window corner in sbuf */
  __local int a_win[VJ_QUEUE];  /* window number */
  __local float a_vnf[VJ_QUEUE];
  __local int q_pos[VJ_QUEUE];
  __local int q_win[VJ_QUEUE];
  __local float q_vnf[VJ_QUEUE];
  const Queue qa = { a_pos, a_win, a_vnf }, qb = { q_pos, q_win, q_vnf };
  __local real_t red[VJ_WG];
  __local int l_base, l_a, l_count, l_keep[3];
  const int lid = get_local_id (0);
  const int coop = min (VJ_COOP_STAGE, n_stages);
  /* Stage 0 on the raw windows (none if every stage is cooperative). */
  const int first = min (1, coop);
  bool exhausted = false;
#if VJ_STATIC
  int fetch = 0;
#endif

  for (;;) {
    if (lid == 0)
      l_count = 0;
    barrier (CLK_LOCAL_MEM_FENCE);
    while (!exhausted && l_count < VJ_WG) {
      /* Fill queue A: stage 0, one raw window per work-item. */
      if (lid == 0)
        l_a = 0;
      while (!exhausted) {
#if VJ_STATIC
        /* For comparison: chunks dealt round-robin, as a static schedule. */
        if (lid == 0)
          l_base = (fetch * (int) get_num_groups (0) +
              (int) get_group_id (0)) * VJ_CHUNK;
        fetch++;
#else
        if (lid == 0)
          l_base = atomic_add (out + 1, (uint) VJ_CHUNK);
#endif
        barrier (CLK_LOCAL_MEM_FENCE);
        const int base = l_base;
        if (base >= total) {
          exhausted = true;
          break;
        }
        for (int j = lid; j < VJ_CHUNK; j += VJ_WG) {
          const int g = base + j;
          int x, y;
          float vnf;
          if (g >= total)
            break;
          const int s = decode_window (scales, n_scales, g, &x, &y);
          const int pos = scales[s].layer_ofs + y * sbuf_w + x;
          if (!window_norm (&c, sbuf + pos, &vnf)
              || !stages_pass_g (&c, sbuf + pos, vnf, 0, first))
            continue;
          queue_push (qa, &l_a, pos, g, vnf);
        }
        barrier (CLK_LOCAL_MEM_FENCE);
        if (l_a >= VJ_WG)
          break;
      }
      /* Stages 1 .. coop - 1, one of A's windows per work-item: every
       * work-item holds a window that passed stage 0, so the warp no
       * longer carries the windows stage 0 rejected through them. */
      const int na = l_a;
      for (int i = lid; i < na; i += VJ_WG) {
        const int pos = a_pos[i], g = a_win[i];
        const float vnf = a_vnf[i];
        if (!stages_pass_g (&c, sbuf + pos, vnf, first, coop))
          continue;
        if (coop == n_stages) {
          int x, y;
          const int s = decode_window (scales, n_scales, g, &x, &y);
          if (not_skipped (&c, scales[s].layer_ofs, x, y, scales[s].ystep))
            emit (&c, o, s, scales[s].layer_ofs, x, y);
        } else {
          queue_push (qb, &l_count, pos, g, vnf);
        }
      }
      barrier (CLK_LOCAL_MEM_FENCE);
    }
    int n = l_count;
    if (n == 0 && exhausted)
      break;

    Queue passed = qb, spare = qa;
    n = cooperative_stages_g (&c, sbuf, coop, n_stages, n, &passed, &spare,
        red, l_keep, 0);

    /* Windows that passed every stage. */
    for (int i = lid; i < n; i += VJ_WG) {
      int x, y;
      const int s = decode_window (scales, n_scales, passed.win[i], &x, &y);
      if (not_skipped (&c, scales[s].layer_ofs, x, y, scales[s].ystep))
        emit (&c, o, s, scales[s].layer_ofs, x, y);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    if (exhausted)
      break;
  }
}

#if VJ_TILE_X
/* vj_detect_tiled's tile: the integrals under VJ_TILE_X x VJ_TILE_Y windows
 * at most 2 apart (OpenCV's step), a plane each for the sums and, if the
 * cascade has tilted features, the tilted sums. */
#define VJ_TILE_COLS ((VJ_TILE_X - 1) * 2 + VJ_WIN_W + 1)
#define VJ_TILE_ROWS ((VJ_TILE_Y - 1) * 2 + VJ_WIN_H + 1)
#define VJ_TILE_PLANE (VJ_TILE_COLS * VJ_TILE_ROWS)
#define VJ_TILE_WINDOWS (VJ_TILE_X * VJ_TILE_Y)

/* Which scale tile `t` belongs to; its first window's corner and how many
 * windows it has across and down. */
inline int
decode_tile (__constant const Scale * sc, const int n_scales, const int t,
    int *x0, int *y0, int *cw, int *ch)
{
  const int lo = find_scale (sc, n_scales, t, true);
  const int i = t - sc[lo].first_tile;
  const int ty = i / sc[lo].tiles_x, tx = i - ty * sc[lo].tiles_x;

  *cw = min (VJ_TILE_X, sc[lo].nx - tx * VJ_TILE_X);
  *ch = min (VJ_TILE_Y, sc[lo].ny - ty * VJ_TILE_Y);
  *x0 = tx * VJ_TILE_X * sc[lo].ystep;
  *y0 = ty * VJ_TILE_Y * sc[lo].ystep;
  return lo;
}

#if VJ_UNROLLED
/* The stages before VJ_COOP_STAGE compiled in: the host appends to this
 * program, for a stump cascade, the definition of unrolled_stages_pass,
 * stages [first, last) of the window at p as straight-line code whose
 * nodes are constants (common/clv-vj-codegen.c, unrolled_stages_source),
 * each tree one call of unrolled_stump.  A tree then costs its reads of
 * the tile and its arithmetic, not first a chain of loads of its node. */
bool unrolled_stages_pass (const __local uint * p, float vnf, int first,
    int last);

/* What tree_leaf_l gives for a stump with these offsets in the tile,
 * weights (w.w: the threshold) and leaves. */
inline real_t
unrolled_stump (const __local uint * p, const float vnf, const int4 o0,
    const int4 o1, const int4 o2, const float4 w, const float2 leaf)
{
  float r;

  FEATURE_VALUE (r, rect_sum_l, p, o0, o1, o2, w, vnf);
  return (real_t) (r < w.w ? leaf.x : leaf.y);
}
#endif

/* Whether the window at p in the tile passes stages [first, last). */
inline bool
tile_stages_pass (const Cascade * c, const __local uint * p, const float vnf,
    const int first, const int last)
{
#if VJ_UNROLLED
  return unrolled_stages_pass (p, vnf, first, last);
#else
  return stages_pass_l (c, p, vnf, first, last);
#endif
}

/* The n windows of `from` (corners in `tile`) that pass stages
 * [first, last), one window per work-item, appended to `to`. */
inline void
queue_pass_l (const Cascade * c, const __local uint * tile, const Queue from,
    const int n, const int first, const int last, const Queue to,
    __local int *count)
{
  for (int i = get_local_id (0); i < n; i += VJ_WG)
    if (tile_stages_pass (c, tile + from.pos[i], from.vnf[i], first, last))
      queue_push (to, count, from.pos[i], from.win[i], from.vnf[i]);
}

/* The uberkernel over tiles, as OpenCV's OpenCL cascade reads its
 * integrals: a work-group takes a tile of one scale from the global
 * atomic counter (dynamic mapping), copies the tile's integrals into local
 * memory and evaluates all of the tile's windows there, so the trees of
 * neighbouring windows read the shared corners from local memory instead
 * of gathering them from the caches.  The windows move through two
 * local queues, one window per work-item: those past the variance test and
 * stage 0, then those past each of stages 1 .. VJ_COOP_STAGE - 1 in turn,
 * then the cooperative stages as in vj_detect_uber.  Only the variance's
 * squared sums and the skip rule's walk (for windows that pass every
 * stage) read global memory.
 * `tile_nodes` are the nodes laid out for the tile (row stride
 * VJ_TILE_COLS, tilted plane at VJ_TILE_PLANE; as arrays for a stump
 * cascade), `tile_nofs` the variance rectangle in it. */
__kernel VJ_UBER_GROUP
void
vj_detect_tiled (CASCADE_ARGS, __constant const Scale * scales,
    const int n_scales, const int total, const int tilt_ofs,
    const __global Node * tile_nodes, const int4 tile_nofs)
{
  CASCADE_INIT;
  const Cascade ct = { sbuf, sbuf_w, sq_ofs, tile_nofs, area, stages,
    tile_nodes
  };
  __local uint tile[VJ_TILE_PLANE * (1 + VJ_TILTED)];
  /* Per queued window: its corner in the tile, its index in the tile, its
   * variance normalisation. */
  __local int a_pos[VJ_TILE_WINDOWS], a_win[VJ_TILE_WINDOWS];
  __local float a_vnf[VJ_TILE_WINDOWS];
  __local int b_pos[VJ_TILE_WINDOWS], b_win[VJ_TILE_WINDOWS];
  __local float b_vnf[VJ_TILE_WINDOWS];
  const Queue qa = { a_pos, a_win, a_vnf }, qb = { b_pos, b_win, b_vnf };
  __local real_t red[VJ_WG];
  __local int4 snodes[3 * (VJ_STAGE_NODES > 0 ? VJ_STAGE_NODES : 1)];
  __local int l_tile, l_a, l_keep[3];
  const int lid = get_local_id (0);
  const int coop = min (VJ_COOP_STAGE, n_stages);
  const int first = min (1, coop);
#if VJ_STATIC
  int fetch = 0;
#endif

  for (;;) {
    if (lid == 0) {
#if VJ_STATIC
      l_tile = fetch * (int) get_num_groups (0) + (int) get_group_id (0);
#else
      l_tile = (int) atomic_inc (out + 1);
#endif
      l_a = 0;
      /* Stage `first` (0 or 1) counts in l_keep[first % 3]. */
      l_keep[0] = 0;
      l_keep[1] = 0;
    }
#if VJ_STATIC
    fetch++;
#endif
    barrier (CLK_LOCAL_MEM_FENCE);
    if (l_tile >= total)
      break;
    /* Tiles are numbered from the first frame's finest level on.  Taken
     * from the last frame's coarsest level down, the few tiles where a
     * face near the camera runs every stage start early, and the many
     * light tiles of a finest level end the launch, when fewer tiles
     * remain than work-groups (5-9% less detection time for one frame on
     * the H100). */
    const int t = total - 1 - l_tile;
    int x0, y0, cw, ch;
    const int s = decode_tile (scales, n_scales, t, &x0, &y0, &cw, &ch);
    const int step = scales[s].ystep;
    const int corner = scales[s].layer_ofs + y0 * sbuf_w + x0;
    const int cols = (cw - 1) * step + VJ_WIN_W + 1;
    const int rows = (ch - 1) * step + VJ_WIN_H + 1;

    /* Indexed by the constant VJ_TILE_COLS, whose division is a
     * multiplication, rather than by the tile's own width. */
    for (int i = lid; i < rows * VJ_TILE_COLS; i += VJ_WG) {
      const int r = i / VJ_TILE_COLS, col = i - r * VJ_TILE_COLS;
      if (col >= cols)
        continue;
      const int g = corner + r * sbuf_w + col;
      tile[r * VJ_TILE_COLS + col] = sbuf[g];
#if VJ_TILTED
      tile[VJ_TILE_PLANE + r * VJ_TILE_COLS + col] = sbuf[tilt_ofs + g];
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);

    /* The variance test and stage 0 together (here every work-item holds
     * a window), then the stages before the cooperative ones one at a
     * time, each stage's survivors queued for the next: without a queue
     * between them a warp would carry the windows stage 1 or 2 rejected
     * through stage 3 too. */
    for (int j = lid; j < cw * ch; j += VJ_WG) {
      const int wy = j / cw, wx = j - wy * cw;
      const int pos = (wy * VJ_TILE_COLS + wx) * step;
      const __global uint *sq = sbuf + sq_ofs + corner
          + (wy * sbuf_w + wx) * step;
      float vnf;
      if (window_norm_sums (&c, rect_sum_l (tile + pos, tile_nofs),
              (uint) rect_sum_g (sq, nofs), &vnf)
          && tile_stages_pass (&ct, tile + pos, vnf, 0, first))
        queue_push (qa, &l_a, pos, j, vnf);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    Queue passed = qa, spare = qb;
    int n = l_a;
    for (int si = first; si < coop; si++) {
      if (lid == 0)
        l_keep[(si + 1) % 3] = 0;
      queue_pass_l (&ct, tile, passed, n, si, si + 1, spare, &l_keep[si % 3]);
      barrier (CLK_LOCAL_MEM_FENCE);
      n = l_keep[si % 3];
      queue_swap (&passed, &spare);
    }

    n = cooperative_stages_l (&ct, tile, coop, n_stages, n,
        &passed, &spare, red, l_keep, snodes);

    /* Windows that passed every stage. */
    for (int i = lid; i < n; i += VJ_WG) {
      const int wy = passed.win[i] / cw, wx = passed.win[i] - wy * cw;
      const int x = x0 + wx * step, y = y0 + wy * step;
      if (not_skipped (&c, scales[s].layer_ofs, x, y, step))
        emit (&c, o, s, scales[s].layer_ofs, x, y);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}
#endif

#else /* VJ_CPU */

/* vj_detect_cpu, the detector's cpu variant (VJ_CPU, VJ_LANES wide), for
 * CPU devices: the cascade over every window of every pyramid level,
 * shaped for SIMD lanes (PoCL compiles OpenCL vector types straight into
 * AVX2 / AVX-512 instructions, where it cannot vectorise across
 * work-items whose loops end at different stages).
 *
 * The load-balancing framework of the GPU uberkernel, with a CPU's
 * vector lanes in the place of a warp's work-items:
 *  - persistent work-items take segments of VJ_LANES consecutive windows
 *    of one row of one level from a global atomic counter (dynamic
 *    mapping), from the coarsest level down;
 *  - the windows of a segment go through the variance test and stages
 *    0 .. VJ_QUEUE_STAGE - 1 as one vector: their features' corners are
 *    VJ_LANES consecutive (step 1) or every other (step 2) integral values,
 *    read by vector loads, and the segment stops as soon as no window is
 *    left;
 *  - the survivors enter local queues, one per later stage, in private
 *    memory; a queue that holds VJ_LANES windows is evaluated through its
 *    stage as one vector (corners gathered) and its survivors re-queued
 *    for the next stage, so the lanes stay full where windows are few;
 *    when the counter runs out every queue is emptied, stage by stage.
 *
 * The results are OpenCV 4.6's exactly, as in vj_detect.cl: float feature
 * values, double variance and stage sums in tree order (each lane does
 * what OpenCV does for its window; FP_CONTRACT off), and OpenCV's skip of
 * the window after a stage-0 rejection checked for the windows that pass
 * every stage, by evaluating stage 0 on the segments to their left.
 *
 * LBP cascades (VJ_LBP): no variance test; a node's feature is the 8-bit
 * code of 3 x 3 blocks (16 corners of its grid), and the node goes left
 * when the code's bit is set in its 256-bit subset.
 *
 * Raw windows are written as in vj_detect.cl: out[0] counts them, out[1]
 * is the work counter, window k is (scale, y << 16 | x) at out[2 + 2k];
 * its level weight (the last stage's sum) is weights[k].
 *
 * Build macros: VJ_LANES (8 or 16), VJ_QUEUE_STAGE (< VJ_N_STAGES),
 * VJ_UNROLLED (stages compiled in), VJ_N_STAGES,
 * VJ_MAX_NODES (nodes of the largest tree), VJ_STUMPS, VJ_LBP. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

typedef CAT (int, VJ_LANES) intv;
typedef CAT (uint, VJ_LANES) uintv;
typedef CAT (float, VJ_LANES) floatv;
typedef CAT (double, VJ_LANES) doublev;
#define VLOAD CAT (vload, VJ_LANES)
#define TO_INT CAT (convert_int, VJ_LANES)
#define TO_UINT CAT (convert_uint, VJ_LANES)
#define TO_FLOAT CAT (convert_float, VJ_LANES)
#define TO_DOUBLE CAT (convert_double, VJ_LANES)

typedef struct
{
  const __global uint *sbuf;
  int sbuf_w;
  int sq_ofs;
  int tilt_ofs;
  int4 nofs;
  double area;
  const __global Stage *stages;
  const __global Node *nodes;
} Cascade;

/* Lane i's value at p[i * step], step 1 or 2. */
inline uintv
load_row (const __global uint * p, const int step)
{
  if (step == 1)
    return VLOAD (0, p);
  const uintv a = VLOAD (0, p), b = VLOAD (0, p + VJ_LANES);
  return (uintv) (a.even, b.even);
}

/* Lane i's value at p[pos[i]]. */
inline uintv
gather (const __global uint * p, const intv pos)
{
  int idx[VJ_LANES];
  uint v[VJ_LANES];

  CAT (vstore, VJ_LANES) (pos, 0, idx);
  for (int i = 0; i < VJ_LANES; i++)
    v[i] = p[idx[i]];
  return VLOAD (0, v);
}

/* The windows' values at offset `o` from their corners: segment windows
 * (SEG, from p, `step` apart) or queued ones (corners `pos` in sbuf). */
#define AT_SEG(o) load_row (p + (o), step)
#define AT_QUEUE(o) gather (c->sbuf + (o), pos)

#define RECT(AT, o) TO_INT (AT ((o).x) - AT ((o).y) - AT ((o).z) + AT ((o).w))

/* The cascade's evaluation of VJ_LANES windows at once, with corners read
 * by AT (suffix S); WINDOWS and WINDOWS_ARGS are the parameters AT uses
 * and their names. */
#define LANE_FUNCTIONS(AT, S, UNROLLED_SUM)                             \
                                                                        \
/* Whether each window goes left at node `nd`. */                       \
inline intv                                                             \
node_left##S (const Cascade * c, WINDOWS, const __global Node * nd,     \
    const floatv vnf)                                                   \
{                                                                       \
  NODE_LEFT (AT);                                                       \
}                                                                       \
                                                                        \
/* Each window's leaf of tree `t`. */                                   \
inline floatv                                                           \
tree_leaf##S (const Cascade * c, WINDOWS, const floatv vnf,             \
    const int t)                                                        \
{                                                                       \
  const __global Node *root = c->nodes + t;                             \
  if (VJ_STUMPS)                                                        \
    return select ((floatv) root->leaf.y, (floatv) root->leaf.x,        \
        node_left##S (c, WINDOWS_ARGS, root, vnf));                     \
  /* Every node of the tree for every window, parents before children:  \
   * at[k] holds the windows that reach node[k]. */                     \
  int node[VJ_MAX_NODES];                                               \
  intv at[VJ_MAX_NODES];                                                \
  floatv leaf = 0.0f;                                                   \
  int n = 1;                                                            \
  node[0] = t;                                                          \
  at[0] = -1;                                                           \
  for (int k = 0; k < n; k++) {                                         \
    const __global Node *nd = c->nodes + node[k];                       \
    const intv left = node_left##S (c, WINDOWS_ARGS, nd, vnf);          \
    const intv side[2] = { at[k] & left, at[k] & ~left };               \
    const int next[2] = { nd->next.x, nd->next.y };                     \
    const float value[2] = { nd->leaf.x, nd->leaf.y };                  \
    for (int sd = 0; sd < 2; sd++) {                                    \
      if (next[sd] > 0 && n < VJ_MAX_NODES) {                           \
        node[n] = next[sd];                                             \
        at[n++] = side[sd];                                             \
      } else {                                                          \
        leaf = select (leaf, (floatv) value[sd], side[sd]);             \
      }                                                                 \
    }                                                                   \
  }                                                                     \
  return leaf;                                                          \
}                                                                       \
                                                                        \
/* Each window's sum of stage `si`. */                                  \
inline doublev                                                          \
stage_sum##S (const Cascade * c, WINDOWS, const floatv vnf,             \
    const int si)                                                       \
{                                                                       \
  const Stage st = c->stages[si];                                       \
  doublev sum = 0.0;                                                    \
                                                                        \
  if (si < VJ_UNROLLED)                                                 \
    return UNROLLED_SUM (si);                                           \
  for (int t = 0; t < st.n_trees; t++)                                  \
    sum += TO_DOUBLE (tree_leaf##S (c, WINDOWS_ARGS, vnf,               \
            st.first_tree + t));                                        \
  return sum;                                                           \
}

#if VJ_LBP
/* The 8-bit code of an LBP feature (OpenCV's LBPEvaluator: each outer
 * block's sum compared with the centre's, clockwise from the top left,
 * bit 7 first) and its bit in the node's subset. */
#define BLOCK(AT, i, j)                                                 \
  TO_INT (AT (nd->ofs[(i) * 4 + (j)]) - AT (nd->ofs[(i) * 4 + (j) + 1]) \
      - AT (nd->ofs[(i) * 4 + (j) + 4]) + AT (nd->ofs[(i) * 4 + (j) + 5]))
#define NODE_LEFT(AT)                                                   \
  const intv cval = BLOCK (AT, 1, 1);                                   \
  const intv code = ((BLOCK (AT, 0, 0) >= cval) & 128)                  \
      | ((BLOCK (AT, 0, 1) >= cval) & 64)                               \
      | ((BLOCK (AT, 0, 2) >= cval) & 32)                               \
      | ((BLOCK (AT, 1, 2) >= cval) & 16)                               \
      | ((BLOCK (AT, 2, 2) >= cval) & 8)                                \
      | ((BLOCK (AT, 2, 1) >= cval) & 4)                                \
      | ((BLOCK (AT, 2, 0) >= cval) & 2)                                \
      | ((BLOCK (AT, 1, 0) >= cval) & 1);                               \
  const int8 words = vload8 (0, nd->subset);                            \
  const intv word = shuffle (words, TO_UINT (code >> 5));               \
  (void) vnf;                                                           \
  return -((word >> (code & 31)) & 1)
#else
/* OptFeature::calc (pwin) * varianceNormFactor < threshold, in float. */
#define NODE_LEFT(AT)                                                   \
  const float4 w = nd->weight;                                          \
  floatv r = w.x * TO_FLOAT (RECT (AT, nd->ofs[0]))                     \
      + w.y * TO_FLOAT (RECT (AT, nd->ofs[1]));                         \
  if (w.z != 0.0f)                                                      \
    r = r + w.z * TO_FLOAT (RECT (AT, nd->ofs[2]));                     \
  r = r * vnf;                                                          \
  return r < w.w
#endif

#if VJ_UNROLLED
/* Stages 0 .. VJ_UNROLLED - 1 of a stump Haar cascade compiled in: the host
 * appends the definitions of these two (common/clv-vj-codegen.c,
 * cpu_stages_source), a case per stage and a STUMP per tree with its
 * corners as R (x, y) = x + y * w (w: the integrals' row stride) or
 * T (x, y) for the tilted plane, its weights, threshold and leaves as
 * constants: a tree costs its reads and arithmetic, not a chain of loads
 * of its node first. */
doublev unrolled_sum_seg (const __global uint * p, const int step,
    const floatv vnf, const int w, const int tilt, const int si);
doublev unrolled_sum_queue (const __global uint * sbuf, const intv pos,
    const floatv vnf, const int w, const int tilt, const int si);

#define R(x, y) ((x) + (y) * w)
#define T(x, y) (tilt + R (x, y))
/* Adds a stump's leaf for every window to `sum`. */
#define STUMP(AT, o0, o1, o2, wt, leaf_l, leaf_r)                        \
  do {                                                                  \
    const float4 k = (wt);                                              \
    floatv v = k.x * TO_FLOAT (RECT (AT, o0)) + k.y * TO_FLOAT (RECT (AT, o1)); \
    if (k.z != 0.0f)                                                    \
      v = v + k.z * TO_FLOAT (RECT (AT, o2));                           \
    v = v * vnf;                                                        \
    sum += TO_DOUBLE (select ((floatv) (leaf_r), (floatv) (leaf_l),     \
            v < k.w));                                                  \
  } while (0)
#define AT_QUEUE_SBUF(o) gather (sbuf + (o), pos)
#define STUMP_SEG(o0, o1, o2, wt, l, r) STUMP (AT_SEG, o0, o1, o2, wt, l, r)
#define STUMP_QUEUE(o0, o1, o2, wt, l, r)                                \
  STUMP (AT_QUEUE_SBUF, o0, o1, o2, wt, l, r)
#define UNROLLED_SUM_SEG(si)                                            \
  unrolled_sum_seg (p, step, vnf, c->sbuf_w, c->tilt_ofs, si)
#define UNROLLED_SUM_QUEUE(si)                                          \
  unrolled_sum_queue (c->sbuf, pos, vnf, c->sbuf_w, c->tilt_ofs, si)
#else
#define VJ_UNROLLED 0
#define UNROLLED_SUM_SEG(si) ((doublev) 0.0)
#define UNROLLED_SUM_QUEUE(si) ((doublev) 0.0)
#endif

#define WINDOWS const __global uint * p, const int step
#define WINDOWS_ARGS p, step
LANE_FUNCTIONS (AT_SEG, _seg, UNROLLED_SUM_SEG)
#undef WINDOWS
#undef WINDOWS_ARGS
#define WINDOWS const intv pos
#define WINDOWS_ARGS pos
LANE_FUNCTIONS (AT_QUEUE, _queue, UNROLLED_SUM_QUEUE)
#undef WINDOWS
#undef WINDOWS_ARGS

/* HaarEvaluator::setWindow for the segment's windows: which OpenCV
 * evaluates (`valid` lanes with enough variance) and their normalisation;
 * every valid window for LBP. */
inline intv
segment_norm (const Cascade * c, const __global uint * p, const int step,
    const intv valid, floatv * vnf)
{
#if VJ_LBP
  *vnf = 1.0f;
  return valid;
#else
  const doublev s = TO_DOUBLE (RECT (AT_SEG, c->nofs));
  const doublev q = CAT (convert_double, VJ_LANES) (TO_UINT (RECT (AT_SEG,
              c->nofs + c->sq_ofs)));
  const doublev a = c->area * q;
  const doublev nf = a - s * s;
  const floatv v = TO_FLOAT ((doublev) 1.0 / sqrt (nf));

  *vnf = select ((floatv) 1.0f, v, TO_INT (nf > 0.0));
  return valid & TO_INT (nf > 0.0) & TO_INT (c->area * TO_DOUBLE (v) < 0.1);
#endif
}

/* Stages [first, last) of the segment's `alive` windows, until none is
 * left; *sum receives the last stage's sums. */
inline intv
segment_stages (const Cascade * c, const __global uint * p, const int step,
    const floatv vnf, intv alive, const int first, const int last,
    doublev * sum)
{
  for (int si = first; si < last && any (alive); si++) {
    *sum = stage_sum_seg (c, p, step, vnf, si);
    alive &= CAT (convert_int, VJ_LANES) (!(*sum < (doublev)
            c->stages[si].threshold));
  }
  return alive;
}

/* The windows stage 0 rejects (after the variance test) in the segment of
 * VJ_LANES windows whose first corner is p. */
inline intv
stage0_rejects (const Cascade * c, const __global uint * p, const int step)
{
  floatv vnf;
  doublev sum = 0.0;
  const intv norm = segment_norm (c, p, step, (intv) - 1, &vnf);

  return norm & ~segment_stages (c, p, step, vnf, norm, 0, 1, &sum);
}

/* OpenCV evaluates the window at (x, y) of a level (corners from `layer`)
 * unless the run of windows left of it that stage 0 rejected is odd. */
inline bool
not_skipped (const Cascade * c, const int layer, const int x, const int y,
    const int step)
{
  int run = 0;

  for (int end = x; end > 0;) {
    const int x0 = max (end - VJ_LANES * step, 0);
    int rej[VJ_LANES];
    CAT (vstore, VJ_LANES) (stage0_rejects (c, c->sbuf + layer
            + y * c->sbuf_w + x0, step), 0, rej);
    for (int i = (end - x0) / step - 1; i >= 0; i--) {
      if (!rej[i])
        return (run & 1) == 0;
      run++;
    }
    end = x0;
  }
  return (run & 1) == 0;
}

/* Reports window g (a window number) with its weight, unless OpenCV skips
 * it. */
inline void
report (const Cascade * c, __constant const Scale * sc, const int n_scales,
    const int g, const double weight, __global uint * out,
    __global double *weights, const uint cap)
{
  const int s = find_scale (sc, n_scales, g, false);
  const int i = g - sc[s].first_window, row = i / sc[s].nx;
  const int x = (i - row * sc[s].nx) * sc[s].ystep, y = row * sc[s].ystep;

  if (!not_skipped (c, sc[s].layer_ofs, x, y, sc[s].ystep))
    return;
  const uint k = atomic_inc (out);
  if (k < cap) {
    vstore2 ((uint2) (s, ((uint) y << 16) | (uint) x), k + 1, out);
    weights[k] = weight;
  }
}

/* The local queues: per stage from VJ_QUEUE_STAGE on, its windows' corners
 * in sbuf, numbers and normalisations; a stage's queue never holds more
 * than 2 * VJ_LANES - 1 (see drain). */
#define VJ_QUEUED_STAGES (VJ_N_STAGES - VJ_QUEUE_STAGE)
#define VJ_QUEUE_CAP (2 * VJ_LANES)
typedef struct
{
  int n[VJ_QUEUED_STAGES];
  int pos[VJ_QUEUED_STAGES][VJ_QUEUE_CAP];
  int win[VJ_QUEUED_STAGES][VJ_QUEUE_CAP];
  float vnf[VJ_QUEUED_STAGES][VJ_QUEUE_CAP];
} Queues;

/* The first VJ_LANES (at most) windows of stage si's queue through stage
 * si; the survivors go to the next stage's queue or, after the last, are
 * reported. */
inline void
flush (const Cascade * c, __local Queues * q, const int si,
    __constant const Scale * sc, const int n_scales, __global uint * out,
    __global double *weights, const uint cap)
{
  const int k = si - VJ_QUEUE_STAGE, n = min (q->n[k], VJ_LANES);
  int pos_a[VJ_LANES], alive_a[VJ_LANES];
  float vnf_a[VJ_LANES];
  double sum_a[VJ_LANES];

  for (int i = 0; i < VJ_LANES; i++) {
    pos_a[i] = q->pos[k][min (i, n - 1)];
    vnf_a[i] = q->vnf[k][min (i, n - 1)];
  }
  const intv pos = VLOAD (0, pos_a);
  const doublev sum = stage_sum_queue (c, pos, VLOAD (0, vnf_a), si);
  CAT (vstore, VJ_LANES) (TO_INT (!(sum < (doublev) c->stages[si].
              threshold)), 0, alive_a);
  CAT (vstore, VJ_LANES) (sum, 0, sum_a);
  for (int i = 0; i < n; i++) {
    if (!alive_a[i])
      continue;
    if (si + 1 == VJ_N_STAGES) {
      report (c, sc, n_scales, q->win[k][i], sum_a[i], out, weights, cap);
    } else {
      const int m = q->n[k + 1]++;
      q->pos[k + 1][m] = pos_a[i];
      q->win[k + 1][m] = q->win[k][i];
      q->vnf[k + 1][m] = vnf_a[i];
    }
  }
  /* The rest move to the front. */
  for (int i = n; i < q->n[k]; i++) {
    q->pos[k][i - n] = q->pos[k][i];
    q->win[k][i - n] = q->win[k][i];
    q->vnf[k][i - n] = q->vnf[k][i];
  }
  q->n[k] -= n;
}

/* Flushes the deepest queue that holds VJ_LANES windows, until none does:
 * a flush adds at most VJ_LANES windows to the next stage's queue, which
 * then held fewer.  With `all`, then the shallowest that holds any, until
 * every queue is empty. */
inline void
drain (const Cascade * c, __local Queues * q, const bool all,
    __constant const Scale * sc, const int n_scales, __global uint * out,
    __global double *weights, const uint cap)
{
  for (;;) {
    int si = -1;
    for (int k = VJ_QUEUED_STAGES - 1; k >= 0 && si < 0; k--)
      if (q->n[k] >= VJ_LANES)
        si = VJ_QUEUE_STAGE + k;
    for (int k = 0; all && k < VJ_QUEUED_STAGES && si < 0; k++)
      if (q->n[k] > 0)
        si = VJ_QUEUE_STAGE + k;
    if (si < 0)
      return;
    flush (c, q, si, sc, n_scales, out, weights, cap);
  }
}

__kernel void
vj_detect_cpu (const __global uint * sbuf, const int sbuf_w,
    const int sq_ofs, const int tilt_ofs, const int4 nofs, const double area,
    const __global Stage * stages, const __global Node * nodes,
    __global uint * out, const uint out_cap, __global double *weights,
    __constant const Scale * scales, const int n_scales, const int total)
{
  const Cascade c = { sbuf, sbuf_w, sq_ofs, tilt_ofs, nofs, area, stages,
    nodes
  };
  const intv lane = (intv) (0, 1, 2, 3, 4, 5, 6, 7
#if VJ_LANES == 16
      , 8, 9, 10, 11, 12, 13, 14, 15
#endif
      );
  /* In local memory, not on a CPU thread's stack. */
  __local Queues q;

  for (int k = 0; k < VJ_QUEUED_STAGES; k++)
    q.n[k] = 0;
  for (;;) {
    /* Segments from the last (the coarsest level's) down: the long runs
     * of a face near the camera start first. */
    const int taken = (int) atomic_inc (out + 1);
    if (taken >= total)
      break;
    const int t = total - 1 - taken;
    const int s = find_scale (scales, n_scales, t, true);
    const Scale sc = scales[s];
    const int i = t - sc.first_tile, row = i / sc.tiles_x;
    const int col = (i - row * sc.tiles_x) * VJ_LANES;
    const int step = sc.ystep, x0 = col * step, y = row * step;
    const int corner = sc.layer_ofs + y * sbuf_w + x0;
    const __global uint *p = sbuf + corner;
    floatv vnf;
    doublev sum = 0.0;
    intv alive = segment_norm (&c, p, step, col + lane < sc.nx, &vnf);

    alive = segment_stages (&c, p, step, vnf, alive, 0, VJ_QUEUE_STAGE,
        &sum);
    if (!any (alive))
      continue;
    int alive_a[VJ_LANES];
    float vnf_a[VJ_LANES];
    CAT (vstore, VJ_LANES) (alive, 0, alive_a);
    CAT (vstore, VJ_LANES) (vnf, 0, vnf_a);
    for (int l = 0; l < VJ_LANES; l++) {
      if (!alive_a[l])
        continue;
      const int m = q.n[0]++;
      q.pos[0][m] = corner + l * step;
      q.win[0][m] = sc.first_window + row * sc.nx + col + l;
      q.vnf[0][m] = vnf_a[l];
    }
    drain (&c, &q, false, scales, n_scales, out, weights, out_cap);
  }
  drain (&c, &q, true, scales, n_scales, out, weights, out_cap);
}

#endif /* VJ_CPU */
