/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on an OpenCL device; see clv-eigen-gpu.h and the kernels
 * eigen_train.cl and eigen_recognise.cl. */
#include "clv-eigen-gpu.h"
#include "clv-resize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The device precision: double where the device has it (the accuracy
 * tests need it for small eigenvalues); EIG_FP64=0 forces float. */
static gboolean
choose_precision (ClvDevice * dev, gboolean * fp64, GError ** error)
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

static gsize
real_size (gboolean fp64)
{
  return fp64 ? sizeof (double) : sizeof (float);
}

/* A power-of-two tuning value, at most `max`. */
static int
tune_pow2 (ClvDevice * dev, const char *name, int def, gsize max)
{
  gint64 v = clv_device_tune_int (dev, name, def);

  if (v < 1)
    v = 1;
  while (v > 1 && ((v & (v - 1)) != 0 || (gsize) v > max))
    v--;
  return (int) v;
}

/* Reads `n` reals from `mem` into doubles. */
static gboolean
read_reals (ClvDevice * dev, cl_mem mem, gboolean fp64, gsize n,
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
static cl_mem
upload_reals (ClvDevice * dev, gboolean fp64, const double *data, gsize n,
    GError ** error)
{
  gsize bytes = MAX (n, 1) * real_size (fp64);
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

static void
release_mems (cl_mem * mems, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&mems[i], clReleaseMemObject);
}

static void
release_kernels (cl_kernel * kernels, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&kernels[i], clReleaseKernel);
}

/* Kernels of one program, by name, into `out`. */
static gboolean
create_kernels (cl_program prog, const char *const *names, guint n,
    cl_kernel * out, GError ** error)
{
  for (guint i = 0; i < n; i++)
    if ((out[i] = clv_kernel_new (prog, names[i], error)) == NULL)
      return FALSE;
  return TRUE;
}

/* Waits for *ev, returns its seconds and releases it (NULL: 0). */
static double
take_event_seconds (cl_event * ev)
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

/* ---------------------------------------------------------------- training */

/* Tuning of the training kernels: defaults from the device, overridable by
 * CLVISION_TUNE (EIG_*), passed to the build as -D macros. */
typedef struct
{
  gboolean fp64;
  int red_wg;                   /* EIG_RED_WG: reductions */
  int mean_pix, mean_lanes;     /* EIG_MEAN_PIX, EIG_MEAN_LANES */
  int zm_rows;                  /* EIG_ZM_ROWS */
  int mm_tile, mm_tk, mm_wpt;   /* EIG_MM_TILE, EIG_MM_TK, EIG_MM_WPT */
  int jac_wg;                   /* EIG_JAC_WG: rotation work-group width */
  int jac_batch;                /* EIG_JAC_BATCH: rounds per V update */
  int vacc_wg, vacc_rows;       /* EIG_VACC_WG, EIG_VACC_ROWS */
  gboolean vacc_local;          /* the V rows fit in local memory */
  int tr_tile, tr_rows;         /* EIG_TR_TILE, EIG_TR_ROWS: transpose */
  double jac_tol;               /* EIG_JACOBI_TOL: off(L) / ‖L‖ to stop at */
} TrainTune;

/* `n`: the side of L (even), which sets how many rows of V fit in local
 * memory. */
static gboolean
train_tune (ClvDevice * dev, int n, TrainTune * t, GError ** error)
{
  const gboolean gpu = dev->simd_width > 1;
  const gsize max_wg = dev->max_work_group_size;
  const char *tol;
  gsize local_bytes;

  if (!choose_precision (dev, &t->fp64, error))
    return FALSE;
  t->red_wg = tune_pow2 (dev, "EIG_RED_WG", gpu ? 256 : 64, max_wg);
  t->mean_pix = tune_pow2 (dev, "EIG_MEAN_PIX", gpu ? dev->simd_width : 16,
      max_wg);
  t->mean_lanes = tune_pow2 (dev, "EIG_MEAN_LANES", gpu ? 8 : 4,
      max_wg / t->mean_pix);
  t->zm_rows = (int) CLAMP (clv_device_tune_int (dev, "EIG_ZM_ROWS", 4), 1,
      64);
  t->mm_wpt = tune_pow2 (dev, "EIG_MM_WPT", 4, 16);
  t->mm_tile = tune_pow2 (dev, "EIG_MM_TILE", gpu ? 64 : 32, 256);
  t->mm_tk = tune_pow2 (dev, "EIG_MM_TK", 16, 256);
  /* The work-group is (tile / wpt)² work-items and holds two slabs. */
  while (t->mm_tile > t->mm_wpt
      && (gsize) (t->mm_tile / t->mm_wpt) * (t->mm_tile / t->mm_wpt) > max_wg)
    t->mm_tile /= 2;
  if (t->mm_tile < t->mm_wpt)
    t->mm_tile = t->mm_wpt;
  local_bytes = ((gsize) t->mm_tile * (t->mm_tk + 1) +
      (gsize) t->mm_tk * (t->mm_tile + 1)) * real_size (t->fp64);
  if (local_bytes > dev->local_mem_size)
    goto too_big;
  t->jac_wg = tune_pow2 (dev, "EIG_JAC_WG", gpu ? 64 : 16, max_wg);
  t->jac_batch = (int) CLAMP (clv_device_tune_int (dev, "EIG_JAC_BATCH", 32),
      1, 1024);
  t->vacc_wg = tune_pow2 (dev, "EIG_VACC_WG", gpu ? 256 : 64, max_wg);
  t->vacc_rows = (int) CLAMP (clv_device_tune_int (dev, "EIG_VACC_ROWS", 2),
      1, 64);
  while (t->vacc_rows > 1
      && (gsize) t->vacc_rows * n * real_size (t->fp64) > dev->local_mem_size)
    t->vacc_rows--;
  t->tr_tile = tune_pow2 (dev, "EIG_TR_TILE", 32, 64);
  t->tr_rows = tune_pow2 (dev, "EIG_TR_ROWS", 8, t->tr_tile);
  while ((gsize) t->tr_tile * t->tr_rows > max_wg)
    t->tr_rows /= 2;
  t->vacc_local = clv_device_tune_int (dev, "EIG_VACC_LOCAL", 1)
      && (gsize) t->vacc_rows * n * real_size (t->fp64) <= dev->local_mem_size;
  tol = clv_device_tune_string (dev, "EIG_JACOBI_TOL", NULL);
  t->jac_tol = tol ? g_ascii_strtod (tol, NULL) : t->fp64 ? 1e-12 : 1e-6;
  return TRUE;

too_big:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "EIG_MM_TILE=%d with EIG_MM_TK=%d needs %" G_GSIZE_FORMAT " bytes of "
      "local memory; %s has %" G_GUINT64_FORMAT, t->mm_tile, t->mm_tk,
      local_bytes, dev->device_name, dev->local_mem_size);
  return FALSE;
}

