/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The single-machine engine: jobs_per_device pipelines at once on each
 * device, in this process (so that the pipelines of a device share its
 * context and the detector's batches), the next file starting as soon as
 * one ends; a failed file goes to the back of the queue for its retries;
 * SIGINT and SIGTERM stop every pipeline and remove their partial outputs.
 * Outputs are written in OUTDIR/.clvision-batch/partial/HOST-PID/ and
 * renamed into place (one file system: atomic), so an output under its
 * final name is always whole, and --resume skips exactly those. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "batch-job.h"

#define STATE_DIR ".clvision-batch"
#define BAR_WIDTH 24

typedef struct
{
  const BatchConfig *cfg;
  BatchResult *results;
  guint n;
  GQueue pending;               /* BatchResult * */
  GPtrArray *jobs;              /* running BatchJob * */
  guint *running;               /* per device */
  guint ndevices;
  GMainLoop *loop;
  char *partial_dir;
  gint64 started;
  int stopped_by;               /* the signal, or 0 */
  gboolean bar;                 /* a progress bar on the terminal */
  gboolean bar_drawn;
  gint64 last_line;
  guint64 bytes_at_start;
} Run;

char *
batch_partial_dir (const char *outdir)
{
  char *name = g_strdup_printf ("%s-%d", g_get_host_name (), (int) getpid ());
  char *dir = g_build_filename (outdir, STATE_DIR, "partial", name, NULL);

  g_free (name);
  return dir;
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d) {
    while ((name = g_dir_read_name (d))) {
      char *child = g_build_filename (path, name, NULL);
      remove_tree (child);
      g_free (child);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

/* Whether the partial folder `name` ("HOST-PID") belongs to a process of
 * this host that is gone. */
static gboolean
is_stale (const char *name)
{
  const char *host = g_get_host_name ();
  gsize len = strlen (host);
  char *end;
  gint64 pid;

  if (strncmp (name, host, len) != 0 || name[len] != '-')
    return FALSE;
  pid = g_ascii_strtoll (name + len + 1, &end, 10);
  return *end == '\0' && pid > 0 && kill ((pid_t) pid, 0) != 0
      && errno == ESRCH;
}

void
batch_partial_clean_stale (const char *outdir, gboolean every_host)
{
  char *root = g_build_filename (outdir, STATE_DIR, "partial", NULL);
  GDir *d = g_dir_open (root, 0, NULL);
  const char *name;

  if (d) {
    while ((name = g_dir_read_name (d)))
      if (every_host || is_stale (name)) {
        char *path = g_build_filename (root, name, NULL);
        remove_tree (path);
        g_free (path);
      }
    g_dir_close (d);
  }
  g_free (root);
}

/* This process's partial folder, and its parents when nothing else is
 * left in them. */
static void
remove_partial_dir (const char *dir)
{
  char *parent = g_path_get_dirname (dir);
  char *state = g_path_get_dirname (parent);

  remove_tree (dir);
  g_rmdir (parent);
  g_rmdir (state);
  g_free (parent);
  g_free (state);
}

/* ---- Messages and progress ------------------------------------------ */

static void
clear_bar (Run * run)
{
  if (run->bar_drawn)
    fputs ("\r\033[K", stderr);
  run->bar_drawn = FALSE;
}

static void
run_message (Run * run, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
run_message (Run * run, const char *format, ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  clear_bar (run);
  fprintf (stderr, "clvision-batch: %s%s%s\n", run->cfg->label ?
      run->cfg->label : "", run->cfg->label ? ": " : "", text);
  g_free (text);
}

static void
measure (Run * run, BatchProgress * p)
{
  memset (p, 0, sizeof (*p));
  p->files_total = run->n;
  p->bytes_at_start = run->bytes_at_start;
  p->seconds = (g_get_monotonic_time () - run->started) / 1e6;
  for (guint i = 0; i < run->n; i++) {
    BatchResult *r = &run->results[i];

    p->bytes_total += r->entry->bytes;
    if (r->status == BATCH_DONE || r->status == BATCH_SKIPPED
        || r->status == BATCH_FAILED)
      p->bytes_finished += r->entry->bytes;
    p->files_finished += r->status == BATCH_DONE || r->status == BATCH_SKIPPED;
    p->files_failed += r->status == BATCH_FAILED;
    if (r->status == BATCH_DONE)
      p->frames += r->frames;
  }
  p->files_running = run->jobs->len;
  for (guint i = 0; i < run->jobs->len; i++) {
    double fraction;
    guint64 frames;

    batch_job_poll (run->jobs->pdata[i], &fraction, &frames);
    p->bytes_finished += (guint64) (fraction *
        batch_job_result (run->jobs->pdata[i])->entry->bytes);
    p->frames += frames;
  }
}

static gboolean
progress_tick (gpointer user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();
  BatchProgress p;
  char *line;

  if (run->cfg->progress == BATCH_PROGRESS_NONE || (!run->bar
          && now - run->last_line < run->cfg->progress_interval * 1e6))
    return G_SOURCE_CONTINUE;
  run->last_line = now;
  measure (run, &p);
  line = batch_progress_format (&p, run->bar ? BAR_WIDTH : 0);
  if (run->bar) {
    struct winsize ws;
    /* Cut to the terminal's width: a wrapped line would not be redrawn. */
    int width = ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
        ? ws.ws_col - 1 : 79;
    fprintf (stderr, "\r\033[K%.*s", width, line);
    run->bar_drawn = TRUE;
  } else {
    run_message (run, "%s", line);
  }
  g_free (line);
  return G_SOURCE_CONTINUE;
}

/* ---- Scheduling ----------------------------------------------------- */

static void start_next (Run * run);

static void
job_done (BatchJob * job, gboolean ok, gpointer user_data)
{
  Run *run = user_data;
  BatchResult *r = batch_job_result (job);
  guint device;

  for (device = 0; device < run->ndevices; device++)
    if (g_strcmp0 (run->cfg->devices[device], r->device) == 0)
      break;
  run->running[device]--;
  g_ptr_array_remove_fast (run->jobs, job);
  if (ok) {
    r->status = BATCH_DONE;
  } else if (r->attempts <= run->cfg->retries) {
    run_message (run, "%s failed (attempt %u of %u), will retry: %s",
        r->entry->input, r->attempts, run->cfg->retries + 1, r->error);
    g_queue_push_tail (&run->pending, r);
  } else {
    r->status = BATCH_FAILED;
    run_message (run, "%s FAILED: %s (log: %s)", r->entry->input, r->error,
        batch_job_log_path (job));
  }
  batch_job_free (job);
  start_next (run);
}

/* The device with the most free slots, or -1 when all are full. */
static int
free_device (Run * run)
{
  int best = -1;

  for (guint d = 0; d < run->ndevices; d++)
    if (run->running[d] < run->cfg->jobs_per_device
        && (best < 0 || run->running[d] < run->running[best]))
      best = (int) d;
  return best;
}

static void
start_one (Run * run, BatchResult * r, guint device)
{
  const BatchConfig *cfg = run->cfg;
  char *partial = g_build_filename (run->partial_dir, r->entry->output, NULL);
  char *final = g_build_filename (cfg->outdir, r->entry->output, NULL);
  char *log_name = g_strconcat (r->entry->output, ".log", NULL);
  char *log = g_build_filename (cfg->log_dir, log_name, NULL);
  BatchRule *rule = cfg->rules->pdata[r->entry->rule];
  BatchJobPaths paths = { rule->template, cfg->devices[device], partial,
    final, log
  };

  r->attempts++;
  run->running[device]++;
  g_ptr_array_add (run->jobs, batch_job_start (&paths, r, job_done, run));
  g_free (partial);
  g_free (final);
  g_free (log_name);
  g_free (log);
}

static void
start_next (Run * run)
{
  int device;

  while (!run->stopped_by && !g_queue_is_empty (&run->pending)
      && (device = free_device (run)) >= 0)
    start_one (run, g_queue_pop_head (&run->pending), (guint) device);
  if (run->jobs->len == 0 && (run->stopped_by
          || g_queue_is_empty (&run->pending)))
    g_main_loop_quit (run->loop);
}

/* ---- Signals -------------------------------------------------------- */

static void
stop_all (Run * run, int signum)
{
  run->stopped_by = signum;
  run_message (run, "%s: stopping %u pipelines; their partial outputs are "
      "removed", g_strsignal (signum), run->jobs->len);
  while (run->jobs->len > 0) {
    BatchJob *job = g_ptr_array_steal_index_fast (run->jobs, 0);

    batch_job_stop (job);
    batch_job_result (job)->status = BATCH_INTERRUPTED;
    batch_job_free (job);
  }
  g_main_loop_quit (run->loop);
}

static gboolean
on_sigint (gpointer user_data)
{
  stop_all (user_data, SIGINT);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigterm (gpointer user_data)
{
  stop_all (user_data, SIGTERM);
  return G_SOURCE_CONTINUE;
}

/* ---- The run -------------------------------------------------------- */

/* Parses each template once, so that a typo stops the run before any file
 * is tried. */
static gboolean
check_templates (const BatchConfig * cfg, GError ** error)
{
  BatchFields fields = { "/dev/null", "/dev/null", "null", cfg->devices[0] };

  for (guint i = 0; i < cfg->rules->len; i++) {
    const char *tmpl = ((BatchRule *) cfg->rules->pdata[i])->template;
    char *description;
    GstElement *e;

    if (!batch_template_check (tmpl, error))
      return FALSE;
    description = batch_template_expand (tmpl, &fields);
    e = gst_parse_launch (description, error);
    g_free (description);
    gst_clear_object (&e);
    if (*error) {
      g_prefix_error (error, "The pipeline '%s' does not parse: ", tmpl);
      return FALSE;
    }
  }
  return TRUE;
}

/* Results for the entries: finished ones skipped with --resume, the rest
 * queued; without --resume an existing output is an error. */
static gboolean
prepare (Run * run, GPtrArray * entries, GError ** error)
{
  guint existing = 0;
  const char *first = NULL;

  run->n = entries->len;
  run->results = g_new0 (BatchResult, run->n);
  for (guint i = 0; i < run->n; i++) {
    BatchResult *r = &run->results[i];
    char *final;

    r->entry = entries->pdata[i];
    final = g_build_filename (run->cfg->outdir, r->entry->output, NULL);
    if (g_file_test (final, G_FILE_TEST_EXISTS)) {
      r->status = BATCH_SKIPPED;
      run->bytes_at_start += r->entry->bytes;
      existing++;
      first = first ? first : r->entry->output;
    } else {
      g_queue_push_tail (&run->pending, r);
    }
    g_free (final);
  }
  if (existing && !run->cfg->resume) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
        "%u outputs exist already in %s (%s%s): --resume skips them, or "
        "remove them to run those files again", existing, run->cfg->outdir,
        first, existing > 1 ? ", ..." : "");
    return FALSE;
  }
  return TRUE;
}

static void
report (Run * run, double seconds)
{
  guint counts[BATCH_INTERRUPTED + 1] = { 0 };
  guint64 frames = 0;
  char *took = batch_format_duration (seconds);

  for (guint i = 0; i < run->n; i++) {
    counts[run->results[i].status]++;
    if (run->results[i].status == BATCH_DONE)
      frames += run->results[i].frames;
  }
  run_message (run, "%u files: %u done, %u skipped (finished before), "
      "%u failed, %u interrupted, %u not run; %" G_GUINT64_FORMAT
      " frames in %s (%.1f frames/s); summary: %s", run->n,
      counts[BATCH_DONE], counts[BATCH_SKIPPED], counts[BATCH_FAILED],
      counts[BATCH_INTERRUPTED], counts[BATCH_PENDING], frames, took,
      seconds > 0 ? frames / seconds : 0.0, run->cfg->summary);
  g_free (took);
}

static void
run_loop (Run * run)
{
  guint sources[3];

  run->loop = g_main_loop_new (NULL, FALSE);
  sources[0] = g_unix_signal_add (SIGINT, on_sigint, run);
  sources[1] = g_unix_signal_add (SIGTERM, on_sigterm, run);
  sources[2] = g_timeout_add (250, progress_tick, run);
  batch_job_route_debug_log (TRUE);
  start_next (run);
  if (run->jobs->len > 0 || !g_queue_is_empty (&run->pending))
    g_main_loop_run (run->loop);
  batch_job_route_debug_log (FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    g_source_remove (sources[i]);
  g_main_loop_unref (run->loop);
  clear_bar (run);
}

static int
exit_status (Run * run)
{
  if (run->stopped_by)
    return 128 + run->stopped_by;
  for (guint i = 0; i < run->n; i++)
    if (run->results[i].status == BATCH_FAILED)
      return 1;
  return 0;
}

int
batch_run (const BatchConfig * cfg, GPtrArray * entries)
{
  Run run = { cfg };
  GError *error = NULL;
  int status = 2;

  run.ndevices = g_strv_length (cfg->devices);
  run.running = g_new0 (guint, run.ndevices);
  run.jobs = g_ptr_array_new ();
  run.started = g_get_monotonic_time ();
  run.bar = cfg->progress == BATCH_PROGRESS_BAR
      || (cfg->progress == BATCH_PROGRESS_AUTO && isatty (STDERR_FILENO));
  run.partial_dir = batch_partial_dir (cfg->outdir);
  if (!check_templates (cfg, &error) || !prepare (&run, entries, &error)
      || g_mkdir_with_parents (run.partial_dir, 0777) != 0) {
    run_message (&run, "%s", error ? error->message : g_strerror (errno));
    goto out;
  }
  batch_partial_clean_stale (cfg->outdir, FALSE);
  run_loop (&run);
  status = exit_status (&run);
  {
    double seconds = (g_get_monotonic_time () - run.started) / 1e6;

    if (!batch_summary_write (cfg->summary, cfg->rules, cfg->outdir,
            run.results, run.n, seconds, run.stopped_by != 0, &error)) {
      run_message (&run, "cannot write the summary: %s", error->message);
      status = MAX (status, 1);
    }
    report (&run, seconds);
  }
out:
  remove_partial_dir (run.partial_dir);
  g_clear_error (&error);
  for (guint i = 0; i < run.n; i++)
    batch_result_clear (&run.results[i]);
  g_free (run.results);
  g_queue_clear (&run.pending);
  g_ptr_array_unref (run.jobs);
  g_free (run.running);
  g_free (run.partial_dir);
  return status;
}
