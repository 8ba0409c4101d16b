/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared helpers of the benchmarks: timing, statistics, JSON output. */
#pragma once

#include <glib.h>
#include "clv-opencl.h"

G_BEGIN_DECLS

/* Makes the devices the process opens from now on record kernel times
 * (CLVISION_PROFILE), unless the caller set CLVISION_PROFILE: every
 * benchmark that reports kernel times calls it before it opens one. */
void bench_time_kernels (void);

/* Median of `n` values (sorts them). */
double bench_median (double *v, int n);

/* Device-to-device copy bandwidth in GB/s (read + write bytes), the
 * practical ceiling a memory-bound kernel is compared with. */
double bench_copy_bandwidth (ClvDevice * dev, gsize bytes, int iterations);

/* Median device time of one buffer copy that moves `traffic` bytes (half
 * read, half written): the fastest a kernel with that much traffic could
 * be, launch ramp-up and tail included, which matter at tens of MiB. */
double bench_copy_seconds (ClvDevice * dev, gsize traffic, int iterations);

/* Median device time of one launch that only reads a `bytes`-long copy of
 * `frame` (16 bytes per work-item, from a ring of copies, so from DRAM):
 * the floor for any pass that reads the frame once. */
double bench_read_seconds (ClvDevice * dev, const void *frame, gsize bytes,
    int iterations);

/* Starts the JSON document: device name, driver, the command line (join
 * argv before option parsing removes the options). */
void bench_json_begin (GString * json, ClvDevice * dev, const char *command);

/* Device copies of `frame` (`bytes` long), enough of them to pass
 * BENCH_RING_BYTES together, so that a kernel cycling through them reads
 * DRAM rather than cache.  Sets *n; free with bench_ring_free(). */
#define BENCH_RING_BYTES (256u << 20)
cl_mem *bench_ring_new (ClvDevice * dev, const void *frame, gsize bytes,
    int *n);
void bench_ring_free (cl_mem * ring, int n);

/* Enqueues the kernel under test once, reading `src`; sets *ev to the event
 * of its (last) launch, and may set *first (NULL on entry) to that of its
 * first, the time then spanning both.  FALSE with `error` set on
 * failure. */
typedef gboolean (*BenchEnqueue) (gpointer data, cl_mem src,
    cl_event * first, cl_event * ev, GError ** error);

/* Median device time of `enqueue` over `iterations` runs, cycling through
 * the ring's copies, after one untimed run on each. */
double bench_ring_kernel_seconds (cl_mem * ring, int ring_n, int iterations,
    BenchEnqueue enqueue, gpointer data);

/* Median wall time per frame of `appsrc ! ELEMENTS ! appsink` fed with one
 * `bytes`-long frame of `caps` at a time (upload, kernels and download
 * included: each output frame is mapped for reading), after a few warm-up
 * frames. */
double bench_pipeline_seconds (const char *elements, const char *caps,
    gsize bytes, int iterations);

/* Exits with a hint unless every element named in the NULL-terminated
 * list is registered: checked before any timing, so that a missing plugin
 * path does not cost a run. */
void bench_require_elements (const char *first, ...) G_GNUC_NULL_TERMINATED;

/* Sets CLVISION_TUNE to `tune` for the kernels built next (NULL or "":
 * the defaults). */
void bench_set_tuning (const char *tune);

/* The settings to run: the default ("") and the non-empty ones of `extra`
 * ("T1;T2..."); free with g_strfreev(). */
char **bench_tunings (const char *extra);

G_END_DECLS
