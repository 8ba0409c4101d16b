/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on an OpenCL device: training (steps 1–8 of Li, Yan and
 * Zhang, "Optimization of GPU-based Eigenface Algorithm"); see
 * clv-eigen-gpu.h and kernels/eigen_train.cl. */
#include "clv-eigen-gpu-private.h"

#include <math.h>
#include <string.h>

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

  if (!clv_eigen_choose_precision (dev, &t->fp64, error))
    return FALSE;
  t->red_wg = clv_eigen_tune_pow2 (dev, "EIG_RED_WG", gpu ? 256 : 64, max_wg);
  t->mean_pix = clv_eigen_tune_pow2 (dev, "EIG_MEAN_PIX",
      gpu ? dev->simd_width : 16, max_wg);
  t->mean_lanes = clv_eigen_tune_pow2 (dev, "EIG_MEAN_LANES", gpu ? 8 : 4,
      max_wg / t->mean_pix);
  t->zm_rows = (int) CLAMP (clv_device_tune_int (dev, "EIG_ZM_ROWS", 4), 1,
      64);
  t->mm_wpt = clv_eigen_tune_pow2 (dev, "EIG_MM_WPT", 4, 16);
  t->mm_tile = clv_eigen_tune_pow2 (dev, "EIG_MM_TILE", gpu ? 64 : 32, 256);
  t->mm_tk = clv_eigen_tune_pow2 (dev, "EIG_MM_TK", 16, 256);
  /* The work-group is (tile / wpt)² work-items and holds two slabs. */
  while (t->mm_tile > t->mm_wpt
      && (gsize) (t->mm_tile / t->mm_wpt) * (t->mm_tile / t->mm_wpt) > max_wg)
    t->mm_tile /= 2;
  if (t->mm_tile < t->mm_wpt)
    t->mm_tile = t->mm_wpt;
  local_bytes = ((gsize) t->mm_tile * (t->mm_tk + 1) +
      (gsize) t->mm_tk * (t->mm_tile + 1)) * clv_eigen_real_size (t->fp64);
  if (local_bytes > dev->local_mem_size)
    goto too_big;
  t->jac_wg = clv_eigen_tune_pow2 (dev, "EIG_JAC_WG", gpu ? 64 : 16, max_wg);
  t->jac_batch = (int) CLAMP (clv_device_tune_int (dev, "EIG_JAC_BATCH", 32),
      1, 1024);
  t->vacc_wg = clv_eigen_tune_pow2 (dev, "EIG_VACC_WG", gpu ? 256 : 64,
      max_wg);
  t->vacc_rows = (int) CLAMP (clv_device_tune_int (dev, "EIG_VACC_ROWS", 2),
      1, 64);
  while (t->vacc_rows > 1 && (gsize) t->vacc_rows * n
      * clv_eigen_real_size (t->fp64) > dev->local_mem_size)
    t->vacc_rows--;
  t->tr_tile = clv_eigen_tune_pow2 (dev, "EIG_TR_TILE", 32, 64);
  t->tr_rows = clv_eigen_tune_pow2 (dev, "EIG_TR_ROWS", 8, t->tr_tile);
  while ((gsize) t->tr_tile * t->tr_rows > max_wg)
    t->tr_rows /= 2;
  t->vacc_local = clv_device_tune_int (dev, "EIG_VACC_LOCAL", 1)
      && (gsize) t->vacc_rows * n * clv_eigen_real_size (t->fp64)
      <= dev->local_mem_size;
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

/* The steps' events, for ClvEigenTrainStats. */
enum
{
  E_MEAN, E_ZERO, E_COV, E_SELECT, E_EIGENFACES, E_NORM, E_PROJ,
  E_TRANSPOSE, N_TRAIN_EVENTS
};

/* Partial sums of jacobi_norm: work-groups launched. */
#define NORM_GROUPS 256

typedef struct
{
  ClvDevice *dev;
  TrainTune tune;
  cl_kernel k[N_TRAIN_KERNELS];
  cl_mem b[N_TRAIN_BUFFERS];
  cl_event ev[N_TRAIN_EVENTS];
  int n_train, dim, n;          /* n: L's side padded to even */
  gsize rs;                     /* bytes of a real */
} Trainer;

