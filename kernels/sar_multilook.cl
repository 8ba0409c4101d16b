/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR multilook: the mean of RL x AL blocks (range x azimuth looks).
 *
 * Build macros: SAMPLE (ClvSample: 1 uchar, 2 ushort, 3 float, 4 CInt16
 * as short2, 5 CFloat32 as float2), RL, AL, AMPLITUDE (0: mean of the
 * values; 1: sqrt of the mean of the squares), OUT_X (outputs per
 * work-item along a row), VW (= RL * OUT_X, pixels read per block row),
 * SPLIT (work-items sharing one block's rows), LX (work-group width),
 * HAVE_FP64; for Float32, NODATA (a float literal, or NAN) if the image
 * has a no-data value.
 *
 * Integers are summed exactly and rounded to nearest, in their format.
 * Float32 is summed in double (where the device has it) and the mean
 * rounded once to Float32, as GDAL's average does, no-data pixels left out
 * (a block of no-data only gives no-data); complex samples are
 * detected first, |z|^2, so their mean is the intensity (AMPLITUDE: its
 * root), in Float32.
 *
 * Looks are compile-time constants so loops unroll.  A work-item reads the
 * RL * OUT_X pixels of its outputs from a row with one vector load (16 bytes
 * where the looks allow), neighbouring work-items read neighbouring spans
 * (coalesced), and the SPLIT work-items of one output row take every
 * SPLIT-th row of the block and add up their partial sums in local memory,
 * so large looks still give the device enough work-items. */

#pragma OPENCL FP_CONTRACT OFF

#if HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
#else
typedef float real_t;
#endif

#if SAMPLE == 1
typedef uchar pix_t;
#elif SAMPLE == 2
typedef ushort pix_t;
#elif SAMPLE == 3
typedef float pix_t;
#elif SAMPLE == 4
typedef short2 pix_t;
#else
typedef float2 pix_t;
#endif

#if SAMPLE <= 2
typedef pix_t out_t;
#if AMPLITUDE
typedef ulong acc_t;
#define SQ(v) ((v) * (v))
#else
typedef uint acc_t;
#define SQ(v) (v)
#endif
#define VALUE(p) ((acc_t) (p))
#else
typedef float out_t;
#if SAMPLE == 3
#if AMPLITUDE
#define SQ(v) ((v) * (v))
#else
#define SQ(v) (v)
#endif
#ifdef NODATA
/* The sum and the count of the pixels that have data. */
#if HAVE_FP64
typedef double2 acc_t;
#else
typedef float2 acc_t;
#endif
#define HAS_DATA(p) (!((p) == NODATA || (isnan (NODATA) && isnan (p))))
#define ADD(acc, p) \
  do { if (HAS_DATA (p)) (acc) += (acc_t) (SQ ((real_t) (p)), 1); } while (0)
#else
typedef real_t acc_t;
#define VALUE(p) ((acc_t) (p))
#endif
#else
typedef real_t acc_t;
/* Complex: the power |z|^2, whatever the output's domain. */
#define VALUE(p) ((acc_t) (p).x * (p).x + (acc_t) (p).y * (p).y)
#define SQ(v) (v)
#endif
#endif

#ifndef ADD
#define ADD(acc, p) do { const acc_t x_ = VALUE (p); (acc) += SQ (x_); } while (0)
#endif

/* vloadN/vstoreN may be macros, so no token pasting.  Complex pixels are
 * vectors already: read one by one. */
#if SAMPLE >= 4
#elif VW == 2
#define VLOAD vload2
#define VSTORE vstore2
#define VEC_T XVEC (2)
#elif VW == 4
#define VLOAD vload4
#define VSTORE vstore4
#define VEC_T XVEC (4)
#elif VW == 8
#define VLOAD vload8
#define VSTORE vstore8
#define VEC_T XVEC (8)
#elif VW == 16
#define VLOAD vload16
#define VSTORE vstore16
#define VEC_T XVEC (16)
#endif
#if SAMPLE == 1
#define XVEC(n) uchar##n
#elif SAMPLE == 2
#define XVEC(n) ushort##n
#else
#define XVEC(n) float##n
#endif

/* Adds one block row of each of the OUT_X outputs to s.  `aligned`: p is
 * aligned to the whole vector, so one wide load can fetch it (vloadN only
 * promises element alignment, and compilers then split the load). */
inline void
add_block_rows (const __global pix_t * p, acc_t * s, const bool aligned)
{
  pix_t v[VW];
#ifdef VLOAD
  VSTORE (aligned ? *(const __global VEC_T *) p : VLOAD (0, p), 0, v);
#else
#pragma unroll
  for (int i = 0; i < VW; i++)
    v[i] = p[i];
#endif
#pragma unroll
  for (int o = 0; o < OUT_X; o++)
#pragma unroll
    for (int i = 0; i < RL; i++)
      ADD (s[o], v[o * RL + i]);
}

/* Integers round to nearest: for amplitude, r with
 * n(2r-1)^2 <= 4S < n(2r+1)^2, found exactly in integers from a float
 * first guess.  Floats: the mean (or its root) rounded once. */
inline out_t
block_result (acc_t s)
{
  const uint n = RL * AL;
#if SAMPLE == 3 && defined (NODATA)
  if (s.y == 0)
    return NODATA;
#if AMPLITUDE
  return (float) sqrt (s.x / s.y);
#else
  return (float) (s.x / s.y);
#endif
#elif SAMPLE >= 3
#if AMPLITUDE
  return (float) sqrt (s / n);
#else
  return (float) (s / n);
#endif
#elif AMPLITUDE
  ulong r = (ulong) (sqrt ((float) s / (float) n) + 0.5f);
  const ulong s4 = 4 * s;
  while (n * (2 * r + 1) * (2 * r + 1) <= s4)
    r++;
  while (r > 0 && n * (2 * r - 1) * (2 * r - 1) > s4)
    r--;
  return (uint) r;
#else
  return (s + n / 2) / n;
#endif
}

/* Global size: (ceil(out_width / OUT_X) rounded to the work-group width,
 * out_height * SPLIT); local size (LX, SPLIT). */
inline void
multilook (const __global pix_t * src, const uint src_offset,
    const uint src_stride, __global out_t * dst, const uint dst_offset,
    const uint dst_stride, const int out_width, const int out_height,
    const bool aligned, __local acc_t * partial)
{
  const int ox0 = get_global_id (0) * OUT_X;
  const int oy = get_global_id (1) / SPLIT;
  const int part = get_local_id (1);
  acc_t s[OUT_X];

#pragma unroll
  for (int o = 0; o < OUT_X; o++)
    s[o] = 0;
  src += src_offset + (size_t) oy * AL * src_stride + (size_t) ox0 * RL;
  if (ox0 + OUT_X <= out_width) {
    for (int j = part; j < AL; j += SPLIT)
      add_block_rows (src + (size_t) j * src_stride, s, aligned);
  } else if (ox0 < out_width) {
    /* The last, partial group of a row: only whole blocks, one by one. */
    for (int j = part; j < AL; j += SPLIT)
      for (int o = 0; o < out_width - ox0; o++)
        for (int i = 0; i < RL; i++)
          ADD (s[o], src[(size_t) j * src_stride + o * RL + i]);
  }
#if SPLIT > 1
  {
    /* partial[SPLIT][LX][OUT_X] */
    const int lx = get_local_id (0);

#pragma unroll
    for (int o = 0; o < OUT_X; o++)
      partial[(part * LX + lx) * OUT_X + o] = s[o];
    barrier (CLK_LOCAL_MEM_FENCE);
    if (part != 0)
      return;
    for (int k = 1; k < SPLIT; k++)
#pragma unroll
      for (int o = 0; o < OUT_X; o++)
        s[o] += partial[(k * LX + lx) * OUT_X + o];
  }
#endif
  if (ox0 >= out_width)
    return;
  dst += dst_offset + (size_t) oy * dst_stride + ox0;
#pragma unroll
  for (int o = 0; o < OUT_X; o++)
    if (ox0 + o < out_width)
      dst[o] = (out_t) block_result (s[o]);
}

/* The block rows' partial sums when SPLIT work-items share a block. */
#if SPLIT > 1
#define PARTIAL_SUMS __local acc_t partial[SPLIT * LX * OUT_X]
#else
#define PARTIAL_SUMS __local acc_t *partial = 0
#endif

__kernel void
sar_multilook (const __global pix_t * src, const uint src_offset,
    const uint src_stride, __global out_t * dst, const uint dst_offset,
    const uint dst_stride, const int out_width, const int out_height)
{
  PARTIAL_SUMS;
  multilook (src, src_offset, src_stride, dst, dst_offset, dst_stride,
      out_width, out_height, false, partial);
}

/* For sources whose offset and stride are multiples of VW pixels. */
__kernel void
sar_multilook_aligned (const __global pix_t * src, const uint src_offset,
    const uint src_stride, __global out_t * dst, const uint dst_offset,
    const uint dst_stride, const int out_width, const int out_height)
{
  PARTIAL_SUMS;
  multilook (src, src_offset, src_stride, dst, dst_offset, dst_stride,
      out_width, out_height, true, partial);
}
