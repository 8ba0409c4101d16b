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
 * Raw windows are written compactly as (scale, y << 16 | x) through an
 * atomic counter; the host groups them. */

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

/* The cascade's evaluation over integrals in address space AS (suffix S):
 * __global for the frame's integrals, __local for a tile of them.  With
 * ARRAYS the nodes are a stump cascade's laid out as arrays, three planes
 * of VJ_N_TREES 16-byte blocks (the first two rectangles' offsets as
 * short4 each, the third's and the leaves, the weights with the
 * threshold): the work-items of a window in the cooperative stages take
 * neighbouring trees, and so read one block of memory per load instead of
 * one node apart each, and three loads a tree instead of five. */
#define CASCADE_FUNCTIONS(AS, S, ARRAYS)                                \
inline int                                                              \
rect_sum##S (const AS uint * p, const int4 o)                           \
{                                                                       \
  return (int) (p[o.x] - p[o.y] - p[o.z] + p[o.w]);                     \
}                                                                       \
                                                                        \
inline float                                                            \
feature_value##S (const __global Node * f, const AS uint * p,           \
    const float vnf)                                                    \
{                                                                       \
  const float4 w = f->weight;                                           \
  float r;                                                              \
                                                                        \
  FEATURE_VALUE (r, rect_sum##S, p, f->ofs[0], f->ofs[1], f->ofs[2], w, \
      vnf);                                                             \
  return r;                                                             \
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
    const __global int4 *a = (const __global int4 *) c->nodes;          \
    const int4 o01 = a[t], o2_leaf = a[VJ_N_TREES + t];                 \
    const float4 w = as_float4 (a[2 * VJ_N_TREES + t]);                 \
    float r;                                                            \
    FEATURE_VALUE (r, rect_sum##S, p, convert_int4 (as_short4 (o01.xy)), \
        convert_int4 (as_short4 (o01.zw)),                              \
        convert_int4 (as_short4 (o2_leaf.xy)), w, vnf);                 \
    return as_float (r < w.w ? o2_leaf.z : o2_leaf.w);                  \
  }                                                                     \
  for (;;) {                                                            \
    const __global Node *nd = c->nodes + n;                             \
    const bool left = feature_value##S (nd, p, vnf) < nd->weight.w;     \
    if (VJ_STUMPS)                                                      \
      return left ? nd->leaf.x : nd->leaf.y;                            \
    const int next = left ? nd->next.x : nd->next.y;                    \
    if (next <= 0)                                                      \
      return left ? nd->leaf.x : nd->leaf.y;                            \
    n = next;                                                           \
  }                                                                     \
}                                                                       \
                                                                        \
inline bool                                                             \
stage_passes##S (const Cascade * c, const AS uint * p, const float vnf, \
    const int si)                                                       \
{                                                                       \
  const Stage s = c->stages[si];                                        \
  real_t sum = 0;                                                       \
                                                                        \
  for (int t = 0; t < s.n_trees; t++)                                   \
    sum += (real_t) tree_leaf##S (c, p, vnf, s.first_tree + t);         \
  return !(sum < (real_t) s.threshold);                                 \
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
CASCADE_FUNCTIONS (__local, _l, VJ_STUMPS && VJ_TILE_X)

/* HaarEvaluator::setWindow from the window's sum `s` and squared sum `q`
 * over the variance rectangle: its normalisation; false for windows OpenCV
 * does not evaluate (runAt returns -1). */
inline bool
window_norm_sums (const Cascade * c, const int s, const uint q, float *vnf)
{
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
 * window k is out[2 + 2k], out[3 + 2k]. */
inline void
emit (__global uint * out, const uint cap, const int scale, const int x,
    const int y)
{
  const uint k = atomic_inc (out);

  if (k < cap)
    vstore2 ((uint2) (scale, ((uint) y << 16) | (uint) x), k + 1, out);
}

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
    const __global Node *nodes, __global uint *out, const uint out_cap

#define CASCADE_INIT                                                    \
  const Cascade c = { sbuf, sbuf_w, sq_ofs, nofs, area, stages, nodes }

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
    emit (out, out_cap, scale, x, y);
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
 * own windows of the stage without waiting for the others. */
#define COOPERATIVE_STAGES(AS, S)                                       \
inline int                                                              \
cooperative_stages##S (const Cascade * c, const AS uint * base,         \
    const int coop, const int n_stages, int n, Queue * q, Queue * spare,\
    __local real_t * red, __local int *keep)                            \
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
    for (int b = 0; b + lead < n; b += VJ_COOP_WINDOWS) {               \
      const int w = b + w_off;                                          \
      int pos = 0, win = 0;                                             \
      float vnf = 0.0f;                                                 \
      real_t part = 0;                                                  \
      if (w < n) {                                                      \
        pos = q->pos[w];                                                \
        win = q->win[w];                                                \
        vnf = q->vnf[w];                                                \
        for (int t = lane; t < st.n_trees; t += VJ_LANES)               \
          part += (real_t) tree_leaf##S (c, base + pos, vnf,            \
              st.first_tree + t);                                       \
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

COOPERATIVE_STAGES (__global, _g)
COOPERATIVE_STAGES (__local, _l)

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
            emit (out, out_cap, s, x, y);
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
        red, l_keep);

    /* Windows that passed every stage. */
    for (int i = lid; i < n; i += VJ_WG) {
      int x, y;
      const int s = decode_window (scales, n_scales, passed.win[i], &x, &y);
      if (not_skipped (&c, scales[s].layer_ofs, x, y, scales[s].ystep))
        emit (out, out_cap, s, x, y);
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
        &passed, &spare, red, l_keep);

    /* Windows that passed every stage. */
    for (int i = lid; i < n; i += VJ_WG) {
      const int wy = passed.win[i] / cw, wx = passed.win[i] - wy * cw;
      const int x = x0 + wx * step, y = y0 + wy * step;
      if (not_skipped (&c, scales[s].layer_ofs, x, y, step))
        emit (out, out_cap, s, x, y);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}
#endif
