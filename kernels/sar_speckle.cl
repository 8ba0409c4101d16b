/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR speckle filters (the rules: common/clv-sar-speckle-ref.c).
 *
 * Build macros: SAMPLE (ClvSample: 1 uchar, 2 ushort, 3 float), FILTER (0
 * Lee, 1 Frost, 2 Gamma-MAP, 3 Kuan, 4 refined Lee, 5 boxcar, 6 median), R
 * (the radius), LOOKS and DERAMP (double literals), LX x LY (the
 * work-group), ROWS (0: one output pixel per work-item; K: a column strip
 * of K outputs per work-item), LOCAL (strips of the box-sum filters: 1
 * reads the tile into local memory, 0 reads straight from the image),
 * HAVE_FP64 (window statistics in double, as OTB computes them), GUARD
 * (the box-sum filters' statistics in float, and each work-group then
 * redoes in double, as OTB computes them, its windows where float could
 * differ: see float_output and redo_doubtful); Frost:
 * NCLASS distinct distances in the window, FROST_CLASS_OF (each offset's
 * class, row by row) and FROST_DIST (each class's distance).
 *
 * A work-group reads its (LY RY + 2R) x (LX + 2R) input tile, halo
 * included, into local memory once, edge pixels repeated beyond the image
 * (OTB's border rule).  Box sums are separable: rows of the tile are
 * summed across (x and x^2), then 2R + 1 of those down, so a window costs
 * 4R additions instead of (2R + 1)^2 - 1 (fewer where two outputs share
 * their inner sum down: column_sum).  With ROWS = 0 the
 * work-group shares the row sums through local memory (a second barrier);
 * with ROWS = K each work-item slides its window down its strip, keeping
 * its pixels and the last 2R + 1 row sums in registers, so a row is summed
 * once per strip instead of once per output, the halo is read once per K
 * rows, and there is one barrier.  With LOCAL = 0 a strip reads each row
 * of its window straight from the image instead (neighbouring work-items'
 * reads of a row meet in the cache), so there is no tile to copy and no
 * barrier to wait at.  Every shape adds in the same order: their outputs
 * are the same bits. */

#pragma OPENCL FP_CONTRACT OFF
#if HAVE_FP64 || GUARD
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double wide_t;
#else
typedef float wide_t;
#endif
#if HAVE_FP64
typedef double real_t;
#else
typedef float real_t;
#endif

#if SAMPLE == 1
typedef uchar sample_t;
#elif SAMPLE == 2
typedef ushort sample_t;
#else
typedef float sample_t;
#endif

#if ROWS
#define RY ROWS
#else
#define RY 1
#endif
#define TW (LX + 2 * R)
#define TH (LY * RY + 2 * R)
#define SIDE (2 * R + 1)
#define N (SIDE * SIDE)
/* The filters whose windows are box sums. */
#define BOX (FILTER <= 3 || FILTER == 5)
#if !LOCAL && !(BOX && ROWS)
#error "LOCAL = 0 is a shape of the box-sum filters' strips"
#endif

/* With GUARD the box-sum kernels list their work-group's doubtful outputs
 * in local memory: a count, then each output's index in the group's block
 * of LY RY rows of LX. */
#if GUARD
#if LX * LY * RY <= 65536
typedef ushort doubt_t;
#else
typedef uint doubt_t;
#endif
#define DOUBT_PARAMS , __local uint * ndoubt, __local doubt_t * doubt
#define DOUBT_ARGS , ndoubt, doubt
#else
#define DOUBT_PARAMS
#define DOUBT_ARGS
#endif

/* Boxcar's strips from a tile certify it: the work-group learns while it
 * reads its tile whether the tile holds a negative value or a NaN, and
 * where it holds none, every window's float mean is within the tolerance
 * (float_output), so its strips need no sums of squares. */
#define CERTIFY (GUARD && FILTER == 5 && LOCAL && ROWS)
#if CERTIFY
#define NEGATIVE_PARAM , __local int * negative
#define NEGATIVE_ARG , negative
#else
#define NEGATIVE_PARAM
#define NEGATIVE_ARG
#endif

/* The kernel's image arguments, and its tile where it has one, as its
 * functions take them on. */
#define IMAGE_PARAMS const __global sample_t * src, const uint src_offset, \
    const uint src_stride, __global float *dst, const uint dst_offset,     \
    const uint dst_stride, const int width, const int height
#define IMAGE_ARGS src, src_offset, src_stride, dst, dst_offset, dst_stride, \
    width, height
#if LOCAL
#define TILE_PARAM __local float tile[TH][TW],
#define TILE_ARG tile,
#else
#define TILE_PARAM
#define TILE_ARG
#endif

/* Reads the work-group's tile, clamped to the image.  The loops' trip
 * counts are constants, so they unroll; every load is issued before the
 * first store to local memory, so that a work-item has all its loads in
 * flight at once rather than waiting for each in turn (a store right
 * after its load would wait for it).  With CERTIFY, sets *negative where
 * the tile holds a negative value or a NaN. */
#define FETCH_ROWS ((TH + LY - 1) / LY)
#define FETCH_COLS ((TW + LX - 1) / LX)
inline void
load_tile (const __global sample_t * src, const uint src_offset,
    const uint src_stride, const int width, const int height,
    __local float tile[TH][TW] NEGATIVE_PARAM)
{
  const int x0 = get_group_id (0) * LX - R;
  const int y0 = get_group_id (1) * LY * RY - R;
  float v[FETCH_ROWS][FETCH_COLS];
  bool neg = false;

#pragma unroll
  for (int i = 0; i < FETCH_ROWS; i++) {
    const int ty = get_local_id (1) + i * LY;
    const __global sample_t *row = src + src_offset +
        (size_t) clamp (y0 + ty, 0, height - 1) * src_stride;

#pragma unroll
    for (int j = 0; j < FETCH_COLS; j++) {
      const int tx = get_local_id (0) + j * LX;

      if (ty < TH && tx < TW) {
        v[i][j] = (float) row[clamp (x0 + tx, 0, width - 1)];
        neg |= !(v[i][j] >= 0);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < FETCH_ROWS; i++)
#pragma unroll
    for (int j = 0; j < FETCH_COLS; j++) {
      const int ty = get_local_id (1) + i * LY, tx = get_local_id (0) + j * LX;

      if (ty < TH && tx < TW)
        tile[ty][tx] = v[i][j];
    }
#if CERTIFY
  if (neg)
    *negative = 1;
#else
  (void) neg;
#endif
  barrier (CLK_LOCAL_MEM_FENCE);
}

inline void
store (__global float *dst, const uint dst_offset, const uint dst_stride,
    const int width, const int height, const int x, const int y,
    const float out)
{
  if (x < width && y < height)
    dst[dst_offset + (size_t) y * dst_stride + x] = out;
}

#if BOX
/* The SIDE pixels of tile row `ty` from column `tx`: a row of a window. */
inline void
tile_row (__local float tile[TH][TW], const int ty, const int tx,
    float v[SIDE])
{
#pragma unroll
  for (int dx = 0; dx < SIDE; dx++)
    v[dx] = tile[ty][tx + dx];
}

#if !LOCAL
/* The columns of the windows centred in column x, edge pixels repeated. */
inline void
window_cols (const int x, const int width, int cols[SIDE])
{
#pragma unroll
  for (int dx = 0; dx < SIDE; dx++)
    cols[dx] = clamp (x - R + dx, 0, width - 1);
}

/* Image row `y` at the columns `cols`, edge rows repeated. */
inline void
image_row (const __global sample_t * src, const uint src_offset,
    const uint src_stride, const int height, const int y,
    const int cols[SIDE], float v[SIDE])
{
  const __global sample_t *row = src + src_offset +
      (size_t) clamp (y, 0, height - 1) * src_stride;

#pragma unroll
  for (int dx = 0; dx < SIDE; dx++)
    v[dx] = (float) row[cols[dx]];
}
#endif

/* The sums of x and x^2 (unless not `squares`: 0) along one row of a
 * window; x^2 is added with one rounding (in double, x^2 of a float is
 * exact anyway). */
inline void
row_sums (const float v[SIDE], const bool squares, real_t * a, real_t * b)
{
  *a = v[0];
  *b = squares ? (real_t) v[0] * v[0] : 0;
#pragma unroll
  for (int dx = 1; dx < SIDE; dx++) {
    const real_t x = v[dx];
    *a += x;
    if (squares)
      *b = fma (x, x, *b);
  }
}

/* The window's sum of its SIDE row sums h, for the output in image row y:
 * an even row adds h[0] to the sum of h[1 ..], an odd one the last to the
 * sum of h[.. SIDE - 2], so that the outputs of rows 2k and 2k + 1 share
 * that inner sum.  Every shape adds in this order. */
inline real_t
column_sum (const real_t h[SIDE], const int y)
{
  const int first = y & 1 ? 0 : 1;
  real_t inner = h[first];

#pragma unroll
  for (int j = 1; j < SIDE - 1; j++)
    inner += h[first + j];
  return y & 1 ? inner + h[SIDE - 1] : h[0] + inner;
}

#if !ROWS
/* The window sums of x and x^2 of this work-item's pixel: rows across,
 * then down. */
inline void
box_sums (__local float tile[TH][TW], __local real_t hs[TH][LX],
    __local real_t hs2[TH][LX], const int y, real_t * s, real_t * s2)
{
  const int lx = get_local_id (0), ly = get_local_id (1);
  real_t h[SIDE], h2[SIDE];

  for (int row = ly; row < TH; row += LY) {
    float v[SIDE];
    real_t a, b;

    tile_row (tile, row, lx, v);
    row_sums (v, true, &a, &b);
    hs[row][lx] = a;
    hs2[row][lx] = b;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int dy = 0; dy < SIDE; dy++) {
    h[dy] = hs[ly + dy][lx];
    h2[dy] = hs2[ly + dy][lx];
  }
  *s = column_sum (h, y);
  *s2 = column_sum (h2, y);
}
#endif
#endif

#if FILTER == 1
__constant uchar frost_class_of[N] = { FROST_CLASS_OF };
__constant wide_t frost_dist[NCLASS] = { FROST_DIST };
#endif

#if BOX
/* What the rules take of a window besides its mean and variance: its
 * centre, and Frost's sums of each distance class (added in row order).
 * Kept apart from the window, so that a work-item that has them need not
 * hold the window's pixels. */
typedef struct
{
  float centre;
#if FILTER == 1
  float sums[NCLASS];
#endif
} facts_t;

inline void
facts_begin (facts_t * f)
{
#if FILTER == 1
#pragma unroll
  for (int k = 0; k < NCLASS; k++)
    f->sums[k] = 0;
#endif
}

/* Row `dy` of the window, in order. */
inline void
facts_add_row (facts_t * f, const int dy, const float v[SIDE])
{
  if (dy == R)
    f->centre = v[R];
#if FILTER == 1
#pragma unroll
  for (int dx = 0; dx < SIDE; dx++)
    f->sums[frost_class_of[dy * SIDE + dx]] += v[dx];
#endif
}

inline void
window_facts (const float win[SIDE][SIDE], facts_t * f)
{
  facts_begin (f);
#pragma unroll
  for (int dy = 0; dy < SIDE; dy++)
    facts_add_row (f, dy, win[dy]);
}
#endif

/* The rules, defined once for a type T: RULE (name, T) makes
 * `T name (f, e, var, *sens)`, the output from the window's facts `f`,
 * mean `e` and unbiased variance `var` (OTB's rules), and in *sens
 * |dy / d ln ci2|, how much the output moves with the relative error of
 * ci2 = var / e^2 (Frost: of alpha = DERAMP ci2), which the float path's
 * bound needs (float_output bounds Lee and Kuan itself). */
#if FILTER == 0 || FILTER == 3
/* Lee: w = 1 - cu2 / ci2; Kuan divides w by 1 + cu2. */
#define RULE(NAME, T)                                                       \
inline T NAME (const facts_t * f, const T e, const T var, T * sens)         \
{                                                                           \
  const T eps = 1e-10, cu2 = 1 / (T) LOOKS, ci2 = var / (e * e);            \
  const T i = f->centre;                                                    \
  T w;                                                                      \
                                                                            \
  *sens = 0;                                                                \
  if (fabs (e) < eps)                                                       \
    return 0;                                                               \
  if (fabs (var) < eps || ci2 < cu2)                                        \
    return e;                                                               \
  w = (1 - cu2 / ci2) / (FILTER == 3 ? 1 + cu2 : 1);                        \
  return i * w + e * (1 - w);                                               \
}
#elif FILTER == 2
/* Gamma-MAP: y solves alpha y^2 - b e y - looks e i = 0, so
 * dy / d alpha = -y (y - e) / sqrt(d), and d alpha / d ln ci2 =
 * -alpha ci2 / (ci2 - cu2). */
#define RULE(NAME, T)                                                       \
inline T NAME (const facts_t * f, const T e, const T var, T * sens)         \
{                                                                           \
  const T eps = 1e-10, looks = LOOKS, cu2 = 1 / looks, ci2 = var / (e * e); \
  const T i = f->centre, cmax = sqrt ((T) 2) * sqrt (cu2);                  \
  T alpha, b, d, y;                                                         \
                                                                            \
  *sens = 0;                                                                \
  if (fabs (e) < eps)                                                       \
    return 0;                                                               \
  if (fabs (var) < eps || ci2 < cu2)                                        \
    return e;                                                               \
  if (sqrt (ci2) >= cmax)                                                   \
    return i;                                                               \
  alpha = (1 + cu2) / (ci2 - cu2);                                          \
  b = alpha - looks - 1;                                                    \
  d = e * e * b * b + 4 * alpha * looks * e * i;                            \
  y = (b * e + sqrt (d)) / (2 * alpha);                                     \
  *sens = fabs (y * (y - e)) / sqrt (d) * alpha * ci2 / (ci2 - cu2);        \
  return y;                                                                 \
}
#elif FILTER == 1
/* Frost: weights exp(-alpha d) take one value per distinct distance, so
 * the window is summed by distance class and only NCLASS exponentials are
 * taken; dy / d alpha = -sum w d (x - y) / sum w. */
#define RULE(NAME, T)                                                       \
inline T NAME (const facts_t * f, const T e, const T var, T * sens)         \
{                                                                           \
  float counts[NCLASS];                                                     \
  T alpha, w[NCLASS], num = 0, den = 0, y, slope = 0;                       \
                                                                            \
  *sens = 0;                                                                \
  if (fabs (e) < 1e-10)                                                     \
    return 0;                                                               \
  if (fabs (var) < 1e-10)                                                   \
    return e;                                                               \
  alpha = (T) DERAMP * var / (e * e);                                       \
  _Pragma ("unroll")                                                        \
  for (int k = 0; k < NCLASS; k++)                                          \
    counts[k] = 0;                                                          \
  _Pragma ("unroll")                                                        \
  for (int j = 0; j < N; j++)                                               \
    counts[frost_class_of[j]] += 1;                                         \
  _Pragma ("unroll")                                                        \
  for (int k = 0; k < NCLASS; k++) {                                        \
    w[k] = exp ((float) (-alpha * (T) frost_dist[k]));                      \
    num += w[k] * f->sums[k];                                               \
    den += w[k] * counts[k];                                                \
  }                                                                         \
  y = num / den;                                                            \
  _Pragma ("unroll")                                                        \
  for (int k = 0; k < NCLASS; k++)                                          \
    slope += w[k] * (T) frost_dist[k] * (f->sums[k] - y * counts[k]);       \
  *sens = alpha * fabs (slope) / den;                                       \
  return y;                                                                 \
}
#elif FILTER == 5
/* Boxcar: the mean. */
#define RULE(NAME, T)                                                       \
inline T NAME (const facts_t * f, const T e, const T var, T * sens)         \
{                                                                           \
  *sens = 0;                                                                \
  return e;                                                                 \
}
#endif
#if BOX
RULE (rule_real, real_t)
#if GUARD
RULE (rule_double, double)
#endif
#endif

#if FILTER == 4
/* Refined Lee: R is 3.  h3 holds the tile's rows summed over 3 columns
 * (column c: tile columns c .. c + 2). */
inline void
sum_threes (__local float tile[TH][TW], __local real_t h3[TH][TW - 2])
{
  const int lid = get_local_id (1) * LX + get_local_id (0);

  for (int i = lid; i < TH * (TW - 2); i += LX * LY) {
    const int c = i % (TW - 2), row = i / (TW - 2);
    h3[row][c] = (real_t) tile[row][c] + tile[row][c + 1] + tile[row][c + 2];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The window whose top left corner is tile (ty, tx). */
inline float
refined_lee (__local float tile[TH][TW], __local real_t h3[TH][TW - 2],
    const int ty, const int tx)
{
  const real_t looks = LOOKS, sv = 1 / looks;
  real_t m[3][3], g[4], near0[4], near1[4];
  real_t sum = 0, sum2 = 0, mean, var, var_x;
  int k = 0, d, n = 0;

  /* Sub-window (i, j) centres at offset (2i - 2, 2j - 2): tile column
   * tx + 2i + 1, whose 3-sum starts at tx + 2i. */
#pragma unroll
  for (int j = 0; j < 3; j++)
#pragma unroll
    for (int i = 0; i < 3; i++)
      m[j][i] = (h3[ty + 2 * j][tx + 2 * i] + h3[ty + 2 * j + 1][tx + 2 * i]
          + h3[ty + 2 * j + 2][tx + 2 * i]) / 9;
  g[0] = fabs (m[1][0] - m[1][2]);
  g[1] = fabs (m[0][2] - m[2][0]);
  g[2] = fabs (m[0][1] - m[2][1]);
  g[3] = fabs (m[0][0] - m[2][2]);
  near0[0] = fabs (m[1][0] - m[1][1]);
  near1[0] = fabs (m[1][1] - m[1][2]);
  near0[1] = fabs (m[0][2] - m[1][1]);
  near1[1] = fabs (m[1][1] - m[2][0]);
  near0[2] = fabs (m[0][1] - m[1][1]);
  near1[2] = fabs (m[1][1] - m[2][1]);
  near0[3] = fabs (m[0][0] - m[1][1]);
  near1[3] = fabs (m[1][1] - m[2][2]);
  for (int i = 1; i < 4; i++)
    if (g[i] > g[k])
      k = i;
  /* The half-windows on each gradient's first and second side. */
  d = near0[k] < near1[k] ? (k == 0 ? 4 : k) : (k == 0 ? 0 : k + 4);
#pragma unroll
  for (int dy = -3; dy <= 3; dy++)
#pragma unroll
    for (int dx = -3; dx <= 3; dx++) {
      const bool in = d == 0 ? dx >= 0 : d == 4 ? dx <= 0 : d == 2 ? dy <= 0
          : d == 6 ? dy >= 0 : d == 1 ? dx >= dy : d == 5 ? dx <= dy
          : d == 3 ? dx <= -dy : dx >= -dy;
      if (in) {
        const real_t v = tile[ty + 3 + dy][tx + 3 + dx];
        sum += v;
        sum2 += v * v;
        n++;
      }
    }
  mean = sum / n;
  var = (sum2 - sum * mean) / (n - 1);
  if (var == 0)
    return (float) mean;
  var_x = fmax ((var - mean * mean * sv) / (1 + sv), (real_t) 0);
  return (float) (mean + var_x / var * (tile[ty + 3][tx + 3] - mean));
}
#endif

#if FILTER == 6
/* The median is taken in IEEE 754 totalOrder (-NaN < -Inf < ... < -0 <
 * +0 < ... < +Inf < +NaN), as the reference takes it: on the keys that
 * order_key gives, plain integers in that order.  The map is its own
 * inverse. */
inline int
order_key (const int bits)
{
  return bits ^ ((bits >> 31) & 0x7fffffff);
}

#if R <= 3
inline void
exchange (int *a, int *b)
{
  const int lo = min (*a, *b);

  *b = max (*a, *b);
  *a = lo;
}

/* Batcher's odd-even merge sort of SIDE keys: the network for the next
 * power of two less the exchanges with a position beyond SIDE (an
 * INFINITY there would never move); 3, 9 and 16 exchanges.  Pass (p, k)
 * exchanges a and a + k for the a that lie in the first half of a run of
 * 2k from k mod p on, within one block of 2p.  Every loop runs a constant
 * number of times, so that a compiler unrolls them all and the keys stay
 * in registers: with bounds that move with an outer loop, an array left
 * indexed at run time goes to the stack. */
#define LOG_SIDE (SIDE <= 4 ? 2 : 3)
inline void
sort_side (int v[SIDE])
{
#pragma unroll
  for (int lp = 0; lp < LOG_SIDE; lp++)
#pragma unroll
    for (int lk = 0; lk <= lp; lk++)
#pragma unroll
      for (int a = 0; a < SIDE; a++) {
        const int p = 1 << lp, k = p >> lk, s = k % p;

        if (a >= s && a + k < SIDE && (a - s) % (2 * k) < k
            && a / (2 * p) == (a + k) / (2 * p))
          exchange (&v[a], &v[a + k]);
      }
}

/* The window's SIDE rows, each sorted, sorted again down each column:
 * entry (i, j) then has at least (i + 1)(j + 1) keys at or below it and
 * (SIDE - i)(SIDE - j) at or above it.  Those with more than N/2 + 1 on
 * one side cannot be the median, and as many fall on each side, so the
 * median is the candidates' median. */
#define CANDIDATE(i, j) ((i + 1) * (j + 1) <= N / 2 + 1 && \
    (SIDE - i) * (SIDE - j) <= N / 2 + 1)
/* 3, 13 and 29 candidates. */
#define NCAND (R == 1 ? 3 : R == 2 ? 13 : 29)

/* Forgetful selection: of N/2 + 2 candidates, the least and the greatest
 * cannot be the median of them all; they are dropped, the next candidate
 * comes in, and so on until three are left, whose middle is the median.
 * Each round pairs its keys, the least of the lower and the greatest of
 * the upper halves of the pairs going to the ends of the range. */
inline int
forgetful_median (int c[NCAND])
{
  const int hi = NCAND / 2 + 1;

  /* Round `lo` takes in candidate hi + 1 + lo; constant bounds, as in
   * sort_side. */
#pragma unroll
  for (int lo = 0; lo < NCAND - hi; lo++) {
#pragma unroll
    for (int m = 0; m <= hi / 2; m++)
      if (lo + 2 * m + 1 <= hi)
        exchange (&c[lo + 2 * m], &c[lo + 2 * m + 1]);
#pragma unroll
    for (int m = 0; m <= hi / 2; m++)
      if (lo + 2 + 2 * m <= hi)
        exchange (&c[lo], &c[lo + 2 + 2 * m]);
#pragma unroll
    for (int m = 0; m <= hi / 2; m++)
      if (lo + 1 + 2 * m < hi)
        exchange (&c[lo + 1 + 2 * m], &c[hi]);
    if (hi + 1 + lo < NCAND)
      c[hi] = c[hi + 1 + lo];
  }
  return c[hi - 1];
}

/* The median of a window whose rows are sorted.  Always inlined: a
 * compiler that keeps it a call passes the window through memory. */
inline __attribute__ ((always_inline)) int
median_of_sorted_rows (const int rows[SIDE][SIDE])
{
  int c[NCAND];
  int n = 0;

#pragma unroll
  for (int j = 0; j < SIDE; j++) {
    int col[SIDE];

#pragma unroll
    for (int i = 0; i < SIDE; i++)
      col[i] = rows[i][j];
    sort_side (col);
#pragma unroll
    for (int i = 0; i < SIDE; i++)
      if (CANDIDATE (i, j))
        c[n++] = col[i];
  }
  return forgetful_median (c);
}

/* Tile row `ty` of this work-item's window, as keys, sorted. */
inline void
sorted_row (__local float tile[TH][TW], const int ty, const int tx,
    int v[SIDE])
{
#pragma unroll
  for (int dx = 0; dx < SIDE; dx++)
    v[dx] = order_key (as_int (tile[ty][tx + dx]));
  sort_side (v);
}

/* This work-item's strip of RY outputs down a column: each row of the
 * windows is sorted once, as it enters, for the 2R + 1 windows it is in. */
inline void
median_strip (__local float tile[TH][TW], __global float *dst,
    const uint dst_offset, const uint dst_stride, const int width,
    const int height)
{
  const int lx = get_local_id (0), ty0 = get_local_id (1) * RY;
  const int x = get_global_id (0), y0 = get_group_id (1) * LY * RY + ty0;
  int rows[SIDE][SIDE];

#pragma unroll
  for (int j = 1; j < SIDE; j++)
    sorted_row (tile, ty0 + j - 1, lx, rows[j]);
#pragma unroll
  for (int k = 0; k < RY; k++) {
#pragma unroll
    for (int j = 0; j < SIDE - 1; j++)
#pragma unroll
      for (int dx = 0; dx < SIDE; dx++)
        rows[j][dx] = rows[j + 1][dx];
    sorted_row (tile, ty0 + k + SIDE - 1, lx, rows[SIDE - 1]);
    store (dst, dst_offset, dst_stride, width, height, x, y0 + k,
        as_float (order_key (median_of_sorted_rows (rows))));
  }
}
#else
/* Large windows: the key with fewer than N/2 + 1 keys below it and at
 * least N/2 + 1 at or below it; if none of the others is, the last. */
inline float
median (__local float tile[TH][TW], const int ty, const int tx)
{
#define KEY_AT(a) order_key (as_int (tile[ty + (a) / SIDE][tx + (a) % SIDE]))
  for (int a = 0; a < N - 1; a++) {
    const int c = KEY_AT (a);
    int below = 0, at_or_below = 0;

    for (int b = 0; b < N; b++) {
      const int x = KEY_AT (b);
      below += x < c;
      at_or_below += x <= c;
    }
    if (below <= N / 2 && at_or_below > N / 2)
      return tile[ty + a / SIDE][tx + a % SIDE];
  }
  return tile[ty + R * 2][tx + R * 2];
#undef KEY_AT
}
#endif
#endif

#if BOX
#if !HAVE_FP64
/* Whether |a| is within `band` of the threshold `t`, or the band is not a
 * number. */
inline bool
near_threshold (const float a, const float t, const float band)
{
  return !(fabs (fabs (a) - t) > band);
}

/* Float's unit roundoff. */
#define U 0x1p-24f

/* The output of the window from its float sums; *doubtful where float
 * could go another way than double at a branch or miss the reference by
 * more than half the tolerance (1e-4 relative, 1e-6 absolute): with GUARD
 * the work-group then writes the double one.  Error bounds, to first order
 * in u = 2^-24 (OpenCL's float division and sqrt are within 3 ulp, 6 u; a
 * product by a rounded constant within 2 u), a term of a sum having gone
 * through at most 2 SIDE - 2 additions, A = sum |x| <= sqrt(N S2):
 *   |s - S| <= (2 SIDE - 2) u A, so |e - E| <= de = (2 SIDE + 4) u
 *   sqrt(s2 / N), and sqrt(s2 / N) <= |e| + (N - 1) |var| / (2 N |e|),
 *   the root's tangent at e^2 (s2 = (N - 1) var + N e^2 to first order),
 *   which the rules other than boxcar take instead; |s2 - S2| <= 2 SIDE u
 *   S2; s e's error <= A de +
 *   (2 SIDE - 2) u A^2 / N + u A^2 / N <= (4 SIDE + 3) u S2; with the
 *   subtraction and the division, |var - V| <= dv = (6 SIDE + 10) u s2 /
 *   (N - 1); and ci2 = var / e^2, computed as var ie^2 with ie = 1 / e, is
 *   within rho = dv / |var| + 2 de / |e| + 12 u of its exact value,
 *   relatively.
 * A branch whose threshold lies within twice the bound (the second order
 * terms and the double reference's own roundings are far smaller) is
 * doubtful; so is an output whose error bound could reach half the
 * tolerance.
 * Every case is computed and the output selected, without branches, so
 * that a compiler can interleave the outputs of a strip; the reciprocals
 * of var and e are taken once, there is no square root but boxcar's, and
 * N and N - 1 are divided by as products with their reciprocals.
 * `certified` (boxcar): the window is known to hold no negative value and
 * no NaN, so |s - S| <= (2 SIDE - 2) u S and the mean is within
 * (2 SIDE + 1) u of its exact value, relatively, far inside the tolerance:
 * only a sum that overflowed is doubtful, and s2 is not needed. */
inline float
float_output (const facts_t * f, const float s, const float s2,
    const bool certified, bool *doubtful)
{
  const float eps = 1e-10f, e = s * (1.0f / N);
#if FILTER == 5
  /* sqrt(s2 / N) = sqrt(s2) / SIDE. */
  const float de = ((2 * SIDE + 4) * U / SIDE) * sqrt (s2);

  /* Boxcar: the mean, whatever the variance; a sum that overflowed has
   * an infinite bound, which the tolerance of an infinite mean would
   * pass. */
  *doubtful = !(fabs (s) <= MAXFLOAT)
      | (!certified & !(de <= fmax (5e-5f * fabs (e), 5e-7f)));
  return e;
#else
  const float var = (s2 - s * e) * (1.0f / (N - 1));
  const float dv = ((6 * SIDE + 10) * U / (N - 1)) * s2;
  const bool small_e = fabs (e) < eps, small_var = fabs (var) < eps;
  /* Where var is used, var > dv: |var| is not within dv of eps, and the
   * exact variance is not negative. */
  const float q = 1 / var, ie = 1 / e;
  /* 0 for a window of zeros (whose tangent is not a number). */
  const float de = s2 > 0 ? (2 * SIDE + 4) * U * (fabs (e)
      + ((N - 1) / (2.0f * N)) * fabs (var) * fabs (ie)) : 0;
  const float rho = dv * q + 2 * de * fabs (ie) + 12 * U;
  /* Bitwise operators, which do not branch as || and && may. */
  bool doubt = near_threshold (e, eps, de)
      | (!small_e & near_threshold (var, eps, dv));
  float y, bound;
#if FILTER == 0 || FILTER == 3
  /* Lee and Kuan: y = e + w (i - e), w = max(0, 1 - t) / k with
   * t = cu2 / ci2 and k = 1 (Kuan: 1 + cu2), OTB's rule written so that
   * it is continuous at ci2 = cu2 (w = 0 on both sides): max is
   * 1-Lipschitz, so t's error t rho moves y by at most |i - e| t rho / k,
   * and where t - t rho > 1 the exact w is 0 too; the rule's own
   * roundings are within 8 u (|e| + |i|). */
  const float cu2 = 1 / (float) LOOKS;
  const float i = f->centre, t = cu2 * e * e * q, trho = t * rho;
  /* Lee's k = 1 is left out: the compiler keeps a product by 1.  The
   * bound is selected rather than branched around. */
#if FILTER == 3
  const float ik = 1 / (1 + cu2);
#define BY_K(x) ((x) * ik)
#else
#define BY_K(x) (x)
#endif
  const float moved = BY_K (fabs (i - e)) * trho;

  y = e + BY_K (fmax (1 - t, 0.0f)) * (i - e);
  bound = de + 8 * U * (fabs (e) + fabs (i))
      + select (moved, 0.0f, (int) (t - trho > 1));
#undef BY_K
#else
  const float ci2 = var * ie * ie;
  float sens;

#if FILTER == 2
  /* Gamma-MAP's branches: ci2 < cu2, and sqrt(ci2) >= cmax,
   * cmax^2 = 2 cu2. */
  const float cu2 = 1 / (float) LOOKS;

  doubt |= !small_e & !small_var
      & (near_threshold (ci2, cu2, 2 * rho * ci2)
      | near_threshold (ci2, 2 * cu2, 2 * rho * ci2));
#endif
  y = rule_real (f, e, var, &sens);
  bound = sens * rho + de;
#endif
  y = small_var ? e : y;
  bound = small_var ? de : bound;
  *doubtful = doubt | (!small_e & !(bound <= fmax (5e-5f * fabs (y),
              5e-7f)));
  return small_e ? 0 : y;
#endif
}
#endif

#if GUARD
/* Lists the work-group's output at image row y, this work-item's column,
 * for redo_doubtful. */
inline void
defer (__local uint * ndoubt, __local doubt_t * doubt, const int y)
{
  doubt[atomic_inc (ndoubt)] = (doubt_t) ((y - (int) get_group_id (1) * LY *
          RY) * LX + get_local_id (0));
}

/* The work-group's doubtful outputs in double, once its float outputs are
 * written: the window's mean and variance in two passes in the
 * reference's order (common/clv-sar-speckle-ref.c), and the rule.  They
 * are rare and scattered; redone in place, a SIMD group that meets one
 * would wait for it, while here the group's work-items share them out.
 * A pass reads the window a row at a time, its rows not unrolled, so
 * that it holds few registers (Frost's first pass is: its class sums are
 * indexed by position). */
inline void
redo_doubtful (TILE_PARAM IMAGE_PARAMS DOUBT_PARAMS)
{
  const int x0 = get_group_id (0) * LX, y0 = get_group_id (1) * LY * RY;
  uint n;

  barrier (CLK_LOCAL_MEM_FENCE);
  n = *ndoubt;
  for (uint k = get_local_id (1) * LX + get_local_id (0); k < n;
      k += LX * LY) {
    const int tx = doubt[k] % LX, ty = doubt[k] / LX;
    double sum = 0, sum2 = 0, e, sens;
    facts_t f;
    float v[SIDE];

#if LOCAL
#define WINDOW_ROW(dy) tile_row (tile, ty + (dy), tx, v)
#else
    int cols[SIDE];

    window_cols (x0 + tx, width, cols);
#define WINDOW_ROW(dy) \
    image_row (src, src_offset, src_stride, height, y0 + ty - R + (dy), cols, v)
#endif
    facts_begin (&f);
#if FILTER == 1
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int dy = 0; dy < SIDE; dy++) {
      WINDOW_ROW (dy);
      facts_add_row (&f, dy, v);
#pragma unroll
      for (int dx = 0; dx < SIDE; dx++)
        sum += v[dx];
    }
    e = sum / N;
#pragma unroll 1
    for (int dy = 0; dy < SIDE; dy++) {
      WINDOW_ROW (dy);
#pragma unroll
      for (int dx = 0; dx < SIDE; dx++) {
        const double d = v[dx] - e;
        sum2 += d * d;
      }
    }
#undef WINDOW_ROW
    store (dst, dst_offset, dst_stride, width, height, x0 + tx, y0 + ty,
        (float) rule_double (&f, e, sum2 / (N - 1), &sens));
  }
}
#endif

/* The output of the window with facts `f` from its sums of x and x^2. */
inline float
window_output (const facts_t * f, const real_t s, const real_t s2,
    const bool certified, bool *doubtful)
{
#if HAVE_FP64
  const real_t e = s / N, var = (s2 - s * e) / (N - 1);
  real_t sens;

  (void) certified;
  *doubtful = false;
  return (float) rule_real (f, e, var, &sens);
#else
  const float out = float_output (f, s, s2, certified, doubtful);

  /* Without GUARD, float alone. */
  *doubtful = *doubtful && GUARD;
  return out;
#endif
}

/* Writes the output of the window `win` at pixel (x, y), or lists it for
 * redo_doubtful where float is doubtful; `certified`: see float_output. */
inline void
store_window (__global float *dst, const uint dst_offset,
    const uint dst_stride, const int width, const int height, const int x,
    const int y, const float win[SIDE][SIDE], const real_t s,
    const real_t s2, const bool certified DOUBT_PARAMS)
{
  bool doubtful;
  facts_t f;
  float out;

  window_facts (win, &f);
  out = window_output (&f, s, s2, certified, &doubtful);

#if GUARD
  if (doubtful && x < width && y < height) {
    defer (ndoubt, doubt, y);
    return;
  }
#endif
  store (dst, dst_offset, dst_stride, width, height, x, y, out);
}

#if ROWS
/* This work-item's strip of ROWS outputs: the window slides down, its
 * oldest row and row sums dropped as the next row enters (registers once
 * unrolled).  Row t of the strip's windows is image row y0 - R + t.
 * `certified`: its windows hold no negative value and no NaN (CERTIFY). */
inline void
strip (TILE_PARAM IMAGE_PARAMS, const bool certified DOUBT_PARAMS)
{
  const int x = get_global_id (0), y0 = get_global_id (1) * ROWS;
  float win[SIDE][SIDE];
  real_t h[SIDE], h2[SIDE];
#if LOCAL
  const int lx = get_local_id (0), ty0 = get_local_id (1) * ROWS;
#define STRIP_ROW(t, v) tile_row (tile, ty0 + (t), lx, v)
#else
  int cols[SIDE];

  window_cols (x, width, cols);
#define STRIP_ROW(t, v) \
  image_row (src, src_offset, src_stride, height, y0 - R + (t), cols, v)
#endif

#pragma unroll
  for (int j = 1; j < SIDE; j++) {
    STRIP_ROW (j - 1, win[j]);
    row_sums (win[j], !certified, &h[j], &h2[j]);
  }
#pragma unroll
  for (int k = 0; k < ROWS; k++) {
#pragma unroll
    for (int j = 0; j < SIDE - 1; j++) {
#pragma unroll
      for (int dx = 0; dx < SIDE; dx++)
        win[j][dx] = win[j + 1][dx];
      h[j] = h[j + 1];
      h2[j] = h2[j + 1];
    }
    STRIP_ROW (k + SIDE - 1, win[SIDE - 1]);
    row_sums (win[SIDE - 1], !certified, &h[SIDE - 1], &h2[SIDE - 1]);
    store_window (dst, dst_offset, dst_stride, width, height, x, y0 + k,
        win, column_sum (h, y0 + k), column_sum (h2, y0 + k),
        certified DOUBT_ARGS);
  }
#undef STRIP_ROW
}
#endif
#endif

__kernel __attribute__((reqd_work_group_size (LX, LY, 1)))
void
sar_speckle (IMAGE_PARAMS)
{
  /* Local memory is declared at the kernel's scope (OpenCL 1.2). */
#if LOCAL
  __local float tile[TH][TW];
#endif
#if BOX && !ROWS
  __local real_t hs[TH][LX], hs2[TH][LX];
#elif FILTER == 4
  __local real_t h3[TH][TW - 2];
#endif
#if GUARD
  __local uint ndoubt_at[1];
  __local doubt_t doubt[LX * LY * RY];
  __local uint *ndoubt = ndoubt_at;
#if CERTIFY
  __local int negative_at[1];
  __local int *negative = negative_at;
#endif

  if (get_local_id (0) == 0 && get_local_id (1) == 0) {
    *ndoubt = 0;
#if CERTIFY
    *negative = 0;
#endif
  }
  /* Before any work-item counts a doubtful output or, reading the tile,
   * a negative value. */
#if !LOCAL || CERTIFY
  barrier (CLK_LOCAL_MEM_FENCE);
#endif
#endif

#if LOCAL
  load_tile (src, src_offset, src_stride, width, height, tile NEGATIVE_ARG);
#endif
#if FILTER == 4
  sum_threes (tile, h3);
#endif
#if BOX && ROWS
#if CERTIFY
  if (*negative)
    strip (TILE_ARG IMAGE_ARGS, false DOUBT_ARGS);
  else
    strip (TILE_ARG IMAGE_ARGS, true DOUBT_ARGS);
#else
  strip (TILE_ARG IMAGE_ARGS, false DOUBT_ARGS);
#endif
#elif FILTER == 6 && R <= 3
  median_strip (tile, dst, dst_offset, dst_stride, width, height);
#else
  const int lx = get_local_id (0), ly = get_local_id (1);

  /* Not unrolled: refined Lee and the large windows' median are large. */
#pragma unroll 1
  for (int k = 0; k < RY; k++) {
    const int ty = ly * RY + k;
    const int x = get_global_id (0), y = get_group_id (1) * LY * RY + ty;

#if BOX
    float win[SIDE][SIDE];
    real_t s, s2;

    box_sums (tile, hs, hs2, y, &s, &s2);
#pragma unroll
    for (int dy = 0; dy < SIDE; dy++)
      tile_row (tile, ty + dy, lx, win[dy]);
    store_window (dst, dst_offset, dst_stride, width, height, x, y, win, s,
        s2, false DOUBT_ARGS);
#elif FILTER == 4
    store (dst, dst_offset, dst_stride, width, height, x, y,
        refined_lee (tile, h3, ty, lx));
#else
    store (dst, dst_offset, dst_stride, width, height, x, y,
        median (tile, ty, lx));
#endif
  }
#endif
#if GUARD
  redo_doubtful (TILE_ARG IMAGE_ARGS DOUBT_ARGS);
#endif
}
