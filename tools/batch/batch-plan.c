/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan of a Slurm batch, as JSON (json-glib), and what the submitter and
 * the tasks derive from it: shares, task records, merged results. */
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "batch-plan.h"

#define SLURM_DIR ".clvision-batch/slurm"
#define DEFAULT_MAX_TASKS 100

static void
submission_free (gpointer p)
{
  BatchSubmission *s = p;

  g_free (s->job);
  g_ptr_array_unref (s->tasks);
  g_free (s);
}

static BatchPlan *
plan_alloc (const char *outdir)
{
  BatchPlan *plan = g_new0 (BatchPlan, 1);

  plan->outdir = g_strdup (outdir);
  plan->path = g_build_filename (outdir, SLURM_DIR, "plan.json", NULL);
  plan->rules = g_ptr_array_new_with_free_func (batch_rule_free);
  plan->entries = g_ptr_array_new_with_free_func (batch_entry_free);
  plan->submissions = g_ptr_array_new_with_free_func (submission_free);
  return plan;
}

void
batch_plan_update_options (BatchPlan * plan, const BatchSlurmOptions * o)
{
  if (o->partition) {
    g_free (plan->partition);
    plan->partition = g_strdup (o->partition);
  }
  if (o->gpus_per_task)
    plan->gpus_per_task = o->gpus_per_task;
  if (o->max_tasks)
    plan->max_tasks = o->max_tasks;
  if (o->sbatch_args && o->sbatch_args[0]) {
    g_strfreev (plan->sbatch_args);
    plan->sbatch_args = g_strdupv (o->sbatch_args);
  }
  if (o->devices) {
    g_free (plan->devices);
    plan->devices = g_strdup (o->devices);
  }
  if (o->jobs)
    plan->jobs = o->jobs;
}

BatchPlan *
batch_plan_new (const BatchConfig * cfg, GPtrArray * entries,
    const BatchSlurmOptions * opts)
{
  BatchPlan *plan = plan_alloc (cfg->outdir);

  for (guint i = 0; i < cfg->rules->len; i++) {
    BatchRule *r = cfg->rules->pdata[i];
    g_ptr_array_add (plan->rules, batch_rule_new (r->match, r->template,
            r->suffix));
  }
  plan->log_dir = g_strdup (cfg->log_dir);
  plan->retries = cfg->retries;
  plan->max_tasks = DEFAULT_MAX_TASKS;
  batch_plan_update_options (plan, opts);
  for (guint i = 0; i < entries->len; i++) {
    BatchEntry *e = entries->pdata[i];
    g_ptr_array_add (plan->entries, batch_entry_new (e->input, e->output,
            e->bytes, e->rule));
  }
  return plan;
}

void
batch_plan_free (BatchPlan * plan)
{
  g_free (plan->path);
  g_ptr_array_unref (plan->rules);
  g_free (plan->outdir);
  g_free (plan->devices);
  g_free (plan->log_dir);
  g_free (plan->partition);
  g_strfreev (plan->sbatch_args);
  g_ptr_array_unref (plan->entries);
  g_ptr_array_unref (plan->submissions);
  g_free (plan);
}

/* ---- JSON ------------------------------------------------------------- */

static void
set_string (JsonObject * o, const char *name, const char *v)
{
  if (v)
    json_object_set_string_member (o, name, v);
}

static JsonArray *
rules_to_json (BatchPlan * plan)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; i < plan->rules->len; i++) {
    BatchRule *r = plan->rules->pdata[i];
    JsonObject *o = json_object_new ();

    set_string (o, "match", r->match);
    set_string (o, "pipeline", r->template);
    set_string (o, "suffix", r->suffix);
    json_array_add_object_element (a, o);
  }
  return a;
}

