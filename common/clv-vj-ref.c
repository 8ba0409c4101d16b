/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola–Jones C reference: OpenCV 4.6 detectMultiScale on the CPU, step by
 * step.  Built with -ffp-contract=off: OpenCV's arithmetic has no FMA and
 * the results depend on every rounding (see clv-vj-ref.h). */
#include "clv-vj-ref.h"
#include "clv-resize.h"

#include <float.h>
#include <math.h>
#include <string.h>

gboolean
clv_vj_parse_size (const char *str, int *width, int *height)
{
  char *end;
  gint64 w, h;

  if (str == NULL || !g_ascii_isdigit (str[0]))
    return FALSE;
  w = g_ascii_strtoll (str, &end, 10);
  if ((*end != 'x' && *end != 'X') || !g_ascii_isdigit (end[1]))
    return FALSE;
  h = g_ascii_strtoll (end + 1, &end, 10);
  if (*end != '\0' || w > G_MAXINT || h > G_MAXINT)
    return FALSE;
  *width = (int) w;
  *height = (int) h;
  return TRUE;
}

/* OpenCV's cvRound: round half to even. */
static inline int
round_d (double v)
{
  return (int) lrint (v);
}

static inline int
round_f (float v)
{
  return (int) lrintf (v);
}

/* ---------------------------------------------------------------------- */
/* Scales: detectMultiScaleNoGrouping and FeatureEvaluator::updateScaleData */

int
clv_vj_scales (int img_w, int img_h, int win_w, int win_h,
    const ClvVjParams * p, ClvVjScale ** out)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (float));
  GArray *sel = g_array_new (FALSE, FALSE, sizeof (float));
  int max_w = p->max_width, max_h = p->max_height, n;
  ClvVjScale *scales;

  *out = NULL;
  if (max_w == 0 || max_h == 0) {
    max_w = img_w;
    max_h = img_h;
  }
  if (img_w < win_w || img_h < win_h || p->scale_factor <= 1.0)
    goto done;

  for (double factor = 1;; factor *= p->scale_factor) {
    float f = (float) factor;
    if (round_d (win_w * factor) > img_w || round_d (win_h * factor) > img_h)
      break;
    g_array_append_val (all, f);
  }
  for (guint i = 0; i < all->len; i++) {
    float f = g_array_index (all, float, i);
    int w = round_f (win_w * f), h = round_f (win_h * f);
    if (w > max_w || h > max_h)
      break;
    if (w < p->min_width || h < p->min_height)
      continue;
    g_array_append_val (sel, f);
  }
  /* No allowed scale (e.g. min size == max size between two scales): OpenCV
   * takes the scale whose window is nearest to the minimum size. */
  if (sel->len == 0 && all->len > 0) {
    guint best = 0;
    double best_d = 0;
    for (guint i = 0; i < all->len; i++) {
      float f = g_array_index (all, float, i);
      double dw = p->min_width - round_f (win_w * f);
      double dh = p->min_height - round_f (win_h * f);
      double d = dw * dw + dh * dh;
      if (i == 0 || best_d > d) {
        best = i;
        best_d = d;
      }
    }
    g_array_append_val (sel, g_array_index (all, float, best));
  }

done:
  n = sel->len;
  scales = g_new0 (ClvVjScale, MAX (n, 1));
  for (int i = 0; i < n; i++) {
    ClvVjScale *s = &scales[i];
    s->scale = g_array_index (sel, float, i);
    s->width = round_f ((float) img_w / s->scale);
    s->height = round_f ((float) img_h / s->scale);
    s->win_width = round_f (win_w * s->scale);
    s->win_height = round_f (win_h * s->scale);
    s->step = s->scale >= 2 ? 1 : 2;
    /* The integral is one larger than the level; windows fit in it. */
    s->x_end = MAX (s->width + 1 - win_w, 0);
    s->y_end = MAX (s->height + 1 - win_h, 0);
  }
  /* OpenCV splits the rows into stripes of a multiple of the step, their
   * count from the first level's width; rows past nstripes * stripe are
   * never visited.  This can drop the last row of windows. */
  if (n > 0) {
    int nstripes = (int) ceil (scales[0].x_end / 32.0);
    for (int i = 0; i < n; i++) {
      ClvVjScale *s = &scales[i];
      int stripe = nstripes > 0 ?
          MAX ((s->y_end / s->step + nstripes - 1) / nstripes, 1) * s->step : 0;
      s->y_end = MIN (s->y_end, nstripes * stripe);
    }
  }
  g_array_free (all, TRUE);
  g_array_free (sel, TRUE);
  *out = scales;
  return n;
}

