/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces in double precision: the reference the OpenCL path is tested
 * against, and the steps OpenCV's EigenFaceRecognizer takes (cv::PCA on
 * rows: covariance scaled by 1/M, eigenvectors of the M × M "scrambled"
 * matrix mapped back and normalised). */
#include "clv-eigen.h"
#include "clv-resize.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Eigenvalues below this fraction of the largest are rounding noise: their
 * eigenfaces would be directions of noise. */
#define TRIVIAL_EIGENVALUE 1e-10
#define JACOBI_MAX_SWEEPS 100

int
clv_eigen_choose_components (const double *ev, int n, int n_train,
    const ClvEigenComponents * c)
{
  int valid = 0, limit = MIN (n, n_train - 1), k;
  double total = 0, sum = 0;

  if (n <= 0 || !(ev[0] > 0))
    return 0;
  while (valid < limit && ev[valid] > ev[0] * TRIVIAL_EIGENVALUE)
    valid++;
  switch (c->rule) {
    case CLV_EIGEN_KEEP_COUNT:
      return c->count <= 0 ? valid : MIN (c->count, valid);
    case CLV_EIGEN_KEEP_ENERGY:
      /* Formula (1): Σ₁ᴷ λ / Σ₁ᴹ λ > threshold. */
      for (int i = 0; i < n; i++)
        total += MAX (ev[i], 0);
      for (k = 1; k <= valid; k++) {
        sum += ev[k - 1];
        if (sum / total > c->threshold)
          return k;
      }
      return valid;
    case CLV_EIGEN_KEEP_STRETCH:
      /* Formula (2): λ_{K+1} / λ₁ < threshold. */
      for (k = 1; k <= valid; k++)
        if ((k < n ? ev[k] : 0) / ev[0] < c->threshold)
          return k;
      return valid;
  }
  g_return_val_if_reached (valid);
}

/* One Jacobi rotation zeroing a[p][q] (n × n, symmetric, both halves kept)
 * and applied to the columns p and q of v.  Rutishauser's form: t = tan φ,
 * s = sin φ, tau = tan (φ/2), the parameters the kernels of
 * Li, Yan and Zhang, "Optimization of GPU-based Eigenface Algorithm" use. */
static void
jacobi_rotate (double *a, double *v, int n, int p, int q)
{
  double apq = a[p * n + q], theta, t, c, s, tau;

  if (apq == 0)
    return;
  theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
  t = fabs (theta) > 1e150 ? 1 / (2 * theta) :
      (theta >= 0 ? 1 : -1) / (fabs (theta) + sqrt (theta * theta + 1));
  c = 1 / sqrt (t * t + 1);
  s = t * c;
  tau = s / (1 + c);
  a[p * n + p] -= t * apq;
  a[q * n + q] += t * apq;
  a[p * n + q] = a[q * n + p] = 0;
  for (int r = 0; r < n; r++) {
    double arp, arq, vrp = v[r * n + p], vrq = v[r * n + q];
    v[r * n + p] = vrp - s * (vrq + tau * vrp);
    v[r * n + q] = vrq + s * (vrp - tau * vrq);
    if (r == p || r == q)
      continue;
    arp = a[r * n + p];
    arq = a[r * n + q];
    a[r * n + p] = a[p * n + r] = arp - s * (arq + tau * arp);
    a[r * n + q] = a[q * n + r] = arq + s * (arp - tau * arq);
  }
}

