/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-device recognition service; see clv-eigen-batch.h. */
#include "clv-eigen-batch.h"

/* Default of EIG_BATCH_INFLIGHT: batches run at once. */
#define DEFAULT_INFLIGHT 2

typedef struct
{
  ClvDevice *dev;
  const ClvEigenModel *model;
} Model;

static gpointer
recogniser_new (gpointer data, GError ** error)
{
  Model *m = data;

  return clv_eigen_recogniser_new (m->dev, m->model, error);
}

static gboolean
recognise_batch (gpointer slot, gpointer * requests, guint n, GError ** error)
{
  ClvEigenFrame *frames = g_new (ClvEigenFrame, n);
  gboolean ok;

  for (guint i = 0; i < n; i++)
    frames[i] = *(ClvEigenFrame *) requests[i];
  ok = clv_eigen_recogniser_run_batch (slot, frames, n, NULL, error);
  g_free (frames);
  return ok;
}

/* A digest of what recognition uses: models with equal contents share a
 * service. */
static char *
model_digest (const ClvEigenModel * m)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  const int sizes[4] = { m->width, m->height, m->n_components, m->n_train };
  const gsize k = (gsize) m->n_components;
  char *digest;

  g_checksum_update (sum, (const guchar *) sizes, sizeof (sizes));
  g_checksum_update (sum, (const guchar *) m->mean, m->dim * sizeof (double));
  g_checksum_update (sum, (const guchar *) m->eigenvectors,
      m->dim * k * sizeof (double));
  g_checksum_update (sum, (const guchar *) m->projections,
      m->n_train * k * sizeof (double));
  g_checksum_update (sum, (const guchar *) m->labels,
      m->n_train * sizeof (int));
  digest = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return digest;
}

ClvBatchService *
clv_eigen_service_get (ClvDevice * dev, const ClvEigenModel * model,
    guint max_batch, GError ** error)
{
  char *digest = model_digest (model);
  char *key = g_strdup_printf ("eigen\n%p\n%s\n%u", (void *) dev, digest,
      max_batch);
  Model m = { dev, model };
  ClvBatchService *svc = clv_batch_service_get (key,
      (guint) CLAMP (clv_tune_int ("EIG_BATCH_INFLIGHT", DEFAULT_INFLIGHT), 1,
          8), CLAMP (max_batch, 1, CLV_BATCH_MAX_FRAMES), recogniser_new, &m,
      recognise_batch, (GDestroyNotify) clv_eigen_recogniser_free, error);

  g_free (key);
  g_free (digest);
  return svc;
}

gboolean
clv_eigen_service_run (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * im, const ClvEigenRoi * rois, int n,
    double threshold, ClvEigenMatch * matches, guint * batch_frames,
    GError ** error)
{
  ClvEigenFrame req = { frame, *im, rois, n, threshold, matches };

  return clv_batch_service_submit (svc, &req, batch_frames, error);
}
