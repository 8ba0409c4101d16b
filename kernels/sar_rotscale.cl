/* SAR rotation and scaling (see common/clv-sar.h for the map).
 *
 * Build macros: PIX_BYTES (1 or 2), BILINEAR (0: nearest, 1: bilinear).
 * Everything that does not depend on the pixel (sin/cos, 1/scale, centres,
 * clamp limits) comes from the host as constants: a = cos/scale and
 * b = sin/scale fold the division into the rotation.  A work-item computes
 * one output pixel with two fused multiply-adds per coordinate.
 *
 * Bilinear is branch-free, in the seed paper's dot-product form: the four
 * weights (1-fx, fx) x (1-fy, fy) form one vector, the four neighbours
 * another; a neighbour outside the input is replaced by the background with
 * a select (its load is clamped inside so it is always legal).  Taking
 * x2 = x1 + 1 rather than ceil(x) keeps integer positions exact with no
 * special case.
 *
 * Every multiply-add is an explicit fma() (correctly rounded, one
 * instruction on GPUs) and contraction is off otherwise, so no compiler is
 * free to fuse or not: the host reference, written with the same fmaf()
 * calls, gets the same bits on any conforming device.  (The built-in dot()
 * leaves its evaluation order to the implementation, hence the explicit
 * chain.) */
#pragma OPENCL FP_CONTRACT OFF

#if PIX_BYTES == 1
typedef uchar pix_t;
#define MAXVAL 255.0f
#else
typedef ushort pix_t;
#define MAXVAL 65535.0f
#endif

/* Pixel (x, y), or `bg` outside the image, without a branch. */
inline float
fetch (const __global pix_t * src, const uint stride, const int w,
    const int h, const int x, const int y, const float bg)
{
  const float v = src[(size_t) clamp (y, 0, h - 1) * stride +
      clamp (x, 0, w - 1)];
  return ((uint) x < (uint) w && (uint) y < (uint) h) ? v : bg;
}

__kernel void
sar_rotscale (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int in_width, const int in_height,
    __global pix_t * dst, const uint dst_offset, const uint dst_stride,
    const int out_width, const int out_height,
    const float a, const float b, const float cxi, const float cyi,
    const float cxo, const float cyo, const float xmax, const float ymax,
    const float bg)
{
  const int xo = get_global_id (0), yo = get_global_id (1);

  if (xo >= out_width || yo >= out_height)
    return;
  src += src_offset;

  const float xf = (float) xo - cxo, yf = (float) yo - cyo;
  /* Far-outside samples are clamped so that float->int stays defined. */
  const float xs = clamp (fma (xf, a, fma (-yf, b, cxi)), -2.0f, xmax);
  const float ys = clamp (fma (xf, b, fma (yf, a, cyi)), -2.0f, ymax);
  float v;

#if BILINEAR
  const float x0 = floor (xs), y0 = floor (ys);
  const float fx = xs - x0, fy = ys - y0;
  const float gx = 1.0f - fx, gy = 1.0f - fy;
  const int ix = (int) x0, iy = (int) y0;
  const float4 w = (float4) (gx, fx, gx, fx) * (float4) (gy, gy, fy, fy);
  const float4 q = (float4) (
      fetch (src, src_stride, in_width, in_height, ix, iy, bg),
      fetch (src, src_stride, in_width, in_height, ix + 1, iy, bg),
      fetch (src, src_stride, in_width, in_height, ix, iy + 1, bg),
      fetch (src, src_stride, in_width, in_height, ix + 1, iy + 1, bg));
  v = round (fmin (fma (w.w, q.w, fma (w.z, q.z, fma (w.y, q.y, w.x * q.x))),
          MAXVAL));
#else
  v = fetch (src, src_stride, in_width, in_height, (int) floor (xs + 0.5f),
      (int) floor (ys + 0.5f), bg);
#endif
  dst[dst_offset + (size_t) yo * dst_stride + xo] = (pix_t) v;
}