/* Tunes and builds the kernels for `m` faces of `dim` pixels. */
static gboolean
trainer_init (Trainer * tr, ClvDevice * dev, int m, int dim, GError ** error)
{
  TrainTune *t = &tr->tune;
  cl_program prog;
  char *opts;
  gboolean ok;

  tr->dev = dev;
  tr->n_train = m;
  tr->dim = dim;
  tr->n = m + (m & 1);
  if (!train_tune (dev, tr->n, t, error))
    return FALSE;
  tr->rs = clv_eigen_real_size (t->fp64);
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
  ok = clv_eigen_create_kernels (prog, train_kernel_names, N_TRAIN_KERNELS,
      tr->k, error);
  clReleaseProgram (prog);
  return ok;
}

static void
trainer_clear (Trainer * tr)
{
  for (guint i = 0; i < N_TRAIN_EVENTS; i++)
    g_clear_pointer (&tr->ev[i], clReleaseEvent);
  clv_eigen_release_kernels (tr->k, N_TRAIN_KERNELS);
  clv_eigen_release_mems (tr->b, N_TRAIN_BUFFERS);
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
      || !clv_eigen_read_reals (tr->dev, tr->b[B_PARTIAL], tr->tune.fp64,
          NORM_GROUPS, part, error))
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
      (gsize) tr->tune.vacc_rows * n * clv_eigen_real_size (tr->tune.fp64) :
      clv_eigen_real_size (tr->tune.fp64);
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

/* Steps 1–4's buffers, and the faces uploaded. */
static gboolean
upload_faces (Trainer * tr, const guint8 * faces, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim, n = tr->n;
  const gsize rs = tr->rs;

  if (!create_buffer (tr, B_FACES, CL_MEM_READ_ONLY, (gsize) m * dim, error)
      || !create_buffer (tr, B_MEAN, CL_MEM_READ_WRITE, dim * rs, error)
      || !create_buffer (tr, B_A, CL_MEM_READ_WRITE, (gsize) m * dim * rs,
          error)
      || !create_buffer (tr, B_L, CL_MEM_READ_WRITE, (gsize) n * n * rs,
          error)
      || !create_buffer (tr, B_V, CL_MEM_READ_WRITE, (gsize) n * n * rs,
          error)
      || !create_buffer (tr, B_ROT, CL_MEM_READ_WRITE,
          (gsize) tr->tune.jac_batch * (n / 2) * 2 * rs, error)
      || !create_buffer (tr, B_PARTIAL, CL_MEM_READ_WRITE,
          NORM_GROUPS * rs, error)
      || !create_buffer (tr, B_DIAG, CL_MEM_READ_WRITE, n * rs, error))
    return FALSE;
  CLV_CHECK (clEnqueueWriteBuffer (tr->dev->queue, tr->b[B_FACES], CL_FALSE,
          0, (gsize) m * dim, faces, 0, NULL, NULL), error, fail);
  return TRUE;
fail:
  return FALSE;
}

/* Step 1: the mean face. */
static gboolean
enqueue_mean (Trainer * tr, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim;
  size_t local[2] = { tr->tune.mean_pix, tr->tune.mean_lanes };
  size_t global[2] = { clv_round_up (dim, local[0]), local[1] };

  return clv_kernel_set_args (tr->k[K_MEAN], error, CLV_ARG (tr->b[B_FACES]),
      CLV_ARG (m), CLV_ARG (dim), CLV_ARG (tr->b[B_MEAN]), CLV_ARGS_END)
      && enqueue (tr, K_MEAN, 2, global, local, &tr->ev[E_MEAN], error);
}

/* Step 2: A = faces − mean. */
static gboolean
enqueue_zero_mean (Trainer * tr, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim, rows = tr->tune.zm_rows;
  size_t local[2] = { tr->tune.red_wg, 1 };
  size_t global[2] = { clv_round_up (dim, local[0]), (m + rows - 1) / rows };

  return clv_kernel_set_args (tr->k[K_ZERO_MEAN], error,
      CLV_ARG (tr->b[B_FACES]), CLV_ARG (tr->b[B_MEAN]), CLV_ARG (m),
      CLV_ARG (dim), CLV_ARG (tr->b[B_A]), CLV_ARGS_END)
      && enqueue (tr, K_ZERO_MEAN, 2, global, local, &tr->ev[E_ZERO], error);
}

/* Step 3: L = A·Aᵀ / M, the tiled product; an odd M leaves a zero row and
 * column. */
static gboolean
enqueue_covariance (Trainer * tr, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim, n = tr->n;

  if (n != m) {
    const cl_uchar zero = 0;
    CLV_CHECK (clEnqueueFillBuffer (tr->dev->queue, tr->b[B_L], &zero, 1, 0,
            (gsize) n * n * tr->rs, 0, NULL, NULL), error, fail);
  }
  return matmul (tr, K_MATMUL_NT, tr->b[B_A], dim, tr->b[B_A], dim,
      tr->b[B_L], n, m, m, dim, 1.0 / m, &tr->ev[E_COV], error);
fail:
  return FALSE;
}

