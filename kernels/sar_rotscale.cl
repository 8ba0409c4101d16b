/* SAR rotation and scaling (see common/clv-sar.h for the map).
 *
 * Build macros: PIX_BYTES (1 or 2), BILINEAR (0: nearest, 1: bilinear),
 * RS_X (output pixels per work-item along a row).
 * Everything that does not depend on the pixel (sin/cos, 1/scale, centres,
 * clamp limits) comes from the host as constants: a = cos/scale and
 * b = sin/scale fold the division into the rotation.  A work-item computes
 * RS_X output pixels of a row with one fused multiply-add per coordinate
 * each, the row's own term computed once.
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

/* One output pixel (xs, ys already clamped): bilinear from the two source
 * rows around ys, or nearest.  A neighbour outside the input is `bg`, chosen
 * by a select (its load is clamped inside so it is always legal). */
inline pix_t
sample (const __global pix_t * src, const uint stride, const int w,
    const int h, const float xs, const float ys, const float bg)
{
#if BILINEAR
  const float x0 = floor (xs), y0 = floor (ys);
  const float fx = xs - x0, fy = ys - y0;
  const float gx = 1.0f - fx, gy = 1.0f - fy;
  const int ix = (int) x0, iy = (int) y0;
  const int cx0 = clamp (ix, 0, w - 1), cx1 = clamp (ix + 1, 0, w - 1);
  const __global pix_t *r0 = src + (size_t) clamp (iy, 0, h - 1) * stride;
  const __global pix_t *r1 = src + (size_t) clamp (iy + 1, 0, h - 1) * stride;
  const bool in_x0 = (uint) ix < (uint) w, in_x1 = (uint) (ix + 1) < (uint) w;
  const bool in_y0 = (uint) iy < (uint) h, in_y1 = (uint) (iy + 1) < (uint) h;
  const float4 wt = (float4) (gx, fx, gx, fx) * (float4) (gy, gy, fy, fy);
  const float4 q = (float4) (in_y0 && in_x0 ? (float) r0[cx0] : bg,
      in_y0 && in_x1 ? (float) r0[cx1] : bg,
      in_y1 && in_x0 ? (float) r1[cx0] : bg,
      in_y1 && in_x1 ? (float) r1[cx1] : bg);
  return (pix_t) round (fmin (fma (wt.w, q.w, fma (wt.z, q.z, fma (wt.y, q.y,
                  wt.x * q.x))), MAXVAL));
#else
  const int ix = (int) floor (xs + 0.5f), iy = (int) floor (ys + 0.5f);
  const float v = src[(size_t) clamp (iy, 0, h - 1) * stride +
      clamp (ix, 0, w - 1)];
  return (pix_t) (((uint) ix < (uint) w && (uint) iy < (uint) h) ? v : bg);
#endif
}

/* Output pixels (RS_X * gx + i, gy), i < RS_X: the row's terms of the map
 * are computed once. */
__kernel void
sar_rotscale (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int in_width, const int in_height,
    __global pix_t * dst, const uint dst_offset, const uint dst_stride,
    const int out_width, const int out_height,
    const float a, const float b, const float cxi, const float cyi,
    const float cxo, const float cyo, const float xmax, const float ymax,
    const float bg)
{
  const int xo0 = get_global_id (0) * RS_X, yo = get_global_id (1);

  if (yo >= out_height)
    return;
  src += src_offset;
  dst += dst_offset + (size_t) yo * dst_stride;

  const float yf = (float) yo - cyo;
  const float row_x = fma (-yf, b, cxi), row_y = fma (yf, a, cyi);
#pragma unroll
  for (int i = 0; i < RS_X; i++) {
    const int xo = xo0 + i;
    if (xo >= out_width)
      return;
    const float xf = (float) xo - cxo;
    /* Far-outside samples are clamped so that float->int stays defined. */
    const float xs = clamp (fma (xf, a, row_x), -2.0f, xmax);
    const float ys = clamp (fma (xf, b, row_y), -2.0f, ymax);
    dst[xo] = sample (src, src_stride, in_width, in_height, xs, ys, bg);
  }
}