static JsonArray *
entries_to_json (BatchPlan * plan)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; i < plan->entries->len; i++) {
    BatchEntry *e = plan->entries->pdata[i];
    JsonObject *o = json_object_new ();

    json_object_set_string_member (o, "input", e->input);
    json_object_set_string_member (o, "output", e->output);
    json_object_set_int_member (o, "bytes", (gint64) e->bytes);
    json_object_set_int_member (o, "rule", e->rule);
    json_array_add_object_element (a, o);
  }
  return a;
}

static JsonArray *
submissions_to_json (BatchPlan * plan)
{
  JsonArray *a = json_array_new ();

  for (guint k = 0; k < plan->submissions->len; k++) {
    BatchSubmission *s = plan->submissions->pdata[k];
    JsonObject *o = json_object_new ();
    JsonArray *tasks = json_array_new ();

    set_string (o, "job", s->job);
    for (guint t = 0; t < s->tasks->len; t++) {
      GArray *share = s->tasks->pdata[t];
      JsonArray *ja = json_array_new ();
      for (guint i = 0; i < share->len; i++)
        json_array_add_int_element (ja, g_array_index (share, guint, i));
      json_array_add_array_element (tasks, ja);
    }
    json_object_set_array_member (o, "tasks", tasks);
    json_array_add_object_element (a, o);
  }
  return a;
}

gboolean
batch_plan_save (BatchPlan * plan, GError ** error)
{
  JsonObject *o = json_object_new ();
  JsonNode *root = json_node_new (JSON_NODE_OBJECT);
  char *dir = g_path_get_dirname (plan->path);
  char *text;
  gboolean ok;

  json_object_set_array_member (o, "pipelines", rules_to_json (plan));
  set_string (o, "output_dir", plan->outdir);
  set_string (o, "devices", plan->devices);
  set_string (o, "log_dir", plan->log_dir);
  json_object_set_int_member (o, "jobs", plan->jobs);
  json_object_set_int_member (o, "retries", plan->retries);
  set_string (o, "partition", plan->partition);
  json_object_set_int_member (o, "gpus_per_task", plan->gpus_per_task);
  json_object_set_int_member (o, "max_tasks", plan->max_tasks);
  if (plan->sbatch_args) {
    JsonArray *a = json_array_new ();
    for (char **s = plan->sbatch_args; *s; s++)
      json_array_add_string_element (a, *s);
    json_object_set_array_member (o, "sbatch_args", a);
  }
  json_object_set_array_member (o, "entries", entries_to_json (plan));
  json_object_set_array_member (o, "submissions", submissions_to_json (plan));
  json_node_take_object (root, o);
  text = json_to_string (root, TRUE);
  ok = g_mkdir_with_parents (dir, 0777) == 0
      && g_file_set_contents (plan->path, text, -1, error);
  g_free (text);
  g_free (dir);
  json_node_unref (root);
  return ok;
}

static char *
get_string (JsonObject * o, const char *name)
{
  return g_strdup (json_object_get_string_member_with_default (o, name,
          NULL));
}

static void
submissions_from_json (BatchPlan * plan, JsonArray * a)
{
  for (guint k = 0; a && k < json_array_get_length (a); k++) {
    JsonObject *o = json_array_get_object_element (a, k);
    JsonArray *tasks = json_object_get_array_member (o, "tasks");
    BatchSubmission *s = g_new0 (BatchSubmission, 1);

    s->job = get_string (o, "job");
    s->tasks = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_array_unref);
    for (guint t = 0; t < json_array_get_length (tasks); t++) {
      JsonArray *ja = json_array_get_array_element (tasks, t);
      GArray *share = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint i = 0; i < json_array_get_length (ja); i++) {
        guint e = (guint) json_array_get_int_element (ja, i);
        if (e < plan->entries->len)
          g_array_append_val (share, e);
      }
      g_ptr_array_add (s->tasks, share);
    }
    g_ptr_array_add (plan->submissions, s);
  }
}

