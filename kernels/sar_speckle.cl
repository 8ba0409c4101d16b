/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR speckle filters (the rules: common/clv-sar-speckle-ref.c).
 *
 * Build macros: SAMPLE (ClvSample: 1 uchar, 2 ushort, 3 float), FILTER (0 Lee,
 * 1 Frost, 2 Gamma-MAP, 3 Kuan, 4 refined Lee, 5 boxcar, 6 median), R (the
 * radius), LOOKS and DERAMP (double literals), LX x LY (the work-group, one
 * output pixel per work-item), HAVE_FP64 (window statistics in double, as
 * OTB computes them); Frost: NCLASS distinct distances in the window,
 * FROST_CLASS_OF (each offset's class, row by row) and FROST_DIST (each
 * class's distance); median: NPAD (a power of two >= the window's size, or
 * 0 for windows too large to sort in registers).
 *
 * A work-group reads its (LY + 2R) x (LX + 2R) input tile, halo included,
 * into local memory once, edge pixels repeated beyond the image (OTB's
 * border rule).  Box sums are separable: each work-item sums rows of the
 * tile across (x and x^2), then its column of those down, so a window costs
 * 2 (2R + 1) additions instead of (2R + 1)^2. */

#pragma OPENCL FP_CONTRACT OFF
#if HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
#else
typedef float real_t;
#endif

#if SAMPLE == 1
typedef uchar sample_t;
#elif SAMPLE == 2
typedef ushort sample_t;
#else
typedef float sample_t;
#endif

#define TW (LX + 2 * R)
#define TH (LY + 2 * R)
#define SIDE (2 * R + 1)
#define N (SIDE * SIDE)