/* Step 5: the eigenvalues (L's diagonal after step 4) in descending order:
 * `order` gets the M indices, `eig` their values, *sum the sum of the
 * positive ones (the energy). */
static gboolean
sort_eigenvalues (Trainer * tr, int *order, double *eig, double *sum,
    GError ** error)
{
  const int m = tr->n_train, n = tr->n;
  size_t global = n;
  double *diag = g_new (double, n);
  SortCtx ctx;

  if (!clv_kernel_set_args (tr->k[K_DIAGONAL], error, CLV_ARG (tr->b[B_L]),
          CLV_ARG (n), CLV_ARG (n), CLV_ARG (tr->b[B_DIAG]), CLV_ARGS_END)
      || !enqueue (tr, K_DIAGONAL, 1, &global, NULL, NULL, error)
      || !clv_eigen_read_reals (tr->dev, tr->b[B_DIAG], tr->tune.fp64, n,
          diag, error)) {
    g_free (diag);
    return FALSE;
  }
  for (int i = 0; i < m; i++)
    order[i] = i;
  ctx.values = diag;
  g_qsort_with_data (order, m, sizeof (int), compare_descending, &ctx);
  *sum = 0;
  for (int i = 0; i < m; i++) {
    eig[i] = diag[order[i]];
    *sum += MAX (eig[i], 0);
  }
  g_free (diag);
  return TRUE;
}

/* Steps 5–7: the `k` kept eigenvectors of L (`order`'s first) as rows
 * Vₖᵀ, the eigenfaces Uᵀ = Vₖᵀ · A, of unit length.  Also makes step 8's
 * buffers. */
static gboolean
enqueue_eigenfaces (Trainer * tr, const int *order, int k, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim, n = tr->n;
  const gsize rs = tr->rs;
  size_t select_global[2] = { m, k };
  size_t norm_local = tr->tune.red_wg, norm_global = norm_local * k;

  if (!create_buffer (tr, B_ORDER, CL_MEM_READ_ONLY, k * sizeof (int), error)
      || !create_buffer (tr, B_VT, CL_MEM_READ_WRITE, (gsize) k * m * rs,
          error)
      || !create_buffer (tr, B_UT, CL_MEM_READ_WRITE, (gsize) k * dim * rs,
          error)
      || !create_buffer (tr, B_U, CL_MEM_READ_WRITE, (gsize) k * dim * rs,
          error)
      || !create_buffer (tr, B_OMEGA, CL_MEM_READ_WRITE, (gsize) m * k * rs,
          error))
    return FALSE;
  CLV_CHECK (clEnqueueWriteBuffer (tr->dev->queue, tr->b[B_ORDER], CL_FALSE,
          0, k * sizeof (int), order, 0, NULL, NULL), error, fail);
  if (!clv_kernel_set_args (tr->k[K_SELECT], error, CLV_ARG (tr->b[B_V]),
          CLV_ARG (n), CLV_ARG (m), CLV_ARG (tr->b[B_ORDER]), CLV_ARG (k),
          CLV_ARG (tr->b[B_VT]), CLV_ARGS_END)
      || !enqueue (tr, K_SELECT, 2, select_global, NULL, &tr->ev[E_SELECT],
          error))
    return FALSE;
  /* Step 6: Uᵀ = Vₖᵀ · A (eigenfaces as rows). */
  if (!matmul (tr, K_MATMUL_NN, tr->b[B_VT], m, tr->b[B_A], dim,
          tr->b[B_UT], dim, k, dim, m, 1.0, &tr->ev[E_EIGENFACES], error))
    return FALSE;
  /* Step 7: unit length. */
  return clv_kernel_set_args (tr->k[K_NORMALISE], error,
      CLV_ARG (tr->b[B_UT]), CLV_ARG (dim), CLV_ARGS_END)
      && enqueue (tr, K_NORMALISE, 1, &norm_global, &norm_local,
      &tr->ev[E_NORM], error);
fail:
  return FALSE;
}

/* Step 8: Ω = A · U (training projections as rows). */
static gboolean
enqueue_projections (Trainer * tr, int k, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim;

  return matmul (tr, K_MATMUL_NT, tr->b[B_A], dim, tr->b[B_UT], dim,
      tr->b[B_OMEGA], k, m, k, dim, 1.0, &tr->ev[E_PROJ], error);
}

