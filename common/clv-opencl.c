/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision OpenCL runtime; see clv-opencl.h. */
#include "clv-opencl.h"
#include "clv-kernels.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (clv-error-quark, clv_error);

const char *
clv_cl_error_name (cl_int status)
{
  switch (status) {
#define CASE(x) case x: return #x
      CASE (CL_SUCCESS);
      CASE (CL_DEVICE_NOT_FOUND);
      CASE (CL_DEVICE_NOT_AVAILABLE);
      CASE (CL_COMPILER_NOT_AVAILABLE);
      CASE (CL_MEM_OBJECT_ALLOCATION_FAILURE);
      CASE (CL_OUT_OF_RESOURCES);
      CASE (CL_OUT_OF_HOST_MEMORY);
      CASE (CL_PROFILING_INFO_NOT_AVAILABLE);
      CASE (CL_MEM_COPY_OVERLAP);
      CASE (CL_IMAGE_FORMAT_MISMATCH);
      CASE (CL_IMAGE_FORMAT_NOT_SUPPORTED);
      CASE (CL_BUILD_PROGRAM_FAILURE);
      CASE (CL_MAP_FAILURE);
      CASE (CL_MISALIGNED_SUB_BUFFER_OFFSET);
      CASE (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      CASE (CL_COMPILE_PROGRAM_FAILURE);
      CASE (CL_LINKER_NOT_AVAILABLE);
      CASE (CL_LINK_PROGRAM_FAILURE);
      CASE (CL_DEVICE_PARTITION_FAILED);
      CASE (CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
      CASE (CL_INVALID_VALUE);
      CASE (CL_INVALID_DEVICE_TYPE);
      CASE (CL_INVALID_PLATFORM);
      CASE (CL_INVALID_DEVICE);
      CASE (CL_INVALID_CONTEXT);
      CASE (CL_INVALID_QUEUE_PROPERTIES);
      CASE (CL_INVALID_COMMAND_QUEUE);
      CASE (CL_INVALID_HOST_PTR);
      CASE (CL_INVALID_MEM_OBJECT);
      CASE (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
      CASE (CL_INVALID_IMAGE_SIZE);
      CASE (CL_INVALID_SAMPLER);
      CASE (CL_INVALID_BINARY);
      CASE (CL_INVALID_BUILD_OPTIONS);
      CASE (CL_INVALID_PROGRAM);
      CASE (CL_INVALID_PROGRAM_EXECUTABLE);
      CASE (CL_INVALID_KERNEL_NAME);
      CASE (CL_INVALID_KERNEL_DEFINITION);
      CASE (CL_INVALID_KERNEL);
      CASE (CL_INVALID_ARG_INDEX);
      CASE (CL_INVALID_ARG_VALUE);
      CASE (CL_INVALID_ARG_SIZE);
      CASE (CL_INVALID_KERNEL_ARGS);
      CASE (CL_INVALID_WORK_DIMENSION);
      CASE (CL_INVALID_WORK_GROUP_SIZE);
      CASE (CL_INVALID_WORK_ITEM_SIZE);
      CASE (CL_INVALID_GLOBAL_OFFSET);
      CASE (CL_INVALID_EVENT_WAIT_LIST);
      CASE (CL_INVALID_EVENT);
      CASE (CL_INVALID_OPERATION);
      CASE (CL_INVALID_GL_OBJECT);
      CASE (CL_INVALID_BUFFER_SIZE);
      CASE (CL_INVALID_MIP_LEVEL);
      CASE (CL_INVALID_GLOBAL_WORK_SIZE);
      CASE (CL_INVALID_PROPERTY);
      CASE (CL_INVALID_IMAGE_DESCRIPTOR);
      CASE (CL_INVALID_COMPILER_OPTIONS);
      CASE (CL_INVALID_LINKER_OPTIONS);
      CASE (CL_INVALID_DEVICE_PARTITION_COUNT);
#undef CASE
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

void
clv_set_cl_error (GError ** error, cl_int status, const char *call,
    const char *file, int line)
{
  g_set_error (error, CLV_ERROR, CLV_ERROR_OPENCL,
      "OpenCL error %s (%d) from %s at %s:%d", clv_cl_error_name (status),
      status, call, file, line);
}

/* ---- Device discovery ---------------------------------------------------- */

typedef struct
{
  cl_platform_id platform;
  cl_device_id device;
  guint p, d;
  cl_device_type type;
  char *platform_name;
  char *device_name;
} DeviceEntry;

static char *
platform_string (cl_platform_id p, cl_platform_info what)
{
  size_t n = 0;
  char *s;

  if (clGetPlatformInfo (p, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return g_strdup ("");
  s = g_malloc0 (n + 1);
  if (clGetPlatformInfo (p, what, n, s, NULL) != CL_SUCCESS)
    s[0] = '\0';
  return g_strstrip (s);
}

static char *
device_string (cl_device_id d, cl_device_info what)
{
  size_t n = 0;
  char *s;

  if (clGetDeviceInfo (d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return g_strdup ("");
  s = g_malloc0 (n + 1);
  if (clGetDeviceInfo (d, what, n, s, NULL) != CL_SUCCESS)
    s[0] = '\0';
  return g_strstrip (s);
}

static void
device_entry_clear (gpointer p)
{
  DeviceEntry *e = p;
  g_free (e->platform_name);
  g_free (e->device_name);
}

#define NO_PLATFORM_HINT \
  "Install an OpenCL driver: the Debian package pocl-opencl-icd for the CPU, " \
  "or your GPU vendor's OpenCL driver (e.g. nvidia-opencl-icd)"

/* Appends the devices of platform `p` to `all`; FALSE with `error` set
 * when the platform cannot list them (it has none: TRUE). */
static gboolean
add_platform_devices (GArray * all, cl_platform_id plat, guint p,
    GError ** error)
{
  cl_uint ndev = 0;
  cl_device_id *devs = NULL;
  char *pname = NULL;
  cl_int st;

  st = clGetDeviceIDs (plat, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
  if (st == CL_DEVICE_NOT_FOUND || (st == CL_SUCCESS && ndev == 0))
    return TRUE;
  if (st != CL_SUCCESS) {
    clv_set_cl_error (error, st, "clGetDeviceIDs (plat, CL_DEVICE_TYPE_ALL, "
        "0, NULL, &ndev)", __FILE__, __LINE__);
    return FALSE;
  }
  devs = g_new0 (cl_device_id, ndev);
  CLV_CHECK (clGetDeviceIDs (plat, CL_DEVICE_TYPE_ALL, ndev, devs, NULL),
      error, fail);
  pname = platform_string (plat, CL_PLATFORM_NAME);
  for (guint d = 0; d < ndev; d++) {
    DeviceEntry e = { plat, devs[d], p, d, 0, NULL, NULL };

    CLV_CHECK (clGetDeviceInfo (devs[d], CL_DEVICE_TYPE, sizeof (e.type),
            &e.type, NULL), error, fail);
    e.platform_name = g_strdup (pname);
    e.device_name = device_string (devs[d], CL_DEVICE_NAME);
    g_array_append_val (all, e);
  }
  g_free (pname);
  g_free (devs);
  return TRUE;

fail:
  g_free (pname);
  g_free (devs);
  return FALSE;
}

/* Every device of every platform, in platform then device order.  A
 * platform that fails to list its devices is left out; if no device is
 * left, its error is the error. */
static GArray *
enumerate_devices (GError ** error)
{
  cl_uint nplat = 0;
  cl_platform_id *plats = NULL;
  GArray *all;
  GError *platform_error = NULL;
  cl_int st;

  st = clGetPlatformIDs (0, NULL, &nplat);
  if (st == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */  || (st == CL_SUCCESS
          && nplat == 0)) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_NO_PLATFORM,
        "No OpenCL platform found. " NO_PLATFORM_HINT ".");
    return NULL;
  }
  if (st != CL_SUCCESS) {
    clv_set_cl_error (error, st, "clGetPlatformIDs (0, NULL, &nplat)",
        __FILE__, __LINE__);
    return NULL;
  }
  plats = g_new0 (cl_platform_id, nplat);
  CLV_CHECK (clGetPlatformIDs (nplat, plats, NULL), error, fail);

  all = g_array_new (FALSE, TRUE, sizeof (DeviceEntry));
  g_array_set_clear_func (all, device_entry_clear);
  for (guint p = 0; p < nplat; p++)
    if (!add_platform_devices (all, plats[p], p, platform_error ? NULL :
            &platform_error))
      g_debug ("OpenCL platform %u left out: it cannot list its devices", p);
  g_free (plats);
  if (all->len == 0 && platform_error != NULL) {
    g_array_unref (all);
    g_propagate_error (error, platform_error);
    return NULL;
  }
  g_clear_error (&platform_error);
  if (all->len == 0) {
    g_array_unref (all);
    g_set_error (error, CLV_ERROR, CLV_ERROR_NO_PLATFORM,
        "OpenCL platforms are installed but offer no device. "
        NO_PLATFORM_HINT ".");
    return NULL;
  }
  return all;

fail:
  g_free (plats);
  return NULL;
}

static gboolean
spec_is_auto (const char *spec)
{
  return spec == NULL || *spec == '\0' || g_ascii_strcasecmp (spec, "auto") == 0;
}

/* A decimal index within guint, ending at `*end`. */
static gboolean
parse_index (const char *s, char **end, guint * out)
{
  guint64 v;

  if (!g_ascii_isdigit (s[0]))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoull (s, end, 10);
  if (errno == ERANGE || v > G_MAXUINT)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

ClvDeviceSpecKind
clv_device_spec_parse (const char *spec, guint * platform, guint * device)
{
  char *end;
  guint p, d;

  if (spec_is_auto (spec))
    return CLV_DEVICE_SPEC_AUTO;
  if (g_ascii_strcasecmp (spec, "first") == 0)
    return CLV_DEVICE_SPEC_FIRST;
  if (parse_index (spec, &end, &p) && *end == ':'
      && parse_index (end + 1, &end, &d) && *end == '\0') {
    *platform = p;
    *device = d;
    return CLV_DEVICE_SPEC_INDEX;
  }
  return CLV_DEVICE_SPEC_NAME;
}

static gboolean
contains_nocase (const char *hay, const char *needle)
{
  char *h = g_utf8_casefold (hay, -1), *n = g_utf8_casefold (needle, -1);
  gboolean found = strstr (h, n) != NULL;
  g_free (h);
  g_free (n);
  return found;
}

/* Devices opened in this process, by cl_device_id; entries are removed when
 * the last reference goes. */
static GMutex registry_lock;
static GHashTable *registry;

/* The references held on the device `id` (0 if not open); called with
 * registry_lock held. */
static guint
device_load (cl_device_id id)
{
  ClvDevice *dev = registry ? g_hash_table_lookup (registry, id) : NULL;

  return dev ? (guint) g_atomic_int_get ((gint *) & dev->ref) : 0;
}

/* The kind "auto" and "first" choose from: GPU, else accelerator, else CPU,
 * else whatever there is (0). */
static cl_device_type
best_kind (GArray * all)
{
  static const cl_device_type order[] = { CL_DEVICE_TYPE_GPU,
    CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU
  };

  for (guint t = 0; t < G_N_ELEMENTS (order); t++)
    for (guint i = 0; i < all->len; i++)
      if (g_array_index (all, DeviceEntry, i).type & order[t])
        return order[t];
  return 0;
}

/* The index in `all` that `spec` selects, or -1.  For "auto", called with
 * registry_lock held, so that pipelines starting at once see each other's
 * load. */
static int
resolve_spec (GArray * all, const char *spec)
{
  guint p, d;
  ClvDeviceSpecKind kind = clv_device_spec_parse (spec, &p, &d);

  if (kind == CLV_DEVICE_SPEC_AUTO) {
    const char *env = g_getenv ("CLVISION_DEVICE");

    if (env && !spec_is_auto (env))
      return resolve_spec (all, env);
  }
  if (kind == CLV_DEVICE_SPEC_AUTO || kind == CLV_DEVICE_SPEC_FIRST) {
    cl_device_type best = best_kind (all);
    int chosen = -1;
    guint chosen_load = G_MAXUINT;

    /* A new pipeline goes to the least-loaded device of the best kind, so
     * pipelines spread over GPUs without a property; "first" stops at the
     * first one. */
    for (guint i = 0; i < all->len; i++) {
      DeviceEntry *e = &g_array_index (all, DeviceEntry, i);
      guint load;

      if (best && !(e->type & best))
        continue;
      if (kind == CLV_DEVICE_SPEC_FIRST)
        return (int) i;
      load = device_load (e->device);
      if (load < chosen_load) {
        chosen = (int) i;
        chosen_load = load;
      }
    }
    return chosen;
  }
  if (kind == CLV_DEVICE_SPEC_INDEX) {
    for (guint i = 0; i < all->len; i++) {
      DeviceEntry *e = &g_array_index (all, DeviceEntry, i);
      if (e->p == p && e->d == d)
        return (int) i;
    }
    return -1;
  }
  for (guint i = 0; i < all->len; i++) {
    DeviceEntry *e = &g_array_index (all, DeviceEntry, i);
    if (contains_nocase (e->device_name, spec)
        || contains_nocase (e->platform_name, spec))
      return (int) i;
  }
  return -1;
}

char *
clv_device_list_all (void)
{
  GArray *all = enumerate_devices (NULL);
  GString *s = g_string_new (NULL);

  if (all == NULL)
    return g_string_free (s, FALSE);
  for (guint i = 0; i < all->len; i++) {
    DeviceEntry *e = &g_array_index (all, DeviceEntry, i);
    g_string_append_printf (s, "%s%u:%u %s (%s)", i ? "; " : "", e->p, e->d,
        e->device_name, e->platform_name);
  }
  g_array_unref (all);
  return g_string_free (s, FALSE);
}

char **
clv_device_indices (cl_device_type type, GError ** error)
{
  GArray *all = enumerate_devices (error);
  GPtrArray *out;

  if (all == NULL)
    return NULL;
  if (type == 0)
    type = best_kind (all);
  out = g_ptr_array_new ();
  for (guint i = 0; i < all->len; i++) {
    DeviceEntry *e = &g_array_index (all, DeviceEntry, i);
    if (e->type & type)
      g_ptr_array_add (out, g_strdup_printf ("%u:%u", e->p, e->d));
  }
  g_ptr_array_add (out, NULL);
  g_array_unref (all);
  return (char **) g_ptr_array_free (out, FALSE);
}

static void
program_release (gpointer p)
{
  clReleaseProgram (p);
}

/* ---- Stored tuning ------------------------------------------------------- */

#define TUNING_DEVICE_GROUP "device"

/* A checksum started with what names a device and its driver, for the names
 * of cache and tuning files. */
static GChecksum *
device_checksum (ClvDevice * dev)
{
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (ck, (const guchar *) dev->platform_name, -1);
  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) dev->device_name, -1);
  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) dev->driver_version, -1);
  return ck;
}

char *
clv_tuning_path (ClvDevice * dev)
{
  GChecksum *ck = device_checksum (dev);
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
static GHashTable *
tuning_load (ClvDevice * dev)
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

static void
device_free (ClvDevice * dev)
{
  if (dev->programs)
    g_hash_table_unref (dev->programs);
  if (dev->tuned)
    g_hash_table_unref (dev->tuned);
  if (dev->busy)
    g_array_unref (dev->busy);
  if (dev->queue)
    clReleaseCommandQueue (dev->queue);
  if (dev->transfer_queue)
    clReleaseCommandQueue (dev->transfer_queue);
  if (dev->context)
    clReleaseContext (dev->context);
  g_mutex_clear (&dev->lock);
  g_free (dev->platform_name);
  g_free (dev->device_name);
  g_free (dev->vendor);
  g_free (dev->driver_version);
  g_free (dev);
}

/* A query the driver may not know: drivers without double precision refuse
 * CL_DEVICE_DOUBLE_FP_CONFIG (part of cl_khr_fp64 before OpenCL 1.2), and
 * CL_DEVICE_HOST_UNIFIED_MEMORY is deprecated.  CL_INVALID_VALUE: `value`
 * zeroed (no double precision, no unified memory); any other failure is an
 * error, since the answer chooses the kernels' precision. */
static gboolean
optional_device_info (cl_device_id device, cl_device_info what,
    const char *name, size_t size, void *value, GError ** error)
{
  cl_int st = clGetDeviceInfo (device, what, size, value, NULL);
  char *call;

  if (st == CL_SUCCESS)
    return TRUE;
  memset (value, 0, size);
  if (st == CL_INVALID_VALUE)
    return TRUE;
  call = g_strdup_printf ("clGetDeviceInfo (device, %s, ...)", name);
  clv_set_cl_error (error, st, call, __FILE__, __LINE__);
  g_free (call);
  return FALSE;
}

static ClvDevice *
device_create (DeviceEntry * e, GError ** error)
{
  ClvDevice *dev = g_new0 (ClvDevice, 1);
  cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
    (cl_context_properties) e->platform, 0
  };
  cl_uint cu = 0;
  size_t wg = 0;
  cl_ulong lmem = 0, gmem = 0;
  cl_device_fp_config fp64 = 0;
  cl_bool unified = CL_FALSE;
  cl_int st;

  g_atomic_ref_count_init (&dev->ref);
  dev->platform = e->platform;
  dev->device = e->device;
  dev->platform_index = e->p;
  dev->device_index = e->d;
  dev->platform_name = g_strdup (e->platform_name);
  dev->device_name = g_strdup (e->device_name);
  dev->vendor = device_string (e->device, CL_DEVICE_VENDOR);
  dev->driver_version = device_string (e->device, CL_DRIVER_VERSION);
  dev->type = e->type;
  g_mutex_init (&dev->lock);
  dev->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      program_release);

  /* The sizes kernels and buffers are made for: without them, no device. */
  CLV_CHECK (clGetDeviceInfo (e->device, CL_DEVICE_MAX_COMPUTE_UNITS,
          sizeof (cu), &cu, NULL), error, fail);
  CLV_CHECK (clGetDeviceInfo (e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
          sizeof (wg), &wg, NULL), error, fail);
  CLV_CHECK (clGetDeviceInfo (e->device, CL_DEVICE_LOCAL_MEM_SIZE,
          sizeof (lmem), &lmem, NULL), error, fail);
  CLV_CHECK (clGetDeviceInfo (e->device, CL_DEVICE_GLOBAL_MEM_SIZE,
          sizeof (gmem), &gmem, NULL), error, fail);
  CLV_CHECK (clGetDeviceInfo (e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
          sizeof (dev->max_mem_alloc_size), &dev->max_mem_alloc_size, NULL),
      error, fail);
  if (!optional_device_info (e->device, CL_DEVICE_DOUBLE_FP_CONFIG,
          "CL_DEVICE_DOUBLE_FP_CONFIG", sizeof (fp64), &fp64, error)
      || !optional_device_info (e->device, CL_DEVICE_HOST_UNIFIED_MEMORY,
          "CL_DEVICE_HOST_UNIFIED_MEMORY", sizeof (unified), &unified, error))
    goto fail;
  dev->compute_units = MAX (cu, 1);
  dev->max_work_group_size = MAX (wg, 1);
  dev->local_mem_size = lmem;
  dev->global_mem_size = gmem;
  dev->has_fp64 = fp64 != 0;
  dev->host_unified_memory = unified != CL_FALSE;
  if (!(e->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
    dev->simd_width = 1;
  else if (contains_nocase (dev->vendor, "nvidia"))
    dev->simd_width = 32;
  else if (contains_nocase (dev->vendor, "advanced micro devices")
      || contains_nocase (dev->vendor, "amd"))
    dev->simd_width = 64;
  else
    dev->simd_width = 16;

  dev->tuned = tuning_load (dev);

  CLV_CHECK ((dev->context = clCreateContext (props, 1, &e->device, NULL, NULL,
              &st), st), error, fail);
  CLV_CHECK ((dev->queue = clCreateCommandQueue (dev->context, e->device,
              CL_QUEUE_PROFILING_ENABLE, &st), st), error, fail);
  CLV_CHECK ((dev->transfer_queue = clCreateCommandQueue (dev->context,
              e->device, 0, &st), st), error, fail);
  return dev;

fail:
  device_free (dev);
  return NULL;
}

/* The entry of `all` that `spec` selects, or NULL with `error` set. */
static DeviceEntry *
find_device (GArray * all, const char *spec, GError ** error)
{
  int idx = resolve_spec (all, spec);

  if (idx < 0) {
    char *list = clv_device_list_all ();
    const char *env = g_getenv ("CLVISION_DEVICE");
    g_set_error (error, CLV_ERROR, CLV_ERROR_NO_DEVICE,
        "No OpenCL device matches \"%s\"%s. Available: %s",
        spec_is_auto (spec) ? env : spec,
        spec_is_auto (spec) ? " (from CLVISION_DEVICE)" : "", list);
    g_free (list);
    return NULL;
  }
  return &g_array_index (all, DeviceEntry, idx);
}

ClvDevice *
clv_device_open (const char *spec, GError ** error)
{
  GArray *all;
  DeviceEntry *e;
  ClvDevice *dev = NULL;

  all = enumerate_devices (error);
  if (all == NULL)
    return NULL;

  g_mutex_lock (&registry_lock);
  e = find_device (all, spec, error);
  if (e == NULL) {
    g_mutex_unlock (&registry_lock);
    goto out;
  }
  if (registry == NULL)
    registry = g_hash_table_new (g_direct_hash, g_direct_equal);
  dev = g_hash_table_lookup (registry, e->device);
  if (dev) {
    dev = clv_device_ref (dev);
  } else {
    dev = device_create (e, error);
    if (dev)
      g_hash_table_insert (registry, dev->device, dev);
  }
  g_mutex_unlock (&registry_lock);
out:
  g_array_unref (all);
  return dev;
}

ClvDevice *
clv_device_open_unshared (const char *spec, GError ** error)
{
  GArray *all = enumerate_devices (error);
  DeviceEntry *e;
  ClvDevice *dev = NULL;

  if (all == NULL)
    return NULL;
  g_mutex_lock (&registry_lock);
  e = find_device (all, spec, error);
  g_mutex_unlock (&registry_lock);
  if (e)
    dev = device_create (e, error);
  g_array_unref (all);
  return dev;
}

ClvDevice *
clv_device_ref (ClvDevice * dev)
{
  g_atomic_ref_count_inc (&dev->ref);
  return dev;
}

void
clv_device_unref (ClvDevice * dev)
{
  gboolean last;

  /* The registry lock makes "last unref" and "lookup + ref" exclusive. */
  g_mutex_lock (&registry_lock);
  last = g_atomic_ref_count_dec (&dev->ref);
  /* Unshared devices are not in the table. */
  if (last && registry && g_hash_table_lookup (registry, dev->device) == dev)
    g_hash_table_remove (registry, dev->device);
  g_mutex_unlock (&registry_lock);
  if (last)
    device_free (dev);
}

gboolean
clv_device_matches (ClvDevice * dev, const char *spec)
{
  GArray *all;
  int idx;
  gboolean match;

  if (spec_is_auto (spec) && spec_is_auto (g_getenv ("CLVISION_DEVICE")))
    return TRUE;
  all = enumerate_devices (NULL);
  if (all == NULL)
    return FALSE;
  idx = resolve_spec (all, spec);
  match = idx >= 0 && g_array_index (all, DeviceEntry, idx).device == dev->device;
  g_array_unref (all);
  return match;
}

char *
clv_device_describe (ClvDevice * dev)
{
  return g_strdup_printf ("%s (%s, %u:%u)", dev->device_name,
      dev->platform_name, dev->platform_index, dev->device_index);
}

/* ---- Tuning -------------------------------------------------------------- */

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

/* ---- Programs ------------------------------------------------------------ */

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
  GChecksum *ck = device_checksum (dev);
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

gboolean
clv_device_check_buffer_size (ClvDevice * dev, guint64 size,
    const char *what, GError ** error)
{
  if (size <= dev->max_mem_alloc_size)
    return TRUE;
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "%s needs a buffer of %" G_GUINT64_FORMAT " bytes (%.1f MiB), but the "
      "largest buffer %s can allocate is %" G_GUINT64_FORMAT " bytes "
      "(%.1f MiB, CL_DEVICE_MAX_MEM_ALLOC_SIZE); use smaller frames (crop or "
      "tile the input) or a device with more memory", what, size,
      size / 1048576.0, dev->device_name, dev->max_mem_alloc_size,
      dev->max_mem_alloc_size / 1048576.0);
  return FALSE;
}

cl_mem
clv_buffer_new (ClvDevice * dev, cl_mem_flags flags, gsize size,
    GError ** error)
{
  cl_mem m = NULL;
  cl_int st;

  if (!clv_device_check_buffer_size (dev, size, "The data", error))
    return NULL;
  CLV_CHECK ((m = clCreateBuffer (dev->context, flags, MAX (size, 1), NULL,
              &st), st), error, fail);
  return m;
fail:
  return NULL;
}

void
clv_device_analysers_add (ClvDevice * dev, gint delta)
{
  g_atomic_int_add (&dev->analysers, delta);
}

gint
clv_device_analysers (ClvDevice * dev)
{
  return g_atomic_int_get (&dev->analysers);
}

cl_mem
clv_buffer_new_with_data (ClvDevice * dev, cl_mem_flags flags,
    const void *data, gsize size, GError ** error)
{
  const gsize bytes = MAX (size, 16);
  guint8 *copy;
  cl_mem m = NULL;
  cl_int st;

  if (!clv_device_check_buffer_size (dev, bytes, "The data", error))
    return NULL;
  copy = g_malloc0 (bytes);
  if (size)
    memcpy (copy, data, size);
  CLV_CHECK ((m = clCreateBuffer (dev->context, flags | CL_MEM_COPY_HOST_PTR,
              bytes, copy, &st), st), error, out);
out:
  g_free (copy);
  return m;
}
