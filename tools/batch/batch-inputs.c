/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The archive: files, folders (their files, recursively, the folder's tree
 * kept under the output folder) and list files (a path per line, relative
 * to the list's own folder; blank lines and '#' comments skipped). */
#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "batch.h"

BatchEntry *
batch_entry_new (const char *input, const char *output, guint64 bytes,
    guint rule)
{
  BatchEntry *e = g_new0 (BatchEntry, 1);

  e->input = g_strdup (input);
  e->output = g_strdup (output);
  e->bytes = bytes;
  e->rule = rule;
  return e;
}

void
batch_entry_free (gpointer entry)
{
  BatchEntry *e = entry;

  if (e == NULL)
    return;
  g_free (e->input);
  g_free (e->output);
  g_free (e);
}

typedef struct
{
  const BatchInputSpec *spec;
  GPtrArray *entries;
  GHashTable *outputs;          /* output -> input, for collisions */
} Resolver;

/* `rel` (a path relative to where the outputs go) without its extension,
 * with the suffix. */
static char *
output_name (const char *rel, const char *suffix)
{
  const char *base = strrchr (rel, '/');
  const char *dot = strrchr (base ? base + 1 : rel, '.');
  gsize keep = dot && dot != (base ? base + 1 : rel) ? (gsize) (dot - rel)
      : strlen (rel);

  return g_strdup_printf ("%.*s%s", (int) keep, rel, suffix);
}

/* The first rule for the file `name`, or -1. */
static int
rule_for (const BatchInputSpec * spec, const char *name)
{
  for (guint i = 0; i < spec->rules->len; i++) {
    BatchRule *rule = spec->rules->pdata[i];
    if (rule->match == NULL || g_pattern_match_simple (rule->match, name))
      return (int) i;
  }
  return -1;
}

/* Adds the file `path`, named `rel` under the output folder; a file of a
 * folder that no rule is for is left out, one given by name is an error. */
static gboolean
add_file (Resolver * r, const char *path, const char *rel, guint64 bytes,
    gboolean named, GError ** error)
{
  char *name = g_path_get_basename (path);
  int rule = rule_for (r->spec, name);
  char *output;
  const char *other;

  g_free (name);
  if (rule < 0 && !named)
    return TRUE;
  if (rule < 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "No pipeline is for '%s': the pipeline file's groups do not match "
        "its name", path);
    return FALSE;
  }
  output = output_name (rel, ((BatchRule *) r->spec->rules->pdata[rule])
      ->suffix);
  other = g_hash_table_lookup (r->outputs, output);

  if (other != NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
        "'%s' and '%s' would both write '%s': give them different names or "
        "put them in folders", other, path, output);
    g_free (output);
    return FALSE;
  }
  g_ptr_array_add (r->entries, batch_entry_new (path, output, bytes,
          (guint) rule));
  g_hash_table_insert (r->outputs, output, g_strdup (path));
  return TRUE;
}

static gboolean
matches_patterns (const BatchInputSpec * spec, const char *name)
{
  if (spec->patterns == NULL || spec->patterns[0] == NULL)
    return TRUE;
  for (char **p = spec->patterns; *p; p++)
    if (g_pattern_match_simple (*p, name))
      return TRUE;
  return FALSE;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The files under `dir` (absolute), `rel` being its path under the folder
 * given; hidden files and the output folder are left out. */
static gboolean
add_folder (Resolver * r, const char *dir, const char *rel, GError ** error)
{
  GDir *d = g_dir_open (dir, 0, error);
  GPtrArray *names;
  const char *name;
  gboolean ok = TRUE;

  if (d == NULL)
    return FALSE;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d)))
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; ok && i < names->len; i++) {
    const char *n = names->pdata[i];
    char *path = g_build_filename (dir, n, NULL);
    char *sub = rel ? g_build_filename (rel, n, NULL) : g_strdup (n);
    GStatBuf st;

    if (g_stat (path, &st) != 0) {
      /* A dangling link or a file removed meanwhile: not an input. */
    } else if (S_ISDIR (st.st_mode)) {
      if (g_strcmp0 (path, r->spec->outdir) != 0)
        ok = add_folder (r, path, sub, error);
    } else if (S_ISREG (st.st_mode) && matches_patterns (r->spec, n)) {
      ok = add_file (r, path, sub, st.st_size, FALSE, error);
    }
    g_free (path);
    g_free (sub);
  }
  g_ptr_array_unref (names);
  return ok;
}

/* A file or folder; a relative `path` is taken from `base` (NULL: the
 * current folder). */
static gboolean
add_path (Resolver * r, const char *path, const char *base, GError ** error)
{
  char *abs = g_canonicalize_filename (path, base);
  GStatBuf st;
  gboolean ok;

  if (g_stat (abs, &st) != 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
        "Cannot read the input '%s': %s", path, g_strerror (e));
    ok = FALSE;
  } else if (S_ISDIR (st.st_mode)) {
    ok = add_folder (r, abs, NULL, error);
  } else {
    char *name = g_path_get_basename (abs);
    ok = add_file (r, abs, name, st.st_size, TRUE, error);
    g_free (name);
  }
  g_free (abs);
  return ok;
}

static gboolean
add_list (Resolver * r, const char *list, GError ** error)
{
  char *text, *dir, *abs;
  char **lines;
  gboolean ok = TRUE;

  if (!g_file_get_contents (list, &text, NULL, error))
    return FALSE;
  abs = g_canonicalize_filename (list, NULL);
  dir = g_path_get_dirname (abs);
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; ok && *l; l++) {
    char *line = g_strstrip (*l);
    if (line[0] != '\0' && line[0] != '#')
      ok = add_path (r, line, dir, error);
  }
  if (!ok)
    g_prefix_error (error, "In the list '%s': ", list);
  g_strfreev (lines);
  g_free (dir);
  g_free (abs);
  g_free (text);
  return ok;
}

GPtrArray *
batch_inputs_resolve (const BatchInputSpec * spec, GError ** error)
{
  Resolver r = { spec, g_ptr_array_new_with_free_func (batch_entry_free),
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free)
  };
  gboolean ok = TRUE;

  for (char **l = spec->lists; ok && l && *l; l++)
    ok = add_list (&r, *l, error);
  for (char **p = spec->paths; ok && p && *p; p++)
    ok = add_path (&r, *p, NULL, error);
  g_hash_table_unref (r.outputs);
  if (ok && r.entries->len == 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
        "No input files%s", spec->patterns && spec->patterns[0]
        ? " match the patterns" : "");
    ok = FALSE;
  }
  if (!ok) {
    g_ptr_array_unref (r.entries);
    return NULL;
  }
  return r.entries;
}
