/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Archives on a Slurm cluster: one job array per submission, each task
 * running the single-machine engine (batch_run) on its share of the files.
 * Nothing of ours runs between nodes: the shared output folder holds the
 * plan (OUTDIR/.clvision-batch/slurm/plan.json: the pipeline, the files and
 * each submission's shares) and each task's summary; Slurm places, starts
 * and accounts for the tasks, and squeue/sacct say what became of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "batch-plan.h"

#define PROGRESS_INTERVAL 30.0

/* ---- Slurm's commands ------------------------------------------------- */

/* Runs a Slurm command; its standard output, or NULL with `error` set
 * (stderr in the message). */
static char *
slurm_command (const char *const *argv, GError ** error)
{
  char *out = NULL, *err = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &out, &err, &status, error)) {
    g_prefix_error (error, "Cannot run %s (install Slurm's client "
        "commands, Debian slurm-client): ", argv[0]);
    goto fail;
  }
  if (!g_spawn_check_wait_status (status, NULL)) {
    g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "%s failed: %s",
        argv[0], g_strstrip (err));
    goto fail;
  }
  g_free (err);
  return out;
fail:
  g_free (out);
  g_free (err);
  return NULL;
}

/* Adds "TASK STATE" lines of `text` ("JOB_TASK|STATE|..." or "JOB_TASK
 * STATE") to `states` (task index -> state); rows of other jobs, array
 * ranges ("JOB_[2-3]") and steps are left out.  `raw_ids`, when given,
 * maps raw job ids (sacct --completion) to task indices. */
