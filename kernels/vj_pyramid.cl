/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjfacedetect, first step: the luma, every pyramid level and its
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
 * can outgrow __constant memory), with every frame's place in the luma
 * buffer of its launch and the batch's resize tables: vj_band_sums takes
 * the levels of the frames that share a buffer (crops of one frame, say)
 * from `first_level` on; vj_band_carry,
 * vj_band_integrals and vj_tilted run once over every level of the batch
 * (the offsets count over it).  Each work-item copies its
 * level into private memory once.
 *
 * Build macros: VJ_BAND_ROWS (rows of a tile), VJ_BAND_WG (columns of a
 * tile and the work-group size of the tile kernels; a multiple of
 * VJ_BAND_ROWS). */

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
  int first_tile;               /* tiles of the batch's levels before */
  int first_col;                /* columns (width + 1) of the batch's levels
                                 * before */
  int v_ofs;                    /* column sums of bands in vj_band_*'s `v` */
  int h_ofs;                    /* row sums of tiles in `h` */
  int pix_ofs;                  /* resized pixels */
  uint src_ofs;                 /* its frame's luma in the launch's buffer */
  int src_w, src_h;             /* its frame's size */
} Level;

/* OpenCV 4.6's RGB2Gray<uchar>: 15-bit weights, rounded (as
 * clv_rgb_to_gray_ref). */
__kernel void
vj_luma (const __global uchar * src, const uint offset, const uint stride,
    const uint pixel_stride, const uint r, const uint g, const uint b,
    const int width, const int height, __global uchar * dst,
    const uint dst_ofs)
{
  const int x = get_global_id (0), y = get_global_id (1);

  if (x >= width || y >= height)
    return;
  const __global uchar *p = src + offset + (size_t) y * stride
      + (size_t) x * pixel_stride;
  dst[dst_ofs + (size_t) y * width + x] =
      (uchar) ((p[r] * 9798 + p[g] * 19235 + p[b] * 3735 + (1 << 14)) >> 15);
}

/* The batch's first pyramid launch clears the detection's counters (the
 * raw windows' count and the work counter, vj_detect.cl's out[0] and
 * out[1]): the detection runs after it in the same queue, and the host
 * has read the last batch's back. */
#define RESET_COUNTERS(reset)                                           \
  do {                                                                  \
    if (reset && get_global_id (0) == 0) {                              \
      reset[0] = 0;                                                     \
      reset[1] = 0;                                                     \
    }                                                                   \
  } while (0)

/* Output index i of an axis: its source index, the next source index and
 * the 8-bit weight of the next.  Outside [first, end) the edge pixel with
 * weight 0, which the blend below turns into OpenCV's copy of the edge:
 * (a * 256 * 256 + 32768) >> 16 = a. */
inline int3
resize_tap (const __global int2 * tab, const int first, const int end,
    const int last, const int i)
{
  if (i < first)
    return (int3) (0, 0, 0);
  if (i >= end)
    return (int3) (last, last, 0);
  const int2 t = tab[i];
  return (int3) (t.x, t.x + 1, t.y);
}

/* Source rows blended horizontally to 8.8 fixed point, then vertically
 * with rounding. */
inline uint
tap_pixel (const __global uchar * luma, const uint stride, const int3 tx,
    const int3 ty)
{
  const __global uchar *r0 = luma + (size_t) ty.x * stride;
  const __global uchar *r1 = luma + (size_t) ty.y * stride;
  const uint h0 = (uint) ((256 - tx.z) * r0[tx.x] + tx.z * r0[tx.y]);
  const uint h1 = (uint) ((256 - tx.z) * r1[tx.x] + tx.z * r1[tx.y]);

  return min ((h0 * (uint) (256 - ty.z) + h1 * (uint) ty.z + 32768) >> 16,
      255u);
}

/* The integrals are built by reduce-then-scan over tiles of VJ_BAND_ROWS
 * rows (a band) by VJ_BAND_WG columns of a level, so that every integral
 * value is written once and never read back, and the tiles of a wide
 * level run side by side:
 *   vj_band_sums      resizes each tile into the level's pixels and sums
 *                     its columns down (into `v`: band b's sums of column
 *                     x of a level at v_ofs + b * width + x) and its rows
 *                     across (into `h`: row y's sums of tile column c at
 *                     h_ofs + y * across + c);
 *   vj_band_carry     down each column, the bands' sums become the sums of
 *                     the bands above (an exclusive scan);
 *   vj_band_integrals sums each tile's pixels from the carries above (v)
 *                     and to the left (v and h), and writes the tile's
 *                     integral rows.
 * uint sums wrap modulo 2^32 as OpenCV's CV_32S buffers do; addition modulo
 * 2^32 is associative, so any order gives OpenCV's values. */

