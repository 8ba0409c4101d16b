/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs; see clv-program.h. */
#include "clv-opencl.h"
#include "clv-opencl-private.h"
#include "clv-kernels.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

static ClvProgramStats stats;
G_LOCK_DEFINE_STATIC (stats);

#define STAT_INC(field) G_STMT_START { G_LOCK (stats); stats.field++; \
  G_UNLOCK (stats); } G_STMT_END

void
clv_program_stats (ClvProgramStats * out)
{
  G_LOCK (stats);
  *out = stats;
  G_UNLOCK (stats);
}

char *
clv_program_cache_dir (void)
{
  /* Read the variable each time: GLib caches g_get_user_cache_dir(). */
  const char *xdg = g_getenv ("XDG_CACHE_HOME");

  return g_build_filename (xdg && *xdg ? xdg : g_get_user_cache_dir (),
      "clvision", NULL);
}

/* Cache files: magic, payload length, payload checksum, then the binary. */
#define CACHE_MAGIC "CLVBIN01"

static char *
cache_path (ClvDevice * dev, const char *source, const char *options)
{
  GChecksum *ck = clv_device_checksum (dev);
  char *dir, *file, *path;

  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) options, -1);
  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) source, -1);
  dir = clv_program_cache_dir ();
  file = g_strconcat (g_checksum_get_string (ck), ".bin", NULL);
  path = g_build_filename (dir, file, NULL);
  g_free (file);
  g_free (dir);
  g_checksum_free (ck);
  return path;
}

static char *
payload_digest (const guint8 * data, gsize len)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, len);
}

/* The cached binary at `path`, or NULL if absent, truncated or corrupt. */
static guint8 *
cache_read (const char *path, gsize * len)
{
  char *contents = NULL, *digest = NULL;
  gsize n = 0;
  guint8 *bin = NULL;
  guint64 plen;

  if (!g_file_get_contents (path, &contents, &n, NULL))
    return NULL;
  if (n < 8 + 8 + 64 || memcmp (contents, CACHE_MAGIC, 8) != 0)
    goto reject;
  memcpy (&plen, contents + 8, 8);
  if (plen != n - 80)
    goto reject;
  digest = payload_digest ((guint8 *) contents + 80, plen);
  if (memcmp (digest, contents + 16, 64) != 0)
    goto reject;
  bin = g_memdup2 (contents + 80, plen);
  *len = plen;
  g_free (digest);
  g_free (contents);
  return bin;

reject:
  STAT_INC (disk_cache_rejects);
  g_free (digest);
  g_free (contents);
  return NULL;
}

static void
cache_write (const char *path, const guint8 * bin, gsize len)
{
  static gint warned;
  GError *error = NULL;
  char *dir = g_path_get_dirname (path);
  char *digest = payload_digest (bin, len);
  guint64 plen = len;
  guint8 *buf = g_malloc (80 + len);

  memcpy (buf, CACHE_MAGIC, 8);
  memcpy (buf + 8, &plen, 8);
  memcpy (buf + 16, digest, 64);
  memcpy (buf + 80, bin, len);
  /* g_file_set_contents writes a temporary file and renames it, so readers
   * in other processes never see half a file. A failure only costs a
   * rebuild: said once per process, then programs run uncached. */
  if (g_mkdir_with_parents (dir, 0700) != 0) {
    int saved = errno;
    g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "cannot create %s: %s", dir, g_strerror (saved));
  }
  if (error == NULL && g_file_set_contents (path, (char *) buf, 80 + len,
          &error))
    STAT_INC (disk_cache_writes);
  if (error != NULL && g_atomic_int_compare_and_exchange (&warned, FALSE,
          TRUE))
    g_warning ("The OpenCL program cache is not writable (%s): programs are "
        "built from source in every process; set XDG_CACHE_HOME to a "
        "writable folder", error->message);
  g_clear_error (&error);
  g_free (buf);
  g_free (digest);
  g_free (dir);
}

