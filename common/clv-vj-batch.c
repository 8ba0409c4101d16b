/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-device detection service; see clv-vj-batch.h. */
#include "clv-vj-batch.h"

/* Default of VJ_BATCH_INFLIGHT: batches run at once. */
#define DEFAULT_INFLIGHT 2

typedef struct
{
  ClvDevice *dev;
  const ClvCascade *cascade;
  ClvVjVariant variant;
} Model;

static gpointer
detector_new (gpointer data, GError ** error)
{
  Model *m = data;

  return clv_vj_detector_new_for_variant (m->dev, m->cascade, m->variant,
      error);
}

static gboolean
detect_batch (gpointer slot, gpointer * requests, guint n, GError ** error)
{
  ClvVjFrame *frames = g_new (ClvVjFrame, n);
  gboolean ok;

  for (guint i = 0; i < n; i++)
    frames[i] = *(ClvVjFrame *) requests[i];
  ok = clv_vj_detector_candidates_batch (slot, frames, n, error);
  for (guint i = 0; i < n; i++)
    ((ClvVjFrame *) requests[i])->candidates = frames[i].candidates;
  g_free (frames);
  return ok;
}

ClvBatchService *
clv_vj_service_get (ClvDevice * dev, const ClvCascade * cascade,
    ClvVjVariant variant, guint max_batch, GError ** error)
{
  /* The ClvDevice, not its cl_device_id: frames must come from the
   * service's own context (an application may bring another). */
  char *key = g_strdup_printf ("vj\n%p\n%s\n%d\n%u", (void *) dev,
      cascade->path ? cascade->path : "", variant, max_batch);
  Model m = { dev, cascade, variant };
  ClvBatchService *svc = clv_batch_service_get (key,
      (guint) CLAMP (clv_tune_int ("VJ_BATCH_INFLIGHT", DEFAULT_INFLIGHT), 1,
          8), CLAMP (max_batch, 1, CLV_BATCH_MAX_FRAMES), detector_new, &m,
      detect_batch, (GDestroyNotify) clv_vj_detector_free, error);

  g_free (key);
  return svc;
}

GArray *
clv_vj_service_detect (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, guint * batch_frames,
    GError ** error)
{
  ClvVjFrame req = { frame, *f, *p, NULL };
  GArray *faces = NULL;

  if (clv_vj_request_valid (f, p, error)
      && clv_batch_service_submit (svc, &req, batch_frames, error))
    faces = clv_vj_group_faces (req.candidates, p->min_neighbors,
        f->image.width, f->image.height);
  g_clear_pointer (&req.candidates, g_array_unref);
  return faces;
}
