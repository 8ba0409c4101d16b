/* SAR rotation and scaling (see common/clv-sar.h for the map).
 *
 * Build macros: PIX_BYTES (1 or 2), BILINEAR (0: nearest, 1: bilinear),
 * RS_X (output pixels per work-item along a row).  sar_rotscale_image is
 * the same kernel reading the source through an image on the frame's
 * buffer (integer coordinates, no filtering: the same values).
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

/* The source pixel (x, y), already clamped inside: from a buffer, or from
 * an image made on the same buffer (read through the texture cache, which
 * serves the scattered 2-D gathers of a rotation better; CLVISION_TUNE
 * SAR_RS_IMAGE=1).  Both read the same stored value. */
typedef const __global pix_t *buf_src_t;
#define LOAD_BUF(s_, st_, x_, y_) ((float) (s_)[(size_t) (y_) * (st_) + (x_)])
#ifdef __IMAGE_SUPPORT__
#define IMG_SRC_T read_only image2d_t
#define LOAD_IMG(s_, st_, x_, y_) ((float) read_imageui (s_, \
      CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST, \
      (int2) (x_, y_)).x)
#endif

/* One output pixel (xs, ys already clamped) into `result`: bilinear from
 * the two source rows around ys, or nearest.  A neighbour outside the input
 * is `bg`, chosen by a select (its load is clamped inside so it is always
 * legal). */
#if BILINEAR
#define SAMPLE(LOAD, s_, st_, w_, h_, xs_, ys_, bg_, r_) do { \
    const float x0 = floor (xs_), y0 = floor (ys_); \
    const float fx = xs_ - x0, fy = ys_ - y0; \
    const float gx = 1.0f - fx, gy = 1.0f - fy; \
    const int ix = (int) x0, iy = (int) y0; \
    const int cx0 = clamp (ix, 0, w_ - 1), cx1 = clamp (ix + 1, 0, w_ - 1); \
    const int cy0 = clamp (iy, 0, h_ - 1), cy1 = clamp (iy + 1, 0, h_ - 1); \
    const bool in_x0 = (uint) ix < (uint) w_; \
    const bool in_x1 = (uint) (ix + 1) < (uint) w_; \
    const bool in_y0 = (uint) iy < (uint) h_; \
    const bool in_y1 = (uint) (iy + 1) < (uint) h_; \
    const float4 wt = (float4) (gx, fx, gx, fx) * (float4) (gy, gy, fy, fy); \
    const float4 q = (float4) ( \
        in_y0 && in_x0 ? LOAD (s_, st_, cx0, cy0) : bg_, \
        in_y0 && in_x1 ? LOAD (s_, st_, cx1, cy0) : bg_, \
        in_y1 && in_x0 ? LOAD (s_, st_, cx0, cy1) : bg_, \
        in_y1 && in_x1 ? LOAD (s_, st_, cx1, cy1) : bg_); \
    r_ = (pix_t) round (fmin (fma (wt.w, q.w, fma (wt.z, q.z, \
                fma (wt.y, q.y, wt.x * q.x))), MAXVAL)); \
  } while (0)
#else
#define SAMPLE(LOAD, s_, st_, w_, h_, xs_, ys_, bg_, r_) do { \
    const int ix = (int) floor (xs_ + 0.5f), iy = (int) floor (ys_ + 0.5f); \
    const float v = LOAD (s_, st_, clamp (ix, 0, w_ - 1), \
        clamp (iy, 0, h_ - 1)); \
    r_ = (pix_t) (((uint) ix < (uint) w_ && (uint) iy < (uint) h_) ? v : bg_); \
  } while (0)
#endif

/* Output pixels (RS_X * gx + i, gy), i < RS_X: the row's terms of the map
 * are computed once.  `src` is read at offset 0 through LOAD. */
#define ROTSCALE(SRC_T, LOAD) \
    (SRC_T src, const uint src_stride, const int in_width, \
    const int in_height, __global pix_t * dst, const uint dst_offset, \
    const uint dst_stride, const int out_width, const int out_height, \
    const float a, const float b, const float cxi, const float cyi, \
    const float cxo, const float cyo, const float xmax, const float ymax, \
    const float bg) \
{ \
  const int xo0 = get_global_id (0) * RS_X, yo = get_global_id (1); \
  if (yo >= out_height) \
    return; \
  dst += dst_offset + (size_t) yo * dst_stride; \
  const float yf = (float) yo - cyo; \
  const float row_x = fma (-yf, b, cxi), row_y = fma (yf, a, cyi); \
  for (int i = 0; i < RS_X; i++) { \
    const int xo = xo0 + i; \
    if (xo >= out_width) \
      return; \
    const float xf = (float) xo - cxo; \
    /* Far-outside samples are clamped so float->int stays defined. */ \
    const float xs = clamp (fma (xf, a, row_x), -2.0f, xmax); \
    const float ys = clamp (fma (xf, b, row_y), -2.0f, ymax); \
    SAMPLE (LOAD, src, src_stride, in_width, in_height, xs, ys, bg, \
        dst[xo]); \
  } \
}

inline void
sar_rotscale_at ROTSCALE (buf_src_t, LOAD_BUF)

__kernel void
sar_rotscale (const __global pix_t * src, const uint src_offset,
    const uint src_stride, const int in_width, const int in_height,
    __global pix_t * dst, const uint dst_offset, const uint dst_stride,
    const int out_width, const int out_height,
    const float a, const float b, const float cxi, const float cyi,
    const float cxo, const float cyo, const float xmax, const float ymax,
    const float bg)
{
  sar_rotscale_at (src + src_offset, src_stride, in_width, in_height, dst,
      dst_offset, dst_stride, out_width, out_height, a, b, cxi, cyi, cxo, cyo,
      xmax, ymax, bg);
}

#ifdef __IMAGE_SUPPORT__
/* The source as an image made on the frame's buffer (offset 0). */
__kernel void
sar_rotscale_image ROTSCALE (IMG_SRC_T, LOAD_IMG)
#endif