static char *
build_log (ClvDevice * dev, cl_program prog)
{
  size_t n = 0;
  char *log;

  if (clGetProgramBuildInfo (prog, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
          &n) != CL_SUCCESS || n == 0)
    return g_strdup ("(no build log)");
  log = g_malloc0 (n + 1);
  clGetProgramBuildInfo (prog, dev->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
  return g_strstrip (log);
}

static char *
full_options (ClvDevice * dev, const char *options)
{
  /* CLVISION_CL_OPTIONS last, so that it can override (a compiler's
   * diagnostics or register limit, say, as in -cl-nv-verbose). */
  const char *extra = g_getenv ("CLVISION_CL_OPTIONS");

  return g_strdup_printf ("-cl-std=CL1.2 -DCLV_SIMD_WIDTH=%u "
      "-DCLV_COMPUTE_UNITS=%u -DCLV_LOCAL_MEM_SIZE=%" G_GUINT64_FORMAT " %s%s%s",
      dev->simd_width, dev->compute_units, dev->local_mem_size,
      options ? options : "", extra ? " " : "", extra ? extra : "");
}

static cl_program
program_from_cache (ClvDevice * dev, const char *path, const char *opts)
{
  gsize len = 0;
  guint8 *bin = cache_read (path, &len);
  const unsigned char *bins[1] = { bin };
  cl_int st = CL_SUCCESS, bst = CL_SUCCESS;
  cl_program prog;

  if (bin == NULL)
    return NULL;
  prog = clCreateProgramWithBinary (dev->context, 1, &dev->device, &len, bins,
      &bst, &st);
  g_free (bin);
  if (st != CL_SUCCESS || bst != CL_SUCCESS) {
    STAT_INC (disk_cache_rejects);
    if (prog)
      clReleaseProgram (prog);
    return NULL;
  }
  if (clBuildProgram (prog, 1, &dev->device, opts, NULL, NULL) != CL_SUCCESS) {
    STAT_INC (disk_cache_rejects);
    clReleaseProgram (prog);
    return NULL;
  }
  STAT_INC (disk_cache_hits);
  return prog;
}

static void
program_to_cache (ClvDevice * dev, cl_program prog, const char *path)
{
  size_t len = 0;
  unsigned char *bin;

  if (clGetProgramInfo (prog, CL_PROGRAM_BINARY_SIZES, sizeof (len), &len,
          NULL) != CL_SUCCESS || len == 0)
    return;
  bin = g_malloc (len);
  if (clGetProgramInfo (prog, CL_PROGRAM_BINARIES, sizeof (bin), &bin,
          NULL) == CL_SUCCESS)
    cache_write (path, bin, len);
  g_free (bin);
}

cl_program
clv_program_build (ClvDevice * dev, const char *name, const char *source,
    const char *options, GError ** error)
{
  char *opts = full_options (dev, options);
  char *path = cache_path (dev, source, opts);
  cl_program prog;
  cl_int st;

  prog = program_from_cache (dev, path, opts);
  if (prog)
    goto done;

  CLV_CHECK ((prog = clCreateProgramWithSource (dev->context, 1, &source, NULL,
              &st), st), error, fail);
  STAT_INC (builds_from_source);
  st = clBuildProgram (prog, 1, &dev->device, opts, NULL, NULL);
  if (st != CL_SUCCESS) {
    char *log = build_log (dev, prog);
    g_set_error (error, CLV_ERROR, CLV_ERROR_BUILD,
        "Building OpenCL program kernels/%s.cl for %s failed (%s).\n"
        "Options: %s\nBuild log:\n%s", name, dev->device_name,
        clv_cl_error_name (st), opts, log);
    g_free (log);
    goto fail;
  }
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN) == FALSE) {
    char *log = build_log (dev, prog);
    g_debug ("built kernels/%s.cl for %s with %s\n%s", name, dev->device_name,
        opts, log);
    g_free (log);
  }
  program_to_cache (dev, prog, path);

done:
  g_free (path);
  g_free (opts);
  return prog;

fail:
  if (prog)
    clReleaseProgram (prog);
  g_free (path);
  g_free (opts);
  return NULL;
}

cl_program
clv_device_get_program (ClvDevice * dev, const char *name,
    const char *options, GError ** error)
{
  return clv_device_get_program_generated (dev, name, NULL, options, error);
}

cl_program
clv_device_get_program_generated (ClvDevice * dev, const char *name,
    const char *generated, const char *options, GError ** error)
{
  const char *embedded = clv_kernel_source (name);
  char *source, *key;
  cl_program prog;

  if (embedded == NULL) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "No embedded kernel source kernels/%s.cl", name);
    return NULL;
  }
  source = g_strconcat (embedded, generated ? "\n" : "", generated, NULL);
  key = g_strconcat (name, "\n", options ? options : "", "\n", generated,
      NULL);
  g_mutex_lock (&dev->lock);
  prog = g_hash_table_lookup (dev->programs, key);
  if (prog == NULL) {
    prog = clv_program_build (dev, name, source, options, error);
    if (prog)
      g_hash_table_insert (dev->programs, g_strdup (key), prog);
  }
  if (prog)
    clRetainProgram (prog);
  g_mutex_unlock (&dev->lock);
  g_free (key);
  g_free (source);
  return prog;
}

cl_kernel
clv_kernel_new (cl_program program, const char *name, GError ** error)
{
  cl_kernel k = NULL;
  cl_int st;

  CLV_CHECK ((k = clCreateKernel (program, name, &st), st), error, fail);
  return k;
fail:
  return NULL;
}

gboolean
clv_kernel_set_args (cl_kernel kernel, GError ** error, ...)
{
  va_list ap;
  size_t size;
  cl_uint index = 0;

  va_start (ap, error);
  while ((size = va_arg (ap, size_t)) != 0) {
    const void *value = va_arg (ap, const void *);
    CLV_CHECK (clSetKernelArg (kernel, index, size, value), error, fail);
    index++;
  }
  va_end (ap);
  return TRUE;

fail:
  va_end (ap);
  g_prefix_error (error, "kernel argument %u: ", index);
  return FALSE;
}
