/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision OpenCL runtime: device choice, one context and queue per device per
 * process, program builds with tuning macros and an on-disk binary cache.
 * No GStreamer here; GLib only. */
#pragma once

#include <glib.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* The runtime is the shared library libclvision-opencl-1.0 (one device table
 * per process for the plugin, libgstclvision-1.0 and the tools); its functions
 * are the ones exported. */
#ifndef CLV_API
#define CLV_API __attribute__ ((visibility ("default"))) extern
#endif

#define CLV_ERROR (clv_error_quark ())

typedef enum
{
  CLV_ERROR_NO_PLATFORM,        /* no OpenCL platform is installed */
  CLV_ERROR_NO_DEVICE,          /* the `device` string matches no device */
  CLV_ERROR_OPENCL,             /* an OpenCL call failed */
  CLV_ERROR_BUILD,              /* a program failed to build */
  CLV_ERROR_INVALID,            /* bad argument or data */
} ClvError;

CLV_API
GQuark clv_error_quark (void);

/* The symbolic name of an OpenCL status, such as "CL_OUT_OF_RESOURCES". */
CLV_API
const char *clv_cl_error_name (cl_int status);

CLV_API
void clv_set_cl_error (GError ** error, cl_int status, const char *call,
    const char *file, int line);

/* The one check for every cl* call: on failure it fills `error` with the error
 * name, the call text, file and line, and jumps to `label`.  Calls that return
 * their status through an out-argument are written as a comma expression:
 *   CLV_CHECK ((buf = clCreateBuffer (ctx, fl, n, NULL, &st), st), error, out);
 */
#define CLV_CHECK(call, error, label)                                    \
  G_STMT_START {                                                         \
    cl_int clv_check_status_ = (call);                                   \
    if (G_UNLIKELY (clv_check_status_ != CL_SUCCESS)) {                  \
      clv_set_cl_error ((error), clv_check_status_, #call, __FILE__,     \
          __LINE__);                                                     \
      goto label;                                                        \
    }                                                                    \
  } G_STMT_END

typedef struct _ClvDevice ClvDevice;

/* A device with its process-wide context and in-order (profiling) queue.
 * Refcounted; the fields are read-only after creation. */
struct _ClvDevice
{
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  /* A second in-order queue for uploads into buffers no queued kernel
   * uses (CLV_TRANSFER_UNORDERED): they need not wait for other
   * pipelines' kernels on `queue`, and run beside them. */
  cl_command_queue transfer_queue;

  guint platform_index;
  guint device_index;
  char *platform_name;
  char *device_name;
  char *vendor;
  char *driver_version;
  cl_device_type type;
  guint compute_units;
  gsize max_work_group_size;
  guint64 local_mem_size;
  guint64 global_mem_size;
  guint64 max_mem_alloc_size;   /* the largest single buffer */
  /* Threads that execute in lock step: 32 on NVIDIA, 64 on AMD, else 1 (CPU). */
  guint simd_width;
  gboolean has_fp64;
  /* CL_DEVICE_HOST_UNIFIED_MEMORY: the device uses host memory (CPUs,
   * integrated GPUs), so staging uploads through pinned memory gains
   * nothing there. */
  gboolean host_unified_memory;

  /*< private >*/
  gatomicrefcount ref;
  GMutex lock;
  GHashTable *programs;         /* "name\noptions" -> cl_program */
  GHashTable *tuned;            /* "MACRO" -> value, from the tuning file */
  GArray *busy;                 /* ClvSpan of kernels, while recording */
  gint analysers;               /* clv_device_analysers_add() */
};

/* Counts the elements analysing frames on the device (started and not
 * stopped): `delta` +1 or -1. */
CLV_API
void clv_device_analysers_add (ClvDevice * dev, gint delta);
CLV_API
gint clv_device_analysers (ClvDevice * dev);

/* Whether one buffer of `size` bytes fits the device's
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE; if not, an error naming `what` ("A 25000x16700
 * GRAY16_LE frame"), the size and the limit. */
CLV_API
gboolean clv_device_check_buffer_size (ClvDevice * dev, guint64 size,
    const char *what, GError ** error);

/* Opens the device that `spec` names: NULL or "auto" (first GPU, else first
 * accelerator, else first CPU; CLVISION_DEVICE overrides "auto"), "P:D"
 * (platform and device index), or a case-insensitive substring of the platform
 * or device name.  Every call for the same device returns the same object. */
CLV_API
ClvDevice *clv_device_open (const char *spec, GError ** error);
/* Test hook: opens the device as clv_device_open() does, but with a context
 * and queue of its own, outside the process-wide table, so that tests can
 * exercise paths between two contexts on a machine with a single device. */
CLV_API
ClvDevice *clv_device_open_unshared (const char *spec, GError ** error);
CLV_API
ClvDevice *clv_device_ref (ClvDevice * dev);
CLV_API
void clv_device_unref (ClvDevice * dev);

/* What a device string (the `device` property, CLVISION_DEVICE) selects:
 * NULL, "" or "auto" the least-loaded device of the best kind present (GPU,
 * else accelerator, else CPU), load being the references this process holds
 * on it (elements, pools and frames of the pipelines using it), ties going
 * to the first; "first" the first device of that kind; "P:D" (decimal,
 * each within guint) device D of platform P, returned in `platform` and
 * `device`; anything else the first device whose device or platform name
 * contains it, ignoring case. */
typedef enum
{
  CLV_DEVICE_SPEC_AUTO,
  CLV_DEVICE_SPEC_FIRST,
  CLV_DEVICE_SPEC_INDEX,
  CLV_DEVICE_SPEC_NAME,
} ClvDeviceSpecKind;

