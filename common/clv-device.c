/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices; see clv-device.h. */
#include "clv-opencl.h"
#include "clv-opencl-private.h"

#include <string.h>

/* ---- Discovery ----------------------------------------------------------- */

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

/* ---- The devices of the process ----------------------------------------- */

static void
program_release (gpointer p)
{
  clReleaseProgram (p);
}

/* A checksum started with what names a device and its driver, for the names
 * of cache and tuning files. */
GChecksum *
clv_device_checksum (ClvDevice * dev)
{
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (ck, (const guchar *) dev->platform_name, -1);
  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) dev->device_name, -1);
  g_checksum_update (ck, (const guchar *) "\n", 1);
  g_checksum_update (ck, (const guchar *) dev->driver_version, -1);
  return ck;
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

/* CLVISION_PROFILE, set to anything but 0. */
static gboolean
profiling_wanted (void)
{
  const char *v = g_getenv ("CLVISION_PROFILE");

  return v && *v && strcmp (v, "0") != 0;
}

static ClvDevice *
device_create (DeviceEntry * e, gboolean profiling, GError ** error)
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

  dev->tuned = clv_tuning_load (dev);

  CLV_CHECK ((dev->context = clCreateContext (props, 1, &e->device, NULL, NULL,
              &st), st), error, fail);
  dev->profiling = profiling;
  CLV_CHECK ((dev->queue = clCreateCommandQueue (dev->context, e->device,
              profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &st), st), error,
      fail);
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
    dev = device_create (e, profiling_wanted (), error);
    if (dev)
      g_hash_table_insert (registry, dev->device, dev);
  }
  g_mutex_unlock (&registry_lock);
out:
  g_array_unref (all);
  return dev;
}

static ClvDevice *
open_unshared (const char *spec, gboolean profiling, GError ** error)
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
    dev = device_create (e, profiling, error);
  g_array_unref (all);
  return dev;
}

ClvDevice *
clv_device_open_unshared (const char *spec, GError ** error)
{
  return open_unshared (spec, profiling_wanted (), error);
}

ClvDevice *
clv_device_open_profiled (const char *spec, GError ** error)
{
  return open_unshared (spec, TRUE, error);
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

/* ---- Buffers ------------------------------------------------------------- */

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