ClvRect
clv_vj_candidate_rect (const ClvVjScale * s, int x, int y)
{
  ClvRect r = { round_f (x * s->scale), round_f (y * s->scale),
    s->win_width, s->win_height
  };
  return r;
}

/* ---------------------------------------------------------------------- */
/* Resize: OpenCV's resize_bitExact with interpolationLinear for uint8.
 * Source position of destination index d: f = s * (d + 0.5) - 0.5 in double
 * with s = 1 / (dst_size / src_size); i = floor (f); weight of i + 1 is
 * c = rint ((f - i) * 256), of i is 256 - c.  Destinations left of the
 * source (i < 0) take the first pixel, right of it (i >= size - 1) the
 * last.  Rows are interpolated horizontally to 8.8 fixed point
 * (h = (256 - c) * p[i] + c * p[i+1], or p << 8 at the edges), then
 * vertically: (h0 * (256 - cy) + h1 * cy + 2^15) >> 16, or (h + 128) >> 8 for
 * destination rows above or below the source. */

typedef struct
{
  int *ofs;
  guint16 *c1;                  /* weight of ofs + 1, in 1/256 */
  int first, end;               /* interpolated indices: [first, end) */
} Axis;

static void
axis_init (Axis * a, int src_size, int dst_size)
{
  a->ofs = g_new (int, dst_size);
  a->c1 = g_new (guint16, dst_size);
  clv_resize_axis_exact (src_size, dst_size, a->ofs, a->c1, &a->first, &a->end);
}

static void
axis_clear (Axis * a)
{
  g_free (a->ofs);
  g_free (a->c1);
}

static void
hresize_row (const guint8 * src, int src_w, const Axis * ax, guint16 * out,
    int dst_w)
{
  int d = 0;

  for (; d < ax->first && d < dst_w; d++)
    out[d] = (guint16) (src[0] << 8);
  for (; d < ax->end; d++) {
    const guint8 *p = src + ax->ofs[d];
    out[d] = (guint16) ((256 - ax->c1[d]) * p[0] + ax->c1[d] * p[1]);
  }
  for (; d < dst_w; d++)
    out[d] = (guint16) (src[src_w - 1] << 8);
}

void
clv_vj_resize (const guint8 * src, int sw, int sh, gsize sstride,
    guint8 * dst, int dw, int dh, gsize dstride)
{
  Axis ax, ay;
  guint16 *h0, *h1;
  int row0 = -1, row1 = -1;

  if (sw == dw && sh == dh) {
    for (int y = 0; y < sh; y++)
      memcpy (dst + y * dstride, src + y * sstride, sw);
    return;
  }
  axis_init (&ax, sw, dw);
  axis_init (&ay, sh, dh);
  h0 = g_new (guint16, dw);
  h1 = g_new (guint16, dw);

  for (int y = 0; y < dh; y++) {
    guint8 *out = dst + y * dstride;
    if (y < ay.first || y >= ay.end) {
      int sy = y < ay.first ? 0 : sh - 1;
      hresize_row (src + sy * sstride, sw, &ax, h0, dw);
      row0 = -1;
      for (int x = 0; x < dw; x++)
        out[x] = (guint8) ((h0[x] + 128) >> 8);
    } else {
      int sy = ay.ofs[y];
      guint32 cy1 = ay.c1[y], cy0 = 256 - cy1;
      /* Consecutive rows mostly share source rows: reuse them. */
      if (row1 == sy) {
        guint16 *t = h0;
        h0 = h1;
        h1 = t;
        row0 = sy;
        row1 = -1;
      }
      if (row0 != sy) {
        hresize_row (src + sy * sstride, sw, &ax, h0, dw);
        row0 = sy;
      }
      if (row1 != sy + 1) {
        hresize_row (src + (sy + 1) * sstride, sw, &ax, h1, dw);
        row1 = sy + 1;
      }
      for (int x = 0; x < dw; x++)
        out[x] = (guint8) MIN ((h0[x] * cy0 + h1[x] * cy1 + 32768) >> 16, 255);
    }
  }
  g_free (h0);
  g_free (h1);
  axis_clear (&ax);
  axis_clear (&ay);
}

/* ---------------------------------------------------------------------- */
/* Integrals: cv::integral (sum CV_32S, sqsum CV_32S, tilted CV_32S) */

