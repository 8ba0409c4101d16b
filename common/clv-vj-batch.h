/* The per-device detection service (DESIGN.md, cross-stream batching):
 * every vjfacedetect of a process that uses one device and one cascade
 * submits its frames here; frames that arrive while a batch runs gather
 * and go, all together (up to VJ_MAX_BATCH), into the next one, in one
 * detection launch.  There is no timer: a frame that finds a batch slot
 * free starts a batch at once, so a lone stream waits for nothing; a
 * frame never waits for more than the batches already in flight
 * (VJ_BATCH_INFLIGHT, default 2) plus its own.  The thread whose frame
 * starts a batch runs it for everyone; each caller groups its own
 * candidates, so the host work spreads over the streaming threads.
 * GLib only. */
#pragma once

#include "clv-vj.h"

G_BEGIN_DECLS

typedef struct _ClvVjService ClvVjService;

/* The service for `dev` and the cascade file `cascade` was loaded from
 * (one per pair in the process; a new reference). */
ClvVjService *clv_vj_service_get (ClvDevice * dev, const ClvCascade * cascade,
    GError ** error);
void clv_vj_service_unref (ClvVjService * svc);

/* Faces (GArray of ClvVjFace) of one frame, as clv_vj_detector_detect
 * would give them; blocks until its batch is done.  `batch_frames`
 * (nullable) receives the number of frames its batch held. */
GArray *clv_vj_service_detect (ClvVjService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * params, guint * batch_frames,
    GError ** error);

typedef struct
{
  guint64 frames;               /* frames detected */
  guint64 batches;              /* batches run */
  guint max_batch_seen;         /* the largest batch */
} ClvVjServiceStats;

/* Counters since the service was created, for tests and benchmarks. */
void clv_vj_service_stats (ClvVjService * svc, ClvVjServiceStats * stats);

G_END_DECLS