enum
{
  K_IDENTITY, K_MEAN, K_ZERO_MEAN, K_MATMUL_NT, K_MATMUL_NN, K_PARAMS,
  K_ROTATE, K_ACCUMULATE, K_NORM, K_DIAGONAL, K_SELECT, K_NORMALISE,
  K_TRANSPOSE, N_TRAIN_KERNELS
};

static const char *const train_kernel_names[N_TRAIN_KERNELS] = {
  "identity", "face_mean", "zero_mean", "matmul_nt", "matmul_nn",
  "jacobi_params", "jacobi_rotate", "jacobi_accumulate", "jacobi_norm",
  "jacobi_diagonal",
  "select_components", "normalise_rows", "transpose",
};

enum
{
  B_FACES, B_MEAN, B_A, B_L, B_V, B_ROT, B_PARTIAL, B_DIAG, B_ORDER, B_VT,
  B_UT, B_U, B_OMEGA, N_TRAIN_BUFFERS
};

/* Partial sums of jacobi_norm: work-groups launched. */
#define NORM_GROUPS 256

typedef struct
{
  ClvDevice *dev;
  TrainTune tune;
  cl_kernel k[N_TRAIN_KERNELS];
  cl_mem b[N_TRAIN_BUFFERS];
  int n_train, dim, n;          /* n: L's side padded to even */
} Trainer;

static gboolean
trainer_init (Trainer * tr, ClvDevice * dev, int n, GError ** error)
{
  TrainTune *t = &tr->tune;
  cl_program prog;
  char *opts;
  gboolean ok;

  tr->dev = dev;
  if (!train_tune (dev, n, t, error))
    return FALSE;
  opts = g_strdup_printf ("-DREAL_DOUBLE=%d -DRED_WG=%d -DMEAN_PIX=%d "
      "-DMEAN_LANES=%d -DZM_ROWS=%d -DMM_TILE=%d -DMM_TK=%d -DMM_WPT=%d "
      "-DVACC_WG=%d -DVACC_ROWS=%d -DVACC_LOCAL=%d -DTR_TILE=%d "
      "-DTR_ROWS=%d", t->fp64, t->red_wg, t->mean_pix, t->mean_lanes,
      t->zm_rows, t->mm_tile, t->mm_tk, t->mm_wpt, t->vacc_wg, t->vacc_rows,
      t->vacc_local, t->tr_tile, t->tr_rows);
  prog = clv_device_get_program (dev, "eigen_train", opts, error);
  g_free (opts);
  if (prog == NULL)
    return FALSE;
  ok = create_kernels (prog, train_kernel_names, N_TRAIN_KERNELS, tr->k,
      error);
  clReleaseProgram (prog);
  return ok;
}

static void
trainer_clear (Trainer * tr)
{
  release_kernels (tr->k, N_TRAIN_KERNELS);
  release_mems (tr->b, N_TRAIN_BUFFERS);
}

static gboolean
enqueue (Trainer * tr, int kernel, guint dims, const size_t * global,
    const size_t * local, cl_event * event, GError ** error)
{
  CLV_CHECK (clEnqueueNDRangeKernel (tr->dev->queue, tr->k[kernel], dims,
          NULL, global, local, 0, NULL, event), error, fail);
  return TRUE;
fail:
  return FALSE;
}

/* C (m × n, ldc) = alpha · X (m × k) · op(Y). */
static gboolean
matmul (Trainer * tr, int kernel, cl_mem x, int ldx, cl_mem y, int ldy,
    cl_mem c, int ldc, int m, int n, int k, double alpha, cl_event * event,
    GError ** error)
{
  const TrainTune *t = &tr->tune;
  const size_t side = t->mm_tile / t->mm_wpt;
  size_t local[2] = { side, side };
  size_t global[2] = { (n + t->mm_tile - 1) / t->mm_tile * side,
    (m + t->mm_tile - 1) / t->mm_tile * side
  };
  float alpha_f = (float) alpha;
  gboolean ok;

  if (t->fp64)
    ok = clv_kernel_set_args (tr->k[kernel], error, CLV_ARG (x),
        CLV_ARG (ldx), CLV_ARG (y), CLV_ARG (ldy), CLV_ARG (c), CLV_ARG (ldc),
        CLV_ARG (m), CLV_ARG (n), CLV_ARG (k), CLV_ARG (alpha), CLV_ARGS_END);
  else
    ok = clv_kernel_set_args (tr->k[kernel], error, CLV_ARG (x),
        CLV_ARG (ldx), CLV_ARG (y), CLV_ARG (ldy), CLV_ARG (c), CLV_ARG (ldc),
        CLV_ARG (m), CLV_ARG (n), CLV_ARG (k), CLV_ARG (alpha_f),
        CLV_ARGS_END);
  return ok && enqueue (tr, kernel, 2, global, local, event, error);
}

