#include "bench-common.h"

#include <stdlib.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
bench_median (double *v, int n)
{
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double
bench_copy_bandwidth (ClvDevice * dev, gsize bytes, int iterations)
{
  GError *error = NULL;
  cl_mem a = clv_buffer_new (dev, CL_MEM_READ_WRITE, bytes, &error);
  cl_mem b = clv_buffer_new (dev, CL_MEM_READ_WRITE, bytes, &error);
  double *t = g_new (double, iterations), result;

  if (a == NULL || b == NULL)
    g_error ("bench: %s", error->message);
  for (int i = -1; i < iterations; i++) {
    cl_event ev;
    if (clEnqueueCopyBuffer (dev->queue, a, b, 0, 0, bytes, 0, NULL,
            &ev) != CL_SUCCESS)
      g_error ("bench: clEnqueueCopyBuffer failed");
    clWaitForEvents (1, &ev);
    if (i >= 0)
      t[i] = clv_event_seconds (ev);
    clReleaseEvent (ev);
  }
  result = 2.0 * bytes / bench_median (t, iterations) / 1e9;
  clReleaseMemObject (a);
  clReleaseMemObject (b);
  g_free (t);
  return result;
}

void
bench_json_begin (GString * json, ClvDevice * dev, const char *command)
{
  char *cmd_json = g_strescape (command, NULL);

  g_string_append_printf (json, "{\n  \"device\": \"%s\",\n  \"platform\": "
      "\"%s\",\n  \"driver\": \"%s\",\n  \"compute_units\": %u,\n"
      "  \"command\": \"%s\"", dev->device_name, dev->platform_name,
      dev->driver_version, dev->compute_units, cmd_json);
  g_free (cmd_json);
}
