/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR maps of one pixel to one pixel, Float32 out: detection of complex
 * samples (intensity |z|^2, amplitude |z|, phase arg z) and decibels.
 *
 * Build macros: SAMPLE (ClvSample: 1 uchar, 2 ushort, 3 float, 4 CInt16
 * as short2, 5 CFloat32 as float2), HAVE_FP64 (1: evaluate in double and round once,
 * as the C references and OTB's double-precision expressions do).
 * Detection: DETECT (0 intensity, 1 amplitude, 2 phase).  Decibels: DB_K
 * (10 for intensity, 20 for amplitude), and the kernel arguments floor_db,
 * has_nodata, nodata_in, nodata_out.
 *
 * Offsets and strides are in samples.  One work-item per pixel: the maps
 * read and write each byte once, at the memory's pace. */

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
#elif SAMPLE == 3
typedef float sample_t;
#elif SAMPLE == 4
typedef short2 sample_t;
#else
typedef float2 sample_t;
#endif

#if SAMPLE >= 4
#define RE(s) ((real_t) (s).x)
#define IM(s) ((real_t) (s).y)
#else
#define RE(s) ((real_t) (s))
#define IM(s) ((real_t) 0)
#endif

#ifdef DETECT
__kernel void
sar_detect (const __global sample_t * src, const uint src_offset,
    const uint src_stride, __global float *dst, const uint dst_offset,
    const uint dst_stride, const int width, const int height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  sample_t s;
  real_t re, im;

  if (x >= width || y >= height)
    return;
  s = src[src_offset + (size_t) y * src_stride + x];
  re = RE (s);
  im = IM (s);
#if DETECT == 0
  dst[dst_offset + (size_t) y * dst_stride + x] = (float) (re * re + im * im);
#elif DETECT == 1
  dst[dst_offset + (size_t) y * dst_stride + x] =
      (float) sqrt (re * re + im * im);
#else
  dst[dst_offset + (size_t) y * dst_stride + x] = (float) atan2 (im, re);
#endif
}
#endif

#ifdef DB_K
/* DB_K log10 v; values <= 0 and below floor_db give floor_db, NaN stays
 * NaN, no-data gives nodata_out. */
__kernel void
sar_db (const __global sample_t * src, const uint src_offset,
    const uint src_stride, __global float *dst, const uint dst_offset,
    const uint dst_stride, const int width, const int height,
    const float floor_db, const int has_nodata, const float nodata_in,
    const float nodata_out)
{
  const int x = get_global_id (0), y = get_global_id (1);
  real_t v;
  float out;

  if (x >= width || y >= height)
    return;
  v = RE (src[src_offset + (size_t) y * src_stride + x]);
  if (has_nodata && ((float) v == nodata_in
          || (isnan (nodata_in) && isnan (v))))
    out = nodata_out;
  else if (isnan (v))
    out = v;
  else if (v > 0)
    out = fmax ((float) (DB_K * log10 (v)), floor_db);
  else
    out = floor_db;
  dst[dst_offset + (size_t) y * dst_stride + x] = out;
}
#endif