/* Σ of B's squared entries (off the diagonal only, or all). */
static gboolean
jacobi_norm2 (Trainer * tr, gboolean off_only, double *out, cl_event * event,
    GError ** error)
{
  const int n = tr->n, off = off_only;
  size_t local = tr->tune.red_wg, global = local * NORM_GROUPS;
  double part[NORM_GROUPS];

  if (!clv_kernel_set_args (tr->k[K_NORM], error, CLV_ARG (tr->b[B_L]),
          CLV_ARG (n), CLV_ARG (n), CLV_ARG (off),
          CLV_ARG (tr->b[B_PARTIAL]), CLV_ARGS_END)
      || !enqueue (tr, K_NORM, 1, &global, &local, event, error)
      || !read_reals (tr->dev, tr->b[B_PARTIAL], tr->tune.fp64, NORM_GROUPS,
          part, error))
    return FALSE;
  *out = 0;
  for (int i = 0; i < NORM_GROUPS; i++)
    *out += part[i];
  return TRUE;
}

/* Step 4: sweeps of n − 1 rounds until off(L) ≤ tol · ‖L‖ (or rounding
 * stops the progress).  Returns the sweeps in *sweeps, device time in
 * *seconds. */
#define JACOBI_MAX_SWEEPS 60

/* V ← V · (the rotations of rounds first … first + count − 1, kept in
 * slots 0 … count − 1). */
static gboolean
accumulate (Trainer * tr, int first, int count, GError ** error)
{
  const TrainTune *t = &tr->tune;
  size_t local = t->vacc_wg;
  size_t global = local * ((tr->n + t->vacc_rows - 1) / t->vacc_rows);

  CLV_CHECK (clSetKernelArg (tr->k[K_ACCUMULATE], 3, sizeof first, &first),
      error, fail);
  CLV_CHECK (clSetKernelArg (tr->k[K_ACCUMULATE], 4, sizeof count, &count),
      error, fail);
  return enqueue (tr, K_ACCUMULATE, 1, &global, &local, NULL, error);
fail:
  return FALSE;
}

static gboolean
jacobi (Trainer * tr, int *sweeps, double *seconds, GError ** error)
{
  const int n = tr->n, pairs = n / 2, batch = tr->tune.jac_batch;
  const size_t wg = tr->tune.jac_wg;
  const gsize scratch = tr->tune.vacc_local ?
      (gsize) tr->tune.vacc_rows * n * real_size (tr->tune.fp64) :
      real_size (tr->tune.fp64);
  size_t p_global = clv_round_up (pairs, wg);
  size_t r_local[2] = { wg, 1 };
  size_t r_global[2] = { clv_round_up (pairs, wg), pairs };
  size_t id_global[2] = { n, n };
  double total, off, prev = G_MAXDOUBLE;
  const double tol2 = tr->tune.jac_tol * tr->tune.jac_tol;
  cl_event first = NULL, last = NULL;

  *sweeps = 0;
  *seconds = 0;
  if (!clv_kernel_set_args (tr->k[K_IDENTITY], error, CLV_ARG (tr->b[B_V]),
          CLV_ARG (n), CLV_ARGS_END)
      || !enqueue (tr, K_IDENTITY, 2, id_global, NULL, NULL, error)
      || !clv_kernel_set_args (tr->k[K_PARAMS], error, CLV_ARG (tr->b[B_L]),
          CLV_ARG (n), CLV_ARG (n), CLV_ARG (n), CLV_ARG (tr->b[B_ROT]),
          CLV_ARG (n), CLV_ARGS_END)
      || !clv_kernel_set_args (tr->k[K_ROTATE], error, CLV_ARG (tr->b[B_L]),
          CLV_ARG (n), CLV_ARG (n), CLV_ARG (n), CLV_ARG (tr->b[B_ROT]),
          CLV_ARG (n), CLV_ARGS_END)
      || !clv_kernel_set_args (tr->k[K_ACCUMULATE], error,
          CLV_ARG (tr->b[B_V]), CLV_ARG (n), CLV_ARG (n), CLV_ARG (n),
          CLV_ARG (n), CLV_ARG (tr->b[B_ROT]), scratch, (const void *) NULL, CLV_ARGS_END)
      || !jacobi_norm2 (tr, FALSE, &total, NULL, error)
      || !jacobi_norm2 (tr, TRUE, &off, NULL, error))
    return FALSE;

  while (off > tol2 * total && *sweeps < JACOBI_MAX_SWEEPS) {
    /* Rounding noise: the sweep before did not halve off(L). */
    if (off > 0.25 * prev && off < 1e-16 * total)
      break;
    prev = off;
    for (int round = 0; round < n - 1; round++) {
      const int slot = round % batch;
      CLV_CHECK (clSetKernelArg (tr->k[K_PARAMS], 3, sizeof round, &round),
          error, fail);
      CLV_CHECK (clSetKernelArg (tr->k[K_PARAMS], 5, sizeof slot, &slot),
          error, fail);
      CLV_CHECK (clSetKernelArg (tr->k[K_ROTATE], 3, sizeof round, &round),
          error, fail);
      CLV_CHECK (clSetKernelArg (tr->k[K_ROTATE], 5, sizeof slot, &slot),
          error, fail);
      if (!enqueue (tr, K_PARAMS, 1, &p_global, NULL,
              round == 0 ? &first : NULL, error)
          || !enqueue (tr, K_ROTATE, 2, r_global, r_local, NULL, error))
        goto fail;
      if ((slot == batch - 1 || round == n - 2)
          && !accumulate (tr, round - slot, slot + 1, error))
        goto fail;
      /* Keep the device fed while the host goes on enqueueing. */
      if (round % 64 == 63)
        clFlush (tr->dev->queue);
    }
    if (!jacobi_norm2 (tr, TRUE, &off, &last, error))
      goto fail;
    g_debug ("Jacobi sweep %d: off(L)/|L| = %.3g", *sweeps + 1,
        sqrt (off / total));
    *seconds += clv_event_span_seconds (first, last);
    g_clear_pointer (&first, clReleaseEvent);
    g_clear_pointer (&last, clReleaseEvent);
    (*sweeps)++;
  }
  return TRUE;

fail:
  g_clear_pointer (&first, clReleaseEvent);
  g_clear_pointer (&last, clReleaseEvent);
  return FALSE;
}

