/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside Eigenfaces on an OpenCL device: what training
 * (clv-eigen-gpu-train.c) and recognition (clv-eigen-gpu-recognise.c) share,
 * defined in clv-eigen-gpu.c.  Not installed. */
#pragma once

#include "clv-eigen-gpu.h"

G_BEGIN_DECLS

/* Whether the device computes in double precision (EIG_FP64). */
gboolean clv_eigen_choose_precision (ClvDevice * dev, gboolean * fp64,
    GError ** error);

/* Bytes of one real in that precision. */
gsize clv_eigen_real_size (gboolean fp64);

/* A power-of-two tuning value, at most `max`. */
int clv_eigen_tune_pow2 (ClvDevice * dev, const char *name, int def,
    gsize max);

/* Reads `n` reals from `mem` into doubles. */
gboolean clv_eigen_read_reals (ClvDevice * dev, cl_mem mem, gboolean fp64,
    gsize n, double *out, GError ** error);

/* A new device buffer holding `n` doubles in the device precision. */
cl_mem clv_eigen_upload_reals (ClvDevice * dev, gboolean fp64,
    const double *data, gsize n, GError ** error);

/* Releases and clears the `n` buffers or kernels of an array. */
void clv_eigen_release_mems (cl_mem * mems, guint n);
void clv_eigen_release_kernels (cl_kernel * kernels, guint n);

/* Kernels of one program, by name, into `out`. */
gboolean clv_eigen_create_kernels (cl_program prog, const char *const *names,
    guint n, cl_kernel * out, GError ** error);

/* Waits for *ev, returns its seconds and releases it (NULL: 0). */
double clv_eigen_take_event_seconds (cl_event * ev);

G_END_DECLS
