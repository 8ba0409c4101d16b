/* SAR rotation and scaling (see common/clv-sar.h for the map).
 *
 * Build macros: PIX_BYTES (1 or 2), BILINEAR (0: nearest, 1: bilinear),
 * RS_X (output pixels per work-item along a row), RS_TILE (0, or the local
 * memory, in pixels, for a work-group's input rectangle).
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
 * rows around ys, or nearest.  `src` holds the input rectangle `box` (x0,
 * y0, x1, y1), `stride` apart: the whole input in global memory, or the part
 * a work-group staged in local memory.  A neighbour outside the input is
 * `bg`, chosen by a select; its load is clamped into the box so it is always
 * legal, and a neighbour inside the input is always inside the box.  The
 * same body for either address space (OpenCL 1.2 has no generic one). */
#if BILINEAR
#define DEFINE_SAMPLE(NAME, SPACE)                                            \
inline pix_t                                                                  \
NAME (const SPACE pix_t * src, const uint stride, const int4 box,             \
    const int w, const int h, const float xs, const float ys, const float bg) \
{                                                                             \
  const float x0 = floor (xs), y0 = floor (ys);                               \
  const float fx = xs - x0, fy = ys - y0;                                     \
  const float gx = 1.0f - fx, gy = 1.0f - fy;                                 \
  const int ix = (int) x0, iy = (int) y0;                                     \
  const int cx0 = clamp (ix, box.x, box.z) - box.x;                           \
  const int cx1 = clamp (ix + 1, box.x, box.z) - box.x;                       \
  const SPACE pix_t *r0 = src +                                               \
      (size_t) (clamp (iy, box.y, box.w) - box.y) * stride;                   \
  const SPACE pix_t *r1 = src +                                               \
      (size_t) (clamp (iy + 1, box.y, box.w) - box.y) * stride;               \
  const bool in_x0 = (uint) ix < (uint) w, in_x1 = (uint) (ix + 1) < (uint) w; \
  const bool in_y0 = (uint) iy < (uint) h, in_y1 = (uint) (iy + 1) < (uint) h; \
  const float4 wt = (float4) (gx, fx, gx, fx) * (float4) (gy, gy, fy, fy);    \
  const float4 q = (float4) (in_y0 && in_x0 ? (float) r0[cx0] : bg,           \
      in_y0 && in_x1 ? (float) r0[cx1] : bg,                                  \
      in_y1 && in_x0 ? (float) r1[cx0] : bg,                                  \
      in_y1 && in_x1 ? (float) r1[cx1] : bg);                                 \
  return (pix_t) round (fmin (fma (wt.w, q.w, fma (wt.z, q.z, fma (wt.y, q.y, \
                  wt.x * q.x))), MAXVAL));                                    \
}
#else
#define DEFINE_SAMPLE(NAME, SPACE)                                            \
inline pix_t                                                                  \
NAME (const SPACE pix_t * src, const uint stride, const int4 box,             \
    const int w, const int h, const float xs, const float ys, const float bg) \
{                                                                             \
  const int ix = (int) floor (xs + 0.5f), iy = (int) floor (ys + 0.5f);       \
  const float v = src[(size_t) (clamp (iy, box.y, box.w) - box.y) * stride +  \
      clamp (ix, box.x, box.z) - box.x];                                      \
  return (pix_t) (((uint) ix < (uint) w && (uint) iy < (uint) h) ? v : bg);   \
}
#endif
DEFINE_SAMPLE (sample_global, __global)
#if RS_TILE
DEFINE_SAMPLE (sample_local, __local)

/* The input rectangle the work-group's output tile reads, clipped to the
 * input: the tile's four corners mapped (the map is affine, so they bound
 * it), widened by one pixel against rounding and by the right/lower
 * neighbour.  FALSE if it is empty or larger than RS_TILE pixels: the group
 * then reads global memory. */
inline bool
tile_box (int4 * box, const int out_width, const int out_height,
    const float a, const float b, const float cxi, const float cyi,
    const float cxo, const float cyo, const float xmax, const float ymax,
    const int w, const int h)
{
  const int xa = get_group_id (0) * get_local_size (0) * RS_X;
  const int ya = get_group_id (1) * get_local_size (1);
  const float xf[2] = { (float) xa - cxo,
    (float) min (xa + (int) get_local_size (0) * RS_X, out_width) - 1 - cxo
  };
  const float yf[2] = { (float) ya - cyo,
    (float) min (ya + (int) get_local_size (1), out_height) - 1 - cyo
  };
  float x_lo = xmax, x_hi = -2.0f, y_lo = ymax, y_hi = -2.0f;

  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      const float xs = clamp (fma (xf[i], a, fma (-yf[j], b, cxi)), -2.0f,
          xmax);
      const float ys = clamp (fma (xf[i], b, fma (yf[j], a, cyi)), -2.0f,
          ymax);
      x_lo = fmin (x_lo, xs);
      x_hi = fmax (x_hi, xs);
      y_lo = fmin (y_lo, ys);
      y_hi = fmax (y_hi, ys);
    }
  *box = (int4) (max ((int) floor (x_lo) - 1, 0), max ((int) floor (y_lo) - 1,
          0), min ((int) floor (x_hi) + 2, w - 1), min ((int) floor (y_hi) + 2,
          h - 1));
  return box->z >= box->x && box->w >= box->y
      && (box->z - box->x + 1) * (box->w - box->y + 1) <= RS_TILE;
}
#endif

/* Output pixels (RS_X * gx + i, gy), i < RS_X: the row's terms of the map
 * are computed once.  With RS_TILE the work-group first copies the input
 * rectangle its tile reads into local memory (coalesced rows), so that the
 * scattered gathers of a rotation hit local memory. */
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
  const int4 whole = (int4) (0, 0, in_width - 1, in_height - 1);

  src += src_offset;
#if RS_TILE
  __local pix_t tile[RS_TILE];
  int4 box;
  const bool staged = tile_box (&box, out_width, out_height, a, b, cxi, cyi,
      cxo, cyo, xmax, ymax, in_width, in_height);
  const int tw = box.z - box.x + 1;

  if (staged) {                 /* the same for the whole work-group */
    const int n = get_local_size (0) * get_local_size (1);
    const int lid = get_local_id (1) * get_local_size (0) + get_local_id (0);
    /* Rows of 32 work-items (a warp) where the group allows it. */
    const int lanes = n % 32 ? n : 32;

    for (int r = lid / lanes; r <= box.w - box.y; r += n / lanes) {
      const __global pix_t *row = src + (size_t) (box.y + r) * src_stride +
          box.x;
      for (int c = lid % lanes; c < tw; c += lanes)
        tile[r * tw + c] = row[c];
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
#endif
  if (yo >= out_height)
    return;
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
#if RS_TILE
    if (staged)
      dst[xo] = sample_local (tile, tw, box, in_width, in_height, xs, ys, bg);
    else
#endif
      dst[xo] = sample_global (src, src_stride, whole, in_width, in_height,
          xs, ys, bg);
  }
}