ClvVjIntegrals *
clv_vj_integrals_new (int width, int height, gboolean with_tilted)
{
  ClvVjIntegrals *in = g_new0 (ClvVjIntegrals, 1);
  gsize n = (gsize) (width + 1) * (height + 1);

  in->width = width;
  in->height = height;
  in->stride = width + 1;
  in->sum = g_new (gint32, n);
  in->sqsum = g_new (guint32, n);
  if (with_tilted)
    in->tilted = g_new (gint32, n);
  return in;
}

void
clv_vj_integrals_free (ClvVjIntegrals * in)
{
  if (in == NULL)
    return;
  g_free (in->sum);
  g_free (in->sqsum);
  g_free (in->tilted);
  g_free (in);
}

/* tilted(X, Y) = sum of img(x, y) over y < Y, |x - X + 1| <= Y - y - 1: the
 * triangle with its apex at (X - 1, Y - 1), widening upwards.  Recurrence
 * T(X,Y) = T(X-1,Y-1) + T(X+1,Y-1) - T(X,Y-2) + I(X-1,Y-1) + I(X-1,Y-2),
 * with T(-1,Y) = T(0,Y-1) and T(W+1,Y) = T(W,Y-1) (the triangles clipped by
 * the image are the same).  Arithmetic wraps like OpenCV's int. */
static void
compute_tilted (ClvVjIntegrals * in, const guint8 * img, int w, int h,
    gsize img_stride)
{
  const int st = in->stride;
  guint32 *t = (guint32 *) in->tilted;

  memset (t, 0, sizeof (guint32) * (w + 1));
  for (int Y = 1; Y <= h; Y++) {
    guint32 *row = t + Y * st;
    const guint32 *up = t + (Y - 1) * st;
    const guint32 *up2 = Y >= 2 ? t + (Y - 2) * st : NULL;
    const guint8 *i1 = img + (Y - 1) * img_stride;
    const guint8 *i2 = Y >= 2 ? img + (Y - 2) * img_stride : NULL;

    for (int X = 0; X <= w; X++) {
      guint32 left = X > 0 ? up[X - 1] : (up2 ? up2[0] : 0);
      guint32 right = X < w ? up[X + 1] : (up2 ? up2[w] : 0);
      guint32 v = left + right - (up2 ? up2[X] : 0);
      if (X > 0)
        v += i1[X - 1] + (i2 ? i2[X - 1] : 0);
      row[X] = v;
    }
  }
}

void
clv_vj_integrals_compute (ClvVjIntegrals * in, const guint8 * img, int w,
    int h, gsize img_stride)
{
  const int st = in->stride;

  g_return_if_fail (w <= in->width && h <= in->height);

  memset (in->sum, 0, sizeof (gint32) * (w + 1));
  memset (in->sqsum, 0, sizeof (guint32) * (w + 1));
  for (int y = 0; y < h; y++) {
    const guint8 *src = img + y * img_stride;
    guint32 *s = (guint32 *) in->sum + (y + 1) * st;
    guint32 *q = in->sqsum + (y + 1) * st;
    guint32 rs = 0, rq = 0;

    s[0] = q[0] = 0;
    for (int x = 0; x < w; x++) {
      rs += src[x];
      rq += (guint32) src[x] * src[x];
      s[x + 1] = s[x + 1 - st] + rs;
      q[x + 1] = q[x + 1 - st] + rq;
    }
  }
  if (in->tilted != NULL)
    compute_tilted (in, img, w, h, img_stride);
}

/* ---------------------------------------------------------------------- */
/* One window: HaarEvaluator::setWindow and predictOrdered */

/* Sum of an upright rectangle, in wrapping 32-bit arithmetic. */
static inline guint32
rect_sum (const guint32 * p, int st, int x, int y, int w, int h)
{
  return p[y * st + x] - p[y * st + x + w] - p[(y + h) * st + x]
      + p[(y + h) * st + x + w];
}

/* Sum of a 45° rectangle (CV_TILTED_OFS). */
static inline guint32
tilted_sum (const guint32 * p, int st, int x, int y, int w, int h)
{
  return p[y * st + x] - p[(y + h) * st + x - h] - p[(y + w) * st + x + w]
      + p[(y + w + h) * st + x + w - h];
}

static inline float
feature_value (const ClvCascadeFeature * f, const ClvVjIntegrals * in,
    int wx, int wy, float vnf)
{
  const guint32 *p = (const guint32 *) (f->tilted ? in->tilted : in->sum);
  int r[CLV_CASCADE_MAX_RECTS] = { 0 };
  float v;

  for (int k = 0; k < f->n_rects; k++)
    r[k] = (gint32) (f->tilted ?
        tilted_sum (p, in->stride, wx + f->x[k], wy + f->y[k], f->w[k],
            f->h[k]) :
        rect_sum (p, in->stride, wx + f->x[k], wy + f->y[k], f->w[k],
            f->h[k]));
  v = f->weight[0] * (float) r[0] + f->weight[1] * (float) r[1];
  if (f->weight[2] != 0.0f)
    v += f->weight[2] * (float) r[2];
  return v * vnf;
}