/* OpenCV keeps the eigenfaces as columns (dim × K): U = (Uᵀ)ᵀ. */
static gboolean
enqueue_eigenface_columns (Trainer * tr, int k, GError ** error)
{
  const int dim = tr->dim;
  size_t local[2] = { tr->tune.tr_tile, tr->tune.tr_rows };
  size_t global[2] = { clv_round_up (dim, local[0]),
    (k + tr->tune.tr_tile - 1) / tr->tune.tr_tile * local[1]
  };

  return clv_kernel_set_args (tr->k[K_TRANSPOSE], error,
      CLV_ARG (tr->b[B_UT]), CLV_ARG (k), CLV_ARG (dim), CLV_ARG (tr->b[B_U]),
      CLV_ARGS_END)
      && enqueue (tr, K_TRANSPOSE, 2, global, local, &tr->ev[E_TRANSPOSE],
      error);
}

/* The model: mean, eigenfaces and projections read back, the `k` kept
 * eigenvalues of `eig` and the labels. */
static ClvEigenModel *
read_model (Trainer * tr, int width, int height, int k, const double *eig,
    const int *labels, GError ** error)
{
  const int m = tr->n_train, dim = tr->dim;
  const gboolean fp64 = tr->tune.fp64;
  ClvEigenModel *model = clv_eigen_model_new (width, height, m, k);

  if (!clv_eigen_read_reals (tr->dev, tr->b[B_MEAN], fp64, dim, model->mean,
          error)
      || !clv_eigen_read_reals (tr->dev, tr->b[B_U], fp64, (gsize) k * dim,
          model->eigenvectors, error)
      || !clv_eigen_read_reals (tr->dev, tr->b[B_OMEGA], fp64, (gsize) m * k,
          model->projections, error)) {
    clv_eigen_model_free (model);
    return NULL;
  }
  memcpy (model->eigenvalues, eig, k * sizeof (double));
  memcpy (model->labels, labels, m * sizeof (int));
  return model;
}

/* The steps' device times (the events are released). */
static void
take_step_seconds (Trainer * tr, ClvEigenTrainStats * tm)
{
  tm->mean = clv_eigen_take_event_seconds (&tr->ev[E_MEAN]);
  tm->zero_mean = clv_eigen_take_event_seconds (&tr->ev[E_ZERO]);
  tm->covariance = clv_eigen_take_event_seconds (&tr->ev[E_COV]);
  /* Picking the kept eigenvectors belongs to the eigenfaces' step. */
  tm->eigenfaces = clv_eigen_take_event_seconds (&tr->ev[E_SELECT]) +
      clv_eigen_take_event_seconds (&tr->ev[E_EIGENFACES]);
  tm->normalise = clv_eigen_take_event_seconds (&tr->ev[E_NORM]);
  tm->projections = clv_eigen_take_event_seconds (&tr->ev[E_PROJ]);
  /* Their transposition to OpenCV's layout too. */
  tm->eigenfaces += clv_eigen_take_event_seconds (&tr->ev[E_TRANSPOSE]);
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
  double *eig = NULL;
  int *order = NULL;
  int k;

  if (n_train < 2 || width < 1 || height < 1)
    goto too_few;
  if (!trainer_init (&tr, dev, n_train, width * height, error))
    goto fail;
  tm.build = (g_get_monotonic_time () - t_start) * 1e-6;
  order = g_new (int, n_train);
  eig = g_new (double, n_train);
  if (!upload_faces (&tr, faces, error)
      || !enqueue_mean (&tr, error)
      || !enqueue_zero_mean (&tr, error)
      || !enqueue_covariance (&tr, error)
      /* Step 4: eigen-decomposition. */
      || !jacobi (&tr, &tm.sweeps, &tm.jacobi, error)
      || !sort_eigenvalues (&tr, order, eig, &tm.eigenvalue_sum, error))
    goto fail;
  k = clv_eigen_choose_components (eig, n_train, n_train, components);
  if (k < 1)
    goto all_equal;
  if (!enqueue_eigenfaces (&tr, order, k, error)
      || !enqueue_projections (&tr, k, error)
      || !enqueue_eigenface_columns (&tr, k, error)
      || !(model = read_model (&tr, width, height, k, eig, labels, error)))
    goto fail;

  take_step_seconds (&tr, &tm);
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
      "apart by", n_train);
  goto fail;
fail:
  clFinish (dev->queue);
out:
  trainer_clear (&tr);
  g_free (eig);
  g_free (order);
  return model;
}