/* Work-items that share a row of a tile, each owning VJ_BAND_ROWS
 * consecutive values; one pad value per run of them keeps those reads off
 * one bank. */
#define SEGS (VJ_BAND_WG / VJ_BAND_ROWS)
#define TILE_SIZE (VJ_BAND_ROWS * (VJ_BAND_WG + SEGS))
#define TILE(r, j) ((r) * VJ_BAND_WG + (j) + ((r) * VJ_BAND_WG + (j)) / VJ_BAND_ROWS)

/* Row r's total of the per-work-item values `part` holds: the sum of its
 * SEGS work-items' values. */
inline uint2
row_total (const __local uint2 * part, const int r)
{
  uint2 s = (uint2) (0, 0);

  for (int k = 0; k < SEGS; k++)
    s += part[r * SEGS + k];
  return s;
}

/* The level whose first unit (tile or column, by `key`) is the last at or
 * before `pos`, counted from lv[0]'s. */
#define KEY_TILE 0
#define KEY_COL 1

inline int
find_level (const __global Level * lv, const int n_levels, const int pos,
    const int key)
{
  const int base = key == KEY_TILE ? lv->first_tile : lv->first_col;
  int lo = 0, hi = n_levels - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if ((key == KEY_TILE ? lv[mid].first_tile : lv[mid].first_col) - base
        <= pos)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The tile of the levels from `first_level` on that this work-group
 * takes. */
typedef struct
{
  Level l;
  int across;                   /* tiles across the level */
  int band, col;                /* the tile's band and tile column */
  int y0, rows;                 /* its rows */
  int x;                        /* this work-item's column */
} Tile;

inline Tile
tile_of_group (const __global Level * levels, const int first_level,
    const int n_levels)
{
  const __global Level *lf = levels + first_level;
  Tile t;
  int k;

  t.l = lf[find_level (lf, n_levels, get_group_id (0), KEY_TILE)];
  t.across = (t.l.width + VJ_BAND_WG - 1) / VJ_BAND_WG;
  k = get_group_id (0) - (t.l.first_tile - lf->first_tile);
  t.band = k / t.across;
  t.col = k % t.across;
  t.y0 = t.band * VJ_BAND_ROWS;
  t.rows = min (VJ_BAND_ROWS, t.l.height - t.y0);
  t.x = t.col * VJ_BAND_WG + get_local_id (0);
  return t;
}

/* Row r of the tile at this work-item's column: its pixel, resized. */
inline uint
tile_pixel (const Tile * t, const __global uchar * luma,
    const uint luma_stride, const int luma_h, const __global int2 * ytab,
    const int3 tx, const int r)
{
  return tap_pixel (luma, luma_stride, tx, resize_tap (ytab + t->l.ytab,
          t->l.yfirst, t->l.yend, luma_h - 1, t->y0 + r));
}

/* Also writes the level's pixels (vj_band_integrals, vj_tilted and tests
 * read them). */
__kernel __attribute__ ((reqd_work_group_size (VJ_BAND_WG, 1, 1)))
void
vj_band_sums (const __global uchar * luma, const uint luma_stride,
    const __global Level * levels, const int first_level, const int n_levels,
    const __global int2 * xtab, const __global int2 * ytab,
    __global uchar * pixels, __global uint2 * v, __global uint2 * h,
    __global uint * reset)
{
  __local uint px[TILE_SIZE];
  __local uint2 seg_total[VJ_BAND_WG];
  const int lid = get_local_id (0), sr = lid / SEGS, sk = lid % SEGS;
  const Tile t = tile_of_group (levels, first_level, n_levels);
  uint2 s = (uint2) (0, 0);

  RESET_COUNTERS (reset);
  if (t.x < t.l.width) {
    const int3 tx = resize_tap (xtab + t.l.xtab, t.l.xfirst, t.l.xend,
        t.l.src_w - 1, t.x);
    for (int r = 0; r < t.rows; r++) {
      const uint p = tile_pixel (&t, luma + t.l.src_ofs, luma_stride,
          t.l.src_h, ytab, tx, r);
      pixels[t.l.pix_ofs + (size_t) (t.y0 + r) * t.l.width + t.x] =
          (uchar) p;
      s += (uint2) (p, p * p);
      px[TILE (r, lid)] = p;
    }
    v[t.l.v_ofs + t.band * t.l.width + t.x] = s;
  } else {
    for (int r = 0; r < t.rows; r++)
      px[TILE (r, lid)] = 0;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  s = (uint2) (0, 0);
  if (sr < t.rows)
    for (int k = 0; k < VJ_BAND_ROWS; k++) {
      const uint p = px[TILE (sr, sk * VJ_BAND_ROWS + k)];
      s += (uint2) (p, p * p);
    }
  seg_total[lid] = s;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < t.rows)
    h[t.l.h_ofs + (t.y0 + lid) * t.across + t.col] = row_total (seg_total,
        lid);
}

/* One work-item per column of every level of the batch: band b's sums
 * become those of bands 0 .. b-1.  Loads go CARRY_BLOCK at a time before
 * any store, so that they overlap. */
#define CARRY_BLOCK 8

__kernel void
vj_band_carry (const __global Level * levels, const int n_levels,
    const int total_cols, __global uint2 * v)
{
  const int col = get_global_id (0);

  if (col >= total_cols)
    return;
  const Level l = levels[find_level (levels, n_levels, col, KEY_COL)];
  const int x = col - l.first_col;
  const int n = (l.height + VJ_BAND_ROWS - 1) / VJ_BAND_ROWS;
  __global uint2 *p = v + l.v_ofs + x;
  uint2 acc = (uint2) (0, 0);

  /* Column `width` is the integral's extra one: no pixels. */
  if (x >= l.width)
    return;
  for (int b0 = 0; b0 < n; b0 += CARRY_BLOCK) {
    uint2 t[CARRY_BLOCK];
    for (int b = 0; b < CARRY_BLOCK; b++)
      t[b] = b0 + b < n ? p[(size_t) (b0 + b) * l.width] : (uint2) (0, 0);
    for (int b = 0; b < CARRY_BLOCK && b0 + b < n; b++) {
      p[(size_t) (b0 + b) * l.width] = acc;
      acc += t[b];
    }
  }
}

/* One work-group per tile of the batch's levels.  The carry into the
 * tile's row r from the left is the sum of the pixels left of the tile in
 * the bands above (v, carried) and in the tile's rows 0 .. r (h).
 * Work-item j sums column j of
 * the tile down from the column's carry (v) into `tile`; each row is then
 * summed across by SEGS work-items from the row's carry; the rows are
 * written out coalesced. */
__kernel __attribute__ ((reqd_work_group_size (VJ_BAND_WG, 1, 1)))
void
vj_band_integrals (const __global Level * levels, const int first_level,
    const int n_levels, const __global uchar * pixels,
    const __global uint2 * v, const __global uint2 * h,
    __global uint * sbuf, const int sbuf_w, const int sq_ofs)
{
  __local uint2 tile[TILE_SIZE];
  __local uint2 seg_total[VJ_BAND_WG];
  __local uint2 carry[2 * VJ_BAND_ROWS];
  const int lid = get_local_id (0), sr = lid / SEGS, sk = lid % SEGS;
  const Tile t = tile_of_group (levels, first_level, n_levels);
  const int w = t.l.width, x0 = t.col * VJ_BAND_WG;
  const __global uint2 *vb = v + t.l.v_ofs + t.band * w;
  __global uint *out = sbuf + t.l.layer_ofs + (size_t) (t.y0 + 1) * sbuf_w;
  uint2 above = (uint2) (0, 0), left = (uint2) (0, 0);

  /* Partial carries: work-item j's columns j, j + VJ_BAND_WG, ... left of
   * the tile (into `tile`, free until the pixels come); row sr's tile
   * columns sk, sk + SEGS, ... left of it.  Then work-item r sums SEGS of
   * the first kind (the sum over all r is the carry from above) and row
   * r's of the second. */
  for (int k = lid; k < x0; k += VJ_BAND_WG)
    above += vb[k];
  if (sr < t.rows)
    for (int k = sk; k < t.col; k += SEGS)
      left += h[t.l.h_ofs + (t.y0 + sr) * t.across + k];
  tile[lid] = above;
  seg_total[lid] = left;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < VJ_BAND_ROWS) {
    carry[lid] = row_total (tile, lid);
    carry[VJ_BAND_ROWS + lid] = row_total (seg_total, lid);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  /* The carry into row sr: everything above the band plus rows 0 .. sr. */
  uint2 before = (uint2) (0, 0);
  for (int k = 0; k < VJ_BAND_ROWS; k++)
    before += carry[k] + (k <= sr ? carry[VJ_BAND_ROWS + k] : (uint2) (0, 0));

  /* Integral row 0 and column 0 are zero. */
  if (t.band == 0 && t.x < w) {
    out[t.x + 1 - sbuf_w] = 0;
    out[t.x + 1 - sbuf_w + sq_ofs] = 0;
  }
  if (t.band == 0 && t.x == 0) {
    out[-sbuf_w] = 0;
    out[-sbuf_w + sq_ofs] = 0;
  }
  if (t.col == 0 && lid < t.rows) {
    out[(size_t) lid * sbuf_w] = 0;
    out[(size_t) lid * sbuf_w + sq_ofs] = 0;
  }

  if (t.x < w) {
    const __global uchar *col = pixels + t.l.pix_ofs + (size_t) t.y0 * w
        + t.x;
    uint2 s = vb[t.x];
    for (int r = 0; r < t.rows; r++) {
      const uint p = col[(size_t) r * w];
      s += (uint2) (p, p * p);
      tile[TILE (r, lid)] = s;
    }
  } else {
    for (int r = 0; r < t.rows; r++)
      tile[TILE (r, lid)] = (uint2) (0, 0);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  uint2 sum = (uint2) (0, 0);
  if (sr < t.rows)
    for (int k = 0; k < VJ_BAND_ROWS; k++)
      sum += tile[TILE (sr, sk * VJ_BAND_ROWS + k)];
  seg_total[lid] = sum;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < sk; k++)
    before += seg_total[sr * SEGS + k];
  if (sr < t.rows)
    for (int k = 0; k < VJ_BAND_ROWS; k++) {
      const int i = TILE (sr, sk * VJ_BAND_ROWS + k);
      before += tile[i];
      tile[i] = before;
    }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (t.x < w)
    for (int r = 0; r < t.rows; r++) {
      const uint2 s = tile[TILE (r, lid)];
      out[(size_t) r * sbuf_w + t.x + 1] = s.x;
      out[(size_t) r * sbuf_w + t.x + 1 + sq_ofs] = s.y;
    }
}

/* Tilted integrals (cascades with 45-degree features), one work-group per
 * level walking down its rows with OpenCV's recurrence (imgproc's
 * integral_): `diag` holds the running up-right diagonal sums of the row
 * above, two rows of `diag_w` so a row reads the old one and writes the
 * new one.  Needs the level's pixels (vj_band_integrals writes them). */
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

/* On CPU devices (the detector's cpu variant): one work-item per level
 * from `first_level` on (as vj_band_sums takes them), walking down its
 * rows as clv_vj_integrals_compute does: a row is resized, summed across,
 * and added to the integral row above, which is still in the cache.  The
 * level's pixels are written too (vj_tilted and tests read them). */
__kernel void
vj_cpu_levels (const __global uchar * luma, const uint luma_stride,
    const __global Level * levels, const int first_level,
    const __global int2 * xtab, const __global int2 * ytab,
    __global uchar * pixels, __global uint * sbuf, const int sbuf_w,
    const int sq_ofs, __global uint * reset)
{
  const Level l = levels[first_level + get_global_id (0)];
  const __global uchar *src = luma + l.src_ofs;
  __global uint *s = sbuf + l.layer_ofs;

  RESET_COUNTERS (reset);

  for (int x = 0; x <= l.width; x++) {
    s[x] = 0;
    s[x + sq_ofs] = 0;
  }
  for (int y = 0; y < l.height; y++) {
    const int3 ty = resize_tap (ytab + l.ytab, l.yfirst, l.yend,
        l.src_h - 1, y);
    __global uchar *px = pixels + l.pix_ofs + (size_t) y * l.width;
    __global uint *row = s + (size_t) (y + 1) * sbuf_w;
    uint rs = 0, rq = 0;

    row[0] = 0;
    row[sq_ofs] = 0;
    for (int x = 0; x < l.width; x++) {
      const uint p = tap_pixel (src, luma_stride, resize_tap (xtab + l.xtab,
              l.xfirst, l.xend, l.src_w - 1, x), ty);
      px[x] = (uchar) p;
      rs += p;
      rq += p * p;
      row[x + 1] = row[x + 1 - sbuf_w] + rs;
      row[x + 1 + sq_ofs] = row[x + 1 - sbuf_w + sq_ofs] + rq;
    }
  }
}
