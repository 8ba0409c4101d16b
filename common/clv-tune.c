/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tuning values; see clv-tune.h. */
#include "clv-opencl.h"
#include "clv-opencl-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- The tuning file ----------------------------------------------------- */

#define TUNING_DEVICE_GROUP "device"

char *
clv_tuning_path (ClvDevice * dev)
{
  GChecksum *ck = clv_device_checksum (dev);
  char *dir, *file, *path;

  dir = clv_program_cache_dir ();
  file = g_strdup_printf ("tune-%.16s.ini", g_checksum_get_string (ck));
  path = g_build_filename (dir, file, NULL);
  g_free (file);
  g_free (dir);
  g_checksum_free (ck);
  return path;
}

static gboolean
is_macro_name (const char *s)
{
  if (!g_ascii_isupper (*s))
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isupper (*s) && !g_ascii_isdigit (*s) && *s != '_')
      return FALSE;
  return TRUE;
}

/* Checks every kernel group of `kf` (macro names, integer values) and copies
 * them into `into` (nullable); FALSE with `error` set at the first bad one. */
static gboolean
tuning_check (GKeyFile * kf, GHashTable * into, GError ** error)
{
  gchar **groups = g_key_file_get_groups (kf, NULL);
  gboolean ok = TRUE;

  for (gchar ** g = groups; ok && *g; g++) {
    gchar **keys;
    if (strcmp (*g, TUNING_DEVICE_GROUP) == 0)
      continue;
    keys = g_key_file_get_keys (kf, *g, NULL, NULL);
    for (gchar ** k = keys; ok && k && *k; k++) {
      char *v = g_key_file_get_value (kf, *g, *k, NULL);
      gint64 n;
      if (!is_macro_name (*k) || v == NULL
          || !g_ascii_string_to_signed (v, 10, G_MININT32, G_MAXINT32, &n,
              NULL)) {
        g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
            "[%s] %s=%s is not MACRO=integer", *g, *k, v ? v : "");
        ok = FALSE;
      } else if (into) {
        g_hash_table_replace (into, g_strdup (*k), g_strdup (v));
      }
      g_free (v);
    }
    g_strfreev (keys);
  }
  g_strfreev (groups);
  return ok;
}

/* The stored values of `dev` (empty when there is no file; a file that
 * cannot be used is reported once and ignored as a whole). */
GHashTable *
clv_tuning_load (ClvDevice * dev)
{
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  char *path = clv_tuning_path (dev);
  GKeyFile *kf = g_key_file_new ();
  GError *err = NULL;

  if (g_strcmp0 (g_getenv ("CLVISION_AUTOTUNE"), "0") == 0) {
    /* Benchmarks of the defaults, and clvision-tune itself. */
  } else if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &err)) {
    if (!g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      g_warning ("Ignoring the tuning file %s of %s (%s): kernels use their "
          "defaults; run clvision-tune again or delete it", path,
          dev->device_name, err->message);
  } else if (!tuning_check (kf, values, &err)) {
    g_warning ("Ignoring the tuning file %s of %s (%s): kernels use their "
        "defaults; run clvision-tune again or delete it", path,
        dev->device_name, err->message);
    g_hash_table_remove_all (values);
  }
  g_clear_error (&err);
  g_key_file_free (kf);
  g_free (path);
  return values;
}

gboolean
clv_tuning_save (ClvDevice * dev, GKeyFile * per_kernel, GError ** error)
{
  char *path = clv_tuning_path (dev), *dir = g_path_get_dirname (path);
  char *data = NULL;
  gboolean ok = FALSE;

  if (!tuning_check (per_kernel, NULL, error))
    goto out;
  g_key_file_set_string (per_kernel, TUNING_DEVICE_GROUP, "name",
      dev->device_name);
  g_key_file_set_string (per_kernel, TUNING_DEVICE_GROUP, "platform",
      dev->platform_name);
  g_key_file_set_string (per_kernel, TUNING_DEVICE_GROUP, "driver",
      dev->driver_version);
  data = g_key_file_to_data (per_kernel, NULL, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "Cannot create %s: %s", dir, g_strerror (errno));
    goto out;
  }
  ok = g_file_set_contents (path, data, -1, error);
out:
  g_free (data);
  g_free (dir);
  g_free (path);
  return ok;
}

/* ---- CLVISION_TUNE and the values read --------------------------------- */

char *
clv_tune_lookup (const char *list, const char *name)
{
  char **items = g_strsplit (list, ",", -1);
  char *found = NULL;

  for (char **it = items; *it; it++) {
    char *eq = strchr (*it, '=');
    if (eq == NULL)
      continue;
    *eq = '\0';
    if (strcmp (g_strstrip (*it), name) == 0) {
      g_free (found);
      found = g_strdup (g_strstrip (eq + 1));
    }
  }
  g_strfreev (items);
  return found;
}

const char *
clv_tune_string (const char *name, const char *default_value)
{
  static GMutex lock;
  static GHashTable *values;    /* interned copies, alive for the process */
  const char *env = g_getenv ("CLVISION_TUNE");
  char *value;
  const char *interned;

  if (env == NULL || *env == '\0'
      || (value = clv_tune_lookup (env, name)) == NULL)
    return default_value;
  g_mutex_lock (&lock);
  if (values == NULL)
    values = g_hash_table_new (g_str_hash, g_str_equal);
  interned = g_hash_table_lookup (values, value);
  if (interned == NULL) {
    g_hash_table_add (values, value);
    interned = value;
  } else {
    g_free (value);
  }
  g_mutex_unlock (&lock);
  return interned;
}

static gint64
parse_int_or (const char *s, gint64 default_value)
{
  gint64 v;

  if (s == NULL || !g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64,
          &v, NULL))
    return default_value;
  return v;
}

gint64
clv_tune_int (const char *name, gint64 default_value)
{
  return parse_int_or (clv_tune_string (name, NULL), default_value);
}

const char *
clv_device_tune_string (ClvDevice * dev, const char *name,
    const char *default_value)
{
  const char *env = g_getenv ("CLVISION_TUNE");
  const char *v;

  /* CLVISION_TUNE is an experiment against the defaults (the benchmarks'
   * sweeps): stored values mixed into it could make combinations nobody
   * chose, such as a band that no longer fits in local memory. */
  if (env && *env)
    return clv_tune_string (name, default_value);
  /* dev->tuned is only written when the device is created. */
  v = g_hash_table_lookup (dev->tuned, name);
  return v ? v : default_value;
}

gint64
clv_device_tune_int (ClvDevice * dev, const char *name, gint64 default_value)
{
  return parse_int_or (clv_device_tune_string (dev, name, NULL),
      default_value);
}
