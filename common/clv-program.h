/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs: kernels/NAME.cl built for a device with its macros, kept in the
 * process and in an on-disk binary cache; kernel launch helpers. */
#pragma once

#include "clv-device.h"

G_BEGIN_DECLS

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

G_END_DECLS
