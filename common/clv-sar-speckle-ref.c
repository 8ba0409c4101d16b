/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR speckle filters: the C reference.
 *
 * Lee, Frost, Gamma-MAP and Kuan follow Orfeo ToolBox 8.1's
 * otb::LeeImageFilter, FrostImageFilter, GammaMAPImageFilter and
 * KuanImageFilter (the filters of otbcli_Despeckle): a square window of
 * side 2 radius + 1, edge pixels repeated beyond the image (ITK's
 * zero-flux Neumann condition), the window's mean E and unbiased variance
 * V = sum (x - E)^2 / (N - 1) in double, and their rules on E, V, the
 * centre I and Cu^2 = 1 / looks.  Refined Lee is J.-S. Lee's "Refined
 * filtering of image noise using local statistics" (1981) in the
 * edge-aligned windows of ESA SNAP: in a 7 x 7 window, the means of nine
 * 3 x 3 sub-windows give four directional gradients; of the strongest, the
 * side of the centre closer to it in mean chooses one of eight 28-pixel
 * half-windows, whose mean and variance give the MMSE estimate with the
 * noise variance 1 / looks.  Boxcar is the window's mean, median its
 * median in IEEE 754 totalOrder (-0 below +0, NaNs above +Inf or, with the
 * sign bit, below -Inf), so that every window has one. */
#include "clv-sar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pixel (x, y) of a w x h float image, edge pixels repeated beyond it. */
static inline float
at (const float *img, int w, int h, int x, int y)
{
  return img[(gsize) CLAMP (y, 0, h - 1) * w + CLAMP (x, 0, w - 1)];
}

/* Mean and unbiased variance of the window, OTB's two passes. */
static void
window_stats (const float *img, int w, int h, int x, int y, int r,
    double *mean, double *var)
{
  const int n = (2 * r + 1) * (2 * r + 1);
  double sum = 0, sum2 = 0;

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      sum += at (img, w, h, x + dx, y + dy);
  *mean = sum / n;
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++) {
      const double d = at (img, w, h, x + dx, y + dy) - *mean;
      sum2 += d * d;
    }
  *var = sum2 / (n - 1);
}

/* OTB's rule of Lee, Gamma-MAP or Kuan from the window's mean `e`,
 * unbiased variance `var` and centre `i`. */
static double
speckle_rule (ClvSpeckleFilter filter, double e, double var, double i,
    double looks)
{
  const double eps = 1e-10, cu2 = 1.0 / looks;
  const double ci2 = var / (e * e);

  if (fabs (e) < eps)
    return 0;
  if (fabs (var) < eps || ci2 < cu2)
    return e;
  switch (filter) {
    case CLV_SPECKLE_LEE:{
      const double w = 1 - cu2 / ci2;
      return i * w + e * (1 - w);
    }
    case CLV_SPECKLE_KUAN:{
      const double w = (1 - cu2 / ci2) / (1 + cu2);
      return i * w + e * (1 - w);
    }
    case CLV_SPECKLE_GAMMA_MAP:{
      const double cmax = sqrt (2.0) * sqrt (cu2);
      double alpha, b, d;

      if (sqrt (ci2) >= cmax)
        return i;
      alpha = (1 + cu2) / (ci2 - cu2);
      b = alpha - looks - 1;
      d = e * e * b * b + 4 * alpha * looks * e * i;
      return (b * e + sqrt (d)) / (2 * alpha);
    }
    default:
      g_return_val_if_reached (e);
  }
}

/* Frost: weights exp(-deramp V / E^2 distance) over the window. */
static double
frost_value (const float *img, int w, int h, int x, int y, int r,
    double deramp)
{
  double e, var, norm = 0, sum = 0, alpha;

  window_stats (img, w, h, x, y, r, &e, &var);
  if (fabs (e) < 1e-10)
    return 0;
  if (fabs (var) < 1e-10)
    return e;
  alpha = deramp * var / (e * e);
  for (int dx = -r; dx <= r; dx++)
    for (int dy = -r; dy <= r; dy++) {
      const double k = exp (-alpha * sqrt ((double) (dx * dx + dy * dy)));
      norm += k;
      sum += k * at (img, w, h, x + dx, y + dy);
    }
  return sum / norm;
}

/* IEEE 754 totalOrder (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN):
 * the bits as a sign-magnitude integer, made two's complement. */
static gint32
order_key (float x)
{
  gint32 bits;

  memcpy (&bits, &x, sizeof bits);
  return bits < 0 ? bits ^ G_MAXINT32 : bits;
}

static int
compare_total_order (const void *a, const void *b)
{
  const gint32 x = order_key (*(const float *) a);
  const gint32 y = order_key (*(const float *) b);

  return (x > y) - (x < y);
}

static double
median_value (const float *img, int w, int h, int x, int y, int r,
    float *scratch)
{
  int n = 0;

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      scratch[n++] = at (img, w, h, x + dx, y + dy);
  qsort (scratch, n, sizeof (float), compare_total_order);
  return scratch[n / 2];
}

