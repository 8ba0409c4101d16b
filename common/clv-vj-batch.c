/* The per-device detection service; see clv-vj-batch.h. */
#include "clv-vj-batch.h"

/* Default of VJ_MAX_BATCH: frames per batch. */
#define DEFAULT_MAX_BATCH 32
/* Default of VJ_BATCH_INFLIGHT: batches run at once, so that one batch's
 * read-back and grouping overlap the next one's upload and kernels. */
#define DEFAULT_INFLIGHT 2

typedef struct
{
  ClvVjFrame frame;
  gboolean done;
  guint batch_frames;           /* the size of the batch it ran in */
  GError *error;
} Request;

struct _ClvVjService
{
  gatomicrefcount ref;
  char *key;
  guint max_batch;
  guint n_slots;
  ClvVjDetector **slots;        /* one detector (buffers) per batch in flight */
  gboolean *busy;

  GMutex lock;
  GCond cond;
  GQueue pending;               /* Request */
  ClvVjServiceStats stats;
};

G_LOCK_DEFINE_STATIC (services);
static GHashTable *services;    /* key -> ClvVjService */

static void
service_free (ClvVjService * svc)
{
  for (guint i = 0; i < svc->n_slots; i++)
    clv_vj_detector_free (svc->slots[i]);
  g_free (svc->slots);
  g_free (svc->busy);
  g_mutex_clear (&svc->lock);
  g_cond_clear (&svc->cond);
  g_free (svc->key);
  g_free (svc);
}

ClvVjService *
clv_vj_service_get (ClvDevice * dev, const ClvCascade * cascade,
    GError ** error)
{
  /* The ClvDevice, not its cl_device_id: frames must come from the
   * service's own context (an application may bring another). */
  char *key = g_strdup_printf ("%p\n%s", (void *) dev,
      cascade->path ? cascade->path : "");
  ClvVjService *svc;

  G_LOCK (services);
  if (services == NULL)
    services = g_hash_table_new (g_str_hash, g_str_equal);
  svc = g_hash_table_lookup (services, key);
  if (svc) {
    g_atomic_ref_count_inc (&svc->ref);
    g_free (key);
    goto out;
  }
  svc = g_new0 (ClvVjService, 1);
  g_atomic_ref_count_init (&svc->ref);
  svc->key = key;
  svc->max_batch = (guint) CLAMP (clv_tune_int ("VJ_MAX_BATCH",
          DEFAULT_MAX_BATCH), 1, 4096);
  svc->n_slots = (guint) CLAMP (clv_tune_int ("VJ_BATCH_INFLIGHT",
          DEFAULT_INFLIGHT), 1, 8);
  svc->slots = g_new0 (ClvVjDetector *, svc->n_slots);
  svc->busy = g_new0 (gboolean, svc->n_slots);
  g_mutex_init (&svc->lock);
  g_cond_init (&svc->cond);
  g_queue_init (&svc->pending);
  for (guint i = 0; i < svc->n_slots; i++) {
    svc->slots[i] = clv_vj_detector_new (dev, cascade, NULL, error);
    if (svc->slots[i] == NULL) {
      service_free (svc);
      svc = NULL;
      goto out;
    }
  }
  g_hash_table_insert (services, svc->key, svc);
out:
  G_UNLOCK (services);
  return svc;
}

void
clv_vj_service_unref (ClvVjService * svc)
{
  gboolean last;

  if (svc == NULL)
    return;
  /* The table lock makes "last unref" and "lookup + ref" exclusive. */
  G_LOCK (services);
  last = g_atomic_ref_count_dec (&svc->ref);
  if (last)
    g_hash_table_remove (services, svc->key);
  G_UNLOCK (services);
  if (last)
    service_free (svc);
}

/* Called with the lock held and slot `slot` taken: runs the first pending
 * frames as one batch and marks them done. */
static void
run_batch (ClvVjService * svc, guint slot)
{
  const guint n = MIN (svc->max_batch, svc->pending.length);
  Request **req = g_new (Request *, n);
  ClvVjFrame *frames = g_new (ClvVjFrame, n);
  GError *error = NULL;
  gboolean ok;

  for (guint i = 0; i < n; i++) {
    req[i] = g_queue_pop_head (&svc->pending);
    frames[i] = req[i]->frame;
  }
  g_mutex_unlock (&svc->lock);
  ok = clv_vj_detector_candidates_batch (svc->slots[slot], frames, n, &error);
  /* One frame's failure (too large for the packed buffer, say) must not
   * fail its partners: run them one by one then. */
  for (guint i = 0; !ok && n > 1 && i < n; i++) {
    GError *own = NULL;
    if (!clv_vj_detector_candidates_batch (svc->slots[slot], &frames[i], 1,
            &own))
      req[i]->error = own;
  }
  if (n > 1)
    ok = TRUE;
  g_mutex_lock (&svc->lock);
  for (guint i = 0; i < n; i++) {
    req[i]->frame.candidates = frames[i].candidates;
    if (!ok && req[i]->error == NULL)
      req[i]->error = g_error_copy (error);
    req[i]->batch_frames = n;
    req[i]->done = TRUE;
  }
  svc->stats.frames += n;
  svc->stats.batches++;
  svc->stats.max_batch_seen = MAX (svc->stats.max_batch_seen, n);
  svc->busy[slot] = FALSE;
  g_cond_broadcast (&svc->cond);
  g_clear_error (&error);
  g_free (frames);
  g_free (req);
}

static int
free_slot (ClvVjService * svc)
{
  for (guint i = 0; i < svc->n_slots; i++)
    if (!svc->busy[i])
      return (int) i;
  return -1;
}

GArray *
clv_vj_service_detect (ClvVjService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * p, guint * batch_frames,
    GError ** error)
{
  Request req = { {frame, *f, *p, NULL}, FALSE, 0, NULL };
  GArray *faces = NULL;

  if (!clv_vj_request_valid (f, p, error))
    return NULL;
  g_mutex_lock (&svc->lock);
  g_queue_push_tail (&svc->pending, &req);
  while (!req.done) {
    int slot = free_slot (svc);
    /* A free slot and frames waiting: this thread runs the next batch
     * (which holds its own frame unless more than max_batch wait). */
    if (slot >= 0 && svc->pending.length > 0) {
      svc->busy[slot] = TRUE;
      run_batch (svc, (guint) slot);
    } else {
      g_cond_wait (&svc->cond, &svc->lock);
    }
  }
  g_mutex_unlock (&svc->lock);

  if (batch_frames)
    *batch_frames = req.batch_frames;
  if (req.error) {
    g_propagate_error (error, req.error);
  } else {
    faces = clv_vj_group_faces (req.frame.candidates, p->min_neighbors,
        f->image.width, f->image.height);
  }
  g_clear_pointer (&req.frame.candidates, g_array_unref);
  return faces;
}

void
clv_vj_service_stats (ClvVjService * svc, ClvVjServiceStats * stats)
{
  g_mutex_lock (&svc->lock);
  *stats = svc->stats;
  g_mutex_unlock (&svc->lock);
}