typedef struct
{
  const double *values;
} SortCtx;

static int
compare_descending (const void *a, const void *b, void *data)
{
  const double *v = ((SortCtx *) data)->values;
  const int i = *(const int *) a, j = *(const int *) b;

  if (v[i] != v[j])
    return v[i] < v[j] ? 1 : -1;
  return i - j;
}

static gboolean
create_buffer (Trainer * tr, int which, cl_mem_flags flags, gsize bytes,
    GError ** error)
{
  tr->b[which] = clv_buffer_new (tr->dev, flags, MAX (bytes, 1), error);
  return tr->b[which] != NULL;
}

ClvEigenModel *
clv_eigen_train_gpu (ClvDevice * dev, const guint8 * faces, int n_train,
    const int *labels, int width, int height,
    const ClvEigenComponents * components, ClvEigenTrainStats * stats,
    GError ** error)
{
  Trainer tr = { 0 };
  ClvEigenTrainStats tm = { 0 };
  ClvEigenModel *model = NULL;
  const gint64 t_start = g_get_monotonic_time ();
  const int m = n_train, dim = width * height;
  gsize rs;
  int n, k = 0;
  double *eig = NULL;
  int *order = NULL;
  cl_event ev[8] = { NULL };
  enum
  { E_MEAN, E_ZERO, E_COV, E_SELECT, E_EIGENFACES, E_NORM, E_PROJ,
    E_TRANSPOSE
  };
  cl_command_queue q = dev->queue;

  if (n_train < 2 || width < 1 || height < 1)
    goto too_few;
  n = m + (m & 1);
  if (!trainer_init (&tr, dev, n, error))
    goto fail;
  tm.build = (g_get_monotonic_time () - t_start) * 1e-6;
  rs = real_size (tr.tune.fp64);
  tr.n_train = m;
  tr.dim = dim;
  tr.n = n;

  if (!create_buffer (&tr, B_FACES, CL_MEM_READ_ONLY, (gsize) m * dim, error)
      || !create_buffer (&tr, B_MEAN, CL_MEM_READ_WRITE, dim * rs, error)
      || !create_buffer (&tr, B_A, CL_MEM_READ_WRITE, (gsize) m * dim * rs,
          error)
      || !create_buffer (&tr, B_L, CL_MEM_READ_WRITE, (gsize) n * n * rs,
          error)
      || !create_buffer (&tr, B_V, CL_MEM_READ_WRITE, (gsize) n * n * rs,
          error)
      || !create_buffer (&tr, B_ROT, CL_MEM_READ_WRITE,
          (gsize) tr.tune.jac_batch * (n / 2) * 2 * rs, error)
      || !create_buffer (&tr, B_PARTIAL, CL_MEM_READ_WRITE,
          NORM_GROUPS * rs, error)
      || !create_buffer (&tr, B_DIAG, CL_MEM_READ_WRITE, n * rs, error))
    goto fail;
  CLV_CHECK (clEnqueueWriteBuffer (q, tr.b[B_FACES], CL_FALSE, 0,
          (gsize) m * dim, faces, 0, NULL, NULL), error, fail);

  /* Step 1: mean. */
  {
    size_t local[2] = { tr.tune.mean_pix, tr.tune.mean_lanes };
    size_t global[2] = { clv_round_up (dim, local[0]), local[1] };
    if (!clv_kernel_set_args (tr.k[K_MEAN], error, CLV_ARG (tr.b[B_FACES]),
            CLV_ARG (m), CLV_ARG (dim), CLV_ARG (tr.b[B_MEAN]), CLV_ARGS_END)
        || !enqueue (&tr, K_MEAN, 2, global, local, &ev[E_MEAN], error))
      goto fail;
  }
  /* Step 2: A = faces − mean. */
  {
    const int rows = tr.tune.zm_rows;
    size_t local[2] = { tr.tune.red_wg, 1 };
    size_t global[2] = { clv_round_up (dim, local[0]),
      (m + rows - 1) / rows
    };
    if (!clv_kernel_set_args (tr.k[K_ZERO_MEAN], error,
            CLV_ARG (tr.b[B_FACES]), CLV_ARG (tr.b[B_MEAN]), CLV_ARG (m),
            CLV_ARG (dim), CLV_ARG (tr.b[B_A]), CLV_ARGS_END)
        || !enqueue (&tr, K_ZERO_MEAN, 2, global, local, &ev[E_ZERO], error))
      goto fail;
  }
  /* Step 3: L = A·Aᵀ / M; an odd M leaves a zero row and column. */
  if (n != m) {
    const cl_uchar zero = 0;
    CLV_CHECK (clEnqueueFillBuffer (q, tr.b[B_L], &zero, 1, 0,
            (gsize) n * n * rs, 0, NULL, NULL), error, fail);
  }
  if (!matmul (&tr, K_MATMUL_NT, tr.b[B_A], dim, tr.b[B_A], dim, tr.b[B_L], n,
          m, m, dim, 1.0 / m, &ev[E_COV], error))
    goto fail;

  /* Step 4: eigen-decomposition. */
  if (!jacobi (&tr, &tm.sweeps, &tm.jacobi, error))
    goto fail;

  /* Step 5: the eigenvalues in descending order, K of them kept. */
  {
    size_t global = n;
    double *diag = g_new (double, n);
    SortCtx ctx;
    if (!clv_kernel_set_args (tr.k[K_DIAGONAL], error, CLV_ARG (tr.b[B_L]),
            CLV_ARG (n), CLV_ARG (n), CLV_ARG (tr.b[B_DIAG]), CLV_ARGS_END)
        || !enqueue (&tr, K_DIAGONAL, 1, &global, NULL, NULL, error)
        || !read_reals (dev, tr.b[B_DIAG], tr.tune.fp64, n, diag, error)) {
      g_free (diag);
      goto fail;
    }
    order = g_new (int, m);
    for (int i = 0; i < m; i++)
      order[i] = i;
    ctx.values = diag;
    g_qsort_with_data (order, m, sizeof (int), compare_descending, &ctx);
    eig = g_new (double, m);
    for (int i = 0; i < m; i++) {
      eig[i] = diag[order[i]];
      tm.eigenvalue_sum += MAX (eig[i], 0);
    }
    g_free (diag);
  }
  k = clv_eigen_choose_components (eig, m, m, components);
  if (k < 1)
    goto all_equal;
  if (!create_buffer (&tr, B_ORDER, CL_MEM_READ_ONLY, k * sizeof (int), error)
      || !create_buffer (&tr, B_VT, CL_MEM_READ_WRITE, (gsize) k * m * rs,
          error)
      || !create_buffer (&tr, B_UT, CL_MEM_READ_WRITE, (gsize) k * dim * rs,
          error)
      || !create_buffer (&tr, B_U, CL_MEM_READ_WRITE, (gsize) k * dim * rs,
          error)
      || !create_buffer (&tr, B_OMEGA, CL_MEM_READ_WRITE, (gsize) m * k * rs,
          error))
    goto fail;
  CLV_CHECK (clEnqueueWriteBuffer (q, tr.b[B_ORDER], CL_FALSE, 0,
          k * sizeof (int), order, 0, NULL, NULL), error, fail);
  {
    size_t global[2] = { m, k };
    if (!clv_kernel_set_args (tr.k[K_SELECT], error, CLV_ARG (tr.b[B_V]),
            CLV_ARG (n), CLV_ARG (m), CLV_ARG (tr.b[B_ORDER]), CLV_ARG (k),
            CLV_ARG (tr.b[B_VT]), CLV_ARGS_END)
        || !enqueue (&tr, K_SELECT, 2, global, NULL, &ev[E_SELECT], error))
      goto fail;
  }
  /* Step 6: Uᵀ = Vₖᵀ · A (eigenfaces as rows). */
  if (!matmul (&tr, K_MATMUL_NN, tr.b[B_VT], m, tr.b[B_A], dim, tr.b[B_UT],
          dim, k, dim, m, 1.0, &ev[E_EIGENFACES], error))
    goto fail;
  /* Step 7: unit length. */
  {
    size_t local = tr.tune.red_wg, global = local * k;
    if (!clv_kernel_set_args (tr.k[K_NORMALISE], error, CLV_ARG (tr.b[B_UT]),
            CLV_ARG (dim), CLV_ARGS_END)
        || !enqueue (&tr, K_NORMALISE, 1, &global, &local, &ev[E_NORM],
            error))
      goto fail;
  }
  /* Step 8: Ω = A · U (training projections as rows). */
  if (!matmul (&tr, K_MATMUL_NT, tr.b[B_A], dim, tr.b[B_UT], dim,
          tr.b[B_OMEGA], k, m, k, dim, 1.0, &ev[E_PROJ], error))
    goto fail;

  /* OpenCV keeps the eigenfaces as columns (dim × K). */
  {
    size_t local[2] = { tr.tune.tr_tile, tr.tune.tr_rows };
    size_t global[2] = { clv_round_up (dim, local[0]),
      (k + tr.tune.tr_tile - 1) / tr.tune.tr_tile * local[1]
    };
    if (!clv_kernel_set_args (tr.k[K_TRANSPOSE], error, CLV_ARG (tr.b[B_UT]),
            CLV_ARG (k), CLV_ARG (dim), CLV_ARG (tr.b[B_U]), CLV_ARGS_END)
        || !enqueue (&tr, K_TRANSPOSE, 2, global, local, &ev[E_TRANSPOSE],
            error))
      goto fail;
  }

  model = clv_eigen_model_new (width, height, m, k);
  if (!read_reals (dev, tr.b[B_MEAN], tr.tune.fp64, dim, model->mean, error)
      || !read_reals (dev, tr.b[B_U], tr.tune.fp64, (gsize) k * dim,
          model->eigenvectors, error)
      || !read_reals (dev, tr.b[B_OMEGA], tr.tune.fp64, (gsize) m * k,
          model->projections, error))
    goto fail;
  memcpy (model->eigenvalues, eig, k * sizeof (double));
  memcpy (model->labels, labels, m * sizeof (int));

  tm.mean = take_event_seconds (&ev[E_MEAN]);
  tm.zero_mean = take_event_seconds (&ev[E_ZERO]);
  tm.covariance = take_event_seconds (&ev[E_COV]);
  /* Picking the kept eigenvectors belongs to the eigenfaces' step. */
  tm.eigenfaces = take_event_seconds (&ev[E_SELECT]) +
      take_event_seconds (&ev[E_EIGENFACES]);
  tm.normalise = take_event_seconds (&ev[E_NORM]);
  tm.projections = take_event_seconds (&ev[E_PROJ]);
  /* Their transposition to OpenCV's layout too. */
  tm.eigenfaces += take_event_seconds (&ev[E_TRANSPOSE]);
  tm.wall = (g_get_monotonic_time () - t_start) * 1e-6;
  if (stats)
    *stats = tm;
  goto out;

  /* ERRORS */
too_few:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
      "Training needs at least 2 images of at least 1×1 pixels (got %d of "
      "%d×%d)", n_train, width, height);
  goto out;