/* Whether offset (dx, dy) of the 7 x 7 window, from its centre, is in
 * half-window `d`: 0 right, 4 left, 2 top, 6 bottom (columns or rows with
 * the centre's), 1 upper right, 5 lower left, 3 upper left, 7 lower right
 * (triangles with the diagonal). */
static gboolean
in_half_window (int d, int dx, int dy)
{
  switch (d) {
    case 0:
      return dx >= 0;
    case 4:
      return dx <= 0;
    case 2:
      return dy <= 0;
    case 6:
      return dy >= 0;
    case 1:
      return dx >= dy;
    case 5:
      return dx <= dy;
    case 3:
      return dx <= -dy;
    default:
      return dx >= -dy;
  }
}

/* Refined Lee's half-window (see in_half_window) from the nine 3 x 3
 * sub-window means, m[row][column]. */
static int
refined_lee_direction (const double m[3][3])
{
  /* Gradients across the window: vertical edge (left/right), the two
   * diagonals, horizontal edge (top/bottom); the half-window on the side
   * whose mean is closer to the centre's. */
  const double g[4] = { fabs (m[1][0] - m[1][2]), fabs (m[0][2] - m[2][0]),
    fabs (m[0][1] - m[2][1]), fabs (m[0][0] - m[2][2])
  };
  const double near[4][2] = {
    {fabs (m[1][0] - m[1][1]), fabs (m[1][1] - m[1][2])},
    {fabs (m[0][2] - m[1][1]), fabs (m[1][1] - m[2][0])},
    {fabs (m[0][1] - m[1][1]), fabs (m[1][1] - m[2][1])},
    {fabs (m[0][0] - m[1][1]), fabs (m[1][1] - m[2][2])},
  };
  /* For each gradient: the half-window on its first side, on its second. */
  static const int sides[4][2] = { {4, 0}, {1, 5}, {2, 6}, {3, 7} };
  int k = 0;

  for (int i = 1; i < 4; i++)
    if (g[i] > g[k])
      k = i;
  return near[k][0] < near[k][1] ? sides[k][0] : sides[k][1];
}

/* Lee's MMSE estimate with noise variance 1 / looks. */
static double
refined_lee_estimate (double mean, double var, double centre,
    double looks)
{
  const double sv = 1.0 / looks;
  double var_x;

  if (var == 0)
    return mean;
  var_x = MAX ((var - mean * mean * sv) / (1 + sv), 0);
  return mean + var_x / var * (centre - mean);
}

static double
refined_lee_value (const float *img, int w, int h, int x, int y,
    double looks)
{
  double m[3][3], sum = 0, sum2 = 0, mean;
  int d, n = 0;

  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      double s = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          s += at (img, w, h, x + 2 * i - 2 + dx, y + 2 * j - 2 + dy);
      m[j][i] = s / 9;
    }
  d = refined_lee_direction (m);
  for (int dy = -3; dy <= 3; dy++)
    for (int dx = -3; dx <= 3; dx++)
      if (in_half_window (d, dx, dy)) {
        const double v = at (img, w, h, x + dx, y + dy);
        sum += v;
        sum2 += v * v;
        n++;
      }
  mean = sum / n;
  return refined_lee_estimate (mean, (sum2 - sum * mean) / (n - 1),
      at (img, w, h, x, y), looks);
}

static double
box_value (const float *img, int w, int h, int x, int y, int r)
{
  double sum = 0;

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      sum += at (img, w, h, x + dx, y + dy);
  return sum / ((2 * r + 1) * (2 * r + 1));
}

static double
pixel_value (const float *img, int w, int h, int x, int y,
    const ClvSpeckleParams * p, float *scratch)
{
  double e, var;

  switch (p->filter) {
    case CLV_SPECKLE_FROST:
      return frost_value (img, w, h, x, y, p->radius, p->deramp);
    case CLV_SPECKLE_REFINED_LEE:
      return refined_lee_value (img, w, h, x, y, p->looks);
    case CLV_SPECKLE_BOXCAR:
      return box_value (img, w, h, x, y, p->radius);
    case CLV_SPECKLE_MEDIAN:
      return median_value (img, w, h, x, y, p->radius, scratch);
    default:
      window_stats (img, w, h, x, y, p->radius, &e, &var);
      return speckle_rule (p->filter, e, var, at (img, w, h, x, y),
          p->looks);
  }
}

void
clv_speckle_ref (const guint8 * src, const ClvImage * si, ClvSample sample,
    guint8 * dst, const ClvImage * di, const ClvSpeckleParams * p)
{
  const int w = si->width, h = si->height;
  float *img = g_new (float, (gsize) w * h);
  float *scratch = g_new (float, (2 * p->radius + 1) * (2 * p->radius + 1));

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      img[(gsize) y * w + x] = (float) clv_image_get_real (src, si, sample, x,
          y);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      *clv_image_f32 (dst, di, x, y) = (float) pixel_value (img, w, h, x, y,
          p, scratch);
  g_free (scratch);
  g_free (img);
}
