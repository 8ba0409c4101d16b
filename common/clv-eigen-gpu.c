/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on an OpenCL device: what training (clv-eigen-gpu-train.c)
 * and recognition (clv-eigen-gpu-recognise.c) share: the device precision,
 * reals in that precision to and from the device, kernel sets and event
 * times. */
#include "clv-eigen-gpu-private.h"

#include <string.h>

/* The device precision: double where the device has it (the accuracy
 * tests need it for small eigenvalues); EIG_FP64=0 forces float. */
gboolean
clv_eigen_choose_precision (ClvDevice * dev, gboolean * fp64, GError ** error)
{
  *fp64 = clv_device_tune_int (dev, "EIG_FP64", dev->has_fp64) != 0;
  if (*fp64 && !dev->has_fp64) {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "EIG_FP64=1 was asked for but %s has no double precision",
        dev->device_name);
    return FALSE;
  }
  return TRUE;
}

gsize
clv_eigen_real_size (gboolean fp64)
{
  return fp64 ? sizeof (double) : sizeof (float);
}

/* A power-of-two tuning value, at most `max`. */
int
clv_eigen_tune_pow2 (ClvDevice * dev, const char *name, int def, gsize max)
{
  gint64 v = clv_device_tune_int (dev, name, def);

  if (v < 1)
    v = 1;
  while (v > 1 && ((v & (v - 1)) != 0 || (gsize) v > max))
    v--;
  return (int) v;
}

/* Reads `n` reals from `mem` into doubles. */
gboolean
clv_eigen_read_reals (ClvDevice * dev, cl_mem mem, gboolean fp64, gsize n,
    double *out, GError ** error)
{
  float *tmp = NULL;

  if (n == 0)
    return TRUE;
  if (fp64)
    return clv_read_buffer (dev, mem, 0, n * sizeof (double), out, error);
  tmp = g_new (float, n);
  if (!clv_read_buffer (dev, mem, 0, n * sizeof (float), tmp, error))
    goto fail;
  for (gsize i = 0; i < n; i++)
    out[i] = tmp[i];
  g_free (tmp);
  return TRUE;

fail:
  g_free (tmp);
  return FALSE;
}

/* A new device buffer holding `n` doubles in the device precision. */
cl_mem
clv_eigen_upload_reals (ClvDevice * dev, gboolean fp64, const double *data,
    gsize n, GError ** error)
{
  gsize bytes = MAX (n, 1) * clv_eigen_real_size (fp64);
  gpointer host = g_malloc (bytes);
  cl_mem mem;

  if (fp64) {
    memcpy (host, data, n * sizeof (double));
  } else {
    for (gsize i = 0; i < n; i++)
      ((float *) host)[i] = (float) data[i];
  }
  mem = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, host, bytes, error);
  g_free (host);
  return mem;
}

void
clv_eigen_release_mems (cl_mem * mems, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&mems[i], clReleaseMemObject);
}

void
clv_eigen_release_kernels (cl_kernel * kernels, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&kernels[i], clReleaseKernel);
}

/* Kernels of one program, by name, into `out`. */
gboolean
clv_eigen_create_kernels (cl_program prog, const char *const *names, guint n,
    cl_kernel * out, GError ** error)
{
  for (guint i = 0; i < n; i++)
    if ((out[i] = clv_kernel_new (prog, names[i], error)) == NULL)
      return FALSE;
  return TRUE;
}

/* Waits for *ev, returns its seconds and releases it (NULL: 0). */
double
clv_eigen_take_event_seconds (cl_event * ev)
{
  double s = 0;

  if (*ev) {
    clWaitForEvents (1, ev);
    s = clv_event_seconds (*ev);
    clReleaseEvent (*ev);
    *ev = NULL;
  }
  return s;
}
