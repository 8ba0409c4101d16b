/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-batch: one pipeline template over an archive of files.
 *
 *   clvision-batch -p 'filesrc location={input} ! decodebin !
 *       vjfacedetect device={device} ! roiexport location={output} !
 *       fakesink' -o faces/ videos/
 *
 * runs --jobs pipelines at once on each OpenCL GPU of the host (or the CPU),
 * each output written under a partial name and renamed when its pipeline
 * reaches EOS; --resume skips finished files; --slurm submits the same work
 * as a Slurm job array.  docs/batch.md is the manual. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <gst/gst.h>

#include "clv-opencl.h"

#include "batch.h"

typedef struct
{
  char *pipeline, *pipelines, *outdir, *suffix, *devices, *log_dir, *summary;
  char *progress;
  char **lists, **patterns, **inputs, **sbatch_args;
  int jobs, retries, gpus_per_task, max_tasks, submission;
  double progress_interval;
  gboolean resume, list_devices, slurm, status;
  char *partition, *slurm_task;
} Options;

static const GOptionEntry *
option_entries (Options * o)
{
  const GOptionEntry entries[] = {
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &o->pipeline,
        "gst-launch pipeline with {input}, {output} and optionally {stem}, "
          "{device}, {uri}", "TEMPLATE"},
    {"pipelines", 'P', 0, G_OPTION_ARG_FILENAME, &o->pipelines,
        "A pipeline file: a [GLOB] group per kind of file, with its "
          "pipeline= and suffix= (instead of --pipeline)", "FILE"},
    {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &o->outdir,
        "Where the outputs go (a folder's tree is kept)", "DIR"},
    {"suffix", 's', 0, G_OPTION_ARG_STRING, &o->suffix,
        "Output name: the input's name with this instead of its extension "
          "(default .jsonl)", ".EXT"},
    {"list", 'l', 0, G_OPTION_ARG_FILENAME_ARRAY, &o->lists,
        "A file listing inputs, one per line (repeatable)", "FILE"},
    {"match", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &o->patterns,
        "Take only the files of folders whose name matches (repeatable)",
        "GLOB"},
    {"devices", 'd', 0, G_OPTION_ARG_STRING, &o->devices,
        "OpenCL devices: all (every GPU, else the CPU; default), gpu, cpu, "
          "P:D or part of a name, comma-separated", "LIST"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs,
        "Pipelines at once per device (default: the cores shared out over "
          "the GPUs, 2 to 16; 2 on a CPU)", "N"},
    {"retries", 0, 0, G_OPTION_ARG_INT, &o->retries,
        "Further attempts of a failed file (default 1)", "N"},
    {"resume", 0, 0, G_OPTION_ARG_NONE, &o->resume,
        "Skip inputs whose output exists; with --slurm, submit what failed "
          "or never ran", NULL},
    {"log-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->log_dir,
        "Per-file logs (default DIR/clvision-batch-logs)", "DIR"},
    {"summary", 0, 0, G_OPTION_ARG_FILENAME, &o->summary,
        "The JSON summary (default DIR/clvision-batch.json)", "FILE"},
    {"progress", 0, 0, G_OPTION_ARG_STRING, &o->progress,
        "auto (a bar on a terminal, else lines), bar, lines or none",
        "MODE"},
    {"progress-interval", 0, 0, G_OPTION_ARG_DOUBLE, &o->progress_interval,
        "Seconds between progress lines (default 10)", "S"},
    {"list-devices", 0, 0, G_OPTION_ARG_NONE, &o->list_devices,
        "List the OpenCL devices and exit", NULL},
    {"slurm", 0, 0, G_OPTION_ARG_NONE, &o->slurm,
        "Submit one Slurm job array instead of running here", NULL},
    {"status", 0, 0, G_OPTION_ARG_NONE, &o->status,
        "With --slurm: report the tasks and files of DIR's batch", NULL},
    {"partition", 0, 0, G_OPTION_ARG_STRING, &o->partition,
        "With --slurm: the partition", "P"},
    {"gpus-per-task", 0, 0, G_OPTION_ARG_INT, &o->gpus_per_task,
        "With --slurm: GPUs each task asks for (--gres=gpu:N; default none)",
        "N"},
    {"max-tasks", 0, 0, G_OPTION_ARG_INT, &o->max_tasks,
        "With --slurm: tasks in the array at most (default 100)", "M"},
    {"sbatch-arg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sbatch_args,
        "With --slurm: one more sbatch argument (repeatable)", "ARG"},
    {"slurm-task", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME,
        &o->slurm_task, "Run an array task of PLAN", "PLAN"},
    {"submission", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT,
        &o->submission, "The submission of the array task", "K"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->inputs,
        NULL, "INPUT..."},
    {NULL}
  };
  static GOptionEntry copy[G_N_ELEMENTS (entries)];

  memcpy (copy, entries, sizeof (entries));
  return copy;
}