static void
rules_from_json (BatchPlan * plan, JsonArray * a)
{
  for (guint i = 0; a && i < json_array_get_length (a); i++) {
    JsonObject *r = json_array_get_object_element (a, i);
    const char *tmpl = json_object_get_string_member_with_default (r,
        "pipeline", NULL);

    if (tmpl)
      g_ptr_array_add (plan->rules, batch_rule_new
          (json_object_get_string_member_with_default (r, "match", NULL),
              tmpl, json_object_get_string_member_with_default (r, "suffix",
                  "")));
  }
}

static void
plan_from_json (BatchPlan * plan, JsonObject * o)
{
  JsonArray *entries = json_object_get_array_member (o, "entries");

  rules_from_json (plan, json_object_get_array_member (o, "pipelines"));
  plan->devices = get_string (o, "devices");
  plan->log_dir = get_string (o, "log_dir");
  plan->jobs = json_object_get_int_member_with_default (o, "jobs", 0);
  plan->retries = json_object_get_int_member_with_default (o, "retries", 1);
  plan->partition = get_string (o, "partition");
  plan->gpus_per_task = json_object_get_int_member_with_default (o,
      "gpus_per_task", 0);
  plan->max_tasks = json_object_get_int_member_with_default (o, "max_tasks",
      DEFAULT_MAX_TASKS);
  if (json_object_has_member (o, "sbatch_args")) {
    JsonArray *a = json_object_get_array_member (o, "sbatch_args");
    plan->sbatch_args = g_new0 (char *, json_array_get_length (a) + 1);
    for (guint i = 0; i < json_array_get_length (a); i++)
      plan->sbatch_args[i] = g_strdup (json_array_get_string_element (a, i));
  }
  for (guint i = 0; entries && i < json_array_get_length (entries); i++) {
    JsonObject *e = json_array_get_object_element (entries, i);
    guint rule = json_object_get_int_member_with_default (e, "rule", 0);

    if (rule >= plan->rules->len)
      continue;
    g_ptr_array_add (plan->entries, batch_entry_new
        (json_object_get_string_member (e, "input"),
            json_object_get_string_member (e, "output"),
            json_object_get_int_member_with_default (e, "bytes", 0), rule));
  }
  submissions_from_json (plan, json_object_get_array_member (o,
          "submissions"));
}

BatchPlan *
batch_plan_load_file (const char *path, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  BatchPlan *plan = NULL;
  JsonNode *root;
  JsonObject *o;

  if (!json_parser_load_from_file (parser, path, error))
    goto out;
  root = json_parser_get_root (parser);
  o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  if (o == NULL || !json_object_has_member (o, "output_dir")
      || !json_object_has_member (o, "pipelines")) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is not a clvision-batch plan", path);
    goto out;
  }
  plan = plan_alloc (json_object_get_string_member (o, "output_dir"));
  plan_from_json (plan, o);
out:
  g_object_unref (parser);
  return plan;
}

BatchPlan *
batch_plan_load (const char *outdir, GError ** error)
{
  char *path = g_build_filename (outdir, SLURM_DIR, "plan.json", NULL);
  BatchPlan *plan = batch_plan_load_file (path, error);

  g_free (path);
  return plan;
}

/* ---- Shares ----------------------------------------------------------- */