/* LBPEvaluator::OptFeature::calc: the 8-bit code of the feature's 3 x 3
 * blocks for the window at (wx, wy) (clv-cascade.h). */
static inline int
lbp_code (const ClvCascadeFeature * f, const ClvVjIntegrals * in, int wx,
    int wy)
{
  const guint32 *p = (const guint32 *) in->sum;
  const int x = wx + f->x[0], y = wy + f->y[0], w = f->w[0], h = f->h[0];
  gint32 b[3][3], c;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      b[i][j] = (gint32) rect_sum (p, in->stride, x + j * w, y + i * h, w, h);
  c = b[1][1];
  return (b[0][0] >= c) << 7 | (b[0][1] >= c) << 6 | (b[0][2] >= c) << 5
      | (b[1][2] >= c) << 4 | (b[2][2] >= c) << 3 | (b[2][1] >= c) << 2
      | (b[2][0] >= c) << 1 | (b[1][0] >= c);
}

/* Whether the window goes to node `ni`'s left child. */
static inline gboolean
node_goes_left (const ClvCascade * c, int ni, const ClvVjIntegrals * in,
    int x, int y, float vnf)
{
  const ClvCascadeNode *node = &c->nodes[ni];

  if (c->feature_type == CLV_CASCADE_LBP) {
    const int code = lbp_code (&c->features[node->feature], in, x, y);
    const guint32 word = (guint32) c->subsets[ni * c->subset_size
        + (code >> 5)];
    return (word >> (code & 31)) & 1;
  }
  return feature_value (&c->features[node->feature], in, x, y, vnf)
      < node->threshold;
}

gboolean
clv_vj_window_norm (const ClvCascade * c, const ClvVjIntegrals * in, int x,
    int y, float *vnf)
{
  const int nw = c->window_w - 2, nh = c->window_h - 2;
  const double area = (double) nw * nh;
  gint32 s;
  guint32 q;
  double nf;

  if (x < 0 || y < 0 || x + c->window_w >= in->width + 1
      || y + c->window_h >= in->height + 1)
    return FALSE;
  if (c->feature_type == CLV_CASCADE_LBP) {
    *vnf = 1.0f;
    return TRUE;
  }
  s = (gint32) rect_sum ((const guint32 *) in->sum, in->stride, x + 1, y + 1,
      nw, nh);
  q = rect_sum (in->sqsum, in->stride, x + 1, y + 1, nw, nh);
  nf = area * q - (double) s * s;
  if (!(nf > 0.))
    return FALSE;
  *vnf = (float) (1. / sqrt (nf));
  return area * *vnf < 1e-1;
}

int
clv_vj_eval_window (const ClvCascade * c, const ClvVjIntegrals * in, int x,
    int y)
{
  float vnf;

  if (!clv_vj_window_norm (c, in, x, y, &vnf))
    return -1;
  return clv_vj_eval_stages (c, in, x, y, vnf, NULL);
}

int
clv_vj_eval_stages (const ClvCascade * c, const ClvVjIntegrals * in, int x,
    int y, float vnf, double *weight)
{
  double sum = 0;

  for (int si = 0; si < c->n_stages; si++) {
    const ClvCascadeStage *stage = &c->stages[si];

    sum = 0;
    for (int t = stage->first_tree; t < stage->first_tree + stage->n_trees;
        t++) {
      const ClvCascadeTree *tree = &c->trees[t];
      int idx = 0;
      do {
        const int ni = tree->first_node + idx;
        idx = node_goes_left (c, ni, in, x, y, vnf) ? c->nodes[ni].left
            : c->nodes[ni].right;
      } while (idx > 0);
      sum += c->leaves[tree->first_leaf - idx];
    }
    if (sum < stage->threshold) {
      if (weight != NULL)
        *weight = sum;
      return -si;
    }
  }
  if (weight != NULL)
    *weight = sum;
  return 1;
}

int
clv_vj_apply_skip (const int *results, int n, int *detected)
{
  int count = 0;
  gboolean skip = FALSE;

  for (int i = 0; i < n; i++) {
    if (skip) {
      skip = FALSE;
      continue;
    }
    if (results[i] > 0 && detected != NULL)
      detected[count] = i;
    if (results[i] > 0)
      count++;
    skip = results[i] == 0;
  }
  return count;
}

