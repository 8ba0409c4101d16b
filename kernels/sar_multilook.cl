/* SAR multilook: the mean of RL x AL blocks (range x azimuth looks).
 *
 * Build macros: PIX_BYTES (1 or 2), RL, AL, AMPLITUDE (0: mean of the
 * values; 1: sqrt of the mean of the squares), ML_ROWS (output rows per
 * work-item).  Looks are compile-time constants so every loop unrolls and a
 * block row of 2, 4, 8 or 16 pixels is one vector load.  A work-item owns one
 * output column and ML_ROWS output rows; neighbouring work-items read
 * neighbouring RL-pixel segments of the same input row, so a warp reads one
 * contiguous span per row (coalesced). */

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

#if PIX_BYTES == 1
typedef uchar pix_t;
#else
typedef ushort pix_t;
#endif

#if AMPLITUDE
#define ACC ulong
#define SQ(v) ((v) * (v))
#else
#define ACC uint
#define SQ(v) (v)
#endif
typedef ACC acc_t;

#if RL == 2 || RL == 4 || RL == 8 || RL == 16
#define VACC XCAT(ACC, RL)
#define VLOAD XCAT(vload, RL)
#define CONVERT_VACC XCAT(convert_, VACC)

inline acc_t hsum2 (XCAT(ACC, 2) v) { return v.s0 + v.s1; }
#if RL >= 4
inline acc_t hsum4 (XCAT(ACC, 4) v) { return hsum2 (v.lo + v.hi); }
#endif
#if RL >= 8
inline acc_t hsum8 (XCAT(ACC, 8) v) { return hsum4 (v.lo + v.hi); }
#endif
#if RL >= 16
inline acc_t hsum16 (XCAT(ACC, 16) v) { return hsum8 (v.lo + v.hi); }
#endif

inline acc_t
block_row_sum (const __global pix_t * p)
{
  VACC v = CONVERT_VACC (VLOAD (0, p));
  return XCAT(hsum, RL) (SQ (v));
}
#else
inline acc_t
block_row_sum (const __global pix_t * p)
{
  acc_t s = 0;
#pragma unroll
  for (int i = 0; i < RL; i++) {
    acc_t v = p[i];
    s += SQ (v);
  }
  return s;
}
#endif

/* Round to nearest: for amplitude, r with n(2r-1)^2 <= 4S < n(2r+1)^2,
 * found exactly in integers from a float first guess. */
inline uint
block_result (acc_t s)
{
  const uint n = RL * AL;
#if AMPLITUDE
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

__kernel void
sar_multilook (const __global pix_t * src, const uint src_offset,
    const uint src_stride, __global pix_t * dst, const uint dst_offset,
    const uint dst_stride, const int out_width, const int out_height)
{
  const int ox = get_global_id (0);
  const int oy0 = get_global_id (1) * ML_ROWS;

  if (ox >= out_width)
    return;
  src += src_offset + ox * RL;
  dst += dst_offset + ox;
#pragma unroll
  for (int r = 0; r < ML_ROWS; r++) {
    const int oy = oy0 + r;
    if (oy >= out_height)
      return;
    const __global pix_t *p = src + (size_t) oy * AL * src_stride;
    acc_t s = 0;
#pragma unroll
    for (int j = 0; j < AL; j++)
      s += block_row_sum (p + (size_t) j * src_stride);
    dst[(size_t) oy * dst_stride] = (pix_t) block_result (s);
  }
}