static gboolean
parse_progress (const char *s, BatchProgressMode * mode)
{
  static const char *const names[] = { "auto", "bar", "lines", "none" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (s, names[i]) == 0) {
      *mode = (BatchProgressMode) i;
      return TRUE;
    }
  return FALSE;
}

/* Option values a run cannot take, or NULL. */
static const char *
option_problem (Options * o, BatchProgressMode * mode)
{
  if (o->outdir == NULL)
    return "--output-dir is required";
  if (o->status && !o->slurm)
    return "--status reports a Slurm batch: add --slurm";
  if (o->jobs < 0 || o->retries < 0 || o->gpus_per_task < 0
      || o->max_tasks < 0 || o->progress_interval < 0)
    return "--jobs, --retries, --gpus-per-task, --max-tasks and "
        "--progress-interval cannot be negative";
  if (!parse_progress (o->progress, mode))
    return "--progress is auto, bar, lines or none";
  return NULL;
}

/* What a new run needs, or NULL. */
static const char *
run_problem (Options * o)
{
  if (o->status)
    return "no Slurm batch was submitted to this output folder";
  if ((o->pipeline == NULL) == (o->pipelines == NULL))
    return "give either --pipeline or --pipelines";
  if ((o->inputs == NULL || !o->inputs[0]) && (o->lists == NULL
          || !o->lists[0]))
    return "give input files, folders or --list";
  return NULL;
}

static int
run_local_or_submit (Options * o, BatchConfig * cfg,
    const BatchSlurmOptions * sopts)
{
  BatchInputSpec spec = { o->inputs, o->lists, o->patterns, cfg->rules,
    cfg->outdir
  };
  GError *error = NULL;
  GPtrArray *entries;
  guint jobs = 0;
  char **devices = NULL;
  int status = 2;

  if (!(entries = batch_inputs_resolve (&spec, &error)))
    goto out;
  if (o->slurm) {
    status = batch_slurm_submit (cfg, entries, sopts);
  } else if ((devices = batch_devices_resolve (o->devices, &jobs, &error))) {
    cfg->devices = devices;
    cfg->jobs_per_device = o->jobs ? (guint) o->jobs : jobs;
    status = batch_run (cfg, entries);
  }
  g_ptr_array_unref (entries);
out:
  if (error)
    g_printerr ("clvision-batch: %s\n", error->message);
  g_clear_error (&error);
  g_strfreev (devices);
  return status;
}

static void
options_clear (Options * o)
{
  g_free (o->pipeline);
  g_free (o->pipelines);
  g_free (o->outdir);
  g_free (o->suffix);
  g_free (o->devices);
  g_free (o->log_dir);
  g_free (o->summary);
  g_free (o->progress);
  g_free (o->partition);
  g_free (o->slurm_task);
  g_strfreev (o->lists);
  g_strfreev (o->patterns);
  g_strfreev (o->inputs);
  g_strfreev (o->sbatch_args);
}

/* The pipelines the options give (BatchRule), or NULL with `error` set. */
static GPtrArray *
rules_of (Options * o, GError ** error)
{
  GPtrArray *rules;

  if (o->pipelines)
    return batch_rules_load (o->pipelines, error);
  if (!batch_template_check (o->pipeline, error))
    return NULL;
  rules = g_ptr_array_new_with_free_func (batch_rule_free);
  g_ptr_array_add (rules, batch_rule_new (NULL, o->pipeline, o->suffix));
  return rules;
}

/* --slurm --status, or --slurm --resume of a batch submitted before. */
static int
slurm_follow_up (Options * o, const char *outdir, GPtrArray * stored,
    const BatchSlurmOptions * sopts)
{
  GError *error = NULL;
  GPtrArray *given = NULL;
  int status = 2;

  if ((o->pipeline || o->pipelines) && !(given = rules_of (o, &error)))
    g_printerr ("clvision-batch: %s\n", error->message);
  else if (given && !batch_rules_equal (given, stored))
    g_printerr ("clvision-batch: the batch in %s was submitted with other "
        "pipelines: --slurm --resume goes on with the files and pipelines "
        "it was submitted with (leave out --pipeline)\n", outdir);
  else
    status = batch_slurm_status (outdir, o->resume && !o->status, sopts);
  g_clear_error (&error);
  if (given)
    g_ptr_array_unref (given);
  g_ptr_array_unref (stored);
  return status;
}