/* ---------------------------------------------------------------------- */
/* The scan */

GArray *
clv_vj_detect_raw (const ClvCascade * c, const guint8 * gray, int width,
    int height, gsize stride, const ClvVjParams * p)
{
  return clv_vj_detect_raw_weighted (c, gray, width, height, stride, p, NULL);
}

GArray *
clv_vj_detect_raw_weighted (const ClvCascade * c, const guint8 * gray,
    int width, int height, gsize stride, const ClvVjParams * p,
    GArray * weights)
{
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (ClvRect));
  ClvVjScale *scales;
  int n = clv_vj_scales (width, height, c->window_w, c->window_h, p, &scales);
  ClvVjIntegrals *in;
  guint8 *level;
  gsize level_stride;

  if (n == 0) {
    g_free (scales);
    return rects;
  }
  level_stride = scales[0].width;
  level = g_malloc ((gsize) scales[0].width * scales[0].height);
  in = clv_vj_integrals_new (scales[0].width, scales[0].height,
      c->has_tilted);

  for (int i = 0; i < n; i++) {
    const ClvVjScale *s = &scales[i];

    clv_vj_resize (gray, width, height, stride, level, s->width, s->height,
        level_stride);
    clv_vj_integrals_compute (in, level, s->width, s->height, level_stride);
    for (int y = 0; y < s->y_end; y += s->step)
      for (int x = 0; x < s->x_end; x += s->step) {
        float vnf;
        double weight = 0;
        int result = clv_vj_window_norm (c, in, x, y, &vnf) ?
            clv_vj_eval_stages (c, in, x, y, vnf, &weight) : -1;
        if (result > 0) {
          ClvRect r = clv_vj_candidate_rect (s, x, y);
          g_array_append_val (rects, r);
          if (weights != NULL)
            g_array_append_val (weights, weight);
        }
        if (result == 0)
          x += s->step;
      }
  }
  clv_vj_integrals_free (in);
  g_free (level);
  g_free (scales);
  return rects;
}

/* ---------------------------------------------------------------------- */
/* groupRectangles: cv::partition with SimilarRects, averages, filtering */

static gboolean
similar (const ClvRect * a, const ClvRect * b, double eps)
{
  double delta = eps * (MIN (a->width, b->width) + MIN (a->height,
          b->height)) * 0.5;

  return abs (a->x - b->x) <= delta && abs (a->y - b->y) <= delta
      && abs (a->x + a->width - b->x - b->width) <= delta
      && abs (a->y + a->height - b->y - b->height) <= delta;
}

static int
find_root (int *parent, int i)
{
  int root = i;

  while (parent[root] != root)
    root = parent[root];
  while (parent[i] != root) {
    int next = parent[i];
    parent[i] = root;
    i = next;
  }
  return root;
}

static void
unite (int *parent, int i, int j)
{
  int a = find_root (parent, i), b = find_root (parent, j);

  if (a != b)
    parent[MAX (a, b)] = MIN (a, b);
}

/* cv::partition as written: every pair, O(n^2). */
static void
partition_pairwise (const ClvRect * rects, int n, double eps, int *parent)
{
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (similar (&rects[i], &rects[j], eps))
        unite (parent, i, j);
}

/* A rectangle with its index, for the sweep (kept in x order). */
typedef struct
{
  ClvRect r;
  int index;
} ByX;

/* A radix sort, byte by byte from the lowest, each pass stable, skipping
 * the bytes every key shares: linear in n.  On a crowded frame's raw
 * windows qsort's calls of a comparison took longer than the grouping they
 * served. */