all_equal:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
      "All %d training images are the same: there is nothing to tell them "
      "apart by", m);
  goto fail;
fail:
  clFinish (q);
  g_clear_pointer (&model, clv_eigen_model_free);
out:
  for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
    g_clear_pointer (&ev[i], clReleaseEvent);
  trainer_clear (&tr);
  g_free (eig);
  g_free (order);
  return model;
}

/* ------------------------------------------------------------- recognition */

double
clv_eigen_confidence (int label, double distance, double other_distance)
{
  if (label == CLV_EIGEN_UNKNOWN)
    return 0;
  if (other_distance >= G_MAXDOUBLE)
    return 1;
  /* Another label at distance 0 too: a tie. */
  if (other_distance <= 0)
    return 0;
  return CLAMP (1 - distance / other_distance, 0, 1);
}

gboolean
clv_eigen_roi_clip (ClvEigenRoi * roi, int width, int height)
{
  gint64 x0 = MAX (roi->x, 0), y0 = MAX (roi->y, 0);
  gint64 x1 = MIN ((gint64) roi->x + MAX (roi->w, 0), width);
  gint64 y1 = MIN ((gint64) roi->y + MAX (roi->h, 0), height);

  if (x1 <= x0 || y1 <= y0)
    return FALSE;
  roi->x = (int) x0;
  roi->y = (int) y0;
  roi->w = (int) (x1 - x0);
  roi->h = (int) (y1 - y0);
  return TRUE;
}