int
clv_eigen_jacobi_ref (double *a, int n, double *eigenvalues,
    double *eigenvectors)
{
  double *v = g_new0 (double, (gsize) n * n), norm = 0;
  int *order = g_new (int, n), sweeps;

  for (int i = 0; i < n; i++)
    v[i * n + i] = 1;
  for (gsize i = 0; i < (gsize) n * n; i++)
    norm += a[i] * a[i];
  for (sweeps = 0; sweeps < JACOBI_MAX_SWEEPS; sweeps++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++)
        off += 2 * a[p * n + q] * a[p * n + q];
    /* Converged when the off-diagonal part is rounding noise of ‖A‖. */
    if (off <= norm * 1e-28)
      break;
    for (int p = 0; p < n - 1; p++)
      for (int q = p + 1; q < n; q++)
        jacobi_rotate (a, v, n, p, q);
  }

  /* Descending, ties in their original order (insertion sort). */
  for (int i = 0; i < n; i++) {
    int j = i;
    for (; j > 0 && a[order[j - 1] * n + order[j - 1]] < a[i * n + i]; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  for (int j = 0; j < n; j++) {
    eigenvalues[j] = a[order[j] * n + order[j]];
    for (int r = 0; r < n; r++)
      eigenvectors[r * n + j] = v[r * n + order[j]];
  }
  g_free (order);
  g_free (v);
  return sweeps;
}

ClvEigenModel *
clv_eigen_train_ref (const guint8 * faces, int n_train, const int *labels,
    int width, int height, const ClvEigenComponents * components,
    GError ** error)
{
  const int m = n_train;
  gsize dim = (gsize) width * height;
  double *mean, *a, *l, *values, *vectors;
  ClvEigenModel *model = NULL;
  int k;

  if (m < 2 || width < 1 || height < 1) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
        "Training needs at least 2 images of at least 1 × 1 pixels, got %d "
        "of %d × %d", m, width, height);
    return NULL;
  }
  mean = g_new0 (double, dim);
  a = g_new (double, (gsize) m * dim);
  l = g_new (double, (gsize) m * m);
  values = g_new (double, m);
  vectors = g_new (double, (gsize) m * m);

  /* Steps 1–2: the mean and A (row i: image i minus the mean). */
  for (int i = 0; i < m; i++)
    for (gsize d = 0; d < dim; d++)
      mean[d] += faces[i * dim + d];
  for (gsize d = 0; d < dim; d++)
    mean[d] /= m;
  for (int i = 0; i < m; i++)
    for (gsize d = 0; d < dim; d++)
      a[i * dim + d] = faces[i * dim + d] - mean[d];

  /* Step 3: L = AᵀA / M (M × M, images as columns of A). */
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      double s = 0;
      for (gsize d = 0; d < dim; d++)
        s += a[i * dim + d] * a[j * dim + d];
      l[i * m + j] = l[j * m + i] = s / m;
    }

  /* Steps 4–5: eigen-decomposition, components kept. */
  clv_eigen_jacobi_ref (l, m, values, vectors);
  k = clv_eigen_choose_components (values, m, m, components);
  if (k == 0) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
        "The %d training images are all the same: nothing to learn", m);
    goto done;
  }
  model = clv_eigen_model_new (width, height, m, k);
  memcpy (model->mean, mean, sizeof (double) * dim);
  memcpy (model->eigenvalues, values, sizeof (double) * k);
  memcpy (model->labels, labels, sizeof (int) * m);

  /* Steps 6–7: eigenfaces U = A·V, each normalised to unit length. */
  for (int c = 0; c < k; c++) {
    double norm = 0;
    for (gsize d = 0; d < dim; d++) {
      double s = 0;
      for (int i = 0; i < m; i++)
        s += a[i * dim + d] * vectors[i * m + c];
      model->eigenvectors[d * k + c] = s;
      norm += s * s;
    }
    norm = sqrt (norm);
    for (gsize d = 0; d < dim; d++)
      model->eigenvectors[d * k + c] /= norm;
  }

  /* Step 8: projections Ω = Uᵀ (x − mean) of the training images. */
  for (int i = 0; i < m; i++)
    for (int c = 0; c < k; c++) {
      double s = 0;
      for (gsize d = 0; d < dim; d++)
        s += a[i * dim + d] * model->eigenvectors[d * k + c];
      model->projections[i * k + c] = s;
    }

done:
  g_free (mean);
  g_free (a);
  g_free (l);
  g_free (values);
  g_free (vectors);
  return model;
}

void
clv_eigen_project_ref (const ClvEigenModel * model, const guint8 * face,
    double *weights)
{
  const int k = model->n_components;

  for (int c = 0; c < k; c++)
    weights[c] = 0;
  for (int d = 0; d < model->dim; d++) {
    double x = face[d] - model->mean[d];
    const double *u = model->eigenvectors + (gsize) d * k;
    for (int c = 0; c < k; c++)
      weights[c] += x * u[c];
  }
}

int
clv_eigen_nearest (const ClvEigenModel * model, const double *weights,
    double threshold, double *distance)
{
  const int k = model->n_components;
  double best = DBL_MAX;
  int best_i = -1;

  for (int i = 0; i < model->n_train; i++) {
    const double *p = model->projections + (gsize) i * k;
    double s = 0;
    for (int c = 0; c < k; c++)
      s += (p[c] - weights[c]) * (p[c] - weights[c]);
    s = sqrt (s);
    if (s < best) {
      best = s;
      best_i = i;
    }
  }
  if (distance)
    *distance = best;
  return best_i >= 0 && best < threshold ? model->labels[best_i] :
      CLV_EIGEN_UNKNOWN;
}

int
clv_eigen_predict_ref (const ClvEigenModel * model, const guint8 * face,
    double threshold, double *distance)
{
  double *w = g_new (double, model->n_components);
  int label;

  clv_eigen_project_ref (model, face, w);
  label = clv_eigen_nearest (model, w, threshold, distance);
  g_free (w);
  return label;
}

void
clv_eigen_crop_resize_ref (const guint8 * frame, const ClvImage * im, int x,
    int y, int w, int h, guint8 * out, int out_w, int out_h)
{
  int *fx = g_new (int, out_w), *fy = g_new (int, out_h);
  guint16 *cx = g_new (guint16, out_w), *cy = g_new (guint16, out_h);
  guint32 *rows = g_new (guint32, 2 * (gsize) out_w);

  clv_resize_axis_exact (w, out_w, fx, cx, NULL, NULL);
  clv_resize_axis_exact (h, out_h, fy, cy, NULL, NULL);
  for (int oy = 0; oy < out_h; oy++) {
    /* Horizontal pass of the two source rows (8 fraction bits). */
    for (int r = 0; r < 2; r++) {
      int sy = MIN (fy[oy] + r, h - 1);
      const guint8 *row = frame + im->offset + (gsize) (y + sy) * im->stride +
          x;
      for (int ox = 0; ox < out_w; ox++) {
        int x1 = MIN (fx[ox] + 1, w - 1);
        rows[r * out_w + ox] = (256u - cx[ox]) * row[fx[ox]] +
            (guint32) cx[ox] * row[x1];
      }
    }
    for (int ox = 0; ox < out_w; ox++)
      out[(gsize) oy * out_w + ox] = (guint8) MIN (255u,
          ((256u - cy[oy]) * rows[ox] + (guint32) cy[oy] * rows[out_w + ox] +
              32768u) >> 16);
  }
  g_free (fx);
  g_free (fy);
  g_free (cx);
  g_free (cy);
  g_free (rows);
}