static int
start (Options * o, char *outdir, BatchProgressMode mode,
    const BatchSlurmOptions * sopts)
{
  GError *error = NULL;
  GPtrArray *rules = rules_of (o, &error);
  char *log_dir = o->log_dir ? g_canonicalize_filename (o->log_dir, NULL)
      : g_build_filename (outdir, "clvision-batch-logs", NULL);
  char *summary = o->summary ? g_canonicalize_filename (o->summary, NULL)
      : g_build_filename (outdir, "clvision-batch.json", NULL);
  BatchConfig cfg = { rules, outdir, NULL, 0, (guint) o->retries,
    o->resume, log_dir, summary, mode, o->progress_interval, NULL
  };
  int status = 2;

  if (rules) {
    status = run_local_or_submit (o, &cfg, sopts);
    g_ptr_array_unref (rules);
  } else {
    g_printerr ("clvision-batch: %s\n", error->message);
    g_error_free (error);
  }
  g_free (log_dir);
  g_free (summary);
  return status;
}

static int
dispatch (Options * o)
{
  BatchProgressMode mode = BATCH_PROGRESS_AUTO;
  const char *problem = option_problem (o, &mode);
  GPtrArray *stored = NULL;
  char *outdir;
  BatchSlurmOptions sopts = { o->partition, o->gpus_per_task, o->max_tasks,
    o->sbatch_args, o->devices, o->jobs
  };
  int status;

  if (problem) {
    g_printerr ("clvision-batch: %s (--help lists the options)\n", problem);
    return 2;
  }
  outdir = g_canonicalize_filename (o->outdir, NULL);
  if (o->slurm && (o->status || o->resume)
      && (stored = batch_slurm_plan_rules (outdir))) {
    status = slurm_follow_up (o, outdir, stored, &sopts);
  } else if ((problem = run_problem (o))) {
    g_printerr ("clvision-batch: %s (--help lists the options)\n", problem);
    status = 2;
  } else {
    status = start (o, outdir, mode, &sopts);
  }
  g_free (outdir);
  return status;
}

/* One line per device: "P:D KIND NAME (PLATFORM)". */
static int
list_devices (void)
{
  static const struct
  {
    cl_device_type type;
    const char *kind;
  } kinds[] = {
    {CL_DEVICE_TYPE_GPU, "gpu"}, {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"},
    {CL_DEVICE_TYPE_CPU, "cpu"},
  };
  char *all = clv_device_list_all ();
  char **lines = g_strsplit (all, "; ", -1);
  int status = *all ? 0 : 1;

  if (status)
    g_printerr ("clvision-batch: no OpenCL device\n");
  for (char **l = lines; *l && **l; l++) {
    const char *kind = "other";
    char *index = g_strndup (*l, strcspn (*l, " "));

    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
      char **indices = clv_device_indices (kinds[k].type, NULL);
      if (indices && g_strv_contains ((const char *const *) indices, index))
        kind = kinds[k].kind;
      g_strfreev (indices);
    }
    g_print ("%s %s%s\n", index, kind, *l + strlen (index));
    g_free (index);
  }
  g_strfreev (lines);
  g_free (all);
  return status;
}

int
main (int argc, char **argv)
{
  Options o = { 0 };
  GOptionContext *ctx;
  GError *error = NULL;
  int status;

  o.retries = 1;
  o.progress_interval = 10;
  ctx = g_option_context_new ("INPUT... - run a pipeline over an archive "
      "of files");
  g_option_context_set_summary (ctx, "Each INPUT is a file or a folder "
      "(its files, recursively). Outputs appear under their final name only "
      "once whole.\nExit status: 0 every file done, 1 a file failed, 2 bad "
      "usage, 130/143 stopped by SIGINT/SIGTERM.");
  g_option_context_add_main_entries (ctx, option_entries (&o), NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("clvision-batch: %s\n", error->message);
    g_error_free (error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.suffix == NULL)
    o.suffix = g_strdup (".jsonl");
  if (o.progress == NULL)
    o.progress = g_strdup ("auto");
  if (o.list_devices) {
    status = list_devices ();
  } else if (o.slurm_task) {
    status = batch_slurm_task (o.slurm_task, (guint) o.submission);
  } else {
    status = dispatch (&o);
  }
  options_clear (&o);
  return status;
}