void
clv_vj_sort_keyed (ClvVjKeyed * items, guint n)
{
  guint count[8][256], pass[8], n_pass = 0;
  guint64 any = 0, all = G_MAXUINT64;
  ClvVjKeyed *from = items, *to, *spare;

  if (n <= 32) {
    /* Few items: an insertion sort costs less than the counts. */
    for (guint i = 1; i < n; i++) {
      const ClvVjKeyed it = items[i];
      guint j = i;
      for (; j > 0 && items[j - 1].key > it.key; j--)
        items[j] = items[j - 1];
      items[j] = it;
    }
    return;
  }
  /* Only the bytes that differ between keys are counted and passed over:
   * of eight, two for rectangles' x under 65536, five for one frame's raw
   * windows (x, y, level). */
  for (guint i = 0; i < n; i++) {
    any |= items[i].key;
    all &= items[i].key;
  }
  for (guint b = 0; b < 8; b++)
    if ((((any ^ all) >> (8 * b)) & 0xff) != 0)
      pass[n_pass++] = b;
  memset (count, 0, n_pass * sizeof (count[0]));
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < n_pass; k++)
      count[k][(items[i].key >> (8 * pass[k])) & 0xff]++;
  to = spare = g_new (ClvVjKeyed, n);
  for (guint k = 0; k < n_pass; k++) {
    const guint b = pass[k];
    guint *c = count[k], sum = 0;

    for (guint v = 0; v < 256; v++) {
      const guint m = c[v];
      c[v] = sum;
      sum += m;
    }
    for (guint i = 0; i < n; i++)
      to[c[(from[i].key >> (8 * b)) & 0xff]++] = from[i];
    /* The next pass reads what this one wrote. */
    to = from;
    from = to == items ? spare : items;
  }
  if (from != items)
    memcpy (items, from, n * sizeof (ClvVjKeyed));
  g_free (spare);
}

/* A class while sweeping (indexed by its root): its members still in
 * reach, a list through `next` (positions in x order), the y range of every
 * member it ever had, and the largest x any member reaches. */
typedef struct
{
  int head, tail;
  int y_lo, y_hi;
  double reach;
  gboolean listed;              /* in the sweep's list of live classes */
} SweepClass;

/* Unites the classes of roots a != b with their members and ranges;
 * returns the united class's root, the smaller of the two. */
static int
join_classes (int *parent, SweepClass * cls, int *next, int a, int b)
{
  SweepClass *r = &cls[MIN (a, b)], *o = &cls[MAX (a, b)];

  parent[MAX (a, b)] = MIN (a, b);
  next[r->tail] = o->head;
  r->tail = o->tail;
  r->y_lo = MIN (r->y_lo, o->y_lo);
  r->y_hi = MAX (r->y_hi, o->y_hi);
  r->reach = MAX (r->reach, o->reach);
  return MIN (a, b);
}

/* The same classes from a sweep over x.  Similar rectangles are at most
 * delta <= eps * (w + h) / 2 of either apart in x and in y, so when a
 * rectangle comes (in x order) it can only be similar to earlier ones whose
 * bound still reaches it.  It is compared class by class, not rectangle by
 * rectangle: a class out of reach or outside its y bound is passed over at
 * once, and the rectangle stops testing a class at its first similar
 * member, which puts it in that class; members found out of reach leave
 * their class's list for good.  In a cluster of raw windows that is a few
 * tests per window, where comparing every pair close in x grew with the
 * square of the cluster's size. */
static void
partition_sweep (const ClvRect * rects, int n, double eps, int *parent)
{
  ByX *order = g_new (ByX, MAX (n, 1));
  ClvVjKeyed *by_x = g_new (ClvVjKeyed, MAX (n, 1));
  double *reach = g_new (double, MAX (n, 1));   /* by position */
  int *next = g_new (int, MAX (n, 1));  /* by position, -1 at the end */
  SweepClass *cls = g_new0 (SweepClass, MAX (n, 1));    /* by root */
  GArray *live = g_array_new (FALSE, FALSE, sizeof (int));

  /* x with its sign bit flipped orders as an unsigned key; equal x keep
   * the index order. */
  for (int i = 0; i < n; i++)
    by_x[i] = (ClvVjKeyed) {
    (guint32) rects[i].x ^ 0x80000000u, (guint) i};
  clv_vj_sort_keyed (by_x, n);
  for (int p = 0; p < n; p++) {
    order[p].r = rects[by_x[p].index];
    order[p].index = (int) by_x[p].index;
  }
  g_free (by_x);
  for (int p = 0; p < n; p++) {
    const ClvRect *a = &order[p].r;
    const int i = order[p].index;
    /* delta's own expression with a's size: no smaller than the pair's. */
    const double bound = eps * (a->width + a->height) * 0.5;
    /* The root of a's class: a itself until it joins others (no class
     * holds a rectangle before its turn). */
    int root = i;

    reach[p] = a->x + bound;
    next[p] = -1;
    cls[i] = (SweepClass) {
    p, p, a->y, a->y, reach[p], FALSE};
    for (guint k = 0; k < live->len;) {
      const int c = g_array_index (live, int, k);
      SweepClass *cl = &cls[c];

      if (parent[c] != c || cl->reach < a->x) {
        /* Joined to another class, or out of reach for good. */
        cl->listed = FALSE;
        g_array_remove_index_fast (live, k);
        continue;
      }
      k++;
      if (c == root || cl->y_lo > a->y + bound
          || cl->y_hi < a->y - bound)
        continue;
      for (int q = cl->head, prev = -1; q >= 0; q = next[q]) {
        const ClvRect *b = &order[q].r;

        if (reach[q] < a->x) {
          /* Out of reach for this and every later rectangle. */
          if (prev < 0)
            cl->head = next[q];
          else
            next[prev] = next[q];
          if (cl->tail == q)
            cl->tail = prev;
          continue;
        }
        if (abs (b->y - a->y) <= bound && similar (a, b, eps)) {
          root = join_classes (parent, cls, next, root, c);
          break;
        }
        prev = q;
      }
    }
    if (!cls[root].listed) {
      cls[root].listed = TRUE;
      g_array_append_val (live, root);
    }
  }
  g_array_unref (live);
  g_free (cls);
  g_free (next);
  g_free (reach);
  g_free (order);
}