static gint
compare_by_bytes (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GPtrArray *entries = user_data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  guint64 ba = ((BatchEntry *) entries->pdata[ia])->bytes;
  guint64 bb = ((BatchEntry *) entries->pdata[ib])->bytes;

  if (ba != bb)
    return ba > bb ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static gint
compare_indices (gconstpointer a, gconstpointer b)
{
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  return ia < ib ? -1 : ia > ib;
}

guint
batch_plan_add_submission (BatchPlan * plan, GArray * todo)
{
  BatchSubmission *s = g_new0 (BatchSubmission, 1);
  guint ntasks = MIN (todo->len, MAX (plan->max_tasks, 1));
  GArray *order = g_array_copy (todo);
  guint64 *load = g_new0 (guint64, ntasks);

  s->tasks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint t = 0; t < ntasks; t++)
    g_ptr_array_add (s->tasks, g_array_new (FALSE, FALSE, sizeof (guint)));
  g_array_sort_with_data (order, compare_by_bytes, plan->entries);
  for (guint i = 0; i < order->len; i++) {
    guint e = g_array_index (order, guint, i), best = 0;
    for (guint t = 1; t < ntasks; t++)
      if (load[t] < load[best])
        best = t;
    g_array_append_val ((GArray *) s->tasks->pdata[best], e);
    load[best] += ((BatchEntry *) plan->entries->pdata[e])->bytes;
  }
  for (guint t = 0; t < ntasks; t++)
    g_array_sort (s->tasks->pdata[t], compare_indices);
  g_array_unref (order);
  g_free (load);
  g_ptr_array_add (plan->submissions, s);
  return plan->submissions->len - 1;
}

void
batch_plan_drop_submission (BatchPlan * plan, guint k)
{
  char *dir = batch_plan_submission_dir (plan, k);
  char *script = g_build_filename (dir, "job.sh", NULL);

  g_unlink (script);
  g_rmdir (dir);
  g_free (script);
  g_free (dir);
  g_ptr_array_remove_index (plan->submissions, k);
}

char *
batch_plan_submission_dir (BatchPlan * plan, guint k)
{
  char *name = g_strdup_printf ("submission-%u", k);
  char *dir = g_build_filename (plan->outdir, SLURM_DIR, name, NULL);

  g_free (name);
  return dir;
}

gboolean
batch_plan_entry_done (BatchPlan * plan, guint e)
{
  char *final = g_build_filename (plan->outdir,
      ((BatchEntry *) plan->entries->pdata[e])->output, NULL);
  gboolean done = g_file_test (final, G_FILE_TEST_EXISTS);

  g_free (final);
  return done;
}

GArray *
batch_plan_unfinished (BatchPlan * plan, const gboolean * live)
{
  GArray *todo = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint e = 0; e < plan->entries->len; e++)
    if (!batch_plan_entry_done (plan, e) && !(live && live[e]))
      g_array_append_val (todo, e);
  return todo;
}

/* ---- Tasks ------------------------------------------------------------ */

static char *
task_file (BatchPlan * plan, guint k, guint t, const char *ext)
{
  char *dir = batch_plan_submission_dir (plan, k);
  char *name = g_strdup_printf ("task-%u.%s", t, ext);
  char *path = g_build_filename (dir, name, NULL);

  g_free (dir);
  g_free (name);
  return path;
}

void
batch_plan_record_task (BatchPlan * plan, guint k, guint t,
    const char *job_id)
{
  char *path = task_file (plan, k, t, "id");

  if (job_id)
    g_file_set_contents (path, job_id, -1, NULL);
  g_free (path);
}

GHashTable *
batch_plan_raw_job_ids (BatchPlan * plan, guint k)
{
  BatchSubmission *s = plan->submissions->pdata[k];
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);

  for (guint t = 0; t < s->tasks->len; t++) {
    char *path = task_file (plan, k, t, "id"), *id;
    if (g_file_get_contents (path, &id, NULL, NULL))
      g_hash_table_replace (ids, g_strstrip (id), g_strdup_printf ("%u", t));
    g_free (path);
  }
  return ids;
}

char *
batch_plan_join_keys (GHashTable * table)
{
  GString *s = g_string_new (NULL);
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_string_append_printf (s, "%s%s", s->len ? "," : "", (char *) key);
  return g_string_free (s, FALSE);
}

