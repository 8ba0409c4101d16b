/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-device detection service (cross-stream batching):
 * every vjfacedetect of a process that uses one device and one cascade
 * submits its frames to one ClvBatchService (clv-batch.h); the frames of a
 * batch are detected together (clv_vj_detector_candidates_batch: one
 * detection launch over every window of every frame) and each caller
 * groups its own candidates, so the host work spreads over the streaming
 * threads.  At most `max_batch` frames a batch (vjfacedetect's batch-size);
 * tuning: VJ_BATCH_INFLIGHT batches at once (2: one batch's read-back and
 * grouping overlap the next one's kernels).  GLib only. */
#pragma once

#include "clv-batch.h"
#include "clv-vj.h"

G_BEGIN_DECLS

/* The service for `dev`, the cascade file `cascade` was loaded from, the
 * detector `variant` and batches of at most `max_batch` frames (one per
 * such set in the process; a new reference, dropped with
 * clv_batch_service_unref). */
ClvBatchService *clv_vj_service_get (ClvDevice * dev,
    const ClvCascade * cascade, ClvVjVariant variant, guint max_batch,
    GError ** error);

/* Faces (GArray of ClvVjFace) of one frame, as clv_vj_detector_detect
 * would give them (with scores when params->output_reject_levels); blocks
 * until its batch is done.  `batch_frames` (nullable) receives the number
 * of requests its batch held. */
GArray *clv_vj_service_detect (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * f, const ClvVjParams * params, guint * batch_frames,
    GError ** error);

/* The same for `n` regions of one frame (rectangles inside it), all in one
 * batch and so in one pyramid and one detection launch: a GPtrArray of n
 * GArrays of ClvVjFace in each region's coordinates. */
GPtrArray *clv_vj_service_detect_regions (ClvBatchService * svc,
    cl_mem frame, const ClvLumaImage * f, const ClvRect * regions, guint n,
    const ClvVjParams * params, guint * batch_frames, GError ** error);

G_END_DECLS
