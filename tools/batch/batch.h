/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-batch: one pipeline template over an archive of files, on every
 * OpenCL device of a host or as a Slurm job array.  See docs/batch.md. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A pipeline template, the files it is for and its outputs' ending. */
typedef struct
{
  char *match;                  /* a glob on the file name; NULL: any */
  char *template;
  char *suffix;                 /* ".jsonl" */
} BatchRule;

/* One input of the archive and where its output goes. */
typedef struct
{
  char *input;                  /* absolute path */
  char *output;                 /* relative to the output folder */
  guint64 bytes;                /* the input's size */
  guint rule;                   /* its pipeline */
} BatchEntry;

BatchEntry *batch_entry_new (const char *input, const char *output,
    guint64 bytes, guint rule);
void batch_entry_free (gpointer entry);

/* ---- Inputs (batch-inputs.c) ---------------------------------------- */

typedef struct
{
  char **paths;                 /* files and folders */
  char **lists;                 /* list files: a path per line */
  char **patterns;              /* globs a folder's files must match */
  GPtrArray *rules;             /* BatchRule: the first that matches */
  const char *outdir;           /* absolute; never read as input */
} BatchInputSpec;

/* The entries of the archive, list files' first, then the paths in the order
 * given, a folder's files sorted by name; a folder's files that no rule
 * matches are left out (BatchEntry; NULL with `error` set: an unreadable
 * path, a file no rule is for, two inputs with one output, or none). */
GPtrArray *batch_inputs_resolve (const BatchInputSpec * spec, GError ** error);

/* ---- Pipeline templates (batch-template.c) ---------------------------- */

typedef struct
{
  const char *input;
  const char *output;
  const char *stem;
  const char *device;
} BatchFields;

/* Whether `tmpl` names {input} and {output}; the error says what is
 * missing. */
gboolean batch_template_check (const char *tmpl, GError ** error);

BatchRule *batch_rule_new (const char *match, const char *tmpl,
    const char *suffix);
void batch_rule_free (gpointer rule);
gboolean batch_rules_equal (GPtrArray * a, GPtrArray * b);
/* The rules of a pipeline file: a group per kind of file, in order, e.g.
 *   [*.webm]
 *   pipeline=filesrc location={input} ! ... ! roiexport location={output} ...
 *   suffix=.jsonl
 * (BatchRule; NULL with `error` set). */
GPtrArray *batch_rules_load (const char *path, GError ** error);

/* `tmpl` with {input}, {output}, {stem}, {device} and {uri} replaced, quoted
 * for gst_parse_launch() unless already inside double quotes; every other
 * brace (caps lists) stays. */
char *batch_template_expand (const char *tmpl, const BatchFields * fields);

/* ---- Results and summaries (batch-summary.c) -------------------------- */

typedef enum
{
  BATCH_PENDING,                /* not run (yet) */
  BATCH_DONE,                   /* finished by this run */
  BATCH_SKIPPED,                /* its output was there already */
  BATCH_FAILED,                 /* failed on every attempt */
  BATCH_INTERRUPTED,            /* stopped by a signal */
} BatchStatus;

typedef struct
{
  const BatchEntry *entry;
  BatchStatus status;
  guint attempts;
  char *device;
  guint64 frames;               /* buffers at the busiest sink */
  guint64 regions;              /* ROI metas on them */
  guint64 faces;                /* of which roi_type "face" */
  guint64 pixels;               /* width x height of those frames */
  double seconds;
  char *error;
} BatchResult;

const char *batch_status_name (BatchStatus status);
gboolean batch_status_parse (const char *name, BatchStatus * status);
void batch_result_clear (BatchResult * r);
/* Clears and frees a BatchResult of its own (batch_summary_read()). */
void batch_result_free (gpointer r);

/* Writes `results` (n of them) as the JSON summary `path`, atomically. */
gboolean batch_summary_write (const char *path, GPtrArray * rules,
    const char *outdir, const BatchResult * results, guint n,
    double seconds, gboolean interrupted, GError ** error);

