/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pipeline templates: gst-launch syntax with {input}, {output}, {stem},
 * {device} and {uri}.  Values go in as quoted strings, so that any file
 * name (spaces, quotes, '!') reaches the property whole. */
#include <string.h>

#include "batch.h"

static const char *const field_names[] = { "input", "output", "stem",
  "device", "uri"
};

gboolean
batch_template_check (const char *tmpl, GError ** error)
{
  static const char *const needed[] = { "{input}", "{output}" };

  for (guint i = 0; i < G_N_ELEMENTS (needed); i++)
    if (strstr (tmpl, needed[i]) == NULL) {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "The pipeline names no %s: write e.g. 'filesrc location={input} "
          "! decodebin ! vjfacedetect ! roiexport location={output} ! "
          "fakesink'", needed[i]);
      return FALSE;
    }
  return TRUE;
}

/* The field that starts at `p` ("{name}"), its length in `len`, or -1. */
static int
field_at (const char *p, gsize * len)
{
  for (guint i = 0; i < G_N_ELEMENTS (field_names); i++) {
    gsize n = strlen (field_names[i]);
    if (p[0] == '{' && strncmp (p + 1, field_names[i], n) == 0
        && p[n + 1] == '}') {
      *len = n + 2;
      return (int) i;
    }
  }
  return -1;
}

static void
append_escaped (GString * s, const char *value)
{
  for (const char *v = value; *v; v++) {
    if (*v == '"' || *v == '\\')
      g_string_append_c (s, '\\');
    g_string_append_c (s, *v);
  }
}

char *
batch_template_expand (const char *tmpl, const BatchFields * f)
{
  char *uri = g_filename_to_uri (f->input, NULL, NULL);
  const char *values[] = { f->input, f->output, f->stem, f->device,
    uri ? uri : ""
  };
  GString *s = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = tmpl; *p;) {
    gsize len;
    int field = field_at (p, &len);

    if (field >= 0) {
      if (!quoted)
        g_string_append_c (s, '"');
      append_escaped (s, values[field] ? values[field] : "");
      if (!quoted)
        g_string_append_c (s, '"');
      p += len;
      continue;
    }
    if (*p == '\\' && p[1] != '\0') {
      g_string_append_len (s, p, 2);
      p += 2;
      continue;
    }
    if (*p == '"')
      quoted = !quoted;
    g_string_append_c (s, *p++);
  }
  g_free (uri);
  return g_string_free (s, FALSE);
}

/* ---- Rules ------------------------------------------------------------ */

BatchRule *
batch_rule_new (const char *match, const char *tmpl, const char *suffix)
{
  BatchRule *r = g_new0 (BatchRule, 1);

  r->match = g_strdup (match);
  r->template = g_strdup (tmpl);
  r->suffix = g_strdup (suffix);
  return r;
}

void
batch_rule_free (gpointer rule)
{
  BatchRule *r = rule;

  g_free (r->match);
  g_free (r->template);
  g_free (r->suffix);
  g_free (r);
}

gboolean
batch_rules_equal (GPtrArray * a, GPtrArray * b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++) {
    BatchRule *x = a->pdata[i], *y = b->pdata[i];
    if (g_strcmp0 (x->match, y->match) || g_strcmp0 (x->template,
            y->template) || g_strcmp0 (x->suffix, y->suffix))
      return FALSE;
  }
  return TRUE;
}

GPtrArray *
batch_rules_load (const char *path, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  GPtrArray *rules = g_ptr_array_new_with_free_func (batch_rule_free);
  char **groups = NULL;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error))
    goto fail;
  groups = g_key_file_get_groups (kf, NULL);
  for (char **g = groups; *g; g++) {
    char *tmpl = g_key_file_get_string (kf, *g, "pipeline", error);
    char *suffix = g_key_file_get_string (kf, *g, "suffix", NULL);
    gboolean ok = tmpl && batch_template_check (tmpl, error);

    if (ok)
      g_ptr_array_add (rules, batch_rule_new (*g, tmpl, suffix ? suffix
              : ".jsonl"));
    g_free (tmpl);
    g_free (suffix);
    if (!ok) {
      g_prefix_error (error, "[%s] ", *g);
      goto fail;
    }
  }
  if (rules->len == 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
        "no [GLOB] group with a pipeline");
    goto fail;
  }
  g_strfreev (groups);
  g_key_file_unref (kf);
  return rules;
fail:
  g_prefix_error (error, "In the pipeline file '%s': ", path);
  g_strfreev (groups);
  g_key_file_unref (kf);
  g_ptr_array_unref (rules);
  return NULL;
}