/* Each class's reject level and level weight as groupRectangles takes
 * them: the largest level of its members, and the largest weight among
 * those at that level, in member order from (0, DBL_MIN). */
static void
class_scores (const int *label, int n, int n_classes, const int *levels,
    const double *weights, int *class_level, double *class_weight)
{
  for (int k = 0; k < n_classes; k++) {
    class_level[k] = 0;
    class_weight[k] = DBL_MIN;
  }
  for (int i = 0; i < n; i++) {
    const int k = label[i];
    if (levels[i] > class_level[k]) {
      class_level[k] = levels[i];
      class_weight[k] = weights[i];
    } else if (levels[i] == class_level[k] && weights[i] > class_weight[k]) {
      class_weight[k] = weights[i];
    }
  }
}

static int
group_rectangles (ClvRect * rects, int n, int group_threshold, double eps,
    int *neighbors, int *levels, double *weights, gboolean sweep)
{
  int *parent, *label, *count, *acc, n_classes = 0, n_out = 0;
  int *class_level = NULL;
  double *class_weight = NULL;
  ClvRect *avg;

  if (group_threshold <= 0 || n == 0) {
    for (int i = 0; neighbors != NULL && i < n; i++)
      neighbors[i] = 1;
    return n;
  }

  /* Equivalence classes of the similarity's transitive closure, numbered
   * in order of their first member as cv::partition does. */
  parent = g_new (int, n);
  label = g_new (int, n);
  for (int i = 0; i < n; i++)
    parent[i] = i;
  /* Unions always keep the smaller root: a class's root is its first
   * member, whatever the order the pairs are found in. */
  if (sweep)
    partition_sweep (rects, n, eps, parent);
  else
    partition_pairwise (rects, n, eps, parent);
  for (int i = 0; i < n; i++) {
    int root = find_root (parent, i);
    label[i] = root == i ? n_classes++ : label[root];
  }

  acc = g_new0 (int, 4 * n_classes);
  count = g_new0 (int, n_classes);
  avg = g_new (ClvRect, n_classes);
  for (int i = 0; i < n; i++) {
    int *a = acc + 4 * label[i];
    a[0] += rects[i].x;
    a[1] += rects[i].y;
    a[2] += rects[i].width;
    a[3] += rects[i].height;
    count[label[i]]++;
  }
  if (levels != NULL) {
    class_level = g_new (int, MAX (n_classes, 1));
    class_weight = g_new (double, MAX (n_classes, 1));
    class_scores (label, n, n_classes, levels, weights, class_level,
        class_weight);
  }
  /* int sum times float reciprocal, rounded as saturate_cast<int>(float). */
  for (int k = 0; k < n_classes; k++) {
    float s = 1.f / count[k];
    avg[k].x = round_f ((float) acc[4 * k] * s);
    avg[k].y = round_f ((float) acc[4 * k + 1] * s);
    avg[k].width = round_f ((float) acc[4 * k + 2] * s);
    avg[k].height = round_f ((float) acc[4 * k + 3] * s);
  }

  /* Drop classes with too few members and small ones inside big ones. */
  for (int i = 0; i < n_classes; i++) {
    const ClvRect *r1 = &avg[i];
    int n1 = count[i], j;

    if (n1 <= group_threshold)
      continue;
    for (j = 0; j < n_classes; j++) {
      const ClvRect *r2 = &avg[j];
      int n2 = count[j], dx, dy;

      if (j == i || n2 <= group_threshold)
        continue;
      dx = round_d (r2->width * eps);
      dy = round_d (r2->height * eps);
      if (r1->x >= r2->x - dx && r1->y >= r2->y - dy
          && r1->x + r1->width <= r2->x + r2->width + dx
          && r1->y + r1->height <= r2->y + r2->height + dy
          && (n2 > MAX (3, n1) || n1 < 3))
        break;
    }
    if (j == n_classes) {
      rects[n_out] = *r1;
      if (neighbors != NULL)
        neighbors[n_out] = n1;
      if (levels != NULL) {
        levels[n_out] = class_level[i];
        weights[n_out] = class_weight[i];
      }
      n_out++;
    }
  }
  g_free (class_level);
  g_free (class_weight);
  g_free (parent);
  g_free (label);
  g_free (acc);
  g_free (count);
  g_free (avg);
  return n_out;
}

