/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-device recognition service (cross-stream batching):
 * every eigenrecognise of a process that uses one device and the same
 * model submits its frames' faces to one ClvBatchService (clv-batch.h);
 * the faces of all the frames of a batch are projected and compared in one
 * launch sequence (clv_eigen_recogniser_run_batch).  At most `max_batch`
 * frames a batch (eigenrecognise's batch-size); tuning: EIG_BATCH_INFLIGHT
 * batches at once (2).  GLib only. */
#pragma once

#include "clv-batch.h"
#include "clv-eigen-gpu.h"

G_BEGIN_DECLS

/* The service for `dev`, a model with `model`'s contents (whatever file or
 * training gave it) and batches of at most `max_batch` frames (one per
 * such set in the process; a new reference, dropped with
 * clv_batch_service_unref). */
ClvBatchService *clv_eigen_service_get (ClvDevice * dev,
    const ClvEigenModel * model, guint max_batch, GError ** error);

/* clv_eigen_recogniser_run through the service: blocks until the batch
 * holding this frame is done.  `batch_frames` (nullable) receives the
 * number of frames its batch held. */
gboolean clv_eigen_service_run (ClvBatchService * svc, cl_mem frame,
    const ClvLumaImage * im, const ClvEigenRoi * rois, int n,
    double threshold, ClvEigenMatch * matches, guint * batch_frames,
    GError ** error);

G_END_DECLS
