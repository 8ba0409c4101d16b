/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR quantization to GRAY8 (see common/clv-sar.h for the formula).
 *
 * Three launches per frame (two with SAR_Q_ATOMIC=1, where pass 1
 * finishes the sums itself: sar_quantize_sums_total):
 *  1. sar_quantize_sums, one fused pass over the image: a work-item reads
 *     Q_K vectors of Q_VEC consecutive pixels per row (interleaved with its
 *     neighbours', so a work-group reads contiguous spans) down a band of
 *     Q_BAND rows.  The same loads feed its column accumulators and its row
 *     sum; it writes one row partial per row and, at the end, one column
 *     partial per column: the band x width partial matrix of Li, Liang,
 *     Zhang and Li, "Parallel Optimization Strategy of Airborne SAR Imaging
 *     Algorithm Based on ARM GPU".
 *     (sar_quantize_row_sums and sar_quantize_col_sums are the unfused,
 *     one-work-item-per-line starting point, kept for the benchmark.)
 *  2. sar_quantize_finish, small: Q_FS work-items per column and per row
 *     add the partials and store the reciprocal of the sum; each
 *     work-group also adds its columns' sums to the total T.
 *  3. sar_quantize_apply, per pixel: ((I * coef * T) * rinv(y)) * cinv(x),
 *     rounded and clamped, Q_VEC pixels per work-item.
 * Sums are integers (exact).  The float steps are the host reference's,
 * with contraction off; the reciprocals are correctly rounded (in double if
 * DIV_FP64, else through -cl-fp32-correctly-rounded-divide-sqrt), so device
 * and host agree bit for bit.
 *
 * Build macros: PIX_BYTES (1, 2), Q_VEC (1, 2, 4, 8, 16), Q_K, Q_WG (local
 * size of pass 1; pass 3's is the host's), Q_BAND, Q_FLX x Q_FS (local size
 * of pass 2: lines, work-items per line), DIV_FP64. */
#pragma OPENCL FP_CONTRACT OFF

#if DIV_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

#if PIX_BYTES == 1
typedef uchar pix_t;
#else
typedef ushort pix_t;
#endif

#if Q_VEC == 1
typedef pix_t pixv;
typedef uint uintv;
typedef float floatv;
typedef uchar ucharv;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#define HSUM(v) (v)
#else
#if PIX_BYTES == 1
typedef XCAT (uchar, Q_VEC) pixv;
#else
typedef XCAT (ushort, Q_VEC) pixv;
#endif
typedef XCAT (uint, Q_VEC) uintv;
typedef XCAT (float, Q_VEC) floatv;
typedef XCAT (uchar, Q_VEC) ucharv;
#define VLOAD(p) XCAT (vload, Q_VEC) (0, p)
#define VSTORE(v, p) XCAT (vstore, Q_VEC) (v, 0, p)
#define HSUM(v) hsum (v)
#endif
#if Q_VEC == 1
#define CONVERT(type, v) XCAT (convert_, type) (v)
#else
#define CONVERT(type, v) XCAT (XCAT (convert_, type), Q_VEC) (v)
#endif

#if Q_VEC > 1
inline uint
hsum (uintv v)
{
#if Q_VEC == 16
  XCAT (uint, 8) v8 = v.lo + v.hi;
#elif Q_VEC == 8
  XCAT (uint, 8) v8 = v;
#endif
#if Q_VEC >= 8
  uint4 v4 = v8.lo + v8.hi;
#elif Q_VEC == 4
  uint4 v4 = v;
#endif
#if Q_VEC >= 4
  uint2 v2 = v4.lo + v4.hi;
#else
  uint2 v2 = v;
#endif
  return v2.x + v2.y;
}
#endif

/* Q_VEC pixels from x on, zeros past the width (only the last vector of a
 * row takes the slow path).  `aligned`: row + x is aligned to the whole
 * vector, so one wide load fetches it (vloadN only promises element
 * alignment, and compilers then split the load). */
inline uintv
load_pixels (const __global pix_t * row, const int x, const int width,
    const int aligned)
{
  if (x + Q_VEC <= width)
    return CONVERT (uint, aligned ? *(const __global pixv *) (row + x) :
        VLOAD (row + x));
  uint t[Q_VEC];
  for (int i = 0; i < Q_VEC; i++)
    t[i] = x + i < width ? row[x + i] : 0;
  return VLOAD (t);
}

/* Floats from our own buffers, where x is a multiple of Q_VEC: aligned. */
inline floatv
load_floats (const __global float * p, const int x, const int width)
{
  if (x + Q_VEC <= width)
    return *(const __global floatv *) (p + x);
  float t[Q_VEC];
  for (int i = 0; i < Q_VEC; i++)
    t[i] = x + i < width ? p[x + i] : 0.0f;
  return VLOAD (t);
}

inline void
store_uints (const uintv v, __global uint * p, const int x, const int width)
{
  if (x + Q_VEC <= width) {
    VSTORE (v, p + x);
    return;
  }
  uint t[Q_VEC];
  VSTORE (v, t);
  for (int i = 0; i < Q_VEC && x + i < width; i++)
    p[x + i] = t[i];
}

inline void
store_bytes (const ucharv v, __global uchar * p, const int x, const int width,
    const int aligned)
{
  if (x + Q_VEC <= width) {
    if (aligned)
      *(__global ucharv *) (p + x) = v;
    else
      VSTORE (v, p + x);
    return;
  }
  uchar t[Q_VEC];
  VSTORE (v, t);
  for (int i = 0; i < Q_VEC && x + i < width; i++)
    p[x + i] = t[i];
}

/* The correctly rounded float reciprocal of (float) s; 0 for s = 0. */
inline float
reciprocal (const ulong s)
{
#if DIV_FP64
  /* Double then float rounding of a quotient of floats is exact rounding. */
  return s ? (float) (1.0 / (double) (float) s) : 0.0f;
#else
  return s ? 1.0f / (float) s : 0.0f;
#endif
}

/* One row of pass 1's loads: the column sums of this work-item's vectors
 * into col[], the sum of its pixels into rsum (Q_WG + 1 apart: the summing
 * work-items then read different banks). */
inline void
add_row (const uintv * v, uintv * col, __local uint * rsum)
{
  uintv rs = 0;

#pragma unroll
  for (int k = 0; k < Q_K; k++) {
    col[k] += v[k];
    rs += v[k];
  }
  *rsum = HSUM (rs);
}

/* Row partial segments: the Q_WG row sums of a band row are added in
 * ROW_SEGS segments by different work-items, then the segments, so that
 * summing a band's rows takes Q_WG / ROW_SEGS + ROW_SEGS steps, not Q_WG. */
#define ROW_SEGS (Q_WG / Q_BAND > 1 ? Q_WG / Q_BAND : 1)
#define ROW_SEG_LEN ((Q_WG + ROW_SEGS - 1) / ROW_SEGS)

/* Pass 1's loads for one work-group: Q_BAND rows from y0 of Q_WG * Q_K *
 * Q_VEC columns; the column sums of this work-item's vectors into col[],
 * row y0 + r's sum over the work-group into rtot[r]. */
inline void
band_sums (const __global pix_t * src, const uint src_stride,
    const int width, const int x0, const int y0, const int y1,
    const int aligned, uintv * col, __local uint * rsum, __local uint * rseg,
    __local uint * rtot)
{
  const int lid = get_local_id (0);

  for (int k = 0; k < Q_K; k++)
    col[k] = 0;
  for (int y = y0; y < y1; y++) {
    uintv v[Q_K];
#pragma unroll
    for (int k = 0; k < Q_K; k++)
      v[k] = load_pixels (src + (size_t) y * src_stride,
          x0 + k * Q_WG * Q_VEC, width, aligned);
    add_row (v, col, rsum + (y - y0) * (Q_WG + 1) + lid);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int t = lid; t < (y1 - y0) * ROW_SEGS; t += Q_WG) {
    const int r = t / ROW_SEGS, seg = t % ROW_SEGS;
    const int i1 = min ((seg + 1) * ROW_SEG_LEN, Q_WG);
    uint sum = 0;
    for (int i = seg * ROW_SEG_LEN; i < i1; i++)
      sum += rsum[r * (Q_WG + 1) + i];
    rseg[t] = sum;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int r = lid; r < y1 - y0; r += Q_WG) {
    uint sum = 0;
    for (int seg = 0; seg < ROW_SEGS; seg++)
      sum += rseg[r * ROW_SEGS + seg];
    rtot[r] = sum;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The total of `v` over the n work-items of the group, `lid` this one's
 * linear index (`tmp` n long). */
inline ulong
group_total (ulong v, __local ulong * tmp, const int lid, const int n)
{
  int m = 1;

  while (m < n)
    m *= 2;
  tmp[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (m /= 2; m > 0; m /= 2) {
    if (lid < m && lid + m < n)
      tmp[lid] += tmp[lid + m];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  return tmp[0];
}

/* Pass 1's local memory: the row sums of each work-item, their segments'
 * sums, the band rows' totals. */
#define PASS1_LOCAL                             \
  __local uint rsum[Q_BAND * (Q_WG + 1)];       \
  __local uint rseg[Q_BAND * ROW_SEGS];         \
  __local uint rtot[Q_BAND]

/* T, the sum of all pixels, is added up by pass 2's work-groups in two
 * uints (low, high: 32-bit atomics, which every device has), so the first
 * pass zeroes it: the launches run in order. */
inline void
zero_total (__global uint * total)
{
  if (get_global_id (0) == 0 && get_global_id (1) == 0)
    total[0] = total[1] = 0;
}

/* total += v, exactly: the low word's carry goes into the high word. */
inline void
add_total (volatile __global uint * total, const ulong v)
{
  const uint lo = (uint) v, old = atomic_add (total, lo);
  const uint hi = (uint) (v >> 32) + (old + lo < old);

  if (hi)
    atomic_add (total + 1, hi);
}

#define PASS1_PLACE                                                     \
  const int lid = get_local_id (0), band = get_global_id (1);          \
  const int x0 = get_group_id (0) * (Q_WG * Q_K * Q_VEC) + lid * Q_VEC; \
  const int y0 = band * Q_BAND, y1 = min (y0 + Q_BAND, height)

/* Pass 1: rowpart[y][group] and colpart[band][x]: a work-group takes Q_BAND
 * rows of Q_WG * Q_K * Q_VEC columns; its row partials are added up in local
 * memory so that pass 2 reads few, contiguous ones.  `aligned`: the source's
 * offset and stride are multiples of Q_VEC pixels. */
__kernel void
sar_quantize_sums (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __global uint * colpart, __global uint * rowpart, const int aligned,
    __global uint * total)
{
  PASS1_LOCAL;
  PASS1_PLACE;
  uintv col[Q_K];

  zero_total (total);
  band_sums (src + src_offset, src_stride, width, x0, y0, y1, aligned, col,
      rsum, rseg, rtot);
  colpart += (size_t) band * width;
  for (int k = 0; k < Q_K; k++)
    store_uints (col[k], colpart, x0 + k * Q_WG * Q_VEC, width);
  for (int r = lid; r < y1 - y0; r += Q_WG)
    rowpart[(size_t) (y0 + r) * get_num_groups (0) + get_group_id (0)] =
        rtot[r];
}

/* Totals read per round by each work-item of the last work-group, so that
 * their loads are in flight together. */
#define FINISH_UNROLL 8

/* The last work-group of sar_quantize_sums_total: inv[i] = the reciprocal
 * of sum[i] for i < n, sum[] zeroed; returns this work-item's part of the
 * sum of sum[]. */
inline ulong
finish_totals (volatile __global uint * sum, __global float * inv,
    const int n)
{
  const int lid = get_local_id (0);
  ulong t = 0;

  for (int i0 = lid; i0 < n; i0 += Q_WG * FINISH_UNROLL) {
    uint s[FINISH_UNROLL];
    for (int u = 0; u < FINISH_UNROLL; u++)
      s[u] = i0 + u * Q_WG < n ? sum[i0 + u * Q_WG] : 0;
    for (int u = 0; u < FINISH_UNROLL && i0 + u * Q_WG < n; u++) {
      inv[i0 + u * Q_WG] = reciprocal (s[u]);
      sum[i0 + u * Q_WG] = 0;
      t += s[u];
    }
  }
  return t;
}

/* Pass 1 with pass 2 folded in (SAR_Q_ATOMIC=1): the work-groups add
 * their column and row sums straight into colsum[x] and rowsum[y] (integer
 * atomics: the same totals in any order), and the work-group that finishes
 * last, as the counter `done` tells, turns them into the reciprocals and T
 * (total[0], total[1]: low and high words) and zeroes them and the counter
 * for the next frame (the host zeroes them once, when it makes them).  A
 * uint holds a line's total of up to 65537 pixels; the host runs the three
 * passes on larger frames. */
__kernel void
sar_quantize_sums_total (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    volatile __global uint * colsum, volatile __global uint * rowsum,
    const int aligned, __global float * cinv, __global float * rinv,
    __global uint * total, volatile __global uint * done)
{
  PASS1_LOCAL;
  __local ulong tmp[Q_WG];
  __local int last;
  PASS1_PLACE;
  uintv col[Q_K];

  band_sums (src + src_offset, src_stride, width, x0, y0, y1, aligned, col,
      rsum, rseg, rtot);
  for (int k = 0; k < Q_K; k++) {
    const int x = x0 + k * Q_WG * Q_VEC;
    uint c[Q_VEC];
    VSTORE (col[k], c);
    for (int i = 0; i < Q_VEC && x + i < width; i++)
      atomic_add (colsum + x + i, c[i]);
  }
  for (int r = lid; r < y1 - y0; r += Q_WG)
    atomic_add (rowsum + y0 + r, rtot[r]);
  /* This group's additions land before it counts itself done. */
  mem_fence (CLK_GLOBAL_MEM_FENCE);
  barrier (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (lid == 0)
    last = atomic_inc (done) == get_num_groups (0) * get_num_groups (1) - 1;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (!last)
    return;
  mem_fence (CLK_GLOBAL_MEM_FENCE);
  const ulong t = group_total (finish_totals (colsum, cinv, width), tmp,
      lid, Q_WG);
  finish_totals (rowsum, rinv, height);
  if (lid == 0) {
    total[0] = (uint) t;
    total[1] = (uint) (t >> 32);
    *done = 0;
  }
}

/* Unfused starting point: one work-item per row (rowpart[y], one part). */
__kernel void
sar_quantize_row_sums (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __global uint * rowpart, __global uint * total)
{
  const int y = get_global_id (0);

  zero_total (total);
  if (y >= height)
    return;
  const __global pix_t *row = src + src_offset + (size_t) y * src_stride;
  uint s = 0;
  for (int x = 0; x < width; x++)
    s += row[x];
  rowpart[y] = s;
}

/* Unfused starting point: one work-item per column (colpart[x], one band). */
__kernel void
sar_quantize_col_sums (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __global uint * colpart)
{
  const int x = get_global_id (0);

  if (x >= width)
    return;
  const __global pix_t *p = src + src_offset + x;
  uint s = 0;
  for (int y = 0; y < height; y++)
    s += p[(size_t) y * src_stride];
  colpart[x] = s;
}

/* Pass 2: lines [0, width) are columns, [width, width + height) rows; the
 * Q_FS work-items of a line (local size Q_FLX x Q_FS) add every Q_FS-th of
 * its partials, so that each has few loads to wait for, then one adds
 * theirs.  Each work-group adds its columns' sums to the total. */
__kernel void
sar_quantize_finish (const __global uint * colpart, const int n_bands,
    const __global uint * rowpart, const int n_parts, const int width,
    const int height, __global float * cinv, __global float * rinv,
    volatile __global uint * total)
{
  __local ulong tmp[Q_FLX * Q_FS];
  const int i = get_global_id (0), lx = get_local_id (0);
  const int part = get_local_id (1);
  ulong s = 0;

  if (i < width) {
    for (int b = part; b < n_bands; b += Q_FS)
      s += colpart[(size_t) b * width + i];
  } else if (i < width + height) {
    const __global uint *p = rowpart + (size_t) (i - width) * n_parts;
    for (int j = part; j < n_parts; j += Q_FS)
      s += p[j];
  }
#if Q_FS > 1
  tmp[part * Q_FLX + lx] = s;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (part == 0)
    for (int k = 1; k < Q_FS; k++)
      s += tmp[k * Q_FLX + lx];
  barrier (CLK_LOCAL_MEM_FENCE);
#endif
  if (part == 0) {
    if (i < width)
      cinv[i] = reciprocal (s);
    else if (i < width + height)
      rinv[i - width] = reciprocal (s);
  }
  s = group_total (part == 0 && i < width ? s : 0, tmp,
      part * Q_FLX + lx, Q_FLX * Q_FS);
  if (lx == 0 && part == 0 && s)
    add_total (total, s);
}

/* Pass 3: Q_VEC output pixels of row y per work-item.  The `aligned` flags
 * say that offset and stride are multiples of Q_VEC pixels. */
__kernel void
sar_quantize_apply (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __global uchar * dst, const uint dst_offset, const uint dst_stride,
    const __global float * rinv, const __global float * cinv,
    const __global uint * total, const float coef, const int src_aligned,
    const int dst_aligned)
{
  const float k = coef * (float) (((ulong) total[1] << 32) | total[0]);
  const int x = get_global_id (0) * Q_VEC, y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  const floatv v = CONVERT (float, load_pixels (src + src_offset +
          (size_t) y * src_stride, x, width, src_aligned));
  const floatv f = ((v * k) * rinv[y]) * load_floats (cinv, x, width);
  store_bytes (CONVERT (uchar, round (fmin (f, 255.0f))),
      dst + dst_offset + (size_t) y * dst_stride, x, width, dst_aligned);
}
