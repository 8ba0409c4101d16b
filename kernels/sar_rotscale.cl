/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR rotation and scaling (see common/clv-sar.h for the map).
 *
 * Build macros: SAMPLE (ClvSample: 1 uchar, 2 ushort, 3 float; integers
 * round to nearest, Float32 is stored as interpolated), BILINEAR (0:
 * nearest, 1: bilinear),
 * RS_X (output pixels per work-item along a row, the work-group width
 * apart).
 * Everything that does not depend on the pixel (sin/cos, 1/scale, centres,
 * clamp limits) comes from the host as constants: a = cos/scale and
 * b = sin/scale fold the division into the rotation.  A work-item computes
 * RS_X output pixels of a row with one fused multiply-add per coordinate
 * each, the row's own term computed once.
 *
 * Bilinear is branch-free, in the dot-product form of Li, Liang, Zhang
 * and Li, "Parallel Optimization Strategy of Airborne SAR Imaging Algorithm
 * Based on ARM GPU": the four
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

#if SAMPLE == 1
typedef uchar pix_t;
#define STORE(v) ((pix_t) round (fmin ((v), 255.0f)))
#elif SAMPLE == 2
typedef ushort pix_t;
#define STORE(v) ((pix_t) round (fmin ((v), 65535.0f)))
#else
typedef float pix_t;
#define STORE(v) (v)
#endif

/* One output pixel (xs, ys already clamped): bilinear from the two source
 * rows around ys, or nearest.  A neighbour outside the input is `bg`, chosen
 * by a select (its load is clamped inside so it is always legal).  `inside`
 * (a constant at each call, so compiled away): the caller knows that every
 * neighbour lies in the input, so the clamps and selects (a third of the
 * work) go; the values are the same. */
inline pix_t
sample (const __global pix_t * src, const uint stride, const int w,
    const int h, const float xs, const float ys, const float bg,
    const bool inside)
{
#if BILINEAR
  const float x0 = floor (xs), y0 = floor (ys);
  const float fx = xs - x0, fy = ys - y0;
  const float gx = 1.0f - fx, gy = 1.0f - fy;
  const int ix = (int) x0, iy = (int) y0;
  const int cx0 = inside ? ix : clamp (ix, 0, w - 1);
  const int cx1 = inside ? ix + 1 : clamp (ix + 1, 0, w - 1);
  const __global pix_t *r0 = src +
      (size_t) (inside ? iy : clamp (iy, 0, h - 1)) * stride;
  const __global pix_t *r1 = inside ? r0 + stride :
      src + (size_t) clamp (iy + 1, 0, h - 1) * stride;
  const bool in_x0 = inside || (uint) ix < (uint) w;
  const bool in_x1 = inside || (uint) (ix + 1) < (uint) w;
  const bool in_y0 = inside || (uint) iy < (uint) h;
  const bool in_y1 = inside || (uint) (iy + 1) < (uint) h;
  const float4 wt = (float4) (gx, fx, gx, fx) * (float4) (gy, gy, fy, fy);
  const float4 q = (float4) (in_y0 && in_x0 ? (float) r0[cx0] : bg,
      in_y0 && in_x1 ? (float) r0[cx1] : bg,
      in_y1 && in_x0 ? (float) r1[cx0] : bg,
      in_y1 && in_x1 ? (float) r1[cx1] : bg);
  return STORE (fma (wt.w, q.w, fma (wt.z, q.z, fma (wt.y, q.y,
              wt.x * q.x))));
#else
  const int ix = (int) floor (xs + 0.5f), iy = (int) floor (ys + 0.5f);
  if (inside)
    return src[(size_t) iy * stride + ix];
  const float v = src[(size_t) clamp (iy, 0, h - 1) * stride +
      clamp (ix, 0, w - 1)];
  return (pix_t) (((uint) ix < (uint) w && (uint) iy < (uint) h) ? v : bg);
#endif
}

/* Where output pixel (xo, row) samples: the row's terms row_x, row_y of the
 * map, then one fused multiply-add per coordinate. */
#define MAP_X(xo) fma ((float) (xo) - cxo, a, row_x)
#define MAP_Y(xo) fma ((float) (xo) - cxo, b, row_y)

/* RS_X output pixels of row gy per work-item, the work-group width apart:
 * the row's terms of the map are computed once, and the i-th pixels of a
 * group's work-items are adjacent, so each gather instruction of a warp
 * reads a compact patch of the input (a few input rows; adjacent pixels per
 * work-item made it a rotated strip RS_X times as long: nearest 58 against
 * 45 us on the H100). */
__kernel void
sar_rotscale (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int in_width, const int in_height,
    __global pix_t * dst, const uint dst_offset, const uint dst_stride,
    const int out_width, const int out_height,
    const float a, const float b, const float cxi, const float cyi,
    const float cxo, const float cyo, const float xmax, const float ymax,
    const float bg)
{
  const int lx = get_local_size (0), ly = get_local_size (1);
  const int tile_x0 = get_group_id (0) * lx * RS_X;
  const int tile_y0 = get_group_id (1) * ly;
  const int xo0 = tile_x0 + get_local_id (0);
  const int yo = get_global_id (1);
  bool inside = true;

  /* The map is affine, so the group's tile samples inside its corners'
   * parallelogram: if the corners keep a pixel clear of the edges (more than
   * the float rounding of the map), every neighbour of every pixel lies in
   * the input.  The same for the whole group: no divergence. */
  for (int c = 0; c < 4; c++) {
    const float yf = (float) (tile_y0 + (c & 2 ? ly - 1 : 0)) - cyo;
    const float row_x = fma (-yf, b, cxi), row_y = fma (yf, a, cyi);
    const int xo = tile_x0 + (c & 1 ? lx * RS_X - 1 : 0);
    const float xs = MAP_X (xo), ys = MAP_Y (xo);
    inside = inside && xs >= 1.0f && xs <= in_width - 3.0f && ys >= 1.0f
        && ys <= in_height - 3.0f;
  }
  if (yo >= out_height)
    return;
  src += src_offset;
  dst += dst_offset + (size_t) yo * dst_stride;

  const float yf = (float) yo - cyo;
  const float row_x = fma (-yf, b, cxi), row_y = fma (yf, a, cyi);
  if (inside) {
#pragma unroll
    for (int i = 0; i < RS_X; i++) {
      const int xo = xo0 + i * lx;
      if (xo >= out_width)
        return;
      dst[xo] = sample (src, src_stride, in_width, in_height, MAP_X (xo),
          MAP_Y (xo), bg, true);
    }
  } else {
#pragma unroll
    for (int i = 0; i < RS_X; i++) {
      const int xo = xo0 + i * lx;
      if (xo >= out_width)
        return;
      /* Far-outside samples are clamped so that float->int stays defined. */
      dst[xo] = sample (src, src_stride, in_width, in_height,
          clamp (MAP_X (xo), -2.0f, xmax), clamp (MAP_Y (xo), -2.0f, ymax),
          bg, false);
    }
  }
}