CLV_API
ClvDeviceSpecKind clv_device_spec_parse (const char *spec, guint * platform,
    guint * device);

/* Whether `spec` (as for clv_device_open) selects `dev`. */
CLV_API
gboolean clv_device_matches (ClvDevice * dev, const char *spec);

/* "NVIDIA H200 (NVIDIA CUDA, 0:0)"; free with g_free(). */
CLV_API
char *clv_device_describe (ClvDevice * dev);

/* One line per device of every platform, for messages and --list. */
CLV_API
char *clv_device_list_all (void);

/* The "P:D" index of every device of `type` (0: of the kind "auto" chooses
 * from: GPUs, else accelerators, else CPUs), in platform then device order;
 * empty when none is of that type, NULL with `error` set when OpenCL offers
 * no device at all.  Free with g_strfreev(). */
CLV_API
char **clv_device_indices (cl_device_type type, GError ** error);

/* The value of `name` in a list "NAME=VALUE,NAME=VALUE,..." (the last one
 * wins; blanks around names and values ignored; items without '=' skipped),
 * newly allocated, or NULL when it is not there. */
CLV_API
char *clv_tune_lookup (const char *list, const char *name);

/* Tuning: the value of NAME in CLVISION_TUNE="NAME=VALUE,..." or the default. */
CLV_API
gint64 clv_tune_int (const char *name, gint64 default_value);
CLV_API
const char *clv_tune_string (const char *name, const char *default_value);

/* Tuning for a device: while CLVISION_TUNE is set, its values and
 * otherwise the defaults (an experiment against the defaults); else the
 * value clvision-tune stored for this device and driver (clv_tuning_path()),
 * then the default.  Every kernel's macros are read through these, so a
 * stored search result is used without being asked for. */
CLV_API
gint64 clv_device_tune_int (ClvDevice * dev, const char *name,
    gint64 default_value);
CLV_API
const char *clv_device_tune_string (ClvDevice * dev, const char *name,
    const char *default_value);

/* The tuning file of `dev`: clv_program_cache_dir()/tune-HASH.ini, HASH of
 * platform, device name and driver version, next to the program binaries.
 * A key file with a [device] group (name, platform, driver, for people) and
 * one group per kernel holding MACRO=integer lines; it is read when the
 * device is opened, and a file that does not parse or holds anything else
 * is ignored with a warning (defaults apply).  CLVISION_AUTOTUNE=0 ignores
 * the file (the defaults, as a benchmark's baseline). */
CLV_API
char *clv_tuning_path (ClvDevice * dev);

/* Writes `per_kernel` (group = kernel, keys = macros) as the tuning file of
 * `dev`, atomically.  Running processes keep the values they read; devices
 * opened later use the new ones. */
CLV_API
gboolean clv_tuning_save (ClvDevice * dev, GKeyFile * per_kernel,
    GError ** error);

/* Builds (or finds in the process or on-disk cache) the program from the
 * embedded kernels/NAME.cl with `options` (usually "-DNAME=VALUE ..." from
 * clv_tune_*) plus the device macros CLV_SIMD_WIDTH, CLV_COMPUTE_UNITS and
 * CLV_LOCAL_MEM_SIZE.  Returns a new reference. */
CLV_API
cl_program clv_device_get_program (ClvDevice * dev, const char *name,
    const char *options, GError ** error);

/* The same for kernels/NAME.cl followed by `generated` (code made at run
 * time, such as a cascade's stages; NULL for none), which is part of the
 * program's key in both caches. */
CLV_API
cl_program clv_device_get_program_generated (ClvDevice * dev,
    const char *name, const char *generated, const char *options,
    GError ** error);

/* Builds `source` for `dev` as clv_device_get_program() does, without the
 * in-process table.  A build failure reports the options and the build log. */
CLV_API
cl_program clv_program_build (ClvDevice * dev, const char *name,
    const char *source, const char *options, GError ** error);

typedef struct
{
  guint builds_from_source;     /* clBuildProgram on source text */
  guint disk_cache_hits;        /* programs created from a cached binary */
  guint disk_cache_rejects;     /* cache files that were unreadable or corrupt */
  guint disk_cache_writes;
} ClvProgramStats;

/* Counters since process start, for tests and the benchmark. */
CLV_API
void clv_program_stats (ClvProgramStats * stats);

/* Where binaries are cached: $XDG_CACHE_HOME/clvision (or ~/.cache/clvision). */
CLV_API
char *clv_program_cache_dir (void);

/* Kernel launch helpers. */
CLV_API
cl_kernel clv_kernel_new (cl_program program, const char *name,
    GError ** error);

/* Sets kernel arguments 0, 1, ... from (size, pointer) pairs written with
 * CLV_ARG(), ending with CLV_ARGS_END. */
#define CLV_ARG(v) (size_t) sizeof (v), (const void *) &(v)
#define CLV_ARGS_END (size_t) 0
CLV_API
gboolean clv_kernel_set_args (cl_kernel kernel, GError ** error, ...);
CLV_API
cl_mem clv_buffer_new (ClvDevice * dev, cl_mem_flags flags, gsize size,
    GError ** error);
/* A buffer holding a copy of `size` bytes of `data`, zero-padded to at least
 * 16 bytes (OpenCL has no empty buffers, and kernels may load a vector). */
CLV_API
cl_mem clv_buffer_new_with_data (ClvDevice * dev, cl_mem_flags flags,
    const void *data, gsize size, GError ** error);

/* Rounds `n` up to a multiple of `m`. */
static inline gsize
clv_round_up (gsize n, gsize m)
{
  return (n + m - 1) / m * m;
}

G_END_DECLS

#include "clv-events.h"
#include "clv-transfer.h"