enum
{ R_CROP, R_PROJECT, R_DISTANCES, R_NEAREST, N_REC_KERNELS };

static const char *const rec_kernel_names[N_REC_KERNELS] = {
  "crop_resize", "project", "distances", "nearest",
};

/* Model buffers, then per-batch buffers grown to `capacity` faces. */
enum
{
  R_MEAN, R_UT, R_OMEGA_T, R_LABELS,
  R_XTAB, R_YTAB, R_FACES, R_WEIGHTS, R_DIST, R_BEST_INDEX, R_BEST_DIST,
  N_REC_BUFFERS
};

struct _ClvEigenRecogniser
{
  ClvDevice *dev;
  gboolean fp64;
  int width, height, dim, n_comp, n_train;
  int proj_wg, proj_faces, near_wg;
  int *labels;
  cl_kernel k[N_REC_KERNELS];
  cl_mem b[N_REC_BUFFERS];
  int capacity;
  /* Host side of the per-batch buffers. */
  int *xtab, *ytab, *best_index;
  double *best_dist;
  int *first;
  guint16 *frac;
};

void
clv_eigen_recogniser_free (ClvEigenRecogniser * rec)
{
  if (rec == NULL)
    return;
  release_kernels (rec->k, N_REC_KERNELS);
  release_mems (rec->b, N_REC_BUFFERS);
  if (rec->dev)
    clv_device_unref (rec->dev);
  g_free (rec->labels);
  g_free (rec->xtab);
  g_free (rec->ytab);
  g_free (rec->best_index);
  g_free (rec->best_dist);
  g_free (rec->first);
  g_free (rec->frac);
  g_free (rec);
}

ClvEigenRecogniser *
clv_eigen_recogniser_new (ClvDevice * dev, const ClvEigenModel * model,
    GError ** error)
{
  ClvEigenRecogniser *rec = g_new0 (ClvEigenRecogniser, 1);
  const gboolean gpu = dev->simd_width > 1;
  const int dim = model->dim, kc = model->n_components, m = model->n_train;
  double *t = NULL;
  cl_program prog;
  char *opts;
  gboolean ok;

  rec->dev = clv_device_ref (dev);
  if (!choose_precision (dev, &rec->fp64, error))
    goto fail;
  if (kc < 1 || m < 1 || dim < 1)
    goto empty;
  rec->width = model->width;
  rec->height = model->height;
  rec->dim = dim;
  rec->n_comp = kc;
  rec->n_train = m;
  rec->proj_wg = tune_pow2 (dev, "EIG_PROJ_WG", gpu ? 256 : 64,
      dev->max_work_group_size);
  rec->proj_faces = (int) CLAMP (clv_device_tune_int (dev, "EIG_PROJ_FACES",
          gpu ? 8 : 4), 1, 32);
  rec->near_wg = tune_pow2 (dev, "EIG_NEAR_WG", gpu ? 256 : 64,
      dev->max_work_group_size);
  /* The first PROJ_FACES work-items write the results; the partial sums of
   * all faces must fit in local memory. */
  rec->proj_faces = MIN (rec->proj_faces, rec->proj_wg);
  while (rec->proj_wg > rec->proj_faces && (gsize) rec->proj_wg *
      rec->proj_faces * real_size (rec->fp64) > dev->local_mem_size)
    rec->proj_wg /= 2;
  opts = g_strdup_printf ("-DREAL_DOUBLE=%d -DPROJ_WG=%d -DPROJ_FACES=%d "
      "-DNEAR_WG=%d", rec->fp64, rec->proj_wg, rec->proj_faces, rec->near_wg);
  prog = clv_device_get_program (dev, "eigen_recognise", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  ok = create_kernels (prog, rec_kernel_names, N_REC_KERNELS, rec->k, error);
  clReleaseProgram (prog);
  if (!ok)
    goto fail;

  /* Eigenfaces as rows (Uᵀ, K × dim) for the projection's contiguous rows;
   * training weights transposed (Ωᵀ, K × M) for the distances' coalescing. */
  t = g_new (double, MAX ((gsize) kc * dim, (gsize) kc * m));
  for (int c = 0; c < kc; c++)
    for (int p = 0; p < dim; p++)
      t[(gsize) c * dim + p] = model->eigenvectors[(gsize) p * kc + c];
  if ((rec->b[R_MEAN] = upload_reals (dev, rec->fp64, model->mean, dim,
              error)) == NULL
      || (rec->b[R_UT] = upload_reals (dev, rec->fp64, t, (gsize) kc * dim,
              error)) == NULL)
    goto fail;
  for (int c = 0; c < kc; c++)
    for (int i = 0; i < m; i++)
      t[(gsize) c * m + i] = model->projections[(gsize) i * kc + c];
  if ((rec->b[R_OMEGA_T] = upload_reals (dev, rec->fp64, t, (gsize) kc * m,
              error)) == NULL)
    goto fail;
  if ((rec->b[R_LABELS] = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
              model->labels, m * sizeof (int), error)) == NULL)
    goto fail;
  rec->labels = g_memdup2 (model->labels, m * sizeof (int));
  rec->first = g_new (int, MAX (rec->width, rec->height));
  rec->frac = g_new (guint16, MAX (rec->width, rec->height));
  g_free (t);
  return rec;

  /* ERRORS */
empty:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
      "The model is empty (%d components, %d training faces of %d pixels)",
      kc, m, dim);
  goto fail;
