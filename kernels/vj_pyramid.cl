/* vjfacedetect, DESIGN.md step 1: the luma, every pyramid level and its
 * integral and squared integral, all levels at once.
 *
 * The levels' integrals are packed the way OpenCV 4.6 packs them
 * (FeatureEvaluator::sbuf): one buffer of uints `sbuf_w` wide; level l's
 * (h+1) x (w+1) integral starts at element `layer_ofs` with row stride
 * `sbuf_w`; the squared integral is the same picture `sq_ofs` elements
 * further (and the tilted one `tilt_ofs` further, when the cascade has
 * tilted features).  Squared sums are kept modulo 2^32 as OpenCV's CV_32S
 * buffer keeps them; window sums of them are exact all the same.
 *
 * Every level is resized from the luma exactly as OpenCV's resize with
 * INTER_LINEAR_EXACT (what the cascade detector uses) does: per axis, the
 * host's tables give each output index its source index and the 8-bit
 * weight of the next source pixel; rows are blended horizontally to 8.8
 * fixed point, then vertically with rounding; outputs left of / above the
 * first source centre or right of / below the last take the edge pixel.
 *
 * The level table is the whole batch's, in global memory (a batch's table
 * can outgrow __constant memory): vj_rows and vj_tilted take one frame's
 * levels from `first_level` on (first_row counts within the frame); vj_cols
 * runs once over every level of the batch (first_col counts over it).  Each
 * work-item copies its level into private memory once.
 *
 * Build macros: VJ_ROW_WG (work-group size of vj_rows), VJ_ROW_PIX (pixels
 * per work-item per pass of a row), VJ_COL_SEGS (work-items sharing a
 * column in vj_cols). */

#pragma OPENCL FP_CONTRACT OFF

/* One pyramid level; the host's ClvVjLevel has the same layout. */
typedef struct
{
  int width;                    /* level size */
  int height;
  int layer_ofs;                /* integral (0,0) in sbuf */
  int xtab;                     /* first entry of the level in xtab */
  int ytab;                     /* and in ytab */
  int xfirst, xend;             /* interpolated columns: [xfirst, xend) */
  int yfirst, yend;             /* interpolated rows */
  int first_row;                /* prefix sums over levels, for vj_rows */
  int first_col;                /* and vj_cols */
  int pix_ofs;                  /* resized pixels, when kept */
} Level;

/* OpenCV 4.6's RGB2Gray<uchar>: 15-bit weights, rounded (as
 * clv_rgb_to_gray_ref). */
__kernel void
vj_luma (const __global uchar * src, const uint offset, const uint stride,
    const uint pixel_stride, const uint r, const uint g, const uint b,
    const int width, const int height, __global uchar * dst)
{
  const int x = get_global_id (0), y = get_global_id (1);

  if (x >= width || y >= height)
    return;
  const __global uchar *p = src + offset + (size_t) y * stride
      + (size_t) x * pixel_stride;
  dst[(size_t) y * width + x] =
      (uchar) ((p[r] * 9798 + p[g] * 19235 + p[b] * 3735 + (1 << 14)) >> 15);
}