int
batch_plan_run_share (BatchPlan * plan, guint k, guint t, double interval)
{
  BatchSubmission *s = plan->submissions->pdata[k];
  GArray *share = s->tasks->pdata[t];
  GPtrArray *entries = g_ptr_array_new ();
  char *summary = task_file (plan, k, t, "json");
  char *label = g_strdup_printf ("task %u", t);
  GError *error = NULL;
  guint jobs = 0;
  char **devices = batch_devices_resolve (plan->devices, &jobs, &error);
  BatchConfig cfg = { plan->rules, plan->outdir, devices,
    plan->jobs ? plan->jobs : jobs, plan->retries, TRUE, plan->log_dir,
    summary, BATCH_PROGRESS_LINES, interval, label
  };
  int status = 2;

  for (guint i = 0; i < share->len; i++)
    g_ptr_array_add (entries, plan->entries->pdata[g_array_index (share,
                guint, i)]);
  if (devices)
    status = batch_run (&cfg, entries);
  else
    g_printerr ("clvision-batch: %s: %s\n", label, error->message);
  g_clear_error (&error);
  g_strfreev (devices);
  g_ptr_array_unref (entries);
  g_free (summary);
  g_free (label);
  return status;
}

/* ---- Merged results --------------------------------------------------- */

/* The newest record of each input among the task summaries, a record with
 * status done winning over newer ones while the output exists (a task that
 * found it finished says "skipped"). */
static GHashTable *
read_task_summaries (BatchPlan * plan)
{
  GHashTable *records = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, batch_result_free);

  for (guint k = 0; k < plan->submissions->len; k++) {
    BatchSubmission *s = plan->submissions->pdata[k];
    for (guint t = 0; t < s->tasks->len; t++) {
      GHashTable *task = g_hash_table_new_full (g_str_hash, g_str_equal,
          g_free, batch_result_free);
      char *path = task_file (plan, k, t, "json");
      GHashTableIter it;
      gpointer input, r;

      batch_summary_read (path, task, NULL);
      g_hash_table_iter_init (&it, task);
      while (g_hash_table_iter_next (&it, &input, &r)) {
        BatchResult *old = g_hash_table_lookup (records, input);
        if (old && old->status == BATCH_DONE
            && ((BatchResult *) r)->status == BATCH_SKIPPED)
          continue;
        g_hash_table_iter_steal (&it);
        g_hash_table_replace (records, input, r);
      }
      g_hash_table_unref (task);
      g_free (path);
    }
  }
  return records;
}

GHashTable *
batch_plan_merge_results (BatchPlan * plan)
{
  GHashTable *records = read_task_summaries (plan);
  GHashTable *merged = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      batch_result_free);

  for (guint e = 0; e < plan->entries->len; e++) {
    BatchEntry *entry = plan->entries->pdata[e];
    BatchResult *r = g_hash_table_lookup (records, entry->input);
    gboolean done = batch_plan_entry_done (plan, e);

    if (r)
      g_hash_table_steal (records, entry->input);
    else
      r = g_new0 (BatchResult, 1);
    r->entry = entry;
    if (done && r->status != BATCH_DONE)
      r->status = BATCH_DONE;
    else if (!done && (r->status == BATCH_DONE || r->status == BATCH_SKIPPED))
      r->status = BATCH_PENDING;
    g_hash_table_replace (merged, entry->input, r);
  }
  g_hash_table_unref (records);
  return merged;
}

gboolean
batch_plan_write_summary (BatchPlan * plan, GHashTable * merged,
    GError ** error)
{
  BatchResult *results = g_new0 (BatchResult, plan->entries->len);
  char *path = g_build_filename (plan->outdir, "clvision-batch.json", NULL);
  double seconds = 0;
  gboolean ok;

  for (guint e = 0; e < plan->entries->len; e++) {
    BatchEntry *entry = plan->entries->pdata[e];
    results[e] = *(BatchResult *) g_hash_table_lookup (merged, entry->input);
    seconds += results[e].seconds;
  }
  ok = batch_summary_write (path, plan->rules, plan->outdir, results,
      plan->entries->len, seconds, FALSE, error);
  g_free (results);
  g_free (path);
  return ok;
}
