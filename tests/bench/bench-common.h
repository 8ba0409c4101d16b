/* Shared helpers of the benchmarks: timing, statistics, JSON output. */
#pragma once

#include <glib.h>
#include "clv-opencl.h"

G_BEGIN_DECLS

/* Median of `n` values (sorts them). */
double bench_median (double *v, int n);

/* Device-to-device copy bandwidth in GB/s (read + write bytes), the
 * practical ceiling a memory-bound kernel is compared with. */
double bench_copy_bandwidth (ClvDevice * dev, gsize bytes, int iterations);

/* Starts the JSON document: device name, driver, the command line (join
 * argv before option parsing removes the options). */
void bench_json_begin (GString * json, ClvDevice * dev, const char *command);

G_END_DECLS