int
clv_vj_group_rectangles (ClvRect * rects, int n, int group_threshold,
    double eps, int *neighbors)
{
  return group_rectangles (rects, n, group_threshold, eps, neighbors, NULL,
      NULL, TRUE);
}

int
clv_vj_group_rectangles_scored (ClvRect * rects, int n, int group_threshold,
    double eps, int *neighbors, int *levels, double *weights)
{
  return group_rectangles (rects, n, group_threshold, eps, neighbors, levels,
      weights, TRUE);
}

int
clv_vj_group_rectangles_pairwise (ClvRect * rects, int n,
    int group_threshold, double eps, int *neighbors)
{
  return group_rectangles (rects, n, group_threshold, eps, neighbors, NULL,
      NULL, FALSE);
}

GArray *
clv_vj_group_faces_scored (GArray * raw, GArray * weights, int n_stages,
    int min_neighbors, int width, int height)
{
  GArray *faces = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
  const guint n_raw = MAX (raw->len, 1);
  ClvRect *rects = g_memdup2 (raw->data, sizeof (ClvRect) * n_raw);
  int *neighbors = g_new (int, n_raw), *levels = NULL;
  double *level_weights = NULL;
  int n;

  if (weights != NULL) {
    g_return_val_if_fail (weights->len == raw->len, faces);
    levels = g_new (int, n_raw);
    level_weights = g_memdup2 (weights->data, sizeof (double) * n_raw);
    for (guint i = 0; i < raw->len; i++)
      levels[i] = n_stages;
  }
  n = group_rectangles (rects, raw->len, min_neighbors, 0.2, neighbors,
      levels, level_weights, TRUE);

  /* clipObjects: intersect with the image, drop what is empty. */
  for (int i = 0; i < n; i++) {
    ClvRect r = rects[i];
    int x0 = MAX (r.x, 0), y0 = MAX (r.y, 0);
    int x1 = MIN (r.x + r.width, width), y1 = MIN (r.y + r.height, height);
    ClvVjFace f = { {x0, y0, x1 - x0, y1 - y0}, neighbors[i],
      levels ? levels[i] : 0, level_weights ? level_weights[i] : 0
    };

    if (x1 > x0 && y1 > y0)
      g_array_append_val (faces, f);
  }
  g_free (levels);
  g_free (level_weights);
  g_free (neighbors);
  g_free (rects);
  return faces;
}

GArray *
clv_vj_group_faces (GArray * raw, int min_neighbors, int width, int height)
{
  return clv_vj_group_faces_scored (raw, NULL, 0, min_neighbors, width,
      height);
}

GArray *
clv_vj_detect_ref (const ClvCascade * c, const guint8 * gray, int width,
    int height, gsize stride, const ClvVjParams * p)
{
  GArray *weights = p->output_reject_levels ?
      g_array_new (FALSE, FALSE, sizeof (double)) : NULL;
  GArray *raw = clv_vj_detect_raw_weighted (c, gray, width, height, stride,
      p, weights);
  GArray *faces = clv_vj_group_faces_scored (raw, weights, c->n_stages,
      p->min_neighbors, width, height);

  g_array_free (raw, TRUE);
  if (weights != NULL)
    g_array_free (weights, TRUE);
  return faces;
}

/* ---------------------------------------------------------------------- */

void
clv_rgb_to_gray_ref (const guint8 * src, gsize src_stride, int bpp, int r,
    int g, int b, int width, int height, guint8 * dst, gsize dst_stride)
{
  for (int y = 0; y < height; y++) {
    const guint8 *s = src + y * src_stride;
    guint8 *d = dst + y * dst_stride;
    for (int x = 0; x < width; x++, s += bpp)
      d[x] = (guint8) ((s[r] * 9798 + s[g] * 19235 + s[b] * 3735 + 16384) >> 15);
  }
}
