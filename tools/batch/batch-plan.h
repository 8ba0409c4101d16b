/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan of a Slurm batch (batch-plan.c): in the shared output folder, the
 * only state between the submitting host and the tasks. */
#pragma once

#include "batch.h"

G_BEGIN_DECLS

typedef struct
{
  char *job;                    /* Slurm's job id; NULL until submitted */
  GPtrArray *tasks;             /* GArray of guint entry indices, per task */
} BatchSubmission;

typedef struct
{
  char *path;                   /* OUTDIR/.clvision-batch/slurm/plan.json */
  GPtrArray *rules;             /* BatchRule */
  char *outdir;
  char *devices;
  char *log_dir;
  guint jobs;                   /* pipelines per device; 0: the default */
  guint retries;
  char *partition;
  guint gpus_per_task;
  guint max_tasks;
  char **sbatch_args;
  GPtrArray *entries;           /* BatchEntry */
  GPtrArray *submissions;       /* BatchSubmission */
} BatchPlan;

BatchPlan *batch_plan_new (const BatchConfig * cfg, GPtrArray * entries,
    const BatchSlurmOptions * opts);
BatchPlan *batch_plan_load (const char *outdir, GError ** error);
BatchPlan *batch_plan_load_file (const char *path, GError ** error);
gboolean batch_plan_save (BatchPlan * plan, GError ** error);
void batch_plan_free (BatchPlan * plan);

/* Options given again (--resume) replace the stored ones. */
void batch_plan_update_options (BatchPlan * plan,
    const BatchSlurmOptions * opts);

/* Shares the entries `todo` out over at most max_tasks tasks (the largest
 * first, each to the task with the fewest bytes); returns its index. */
guint batch_plan_add_submission (BatchPlan * plan, GArray * todo);
void batch_plan_drop_submission (BatchPlan * plan, guint k);
char *batch_plan_submission_dir (BatchPlan * plan, guint k);

gboolean batch_plan_entry_done (BatchPlan * plan, guint e);
/* Indices of the entries without an output and not `live` (may be NULL). */
GArray *batch_plan_unfinished (BatchPlan * plan, const gboolean * live);

/* A task notes its raw job id where the submitter finds it. */
void batch_plan_record_task (BatchPlan * plan, guint k, guint t,
    const char *job_id);
/* Raw job id -> task index ("3") of the tasks of submission k that started. */
GHashTable *batch_plan_raw_job_ids (BatchPlan * plan, guint k);
char *batch_plan_join_keys (GHashTable * table);

/* Input -> BatchResult: each file as the outputs and the newest task
 * summary that names it say. */
GHashTable *batch_plan_merge_results (BatchPlan * plan);
/* OUTDIR's summary (the local run's name) from the merged results. */
gboolean batch_plan_write_summary (BatchPlan * plan, GHashTable * merged,
    GError ** error);

/* Runs task t of submission k with the engine; returns its exit status. */
int batch_plan_run_share (BatchPlan * plan, guint k, guint t,
    double progress_interval);

G_END_DECLS
