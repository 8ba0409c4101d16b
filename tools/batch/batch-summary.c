/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JSON summary of a run (json-glib): per file its status, attempts,
 * device, frames, ROIs (faces among them), pixels, seconds and error; totals
 * over the archive.  The timing fields are "seconds" and "device". */
#include <string.h>

#include <json-glib/json-glib.h>

#include "batch.h"

static const char *const status_names[] = {
  [BATCH_PENDING] = "pending",
  [BATCH_DONE] = "done",
  [BATCH_SKIPPED] = "skipped",
  [BATCH_FAILED] = "failed",
  [BATCH_INTERRUPTED] = "interrupted",
};

const char *
batch_status_name (BatchStatus status)
{
  return status_names[status];
}

gboolean
batch_status_parse (const char *name, BatchStatus * status)
{
  for (guint i = 0; i < G_N_ELEMENTS (status_names); i++)
    if (g_strcmp0 (name, status_names[i]) == 0) {
      *status = (BatchStatus) i;
      return TRUE;
    }
  return FALSE;
}

void
batch_result_clear (BatchResult * r)
{
  g_clear_pointer (&r->device, g_free);
  g_clear_pointer (&r->error, g_free);
}

void
batch_result_free (gpointer r)
{
  batch_result_clear (r);
  g_free (r);
}

static void
add_uint (JsonBuilder * b, const char *name, guint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) v);
}

static void
add_string (JsonBuilder * b, const char *name, const char *v)
{
  json_builder_set_member_name (b, name);
  if (v)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

/* Whether the file was analysed (its counts mean something). */
static gboolean
has_counts (const BatchResult * r)
{
  return r->status == BATCH_DONE || r->attempts > 0;
}

static void
add_file (JsonBuilder * b, const BatchResult * r)
{
  json_builder_begin_object (b);
  add_string (b, "input", r->entry->input);
  add_string (b, "output", r->entry->output);
  add_string (b, "status", batch_status_name (r->status));
  add_uint (b, "attempts", r->attempts);
  if (has_counts (r)) {
    add_string (b, "device", r->device);
    add_uint (b, "frames", r->frames);
    add_uint (b, "regions", r->regions);
    add_uint (b, "faces", r->faces);
    add_uint (b, "pixels", r->pixels);
    json_builder_set_member_name (b, "seconds");
    json_builder_add_double_value (b, r->seconds);
  }
  if (r->error)
    add_string (b, "error", r->error);
  json_builder_end_object (b);
}

static void
add_totals (JsonBuilder * b, const BatchResult * results, guint n)
{
  guint counts[G_N_ELEMENTS (status_names)] = { 0 };
  guint64 frames = 0, regions = 0, faces = 0, pixels = 0;

  for (guint i = 0; i < n; i++) {
    counts[results[i].status]++;
    frames += results[i].frames;
    regions += results[i].regions;
    faces += results[i].faces;
    pixels += results[i].pixels;
  }
  json_builder_set_member_name (b, "totals");
  json_builder_begin_object (b);
  add_uint (b, "files", n);
  for (guint s = 0; s < G_N_ELEMENTS (status_names); s++)
    add_uint (b, status_names[s], counts[s]);
  add_uint (b, "frames", frames);
  add_uint (b, "regions", regions);
  add_uint (b, "faces", faces);
  add_uint (b, "pixels", pixels);
  json_builder_end_object (b);
}

static void
add_rules (JsonBuilder * b, GPtrArray * rules)
{
  json_builder_set_member_name (b, "pipelines");
  json_builder_begin_array (b);
  for (guint i = 0; i < rules->len; i++) {
    BatchRule *r = rules->pdata[i];
    json_builder_begin_object (b);
    add_string (b, "match", r->match);
    add_string (b, "pipeline", r->template);
    add_string (b, "suffix", r->suffix);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

gboolean
batch_summary_write (const char *path, GPtrArray * rules,
    const char *outdir, const BatchResult * results, guint n,
    double seconds, gboolean interrupted, GError ** error)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;
  gboolean ok;

  json_builder_begin_object (b);
  add_rules (b, rules);
  add_string (b, "output_dir", outdir);
  json_builder_set_member_name (b, "seconds");
  json_builder_add_double_value (b, seconds);
  json_builder_set_member_name (b, "interrupted");
  json_builder_add_boolean_value (b, interrupted);
  add_totals (b, results, n);
  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    add_file (b, &results[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  {
    gsize len;
    char *text = json_generator_to_data (gen, &len);
    /* g_file_set_contents: a temporary file renamed over the summary. */
    ok = g_file_set_contents (path, text, len, error);
    g_free (text);
  }
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return ok;
}

static guint64
member_uint (JsonObject * o, const char *name)
{
  return json_object_has_member (o, name)
      ? (guint64) MAX (json_object_get_int_member (o, name), 0) : 0;
}

static BatchResult *
result_from_json (JsonObject * o)
{
  BatchResult *r = g_new0 (BatchResult, 1);

  if (!batch_status_parse (json_object_get_string_member_with_default (o,
              "status", ""), &r->status))
    r->status = BATCH_PENDING;
  r->attempts = member_uint (o, "attempts");
  r->device = g_strdup (json_object_get_string_member_with_default (o,
          "device", NULL));
  r->frames = member_uint (o, "frames");
  r->regions = member_uint (o, "regions");
  r->faces = member_uint (o, "faces");
  r->pixels = member_uint (o, "pixels");
  r->seconds = json_object_get_double_member_with_default (o, "seconds", 0);
  r->error = g_strdup (json_object_get_string_member_with_default (o,
          "error", NULL));
  return r;
}

gboolean
batch_summary_read (const char *path, GHashTable * results, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root;
  JsonArray *files;
  gboolean ok = FALSE;

  if (!json_parser_load_from_file (parser, path, error))
    goto out;
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root)
      || !json_object_has_member (json_node_get_object (root), "files")) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is not a clvision-batch summary", path);
    goto out;
  }
  files = json_object_get_array_member (json_node_get_object (root), "files");
  for (guint i = 0; i < json_array_get_length (files); i++) {
    JsonObject *o = json_array_get_object_element (files, i);
    const char *input = json_object_get_string_member_with_default (o,
        "input", NULL);
    if (input)
      g_hash_table_replace (results, g_strdup (input), result_from_json (o));
  }
  ok = TRUE;
out:
  g_object_unref (parser);
  return ok;
}