/* Reads the results of a summary into `results`, a table from input path
 * to a BatchResult whose entry is NULL (the caller's own entries are
 * authoritative); FALSE with `error` set when unreadable. */
gboolean batch_summary_read (const char *path, GHashTable * results,
    GError ** error);

/* ---- The single-machine engine (batch-run.c) -------------------------- */

typedef enum
{
  BATCH_PROGRESS_AUTO,          /* a bar on a terminal, else lines */
  BATCH_PROGRESS_BAR,
  BATCH_PROGRESS_LINES,
  BATCH_PROGRESS_NONE,
} BatchProgressMode;

typedef struct
{
  GPtrArray *rules;             /* BatchRule, the entries' pipelines */
  const char *outdir;           /* absolute */
  char **devices;               /* the {device} of each device's pipelines */
  guint jobs_per_device;
  guint retries;                /* further attempts of a failed file */
  gboolean resume;              /* skip inputs whose output exists */
  const char *log_dir;
  const char *summary;
  BatchProgressMode progress;
  double progress_interval;     /* seconds between progress lines */
  const char *label;            /* before each progress line, or NULL */
} BatchConfig;

/* Runs the entries; returns the command's exit status: 0 all finished, 1 a
 * file failed, 130/143 stopped by SIGINT/SIGTERM, 2 a configuration error. */
int batch_run (const BatchConfig * cfg, GPtrArray * entries);

/* The partial outputs' folder of this process (removed when empty). */
char *batch_partial_dir (const char *outdir);
/* Removes the partial folders of this host's processes that are gone, or
 * with `every_host` every one (no process may be writing them). */
void batch_partial_clean_stale (const char *outdir, gboolean every_host);

/* ---- Devices (batch-devices.c) --------------------------------------- */

/* The devices a comma-separated list names: "all" (every GPU, else every
 * accelerator, else the CPUs), "gpu", "cpu", "accelerator", "P:D" indices
 * or parts of a device's name; each once, as "P:D".  `jobs` gets the
 * default number of pipelines per device for them.  NULL with `error` set
 * when the list names none. */
char **batch_devices_resolve (const char *list, guint * jobs, GError ** error);

/* ---- Progress (batch-progress.c) -------------------------------------- */

typedef struct
{
  guint files_total;
  guint files_finished;         /* done or skipped */
  guint files_failed;
  guint files_running;
  guint64 bytes_total;
  guint64 bytes_finished;       /* of finished files and running ones' parts */
  guint64 bytes_at_start;       /* skipped before this run started */
  guint64 frames;
  double seconds;
} BatchProgress;

/* "50%, 12/20 files (1 failed), ETA 0:42, 3 running, 1234 frames (56/s),
 * 12.0 MB of 24.0 MB", after a bar of `bar_width` characters when not 0. */
char *batch_progress_format (const BatchProgress * p, guint bar_width);
char *batch_format_duration (double seconds);

/* ---- Slurm (batch-slurm.c) -------------------------------------------- */

typedef struct
{
  const char *partition;
  guint gpus_per_task;
  guint max_tasks;              /* 0: the default */
  char **sbatch_args;
  const char *devices;          /* resolved by each task on its node */
  guint jobs;                   /* 0: the default */
} BatchSlurmOptions;

/* Submits one job array over the entries not finished; returns the exit
 * status. */
int batch_slurm_submit (const BatchConfig * cfg, GPtrArray * entries,
    const BatchSlurmOptions * opts);
/* Reports each task's state (squeue, sacct) and each file's (outputs, task
 * summaries); with `resume`, submits what failed or never ran again. */
int batch_slurm_status (const char *outdir, gboolean resume,
    const BatchSlurmOptions * opts);
/* The pipelines of the Slurm batch submitted to `outdir` (BatchRule), or
 * NULL when there is none. */
GPtrArray *batch_slurm_plan_rules (const char *outdir);
/* Runs this array task's share of submission `submission` of `plan`. */
int batch_slurm_task (const char *plan, guint submission);

G_END_DECLS