fail:
  g_free (t);
  clv_eigen_recogniser_free (rec);
  return NULL;
}

/* Grows the per-batch buffers to at least `n` faces. */
static gboolean
ensure_capacity (ClvEigenRecogniser * rec, int n, GError ** error)
{
  const gsize rs = real_size (rec->fp64);
  gsize per_face[N_REC_BUFFERS] = { 0 };

  if (n <= rec->capacity)
    return TRUE;
  n = MAX (n, 2 * rec->capacity);
  per_face[R_XTAB] = rec->width * sizeof (int);
  per_face[R_YTAB] = rec->height * sizeof (int);
  per_face[R_FACES] = rec->dim * rs;
  per_face[R_WEIGHTS] = rec->n_comp * rs;
  per_face[R_DIST] = rec->n_train * rs;
  per_face[R_BEST_INDEX] = sizeof (int);
  per_face[R_BEST_DIST] = 2 * rs;
  rec->capacity = 0;
  release_mems (rec->b + R_XTAB, N_REC_BUFFERS - R_XTAB);
  for (int i = R_XTAB; i < N_REC_BUFFERS; i++)
    if ((rec->b[i] = clv_buffer_new (rec->dev, CL_MEM_READ_WRITE,
                per_face[i] * n, error)) == NULL)
      return FALSE;
  rec->xtab = g_renew (int, rec->xtab, (gsize) n * rec->width);
  rec->ytab = g_renew (int, rec->ytab, (gsize) n * rec->height);
  rec->best_index = g_renew (int, rec->best_index, n);
  rec->best_dist = g_renew (double, rec->best_dist, 2 * n);
  rec->capacity = n;
  return TRUE;
}

/* One axis of a face's resize table: frame coordinate of the first source
 * pixel << 9 | weight of the next. */
static void
fill_axis (ClvEigenRecogniser * rec, int start, int src, int dst, int *tab)
{
  clv_resize_axis_exact (src, dst, rec->first, rec->frac, NULL, NULL);
  for (int i = 0; i < dst; i++)
    tab[i] = (start + rec->first[i]) << 9 | rec->frac[i];
}

/* Step 0 for the faces [first, first + n) of one frame: crop, resize,
 * subtract the mean (the face index is the kernel's second global id, so
 * the frame's faces land at their places in the batch). */
