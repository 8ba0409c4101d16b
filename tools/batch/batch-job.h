/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One file through one pipeline (batch-job.c), for the engine (batch-run.c). */
#pragma once

#include "batch.h"

G_BEGIN_DECLS

typedef struct _BatchJob BatchJob;

/* Called from the main loop once the job has ended (`ok`: its output is
 * under its final name); the callee frees the job. */
typedef void (*BatchJobDone) (BatchJob * job, gboolean ok, gpointer user_data);

typedef struct
{
  const char *template;
  const char *device;
  const char *partial;          /* where the pipeline writes */
  const char *final;            /* where the output goes on success */
  const char *log;              /* the file's log, appended to */
} BatchJobPaths;

/* Starts `r`'s file; the result's counts, seconds, device and error are
 * filled when it ends.  `done` is called from the main loop, also for a
 * pipeline that cannot start. */
BatchJob *batch_job_start (const BatchJobPaths * paths, BatchResult * r,
    BatchJobDone done, gpointer user_data);

/* Stops a running job (a signal): no output is left, `done` is not called. */
void batch_job_stop (BatchJob * job);

BatchResult *batch_job_result (BatchJob * job);
const char *batch_job_log_path (BatchJob * job);

/* The share of its stream done (0 when unknown) and the frames so far. */
void batch_job_poll (BatchJob * job, double *fraction, guint64 * frames);

void batch_job_free (BatchJob * job);

/* Routes GStreamer's debug log of each job's pipeline into the file's log
 * (while installed); other lines go to stderr as usual. */
void batch_job_route_debug_log (gboolean install);

G_END_DECLS
