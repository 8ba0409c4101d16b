/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface recognition of a batch of faces, the test steps 1–3 (section
 * 3.2) of Li, Yan and Zhang, "Optimization of GPU-based Eigenface
 * Algorithm", for all the faces of a frame at once.
 *
 * Build macros:
 *   REAL_DOUBLE  1: compute in double (needs cl_khr_fp64), 0: float
 *   PROJ_WG      work-group size of the projection (power of two)
 *   PROJ_FACES   faces projected together by one work-group
 *   NEAR_WG      work-group size of the nearest search (power of two) */

#if REAL_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

/* The luma of a pixel: the byte itself (gray, planar YUV), or OpenCV 4.6's
 * fixed-point RGB→gray (cvtColor RGB2Gray<uchar>, 15 fraction bits,
 * rounded; clv_rgb_to_gray_ref on the host) for packed RGB, whose component
 * byte offsets are rgb.x, .y, .z (x < 0: gray). */
inline uint
luma (const __global uchar * px, const int4 rgb)
{
  if (rgb.x < 0)
    return px[0];
  return (px[rgb.x] * 9798u + px[rgb.y] * 19235u + px[rgb.z] * 3735u +
      16384u) >> 15;
}

/* Step 0: every face cropped and resized to the model size (bit-exact
 * OpenCV INTER_LINEAR_EXACT, see clv_eigen_crop_resize_ref) and the mean
 * subtracted.  The per-axis tables hold, for each output column (row) of
 * each face, (first source pixel << 9) | weight of the next one (0..256),
 * frame coordinates included.  One work-item per output pixel. */
__kernel void
crop_resize (const __global uchar * frame, const uint offset,
    const uint stride, const int pixel_stride, const int4 rgb,
    const __global int *xtab, const __global int *ytab, const int out_w,
    const int out_h, const __global real * mean, __global real * faces)
{
  const int p = get_global_id (0), f = get_global_id (1);
  const int dim = out_w * out_h;

  if (p >= dim)
    return;
  const int ox = p % out_w, oy = p / out_w;
  const int ex = xtab[f * out_w + ox], ey = ytab[f * out_h + oy];
  const int x0 = ex >> 9, fx = ex & 511, y0 = ey >> 9, fy = ey & 511;
  /* The second pixel is not read when its weight is 0: it may lie past
   * the box. */
  const int x1 = fx ? x0 + 1 : x0, y1 = fy ? y0 + 1 : y0;
  const __global uchar *r0 = frame + offset + (size_t) y0 * stride;
  const __global uchar *r1 = frame + offset + (size_t) y1 * stride;
  const uint h0 = (256 - fx) * luma (r0 + x0 * pixel_stride, rgb) +
      fx * luma (r0 + x1 * pixel_stride, rgb);
  const uint h1 = (256 - fx) * luma (r1 + x0 * pixel_stride, rgb) +
      fx * luma (r1 + x1 * pixel_stride, rgb);
  const uint v = ((256 - fy) * h0 + fy * h1 + 32768u) >> 16;

  faces[(size_t) f * dim + p] = (real) v - mean[p];
}

/* Step 1: weights w[f][k] = uₖ · (face_f − mean).  A work-group owns
 * eigenface k and PROJ_FACES faces: it reads uₖ once for all of them, each
 * work-item accumulates every PROJ_WG-th pixel, and a tree reduction in
 * local memory adds the partial sums (the paper's K blocks, batched). */