static gboolean
enqueue_crop (ClvEigenRecogniser * rec, const ClvEigenFrame * fr, int first,
    GPtrArray * events, GError ** error)
{
  const int w = rec->width, h = rec->height, dim = rec->dim;
  const ClvLumaImage *im = &fr->image;
  const cl_uint offset = im->image.offset, stride = im->image.stride;
  const cl_int bpp = im->image.bpp;
  const cl_int4 rgb = {.s = {im->r, im->g, im->b, 0} };
  size_t local[2] = { 64, 1 };
  size_t origin[2] = { 0, first };
  size_t global[2] = { clv_round_up (dim, 64), fr->n };
  cl_event ev = NULL;

  if (!clv_kernel_set_args (rec->k[R_CROP], error, CLV_ARG (fr->frame),
          CLV_ARG (offset), CLV_ARG (stride), CLV_ARG (bpp), CLV_ARG (rgb),
          CLV_ARG (rec->b[R_XTAB]), CLV_ARG (rec->b[R_YTAB]), CLV_ARG (w),
          CLV_ARG (h), CLV_ARG (rec->b[R_MEAN]), CLV_ARG (rec->b[R_FACES]),
          CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (rec->dev->queue, rec->k[R_CROP], 2,
          origin, global, local, 0, NULL, &ev), error, fail);
  g_ptr_array_add (events, ev);
  return TRUE;
fail:
  return FALSE;
}

gboolean
clv_eigen_recogniser_run_batch (ClvEigenRecogniser * rec,
    ClvEigenFrame * frames, guint n_frames, double *seconds, GError ** error)
{
  cl_command_queue q = rec->dev->queue;
  const int w = rec->width, h = rec->height;
  cl_event ev[N_REC_KERNELS] = { NULL };
  GPtrArray *crops = g_ptr_array_new ();
  double best[2];
  int n = 0;

  if (seconds)
    *seconds = 0;
  for (guint i = 0; i < n_frames; i++)
    n += MAX (frames[i].n, 0);
  if (n == 0)
    goto done;
  if (!ensure_capacity (rec, n, error))
    goto fail;
  for (guint i = 0, f = 0; i < n_frames; i++) {
    const ClvLumaImage *im = &frames[i].image;
    for (int k = 0; k < frames[i].n; k++, f++) {
      ClvEigenRoi r = frames[i].rois[k];
      if (!clv_eigen_roi_clip (&r, im->image.width, im->image.height)) {
        g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
            "Face %d (%d,%d %d×%d) lies outside the %d×%d frame", k,
            frames[i].rois[k].x, frames[i].rois[k].y, frames[i].rois[k].w,
            frames[i].rois[k].h, im->image.width, im->image.height);
        goto fail;
      }
      fill_axis (rec, r.x, r.w, w, rec->xtab + (gsize) f * w);
      fill_axis (rec, r.y, r.h, h, rec->ytab + (gsize) f * h);
    }
  }
  CLV_CHECK (clEnqueueWriteBuffer (q, rec->b[R_XTAB], CL_FALSE, 0,
          (gsize) n * w * sizeof (int), rec->xtab, 0, NULL, NULL), error,
      fail);
  CLV_CHECK (clEnqueueWriteBuffer (q, rec->b[R_YTAB], CL_FALSE, 0,
          (gsize) n * h * sizeof (int), rec->ytab, 0, NULL, NULL), error,
      fail);

  /* Step 0: each frame's faces cropped into the batch. */
  for (guint i = 0, first = 0; i < n_frames; first += MAX (frames[i].n, 0),
      i++)
    if (frames[i].n > 0 && !enqueue_crop (rec, &frames[i], first, crops,
            error))
      goto fail;
  /* Step 1: project every face of the batch. */
  {
    size_t local[2] = { rec->proj_wg, 1 };
    size_t global[2] = { (size_t) rec->proj_wg * rec->n_comp,
      (n + rec->proj_faces - 1) / rec->proj_faces
    };
    if (!clv_kernel_set_args (rec->k[R_PROJECT], error,
            CLV_ARG (rec->b[R_FACES]), CLV_ARG (n), CLV_ARG (rec->dim),
            CLV_ARG (rec->b[R_UT]), CLV_ARG (rec->n_comp),
            CLV_ARG (rec->b[R_WEIGHTS]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_PROJECT], 2, NULL, global,
            local, 0, NULL, &ev[R_PROJECT]), error, fail);
  }
  /* Step 2: squared distances to every training face. */
  {
    size_t local[2] = { 64, 1 };
    size_t global[2] = { clv_round_up (rec->n_train, 64), n };
    if (!clv_kernel_set_args (rec->k[R_DISTANCES], error,
            CLV_ARG (rec->b[R_WEIGHTS]), CLV_ARG (rec->n_comp),
            CLV_ARG (rec->b[R_OMEGA_T]), CLV_ARG (rec->n_train),
            CLV_ARG (rec->b[R_DIST]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_DISTANCES], 2, NULL,
            global, local, 0, NULL, &ev[R_DISTANCES]), error, fail);
  }
  /* Step 3: the nearest. */
  {
    size_t local = rec->near_wg, global = local * n;
    if (!clv_kernel_set_args (rec->k[R_NEAREST], error,
            CLV_ARG (rec->b[R_DIST]), CLV_ARG (rec->n_train),
            CLV_ARG (rec->b[R_LABELS]), CLV_ARG (rec->b[R_BEST_INDEX]),
            CLV_ARG (rec->b[R_BEST_DIST]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_NEAREST], 1, NULL,
            &global, &local, 0, NULL, &ev[R_NEAREST]), error, fail);
  }
  CLV_CHECK (clEnqueueReadBuffer (q, rec->b[R_BEST_INDEX], CL_FALSE, 0,
          n * sizeof (int), rec->best_index, 0, NULL, NULL), error, fail);
  if (!read_reals (rec->dev, rec->b[R_BEST_DIST], rec->fp64, 2 * (gsize) n,
          rec->best_dist, error))
    goto fail;

  for (guint i = 0, f = 0; i < n_frames; i++)
    for (int k = 0; k < frames[i].n; k++, f++) {
      ClvEigenMatch *mt = &frames[i].matches[k];
      mt->index = rec->best_index[f];
      best[0] = rec->best_dist[2 * f];
      best[1] = rec->best_dist[2 * f + 1];
      mt->distance = sqrt (best[0]);
      mt->other_distance = isfinite (best[1]) ? sqrt (best[1]) : G_MAXDOUBLE;
      /* OpenCV's StandardCollector takes a face only below the threshold. */
      mt->label = mt->index >= 0 && mt->distance < frames[i].threshold ?
          rec->labels[mt->index] : CLV_EIGEN_UNKNOWN;
      mt->confidence = clv_eigen_confidence (mt->label, mt->distance,
          mt->other_distance);
    }
  for (guint i = 0; i < crops->len; i++) {
    double s = take_event_seconds ((cl_event *) & crops->pdata[i]);
    if (seconds)
      *seconds += s;
  }
  for (int i = 0; i < N_REC_KERNELS; i++) {
    double s = take_event_seconds (&ev[i]);
    if (seconds)
      *seconds += s;
  }
done:
  g_ptr_array_free (crops, TRUE);
  return TRUE;

  /* ERRORS */
fail:
  clFinish (q);
  for (guint i = 0; i < crops->len; i++)
    clReleaseEvent (crops->pdata[i]);
  g_ptr_array_free (crops, TRUE);
  for (int i = 0; i < N_REC_KERNELS; i++)
    g_clear_pointer (&ev[i], clReleaseEvent);
  return FALSE;
}

gboolean
clv_eigen_recogniser_run (ClvEigenRecogniser * rec, cl_mem frame,
    const ClvLumaImage * im, const ClvEigenRoi * rois, int n,
    double threshold, ClvEigenMatch * matches, double *seconds,
    GError ** error)
{
  ClvEigenFrame fr = { frame, *im, rois, n, threshold, matches };

  return clv_eigen_recogniser_run_batch (rec, &fr, 1, seconds, error);
}