/* The level that `pos` (a row or column index over all levels) falls in. */
inline int
find_level (const __global Level * lv, const int n_levels, const int pos,
    const int by_col)
{
  int lo = 0, hi = n_levels - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if ((by_col ? lv[mid].first_col : lv[mid].first_row) <= pos)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* A source row blended horizontally at output column x, 8.8 fixed point. */
inline uint
hblend (const __global uchar * row, const Level * l,
    const __global int2 * xtab, const int luma_w, const int x)
{
  if (x < l->xfirst)
    return (uint) row[0] << 8;
  if (x >= l->xend)
    return (uint) row[luma_w - 1] << 8;
  const int2 t = xtab[l->xtab + x];
  return (uint) ((256 - t.y) * row[t.x] + t.y * row[t.x + 1]);
}

/* Pixel (x, y) of a level. */
inline uint
level_pixel (const __global uchar * luma, const uint luma_stride,
    const int luma_w, const int luma_h, const Level * l,
    const __global int2 * xtab, const __global int2 * ytab, const int x,
    const int y)
{
  if (y < l->yfirst || y >= l->yend) {
    const int sy = y < l->yfirst ? 0 : luma_h - 1;
    return (hblend (luma + (size_t) sy * luma_stride, l, xtab, luma_w,
            x) + 128) >> 8;
  }
  const int2 t = ytab[l->ytab + y];
  const __global uchar *row = luma + (size_t) t.x * luma_stride;
  const uint h0 = hblend (row, l, xtab, luma_w, x);
  const uint h1 = hblend (row + luma_stride, l, xtab, luma_w, x);
  return min ((h0 * (uint) (256 - t.y) + h1 * (uint) t.y + 32768) >> 16,
      255u);
}

/* Work-group inclusive scan of (sum, square sum) pairs; returns the totals
 * before this work-item and leaves the group total in tot[]. */
inline uint2
group_exclusive_scan (uint2 v, __local uint2 * tmp, __local uint2 * tot)
{
  const int lid = get_local_id (0);

  tmp[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < VJ_ROW_WG; off <<= 1) {
    const uint2 add = lid >= off ? tmp[lid - off] : (uint2) (0, 0);
    barrier (CLK_LOCAL_MEM_FENCE);
    tmp[lid] += add;
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  const uint2 incl = tmp[lid];
  if (lid == VJ_ROW_WG - 1)
    *tot = incl;
  barrier (CLK_LOCAL_MEM_FENCE);
  return incl - v;
}

/* One work-group per row of every level: resizes the row and writes its
 * prefix sums (and prefix sums of squares) into integral row y + 1; column
 * 0 is zero.  vj_cols then sums the rows up.  Global memory is read and
 * written coalesced (work-item lid takes pixels lid, lid + VJ_ROW_WG, ...);
 * the scan runs on a local tile where each work-item owns VJ_ROW_PIX
 * consecutive pixels (one pad element per chunk avoids bank conflicts). */
#define ROW_TILE(j) ((j) + (j) / VJ_ROW_PIX)

__kernel __attribute__ ((reqd_work_group_size (VJ_ROW_WG, 1, 1)))
void
vj_rows (const __global uchar * luma, const uint luma_ofs,
    const uint luma_stride, const int luma_w, const int luma_h,
    const __global Level * levels, const int first_level, const int n_levels,
    const __global int2 * xtab, const __global int2 * ytab,
    __global uint * sbuf, const int sbuf_w, const int sq_ofs,
    __global uchar * pixels)
{
  __local uint2 tile[VJ_ROW_WG * (VJ_ROW_PIX + 1)];
  __local uint2 tmp[VJ_ROW_WG];
  __local uint2 tot;
  const int row = get_group_id (0), lid = get_local_id (0);
  const Level lv = levels[first_level + find_level (levels + first_level,
          n_levels, row, 0)];
  const Level *l = &lv;
  const int y = row - l->first_row, w = l->width;
  __global uint *out = sbuf + l->layer_ofs + (size_t) (y + 1) * sbuf_w;
  uint2 carry = (uint2) (0, 0);

  if (lid == 0) {
    out[0] = 0;
    out[sq_ofs] = 0;
  }
  for (int x0 = 0; x0 < w; x0 += VJ_ROW_WG * VJ_ROW_PIX) {
    uint2 s = (uint2) (0, 0);

    for (int i = 0; i < VJ_ROW_PIX; i++) {
      const int j = i * VJ_ROW_WG + lid, x = x0 + j;
      uint px = 0;
      if (x < w) {
        px = level_pixel (luma + luma_ofs, luma_stride, luma_w, luma_h, l,
            xtab, ytab, x, y);
        if (pixels)
          pixels[l->pix_ofs + (size_t) y * w + x] = (uchar) px;
      }
      tile[ROW_TILE (j)] = (uint2) (px, px * px);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < VJ_ROW_PIX; k++)
      s += tile[ROW_TILE (lid * VJ_ROW_PIX + k)];
    s = group_exclusive_scan (s, tmp, &tot) + carry;
    for (int k = 0; k < VJ_ROW_PIX; k++) {
      const int j = ROW_TILE (lid * VJ_ROW_PIX + k);
      s += tile[j];
      tile[j] = s;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < VJ_ROW_PIX; i++) {
      const int j = i * VJ_ROW_WG + lid, x = x0 + j;
      if (x < w) {
        const uint2 v = tile[ROW_TILE (j)];
        out[x + 1] = v.x;
        out[sq_ofs + x + 1] = v.y;
      }
    }
    carry += tot;
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

/* The column pass: integral row y + 1 = row y + the prefix row that vj_rows
 * left there; row 0 is zero.  A work-group takes 32 consecutive columns
 * (over all levels) and splits each column into VJ_COL_SEGS segments of
 * rows: every work-item sums its segment, the segment totals are added up
 * in local memory, then every work-item scans its segment again from its
 * offset.  Rows are loaded COL_BLOCK at a time before any is stored, so a
 * column's loads overlap instead of waiting for each other. */
#define COL_BLOCK 8
#define COL_GROUP 32

inline void
col_segment (__global uint * p, const int sbuf_w, const int sq_ofs,
    const int y0, const int y1, uint2 * acc, const bool store)
{
  int y = y0;

  for (; y + COL_BLOCK <= y1; y += COL_BLOCK) {
    __global uint *r = p + (size_t) y * sbuf_w;
    uint a[COL_BLOCK], b[COL_BLOCK];
    for (int k = 0; k < COL_BLOCK; k++) {
      a[k] = r[(size_t) k * sbuf_w];
      b[k] = r[(size_t) k * sbuf_w + sq_ofs];
    }
    for (int k = 0; k < COL_BLOCK; k++) {
      *acc += (uint2) (a[k], b[k]);
      if (store) {
        r[(size_t) k * sbuf_w] = acc->x;
        r[(size_t) k * sbuf_w + sq_ofs] = acc->y;
      }
    }
  }
  for (; y < y1; y++) {
    __global uint *r = p + (size_t) y * sbuf_w;
    *acc += (uint2) (r[0], r[sq_ofs]);
    if (store) {
      r[0] = acc->x;
      r[sq_ofs] = acc->y;
    }
  }
}

__kernel __attribute__ ((reqd_work_group_size (COL_GROUP, VJ_COL_SEGS, 1)))
void
vj_cols (const __global Level * levels, const int n_levels,
    const int total_cols, __global uint * sbuf, const int sbuf_w,
    const int sq_ofs)
{
  __local uint2 seg_total[VJ_COL_SEGS][COL_GROUP];
  const int cx = get_local_id (0), sg = get_local_id (1);
  const int col = get_group_id (0) * COL_GROUP + cx;
  __global uint *p = sbuf;
  int h = 0;

  if (col < total_cols) {
    const Level l = levels[find_level (levels, n_levels, col, 1)];
    p = sbuf + l.layer_ofs + (col - l.first_col);
    h = l.height;
  }
  /* Rows [y0, y1) of the integral, from 1 to h. */
  const int seg = (h + VJ_COL_SEGS - 1) / VJ_COL_SEGS;
  const int y0 = 1 + min (sg * seg, h), y1 = 1 + min ((sg + 1) * seg, h);
  uint2 acc = (uint2) (0, 0);

  col_segment (p, sbuf_w, sq_ofs, y0, y1, &acc, false);
  seg_total[sg][cx] = acc;
  barrier (CLK_LOCAL_MEM_FENCE);
  acc = (uint2) (0, 0);
  for (int k = 0; k < sg; k++)
    acc += seg_total[k][cx];
  col_segment (p, sbuf_w, sq_ofs, y0, y1, &acc, true);
  if (sg == 0 && h > 0) {
    p[0] = 0;
    p[sq_ofs] = 0;
  }
}

/* Tilted integrals (cascades with 45-degree features), one work-group per
 * level walking down its rows with OpenCV's recurrence (imgproc's
 * integral_): `diag` holds the running up-right diagonal sums of the row
 * above, two rows of `diag_w` so a row reads the old one and writes the
 * new one.  Needs the level's pixels (vj_rows with `pixels`). */
__kernel void
vj_tilted (const __global Level * levels, const int first_level,
    const __global uchar * pixels,
    __global uint * sbuf, const int sbuf_w, const int tilt_ofs,
    __global uint * diag, const int diag_w)
{
  const Level lv = levels[first_level + get_group_id (0)];
  const Level *l = &lv;
  const int w = l->width, h = l->height;
  const int lid = get_local_id (0), n = get_local_size (0);
  const __global uchar *pix = pixels + l->pix_ofs;
  __global uint *t = sbuf + tilt_ofs + l->layer_ofs;
  __global uint *d0 = diag + (size_t) get_group_id (0) * 2 * diag_w;
  __global uint *d1 = d0 + diag_w;

  /* Rows 0 and 1 of the integral; diag = row 0 of the picture. */
  for (int x = lid; x <= w; x += n) {
    t[x] = 0;
    t[sbuf_w + x] = x > 0 ? pix[x - 1] : 0;
    if (x < w)
      d0[x] = pix[x];
  }
  barrier (CLK_GLOBAL_MEM_FENCE);
  for (int y = 1; y < h; y++) {
    const __global uchar *src = pix + (size_t) y * w;
    const __global uint *up = t + (size_t) y * sbuf_w;
    __global uint *cur = t + (size_t) (y + 1) * sbuf_w;

    for (int x = lid; x < w; x += n) {
      if (x == 0) {
        cur[0] = up[1];
        cur[1] = up[1] + src[0] + d0[1];
      } else if (x < w - 1) {
        cur[x + 1] = d0[x] + d0[x + 1] + src[x] + up[x];
      } else {
        cur[w] = src[w - 1] + d0[w - 1] + up[w - 1];
      }
      d1[x] = x < w - 1 ? d0[x + 1] + src[x] : src[x];
    }
    barrier (CLK_GLOBAL_MEM_FENCE);
    __global uint *swap = d0;
    d0 = d1;
    d1 = swap;
  }
}
