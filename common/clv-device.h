/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices: discovery, the choice a device string makes, one context and
 * queue per device per process (ClvDevice), and buffers of it. */
#pragma once

#include "clv-error.h"

G_BEGIN_DECLS

typedef struct _ClvDevice ClvDevice;

/* A device with its process-wide context and in-order queue (which
 * records kernel times only where `profiling` says).  Refcounted; the
 * fields are read-only after creation. */
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
  /* The queue records kernel times (CL_QUEUE_PROFILING_ENABLE): where
   * CLVISION_PROFILE is set, or opened by clv_device_open_profiled(). */
  gboolean profiling;

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
 * or device name.  Every call for the same device returns the same object.
 * Its queue records kernel times only where CLVISION_PROFILE is set (to
 * anything but 0): profiling costs every launch some time on some drivers
 * (NVIDIA's), which a small frame's detection feels. */
CLV_API
ClvDevice *clv_device_open (const char *spec, GError ** error);
/* Test hook: opens the device as clv_device_open() does, but with a context
 * and queue of its own, outside the process-wide table, so that tests can
 * exercise paths between two contexts on a machine with a single device. */
CLV_API
ClvDevice *clv_device_open_unshared (const char *spec, GError ** error);
/* For benchmarks: as clv_device_open_unshared(), with a queue that records
 * kernel times whatever CLVISION_PROFILE says, so that a benchmark times
 * kernels on it and wall times on an unprofiled device. */
CLV_API
ClvDevice *clv_device_open_profiled (const char *spec, GError ** error);
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
