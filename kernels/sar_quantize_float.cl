/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR quantization of Float32 to GRAY8 (the formula: common/clv-sar.h),
 * in four launches:
 *  1. sar_qf_rows: one work-group per row adds the row in local memory;
 *  2. sar_qf_cols: one work-item per column walks down it (neighbouring
 *     work-items read neighbouring pixels);
 *  3. sar_qf_total: one work-group adds the row sums into T and turns
 *     every row and column sum into its reciprocal;
 *  4. sar_qf_apply: ((I k) rinv(y)) cinv(x) per pixel, rounded and clamped.
 * Sums in double where the device has it (HAVE_FP64).  Pixels that are not
 * finite, or equal to NODATA (if defined: a float literal or NAN), count as
 * 0 and give 0.  Build macros: WG (work-group size of 1 and 3, a power of
 * two), HAVE_FP64. */
#pragma OPENCL FP_CONTRACT OFF

#if HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double sum_t;
#else
typedef float sum_t;
#endif

inline float
value (const float v)
{
#ifdef NODATA
  if (v == NODATA)
    return 0;
#endif
  return isfinite (v) ? v : 0;
}

/* Adds the WG values of `part` into part[0]. */
inline sum_t
group_sum (__local sum_t * part, const int lid)
{
  for (int n = WG / 2; n > 0; n /= 2) {
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid < n)
      part[lid] += part[lid + n];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  return part[0];
}

__kernel __attribute__((reqd_work_group_size (WG, 1, 1)))
void
sar_qf_rows (const __global float *src, const uint src_offset,
    const uint src_stride, const int width, __global sum_t * rows)
{
  __local sum_t part[WG];
  const int lid = get_local_id (0), y = get_group_id (1);
  const __global float *row = src + src_offset + (size_t) y * src_stride;
  sum_t s = 0;

  for (int x = lid; x < width; x += WG)
    s += value (row[x]);
  part[lid] = s;
  s = group_sum (part, lid);
  if (lid == 0)
    rows[y] = s;
}

__kernel void
sar_qf_cols (const __global float *src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __global sum_t * cols)
{
  const int x = get_global_id (0);
  sum_t s = 0;

  if (x >= width)
    return;
  src += src_offset + x;
  for (int y = 0; y < height; y++)
    s += value (src[(size_t) y * src_stride]);
  cols[x] = s;
}

/* The correctly rounded float reciprocal of a positive sum, else 0. */
inline float
reciprocal (const sum_t s)
{
  return s > 0 ? (float) (1 / s) : 0.0f;
}

/* One work-group: T, then k = coef T into inv[0], and the reciprocals of
 * the rows' and columns' sums into inv[1 ..]. */
__kernel __attribute__((reqd_work_group_size (WG, 1, 1)))
void
sar_qf_total (const __global sum_t * rows, const __global sum_t * cols,
    const int width, const int height, const float coef,
    __global float *inv)
{
  __local sum_t part[WG];
  const int lid = get_local_id (0);
  sum_t t = 0;

  for (int y = lid; y < height; y += WG)
    t += rows[y];
  part[lid] = t;
  t = group_sum (part, lid);
  if (lid == 0)
    inv[0] = (float) (coef * t);
  for (int y = lid; y < height; y += WG)
    inv[1 + y] = reciprocal (rows[y]);
  for (int x = lid; x < width; x += WG)
    inv[1 + height + x] = reciprocal (cols[x]);
}

__kernel void
sar_qf_apply (const __global float *src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    const __global float *inv, __global uchar * dst, const uint dst_offset,
    const uint dst_stride)
{
  const int x = get_global_id (0), y = get_global_id (1);
  float f;

  if (x >= width || y >= height)
    return;
  f = ((value (src[src_offset + (size_t) y * src_stride + x]) * inv[0])
      * inv[1 + y]) * inv[1 + height + x];
  dst[dst_offset + (size_t) y * dst_stride + x] =
      (uchar) round (clamp (f, 0.0f, 255.0f));
}