/* Reads the work-group's tile, clamped to the image. */
inline void
load_tile (const __global sample_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __local float tile[TH][TW])
{
  const int x0 = get_group_id (0) * LX - R, y0 = get_group_id (1) * LY - R;
  const int lid = get_local_id (1) * LX + get_local_id (0);

  for (int i = lid; i < TW * TH; i += LX * LY) {
    const int tx = i % TW, ty = i / TW;
    const int gx = clamp (x0 + tx, 0, width - 1);
    const int gy = clamp (y0 + ty, 0, height - 1);

    tile[ty][tx] = (float) src[src_offset + (size_t) gy * src_stride + gx];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

#if FILTER <= 3 || FILTER == 5
/* The window sums of x and x^2 of this work-item's pixel: rows across,
 * then down. */
inline void
box_sums (__local float tile[TH][TW], __local real_t hs[TH][LX],
    __local real_t hs2[TH][LX], real_t * s, real_t * s2)
{
  const int lx = get_local_id (0), ly = get_local_id (1);

  for (int row = ly; row < TH; row += LY) {
    real_t a = 0, b = 0;
#pragma unroll
    for (int dx = 0; dx < SIDE; dx++) {
      const real_t v = tile[row][lx + dx];
      a += v;
      b += v * v;
    }
    hs[row][lx] = a;
    hs2[row][lx] = b;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  *s = 0;
  *s2 = 0;
#pragma unroll
  for (int dy = 0; dy < SIDE; dy++) {
    *s += hs[ly + dy][lx];
    *s2 += hs2[ly + dy][lx];
  }
}
#endif

#if FILTER == 0 || FILTER == 2 || FILTER == 3
/* OTB's rules of Lee, Gamma-MAP and Kuan. */
inline float
stats_rule (const real_t e, const real_t var, const real_t i)
{
  const real_t eps = 1e-10, looks = LOOKS, cu2 = 1 / looks;
  const real_t ci2 = var / (e * e);

  if (fabs (e) < eps)
    return 0;
  if (fabs (var) < eps || ci2 < cu2)
    return (float) e;
#if FILTER == 0
  {
    const real_t w = 1 - cu2 / ci2;
    return (float) (i * w + e * (1 - w));
  }
#elif FILTER == 3
  {
    const real_t w = (1 - cu2 / ci2) / (1 + cu2);
    return (float) (i * w + e * (1 - w));
  }
#else
  {
    const real_t cmax = sqrt ((real_t) 2) * sqrt (cu2);
    real_t alpha, b, d;

    if (sqrt (ci2) >= cmax)
      return (float) i;
    alpha = (1 + cu2) / (ci2 - cu2);
    b = alpha - looks - 1;
    d = e * e * b * b + 4 * alpha * looks * e * i;
    return (float) ((b * e + sqrt (d)) / (2 * alpha));
  }
#endif
}
#endif

#if FILTER == 1
__constant uchar frost_class_of[N] = { FROST_CLASS_OF };
__constant real_t frost_dist[NCLASS] = { FROST_DIST };

/* Weights exp(-alpha d) take one value per distinct distance: the window
 * is summed by distance class, and only NCLASS exponentials are taken. */
inline float
frost (__local float tile[TH][TW], const real_t e, const real_t var)
{
  const int lx = get_local_id (0), ly = get_local_id (1);
  float sums[NCLASS], counts[NCLASS];
  real_t alpha, num = 0, den = 0;

  if (fabs (e) < 1e-10)
    return 0;
  if (fabs (var) < 1e-10)
    return (float) e;
  alpha = (real_t) DERAMP * var / (e * e);
#pragma unroll
  for (int k = 0; k < NCLASS; k++)
    sums[k] = counts[k] = 0;
#pragma unroll
  for (int j = 0; j < N; j++) {
    sums[frost_class_of[j]] += tile[ly + j / SIDE][lx + j % SIDE];
    counts[frost_class_of[j]] += 1;
  }
#pragma unroll
  for (int k = 0; k < NCLASS; k++) {
    const real_t w = exp ((float) (-alpha * frost_dist[k]));
    num += w * sums[k];
    den += w * counts[k];
  }
  return (float) (num / den);
}
#endif

#if FILTER == 4
/* Refined Lee: R is 3.  h3 holds the tile's rows summed over 3 columns
 * (column c: tile columns c .. c + 2). */
inline float
refined_lee (__local float tile[TH][TW], __local real_t h3[TH][TW - 2])
{
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int lid = ly * LX + lx;
  const real_t looks = LOOKS, sv = 1 / looks;
  real_t m[3][3], g[4], near0[4], near1[4];
  real_t sum = 0, sum2 = 0, mean, var, var_x;
  int k = 0, d, n = 0;

  for (int i = lid; i < TH * (TW - 2); i += LX * LY) {
    const int c = i % (TW - 2), row = i / (TW - 2);
    h3[row][c] = (real_t) tile[row][c] + tile[row][c + 1] + tile[row][c + 2];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  /* Sub-window (i, j) centres at offset (2i - 2, 2j - 2): tile column
   * lx + 2i + 1, whose 3-sum starts at lx + 2i. */
#pragma unroll
  for (int j = 0; j < 3; j++)
#pragma unroll
    for (int i = 0; i < 3; i++)
      m[j][i] = (h3[ly + 2 * j][lx + 2 * i] + h3[ly + 2 * j + 1][lx + 2 * i]
          + h3[ly + 2 * j + 2][lx + 2 * i]) / 9;
  g[0] = fabs (m[1][0] - m[1][2]);
  g[1] = fabs (m[0][2] - m[2][0]);
  g[2] = fabs (m[0][1] - m[2][1]);
  g[3] = fabs (m[0][0] - m[2][2]);
  near0[0] = fabs (m[1][0] - m[1][1]);
  near1[0] = fabs (m[1][1] - m[1][2]);
  near0[1] = fabs (m[0][2] - m[1][1]);
  near1[1] = fabs (m[1][1] - m[2][0]);
  near0[2] = fabs (m[0][1] - m[1][1]);
  near1[2] = fabs (m[1][1] - m[2][1]);
  near0[3] = fabs (m[0][0] - m[1][1]);
  near1[3] = fabs (m[1][1] - m[2][2]);
  for (int i = 1; i < 4; i++)
    if (g[i] > g[k])
      k = i;
  /* The half-windows on each gradient's first and second side. */
  d = near0[k] < near1[k] ? (k == 0 ? 4 : k) : (k == 0 ? 0 : k + 4);
#pragma unroll
  for (int dy = -3; dy <= 3; dy++)
#pragma unroll
    for (int dx = -3; dx <= 3; dx++) {
      const bool in = d == 0 ? dx >= 0 : d == 4 ? dx <= 0 : d == 2 ? dy <= 0
          : d == 6 ? dy >= 0 : d == 1 ? dx >= dy : d == 5 ? dx <= dy
          : d == 3 ? dx <= -dy : dx >= -dy;
      if (in) {
        const real_t v = tile[ly + 3 + dy][lx + 3 + dx];
        sum += v;
        sum2 += v * v;
        n++;
      }
    }
  mean = sum / n;
  var = (sum2 - sum * mean) / (n - 1);
  if (var == 0)
    return (float) mean;
  var_x = fmax ((var - mean * mean * sv) / (1 + sv), (real_t) 0);
  return (float) (mean + var_x / var * (tile[ly + 3][lx + 3] - mean));
}
#endif

#if FILTER == 6
#if NPAD
/* Batcher's odd-even merge sort of NPAD values in registers; only the
 * median is stored, so the compiler drops the exchanges it does not need. */
inline float
median (__local float tile[TH][TW])
{
  const int lx = get_local_id (0), ly = get_local_id (1);
  float v[NPAD];

#pragma unroll
  for (int j = 0; j < NPAD; j++)
    v[j] = j < N ? tile[ly + j / SIDE][lx + j % SIDE] : INFINITY;
#pragma unroll
  for (int p = 1; p < NPAD; p <<= 1)
#pragma unroll
    for (int k = p; k >= 1; k >>= 1)
#pragma unroll
      for (int j = k % p; j + k < NPAD; j += 2 * k)
#pragma unroll
        for (int i = 0; i < k && i + j + k < NPAD; i++)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            const float a = v[i + j], b = v[i + j + k];
            v[i + j] = fmin (a, b);
            v[i + j + k] = fmax (a, b);
          }
  return v[N / 2];
}
#else
/* Large windows: the value with fewer than N/2 + 1 values below it and at
 * least N/2 + 1 at or below it. */
inline float
median (__local float tile[TH][TW])
{
  const int lx = get_local_id (0), ly = get_local_id (1);

  for (int a = 0; a < N; a++) {
    const float c = tile[ly + a / SIDE][lx + a % SIDE];
    int below = 0, at_or_below = 0;

    for (int b = 0; b < N; b++) {
      const float x = tile[ly + b / SIDE][lx + b % SIDE];
      below += x < c;
      at_or_below += x <= c;
    }
    if (below <= N / 2 && at_or_below > N / 2)
      return c;
  }
  return NAN;
}
#endif
#endif

__kernel __attribute__((reqd_work_group_size (LX, LY, 1)))
void
sar_speckle (const __global sample_t * src, const uint src_offset,
    const uint src_stride, __global float *dst, const uint dst_offset,
    const uint dst_stride, const int width, const int height)
{
  /* Local memory is declared at the kernel's scope (OpenCL 1.2). */
  __local float tile[TH][TW];
#if FILTER <= 3 || FILTER == 5
  __local real_t hs[TH][LX], hs2[TH][LX];
#elif FILTER == 4
  __local real_t h3[TH][TW - 2];
#endif
  const int x = get_global_id (0), y = get_global_id (1);
  const int lx = get_local_id (0), ly = get_local_id (1);
  float out;

  load_tile (src, src_offset, src_stride, width, height, tile);
#if FILTER <= 3 || FILTER == 5
  {
    real_t s, s2, e, var;

    box_sums (tile, hs, hs2, &s, &s2);
    e = s / N;
    var = (s2 - s * e) / (N - 1);
#if FILTER == 1
    out = frost (tile, e, var);
#elif FILTER == 5
    out = (float) e;
#else
    out = stats_rule (e, var, tile[ly + R][lx + R]);
#endif
  }
#elif FILTER == 4
  out = refined_lee (tile, h3);
#else
  out = median (tile);
#endif
  if (x < width && y < height)
    dst[dst_offset + (size_t) y * dst_stride + x] = out;
}