__kernel __attribute__ ((reqd_work_group_size (PROJ_WG, 1, 1)))
void
project (const __global real * faces, const int n_faces, const int dim,
    const __global real * ut, const int n_comp, __global real * w)
{
  __local real part[PROJ_FACES][PROJ_WG];
  const int lid = get_local_id (0);
  const int k = get_group_id (0), f0 = get_group_id (1) * PROJ_FACES;
  const __global real *u = ut + (size_t) k * dim;
  real acc[PROJ_FACES];

#pragma unroll
  for (int b = 0; b < PROJ_FACES; b++)
    acc[b] = 0;
  for (int p = lid; p < dim; p += PROJ_WG) {
    const real uv = u[p];
#pragma unroll
    for (int b = 0; b < PROJ_FACES; b++)
      if (f0 + b < n_faces)
        acc[b] = fma (faces[(size_t) (f0 + b) * dim + p], uv, acc[b]);
  }
#pragma unroll
  for (int b = 0; b < PROJ_FACES; b++)
    part[b][lid] = acc[b];
  barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int span = PROJ_WG / 2; span > 0; span >>= 1) {
    if (lid < span)
#pragma unroll
      for (int b = 0; b < PROJ_FACES; b++)
        part[b][lid] += part[b][lid + span];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid < PROJ_FACES && f0 + lid < n_faces)
    w[(size_t) (f0 + lid) * n_comp + k] = part[lid][0];
}

/* Step 2: squared distances d[f][i] = ‖w_f − Ωᵢ‖².  The training weights
 * are stored transposed (Ωᵀ, K × M) so that neighbouring work-items, which
 * own neighbouring training faces, read neighbouring words; w_f is the same
 * for the whole row of work-items. */
__kernel void
distances (const __global real * w, const int n_comp,
    const __global real * omega_t, const int n_train, __global real * dist)
{
  const int i = get_global_id (0), f = get_global_id (1);

  if (i >= n_train)
    return;
  const __global real *wf = w + (size_t) f * n_comp;
  real s = 0;
  for (int k = 0; k < n_comp; k++) {
    const real d = wf[k] - omega_t[(size_t) k * n_train + i];
    s = fma (d, d, s);
  }
  dist[(size_t) f * n_train + i] = s;
}

/* Step 3 (on the device, for the whole batch): per face, the nearest
 * training face (strictly smaller wins, the first on ties: OpenCV's
 * StandardCollector) and the nearest among the other labels.  One
 * work-group per face, two tree reductions. */
__kernel __attribute__ ((reqd_work_group_size (NEAR_WG, 1, 1)))
void
nearest (const __global real * dist, const int n_train,
    const __global int *labels, __global int *best_index,
    __global real * best_dist)
{
  __local real dmin[NEAR_WG];
  __local int imin[NEAR_WG];
  const int lid = get_local_id (0), f = get_group_id (0);
  const __global real *d = dist + (size_t) f * n_train;
  real bd = INFINITY;
  int bi = n_train;

  /* Each work-item's indices rise, so "<" keeps its first minimum. */
  for (int i = lid; i < n_train; i += NEAR_WG)
    if (d[i] < bd) {
      bd = d[i];
      bi = i;
    }
  dmin[lid] = bd;
  imin[lid] = bi;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int span = NEAR_WG / 2; span > 0; span >>= 1) {
    if (lid < span) {
      const real od = dmin[lid + span];
      const int oi = imin[lid + span];
      if (od < dmin[lid] || (od == dmin[lid] && oi < imin[lid])) {
        dmin[lid] = od;
        imin[lid] = oi;
      }
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  const int winner = imin[0];
  const int label = winner < n_train ? labels[winner] : 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  real od = INFINITY;
  for (int i = lid; i < n_train; i += NEAR_WG)
    if (labels[i] != label)
      od = fmin (od, d[i]);
  dmin[lid] = od;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int span = NEAR_WG / 2; span > 0; span >>= 1) {
    if (lid < span)
      dmin[lid] = fmin (dmin[lid], dmin[lid + span]);
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  /* No finite distance at all (a model of overflowing values): no winner,
   * as the reference says. */
  if (lid == 0) {
    best_index[f] = winner < n_train ? winner : -1;
    best_dist[2 * f] = winner < n_train ? d[winner] : INFINITY;
    best_dist[2 * f + 1] = dmin[0];
  }
}