static void
parse_task_states (const char *text, const char *job, GHashTable * raw_ids,
    GHashTable * states)
{
  char **lines = g_strsplit (text, "\n", -1);
  gsize len = strlen (job);

  for (char **l = lines; *l; l++) {
    char **f = g_strsplit_set (g_strstrip (*l), "| ", 3);
    const char *task = NULL;
    char *end;

    if (g_strv_length (f) >= 2) {
      if (strncmp (f[0], job, len) == 0 && f[0][len] == '_')
        task = f[0] + len + 1;
      else if (raw_ids)
        task = g_hash_table_lookup (raw_ids, f[0]);
    }
    if (task && g_ascii_isdigit (task[0])) {
      guint64 t = g_ascii_strtoull (task, &end, 10);
      if (*end == '\0')
        g_hash_table_replace (states, GUINT_TO_POINTER ((guint) t + 1),
            g_strdup (f[1]));
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
}

/* Task states of a submission from squeue (pending, running) and sacct
 * (the rest); without accounting storage (no slurmdbd), from the job
 * completion log (sacct --completion) by the raw job ids the tasks
 * recorded.  Keys are task index + 1. */
static GHashTable *
task_states (BatchPlan * plan, guint k)
{
  BatchSubmission *s = plan->submissions->pdata[k];
  GHashTable *states = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const char *squeue[] = { "squeue", "-h", "-r", "-j", s->job, "-o",
    "%i %T", NULL
  };
  const char *sacct[] = { "sacct", "-n", "-P", "-X", "-j", s->job, "-o",
    "JobID,State,ExitCode", NULL
  };
  GError *error = NULL;
  char *text;

  if (s->job == NULL)           /* never submitted: no task ran */
    return states;
  if ((text = slurm_command (sacct, &error))) {
    parse_task_states (text, s->job, NULL, states);
  } else if (strstr (error->message, "accounting storage is disabled")) {
    GHashTable *raw = batch_plan_raw_job_ids (plan, k);
    char *ids = batch_plan_join_keys (raw);
    const char *completion[] = { "sacct", "--completion", "-n", "-P", "-j",
      ids, "-o", "JobID,State,ExitCode", NULL
    };
    char *done = *ids ? slurm_command (completion, NULL) : NULL;

    if (done)
      parse_task_states (done, s->job, raw, states);
    g_free (done);
    g_free (ids);
    g_hash_table_unref (raw);
  }
  g_clear_error (&error);
  g_free (text);
  /* squeue last: a live task's state wins over a stale record. */
  if ((text = slurm_command (squeue, NULL)))
    parse_task_states (text, s->job, NULL, states);
  g_free (text);
  return states;
}

static gboolean
is_live (const char *state)
{
  static const char *const live[] = { "PENDING", "RUNNING", "CONFIGURING",
    "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED", "STOPPED", NULL
  };
  return state && g_strv_contains (live, state);
}

/* ---- Submitting ------------------------------------------------------- */

static char *
write_job_script (BatchPlan * plan, guint k, GError ** error)
{
  char *dir = batch_plan_submission_dir (plan, k);
  char *script = g_build_filename (dir, "job.sh", NULL);
  char *self = g_file_read_link ("/proc/self/exe", error);
  char *qself, *qplan, *text;
  gboolean ok;

  if (self == NULL) {
    g_free (dir);
    g_free (script);
    return NULL;
  }
  qself = g_shell_quote (self);
  qplan = g_shell_quote (plan->path);
  text = g_strdup_printf ("#!/bin/sh\n"
      "# clvision-batch: array task $SLURM_ARRAY_TASK_ID of submission %u\n"
      "exec %s --slurm-task %s --submission %u\n", k, qself, qplan, k);
  ok = g_mkdir_with_parents (dir, 0777) == 0
      && g_file_set_contents (script, text, -1, error);
  g_free (text);
  g_free (qself);
  g_free (qplan);
  g_free (self);
  g_free (dir);
  if (!ok) {
    g_free (script);
    return NULL;
  }
  g_chmod (script, 0755);
  return script;
}

static GPtrArray *
sbatch_argv (BatchPlan * plan, guint k, const char *script)
{
  BatchSubmission *s = plan->submissions->pdata[k];
  char *dir = batch_plan_submission_dir (plan, k);
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (argv, g_strdup ("sbatch"));
  g_ptr_array_add (argv, g_strdup ("--parsable"));
  g_ptr_array_add (argv, g_strdup_printf ("--array=0-%u", s->tasks->len - 1));
  g_ptr_array_add (argv, g_strdup ("--job-name=clvision-batch"));
  /* The tasks find the plugins, caches and settings of the submitter. */
  g_ptr_array_add (argv, g_strdup ("--export=ALL"));
  g_ptr_array_add (argv, g_strdup_printf ("--output=%s/task-%%a.out", dir));
  if (plan->partition)
    g_ptr_array_add (argv, g_strdup_printf ("--partition=%s",
            plan->partition));
  if (plan->gpus_per_task)
    g_ptr_array_add (argv, g_strdup_printf ("--gres=gpu:%u",
            plan->gpus_per_task));
  for (char **a = plan->sbatch_args; a && *a; a++)
    g_ptr_array_add (argv, g_strdup (*a));
  g_ptr_array_add (argv, g_strdup (script));
  g_ptr_array_add (argv, NULL);
  g_free (dir);
  return argv;
}

/* Submits the entries `todo` (indices) as a new job array. */
static int
submit (BatchPlan * plan, GArray * todo)
{
  GError *error = NULL;
  guint k = batch_plan_add_submission (plan, todo);
  BatchSubmission *s = plan->submissions->pdata[k];
  char *script = NULL, *out = NULL;
  GPtrArray *argv = NULL;

  /* The plan names the shares before any task can start and read it. */
  if (!batch_plan_save (plan, &error)
      || !(script = write_job_script (plan, k, &error)))
    goto fail;
  argv = sbatch_argv (plan, k, script);
  if (!(out = slurm_command ((const char *const *) argv->pdata, &error)))
    goto fail;
  s->job = g_strndup (out, strcspn (out, ";\n"));
  if (!batch_plan_save (plan, &error))
    goto fail;
  g_print ("Submitted job array %s: %u files in %u tasks; "
      "'clvision-batch --slurm --status -o %s' follows it\n", s->job,
      todo->len, s->tasks->len, plan->outdir);
  g_free (script);
  g_free (out);
  g_ptr_array_unref (argv);
  return 0;
fail:
  g_printerr ("clvision-batch: %s\n", error->message);
  batch_plan_drop_submission (plan, k);
  batch_plan_save (plan, NULL);
  g_error_free (error);
  g_free (script);
  g_free (out);
  if (argv)
    g_ptr_array_unref (argv);
  return 2;
}

int
batch_slurm_submit (const BatchConfig * cfg, GPtrArray * entries,
    const BatchSlurmOptions * opts)
{
  GError *error = NULL;
  BatchPlan *plan;
  GArray *todo;
  int status;

  if ((plan = batch_plan_load (cfg->outdir, NULL))) {
    g_printerr ("clvision-batch: %s holds a Slurm batch already: "
        "'--slurm --status' reports it, '--slurm --resume' submits what "
        "is left\n", cfg->outdir);
    batch_plan_free (plan);
    return 2;
  }
  plan = batch_plan_new (cfg, entries, opts);
  todo = batch_plan_unfinished (plan, NULL);
  if (todo->len < entries->len && !cfg->resume) {
    g_printerr ("clvision-batch: %u outputs exist already in %s: --resume "
        "skips them, or remove them\n", entries->len - todo->len,
        cfg->outdir);
    status = 2;
  } else if (todo->len == 0) {
    g_print ("Every output exists already: nothing to submit\n");
    status = batch_plan_save (plan, &error) ? 0 : 2;
  } else {
    status = submit (plan, todo);
  }
  if (error)
    g_printerr ("clvision-batch: %s\n", error->message);
  g_clear_error (&error);
  g_array_unref (todo);
  batch_plan_free (plan);
  return status;
}

/* ---- Status and resume ------------------------------------------------ */

/* Prints each task of submission `k`, and marks in `live` the entries of
 * its tasks that are still pending or running. */
static void
report_submission (BatchPlan * plan, guint k, gboolean * live,
    GHashTable * merged)
{
  BatchSubmission *s = plan->submissions->pdata[k];
  GHashTable *states = task_states (plan, k);

  g_print ("job %s (submission %u): %u tasks\n", s->job ? s->job : "-", k,
      s->tasks->len);
  for (guint t = 0; t < s->tasks->len; t++) {
    GArray *share = s->tasks->pdata[t];
    const char *state = g_hash_table_lookup (states, GUINT_TO_POINTER (t + 1));
    guint counts[BATCH_INTERRUPTED + 1] = { 0 };

    for (guint i = 0; i < share->len; i++) {
      guint e = g_array_index (share, guint, i);
      BatchResult *r = g_hash_table_lookup (merged,
          ((BatchEntry *) plan->entries->pdata[e])->input);
      counts[r->status]++;
      live[e] = live[e] || is_live (state);
    }
    g_print ("  task %-4u %-12s %u files: %u done, %u failed, %u not done\n",
        t, state ? state : "NOT STARTED", share->len,
        counts[BATCH_DONE] + counts[BATCH_SKIPPED], counts[BATCH_FAILED],
        counts[BATCH_PENDING] + counts[BATCH_INTERRUPTED]);
  }
  g_hash_table_unref (states);
}

static void
print_failures (BatchPlan * plan, GHashTable * merged)
{
  for (guint e = 0; e < plan->entries->len; e++) {
    const char *input = ((BatchEntry *) plan->entries->pdata[e])->input;
    BatchResult *r = g_hash_table_lookup (merged, input);

    if (r->status == BATCH_FAILED)
      g_print ("FAILED %s: %s\n", input, r->error ? r->error : "?");
  }
}

static int
status_and_resume (BatchPlan * plan, gboolean resume)
{
  GHashTable *merged = batch_plan_merge_results (plan);
  gboolean *live = g_new0 (gboolean, plan->entries->len);
  GArray *todo;
  guint nlive = 0;
  int status = 0;

  for (guint k = 0; k < plan->submissions->len; k++)
    report_submission (plan, k, live, merged);
  print_failures (plan, merged);
  todo = batch_plan_unfinished (plan, live);
  for (guint e = 0; e < plan->entries->len; e++)
    nlive += live[e] && !batch_plan_entry_done (plan, e);
  g_print ("%u files: %u done, %u in running or pending tasks, %u to do\n",
      plan->entries->len, plan->entries->len - todo->len - nlive, nlive,
      todo->len);
  if (!batch_plan_write_summary (plan, merged, NULL))
    status = 1;
  if (resume && todo->len > 0) {
    /* Nothing writes partial outputs while no task is live. */
    if (nlive == 0)
      batch_partial_clean_stale (plan->outdir, TRUE);
    status = submit (plan, todo);
  } else if (resume) {
    g_print ("Nothing to resubmit\n");
  } else if (todo->len > 0 || nlive > 0) {
    status = 1;
  }
  g_array_unref (todo);
  g_free (live);
  g_hash_table_unref (merged);
  return status;
}

int
batch_slurm_status (const char *outdir, gboolean resume,
    const BatchSlurmOptions * opts)
{
  GError *error = NULL;
  BatchPlan *plan = batch_plan_load (outdir, &error);
  int status;

  if (plan == NULL) {
    g_printerr ("clvision-batch: no Slurm batch in %s: %s\n", outdir,
        error->message);
    g_error_free (error);
    return 2;
  }
  batch_plan_update_options (plan, opts);
  status = status_and_resume (plan, resume);
  batch_plan_free (plan);
  return status;
}

GPtrArray *
batch_slurm_plan_rules (const char *outdir)
{
  BatchPlan *plan = batch_plan_load (outdir, NULL);
  GPtrArray *rules;

  if (plan == NULL)
    return NULL;
  rules = g_ptr_array_ref (plan->rules);
  batch_plan_free (plan);
  return rules;
}

/* ---- One array task --------------------------------------------------- */

int
batch_slurm_task (const char *plan_path, guint k)
{
  const char *task_env = g_getenv ("SLURM_ARRAY_TASK_ID");
  GError *error = NULL;
  BatchPlan *plan = batch_plan_load_file (plan_path, &error);
  guint t = task_env ? (guint) g_ascii_strtoull (task_env, NULL, 10) : 0;
  int status;

  if (plan == NULL || k >= plan->submissions->len
      || t >= ((BatchSubmission *) plan->submissions->pdata[k])->tasks->len) {
    g_printerr ("clvision-batch: no task %u of submission %u in %s%s%s\n",
        t, k, plan_path, error ? ": " : "", error ? error->message : "");
    g_clear_error (&error);
    if (plan)
      batch_plan_free (plan);
    return 2;
  }
  batch_plan_record_task (plan, k, t, g_getenv ("SLURM_JOB_ID"));
  status = batch_plan_run_share (plan, k, t, PROGRESS_INTERVAL);
  batch_plan_free (plan);
  return status;
}
