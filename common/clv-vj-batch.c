/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-device detection service; see clv-vj-batch.h. */
#include "clv-vj-batch.h"
#include "clv-vj-private.h"

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

/* A request: regions of one frame, detected in the same batch. */
typedef struct
{
  ClvVjFrame *frames;
  guint n;
  int n_stages;                 /* the cascade's, for the scores */
} Request;

/* Every region of every request in one detector batch. */
static gboolean
detect_batch (gpointer slot, gpointer * requests, guint n, GError ** error)
{
  ClvVjDetector *det = slot;
  GArray *frames = g_array_new (FALSE, FALSE, sizeof (ClvVjFrame));
  gboolean ok;
  guint k = 0;

  for (guint i = 0; i < n; i++) {
    Request *r = requests[i];
    r->n_stages = det->shape.n_stages;
    g_array_append_vals (frames, r->frames, r->n);
  }
  ok = clv_vj_detector_candidates_batch (det, (ClvVjFrame *) frames->data,
      frames->len, error);
  for (guint i = 0; i < n; i++) {
    Request *r = requests[i];
    for (guint j = 0; j < r->n; j++, k++) {
      r->frames[j].candidates = g_array_index (frames, ClvVjFrame,
          k).candidates;
      r->frames[j].weights = g_array_index (frames, ClvVjFrame, k).weights;
    }
  }
  g_array_free (frames, TRUE);
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

GPtrArray *
clv_vj_service_detect_regions (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvRect * regions, guint n,
    const ClvVjParams * p, guint * batch_frames, GError ** error)
{
  Request req = { g_new0 (ClvVjFrame, MAX (n, 1)), n, 0 };
  GPtrArray *faces = NULL;
  gboolean ok = TRUE;

  for (guint i = 0; i < n && ok; i++) {
    req.frames[i].frame = frame;
    req.frames[i].image = *f;
    req.frames[i].region = regions[i];
    req.frames[i].params = *p;
    ok = clv_vj_region_valid (f, &regions[i], p, error);
  }
  if (ok && (n == 0 || clv_batch_service_submit (svc, &req, batch_frames,
              error))) {
    faces = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    for (guint i = 0; i < n; i++)
      g_ptr_array_add (faces, clv_vj_frame_faces (&req.frames[i],
              req.n_stages));
  }
  for (guint i = 0; i < n; i++) {
    g_clear_pointer (&req.frames[i].candidates, g_array_unref);
    g_clear_pointer (&req.frames[i].weights, g_array_unref);
  }
  g_free (req.frames);
  return faces;
}

GArray *
clv_vj_service_detect (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, guint * batch_frames,
    GError ** error)
{
  const ClvRect whole = { 0, 0, 0, 0 };
  GPtrArray *all = clv_vj_service_detect_regions (svc, frame, f, &whole, 1,
      p, batch_frames, error);
  GArray *faces;

  if (all == NULL)
    return NULL;
  faces = g_array_ref (all->pdata[0]);
  g_ptr_array_unref (all);
  return faces;
}
