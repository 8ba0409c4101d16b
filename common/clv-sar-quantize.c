/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR quantization: C reference and OpenCL launcher. */
#include "clv-sar.h"

#include <math.h>
#include <string.h>

/* The correctly rounded float reciprocal of (float) s, 0 for s = 0 (the
 * kernel's reciprocal()). */
static inline float
reciprocal (guint64 s)
{
  return s ? (float) (1.0 / (double) (float) s) : 0.0f;
}

void
clv_quantize_ref (const guint8 * src, const ClvImage * si, guint8 * dst,
    const ClvImage * di, double coef)
{
  const int w = si->width, h = si->height;
  guint64 *rows = g_new0 (guint64, h), *cols = g_new0 (guint64, w), t = 0;
  float *rinv = g_new (float, h), *cinv = g_new (float, w), k;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const guint v = clv_image_get (src, si, x, y);
      rows[y] += v;
      cols[x] += v;
    }
  for (int y = 0; y < h; y++) {
    rinv[y] = reciprocal (rows[y]);
    t += rows[y];
  }
  for (int x = 0; x < w; x++)
    cinv[x] = reciprocal (cols[x]);
  k = (float) coef * (float) t;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float f = (((float) clv_image_get (src, si, x, y) * k) * rinv[y])
          * cinv[x];
      clv_image_set (dst, di, x, y, (guint) roundf (fminf (f, 255.0f)));
    }
  g_free (rows);
  g_free (cols);
  g_free (rinv);
  g_free (cinv);
}

/* The largest sum a uint partial can hold of 16-bit pixels. */
#define MAX_UINT_TERMS (G_MAXUINT32 / 65535)

struct _ClvQuantize
{
  ClvDevice *dev;
  gboolean fused;               /* else the unfused one-line-per-item sums */
  gboolean finish_atomic;       /* SAR_Q_ATOMIC=1: two launches */
  int vec, k, wg, band;
  int apply_wg;                 /* pass 3's work-group size */
  int flx, fs;                  /* pass 2: lines x work-items per line */
  cl_kernel sums, sums_total, row_sums, col_sums, finish, apply;

  /* Scratch for the frame size below. */
  int width, height;
  /* With finish_atomic, colpart and rowpart hold the totals (zero between
   * frames) and `done` counts pass 1's finished work-groups. */
  cl_mem colpart, rowpart, cinv, rinv, total, done;
};

static int
floor_pow2 (gsize n)
{
  int p = 1;
  while ((gsize) p * 2 <= n)
    p *= 2;
  return p;
}

/* How the device divides exactly: single precision with correctly rounded
 * division where offered, else through double ("-DDIV_FP64=1"), else (results
 * may differ from the reference by one level on rare pixels) plain single
 * precision.  The flag comes first because compilers may legally turn the
 * double form back into a float division (double rounding is innocuous for
 * a quotient of floats), which NVIDIA then does approximately without it:
 * that cost 16 pixels of 4096x4096 one level on an H200. */
static const char *
division_options (ClvDevice * dev)
{
  cl_device_fp_config fp = 0;

  clGetDeviceInfo (dev->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof (fp), &fp,
      NULL);
  if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
    return "-DDIV_FP64=0 -cl-fp32-correctly-rounded-divide-sqrt";
  return dev->has_fp64 ? "-DDIV_FP64=1" : "-DDIV_FP64=0";
}

/* Pass 1's local memory (PASS1_LOCAL in the kernel, and the atomic
 * finish's ulong per work-item). */
static guint64
pass1_local_bytes (const ClvQuantize * q)
{
  const guint64 segs = MAX (1, q->wg / q->band);

  return 4 * (guint64) q->band * (q->wg + 1 + segs + 1) + 8 * (guint64) q->wg;
}

ClvQuantize *
clv_quantize_new (ClvDevice * dev, int bpp, GError ** error)
{
  ClvQuantize *q = g_new0 (ClvQuantize, 1);
  const gboolean gpu = dev->simd_width > 1;
  const char *variant = clv_device_tune_string (dev, "SAR_Q_VARIANT", "fused");
  cl_program prog;
  char *opts;

  q->dev = clv_device_ref (dev);
  if (g_strcmp0 (variant, "fused") != 0 && g_strcmp0 (variant, "naive") != 0)
    goto bad_variant;
  q->fused = g_strcmp0 (variant, "fused") == 0;
  q->finish_atomic = q->fused
      && clv_device_tune_int (dev, "SAR_Q_ATOMIC", 0) != 0;
  /* 16-byte loads on GPUs; on CPUs 8 lanes, one AVX2 register of sums.
   * Bands short enough on GPUs to keep every core busy; one load per row
   * per work-item there (the H200 sweep: 50 us at K=1, 72 us at K=4).
   * Pass 1 in groups of 64 on GPUs, pass 3 in groups of 128 (H100, 4096²:
   * 24.5 + 20.0 us against 30.7 + 20.1 us with 128 for both, 24.4 + 24.1
   * us with 64 for both). */
  q->vec = (int) clv_device_tune_int (dev, "SAR_Q_VEC", gpu ? 16 / bpp : 8);
  q->k = (int) clv_device_tune_int (dev, "SAR_Q_K", gpu ? 1 : 4);
  q->wg = (int) clv_device_tune_int (dev, "SAR_Q_WG", gpu ? 64 : 16);
  q->apply_wg = (int) clv_device_tune_int (dev, "SAR_Q_APPLY_WG",
      gpu ? 128 : 16);
  q->band = (int) clv_device_tune_int (dev, "SAR_Q_BAND", gpu ? 16 : 64);
  /* Pass 2 on GPUs: 8 work-items per line, each with few loads to wait for
   * (one per line left 256 bands' loads in a row); on CPUs one. */
  q->fs = (int) clv_device_tune_int (dev, "SAR_Q_FS", gpu ? 8 : 1);
  if (q->fs >= 1)
    q->flx = floor_pow2 (MAX (1, MIN (dev->max_work_group_size,
                gpu ? 256 : 64) / q->fs));
  if ((q->vec != 1 && q->vec != 2 && q->vec != 4 && q->vec != 8
          && q->vec != 16) || q->k < 1 || q->k > 64 || q->wg < 1
      || (gsize) q->wg > dev->max_work_group_size || q->apply_wg < 1
      || (gsize) q->apply_wg > dev->max_work_group_size || q->band < 1
      || q->band > (int) MAX_UINT_TERMS
      || q->fs < 1 || (gsize) q->fs > dev->max_work_group_size
      || (gint64) q->wg * q->k * q->vec > (gint64) MAX_UINT_TERMS
      || pass1_local_bytes (q) > dev->local_mem_size)
    goto bad_tuning;

  opts = g_strdup_printf ("-DPIX_BYTES=%d -DQ_VEC=%d -DQ_K=%d -DQ_WG=%d "
      "-DQ_BAND=%d -DQ_FLX=%d -DQ_FS=%d %s", bpp, q->vec, q->k, q->wg, q->band,
      q->flx, q->fs, division_options (dev));
  prog = clv_device_get_program (dev, "sar_quantize", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  if (!(q->sums = clv_kernel_new (prog, "sar_quantize_sums", error))
      || !(q->sums_total = clv_kernel_new (prog, "sar_quantize_sums_total",
              error))
      || !(q->row_sums = clv_kernel_new (prog, "sar_quantize_row_sums", error))
      || !(q->col_sums = clv_kernel_new (prog, "sar_quantize_col_sums", error))
      || !(q->finish = clv_kernel_new (prog, "sar_quantize_finish", error))
      || !(q->apply = clv_kernel_new (prog, "sar_quantize_apply", error))) {
    clReleaseProgram (prog);
    goto fail;
  }
  clReleaseProgram (prog);
  return q;

bad_variant:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "CLVISION_TUNE SAR_Q_VARIANT=%s: expected fused or naive", variant);
  goto fail;
bad_tuning:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "CLVISION_TUNE for "
      "sarquantize out of range: SAR_Q_VEC=%d (1, 2, 4, 8, 16), SAR_Q_K=%d "
      "(1..64), SAR_Q_WG=%d and SAR_Q_APPLY_WG=%d (1..%" G_GSIZE_FORMAT "), "
      "SAR_Q_BAND=%d (1..%u), SAR_Q_FS=%d (1..%" G_GSIZE_FORMAT "); "
      "SAR_Q_WG * SAR_Q_K * SAR_Q_VEC at most %u, pass 1's row sums "
      "(SAR_Q_BAND * (SAR_Q_WG + 1) uints and more) in local memory",
      q->vec, q->k, q->wg, q->apply_wg, dev->max_work_group_size, q->band,
      MAX_UINT_TERMS, q->fs, dev->max_work_group_size, MAX_UINT_TERMS);
fail:
  clv_quantize_free (q);
  return NULL;
}

static void
release_scratch (ClvQuantize * q)
{
  g_clear_pointer (&q->colpart, clReleaseMemObject);
  g_clear_pointer (&q->rowpart, clReleaseMemObject);
  g_clear_pointer (&q->cinv, clReleaseMemObject);
  g_clear_pointer (&q->rinv, clReleaseMemObject);
  g_clear_pointer (&q->total, clReleaseMemObject);
  g_clear_pointer (&q->done, clReleaseMemObject);
  q->width = q->height = 0;
}

static gsize
div_up (gsize n, gsize d)
{
  return (n + d - 1) / d;
}

/* Row partials per row: one per work-group along x of pass 1. */
static gsize
n_parts (ClvQuantize * q, int width)
{
  return q->fused ? div_up (width, (gsize) q->wg * q->k * q->vec) : 1;
}

static gsize
n_bands (ClvQuantize * q, int height)
{
  return q->fused ? div_up (height, q->band) : 1;
}

static gboolean
zero_buffer (ClvDevice * dev, cl_mem mem, gsize size, GError ** error)
{
  static const cl_uint zero = 0;

  CLV_CHECK (clEnqueueFillBuffer (dev->queue, mem, &zero, sizeof (zero), 0,
          size, 0, NULL, NULL), error, fail);
  return TRUE;

fail:
  return FALSE;
}

static gboolean
ensure_scratch (ClvQuantize * q, int w, int h, GError ** error)
{
  const cl_mem_flags rw = CL_MEM_READ_WRITE;

  if (q->width == w && q->height == h)
    return TRUE;
  release_scratch (q);
  if (!(q->colpart = clv_buffer_new (q->dev, rw,
              n_bands (q, h) * w * sizeof (cl_uint), error))
      || !(q->rowpart = clv_buffer_new (q->dev, rw,
              n_parts (q, w) * h * sizeof (cl_uint), error))
      || !(q->cinv = clv_buffer_new (q->dev, rw, w * sizeof (cl_float),
              error))
      || !(q->rinv = clv_buffer_new (q->dev, rw, h * sizeof (cl_float),
              error))
      || !(q->total = clv_buffer_new (q->dev, rw, 2 * sizeof (cl_uint),
              error))
      || (q->finish_atomic && (!(q->done = clv_buffer_new (q->dev, rw,
                      sizeof (cl_uint), error))
              || !zero_buffer (q->dev, q->colpart,
                  w * sizeof (cl_uint), error)
              || !zero_buffer (q->dev, q->rowpart, h * sizeof (cl_uint),
                  error)
              || !zero_buffer (q->dev, q->done, sizeof (cl_uint),
                  error)))) {
    release_scratch (q);
    return FALSE;
  }
  q->width = w;
  q->height = h;
  return TRUE;
}

/* Enqueues one launch, its event (if any) into the next slot of `ev`. */
static gboolean
launch (ClvQuantize * q, cl_kernel kernel, cl_uint dims, const size_t *global,
    const size_t *local, ClvQuantizeEvents * ev, GError ** error)
{
  CLV_CHECK (clEnqueueNDRangeKernel (q->dev->queue, kernel, dims, NULL,
          global, local, 0, NULL, ev ? &ev->events[ev->n_events] : NULL),
      error, fail);
  if (ev)
    ev->n_events++;
  return TRUE;

fail:
  return FALSE;
}

gboolean
clv_quantize_enqueue (ClvQuantize * q, cl_mem src, const ClvImage * si,
    cl_mem dst, const ClvImage * di, double coef, ClvQuantizeEvents * ev,
    GError ** error)
{
  const cl_int w = si->width, h = si->height;
  /* Whole-vector loads and stores where offsets and strides allow. */
  const cl_int src_aligned = si->offset % (q->vec * si->bpp) == 0
      && si->stride % (q->vec * si->bpp) == 0;
  const cl_int dst_aligned = di->offset % q->vec == 0
      && di->stride % q->vec == 0;
  const cl_uint a[4] = { si->offset / si->bpp, si->stride / si->bpp,
    di->offset, di->stride
  };
  const cl_int parts = n_parts (q, w), bands = n_bands (q, h);
  /* Line totals must fit the atomics' uints. */
  const gboolean atomic = q->finish_atomic && MAX (w, h) <=
      (int) MAX_UINT_TERMS;
  const cl_float coef_f = coef;
  const size_t wg = q->wg;
  /* The fused first pass: a work-group per band of rows and span of x. */
  const size_t pass1_global[2] = { parts * wg, bands };
  const size_t pass1_local[2] = { wg, 1 };

  if (di->width != w || di->height != h || di->bpp != 1)
    goto wrong_output;
  if (ev)
    ev->n_events = 0;
  if (!q->fused && MAX (w, h) > (int) MAX_UINT_TERMS)
    goto too_large;
  if (!ensure_scratch (q, w, h, error))
    return FALSE;

  if (atomic) {
    if (!clv_kernel_set_args (q->sums_total, error, CLV_ARG (src),
            CLV_ARG (a[0]), CLV_ARG (a[1]), CLV_ARG (w), CLV_ARG (h),
            CLV_ARG (q->colpart), CLV_ARG (q->rowpart),
            CLV_ARG (src_aligned), CLV_ARG (q->cinv), CLV_ARG (q->rinv),
            CLV_ARG (q->total), CLV_ARG (q->done), CLV_ARGS_END)
        || !launch (q, q->sums_total, 2, pass1_global, pass1_local, ev, error))
      return FALSE;
  } else if (q->fused) {
    if (!clv_kernel_set_args (q->sums, error, CLV_ARG (src), CLV_ARG (a[0]),
            CLV_ARG (a[1]), CLV_ARG (w), CLV_ARG (h), CLV_ARG (q->colpart),
            CLV_ARG (q->rowpart), CLV_ARG (src_aligned), CLV_ARG (q->total),
            CLV_ARGS_END)
        || !launch (q, q->sums, 2, pass1_global, pass1_local, ev, error))
      return FALSE;
  } else {
    const size_t rows = clv_round_up (h, wg), cols = clv_round_up (w, wg);
    if (!clv_kernel_set_args (q->row_sums, error, CLV_ARG (src),
            CLV_ARG (a[0]), CLV_ARG (a[1]), CLV_ARG (w), CLV_ARG (h),
            CLV_ARG (q->rowpart), CLV_ARG (q->total), CLV_ARGS_END)
        || !launch (q, q->row_sums, 1, &rows, &wg, ev, error)
        || !clv_kernel_set_args (q->col_sums, error, CLV_ARG (src),
            CLV_ARG (a[0]), CLV_ARG (a[1]), CLV_ARG (w), CLV_ARG (h),
            CLV_ARG (q->colpart), CLV_ARGS_END)
        || !launch (q, q->col_sums, 1, &cols, &wg, ev, error))
      return FALSE;
  }

  if (!atomic) {
    const size_t global[2] = { clv_round_up (w + h, q->flx), q->fs };
    const size_t local[2] = { q->flx, q->fs };
    if (!clv_kernel_set_args (q->finish, error, CLV_ARG (q->colpart),
            CLV_ARG (bands), CLV_ARG (q->rowpart), CLV_ARG (parts),
            CLV_ARG (w), CLV_ARG (h), CLV_ARG (q->cinv), CLV_ARG (q->rinv),
            CLV_ARG (q->total), CLV_ARGS_END)
        || !launch (q, q->finish, 2, global, local, ev, error))
      return FALSE;
  }
  {
    const size_t apply_wg = q->apply_wg;
    const size_t global[2] = { clv_round_up (div_up (w, q->vec), apply_wg),
      h
    };
    const size_t local[2] = { apply_wg, 1 };
    if (!clv_kernel_set_args (q->apply, error, CLV_ARG (src), CLV_ARG (a[0]),
            CLV_ARG (a[1]), CLV_ARG (w), CLV_ARG (h), CLV_ARG (dst),
            CLV_ARG (a[2]), CLV_ARG (a[3]), CLV_ARG (q->rinv),
            CLV_ARG (q->cinv), CLV_ARG (q->total), CLV_ARG (coef_f),
            CLV_ARG (src_aligned), CLV_ARG (dst_aligned), CLV_ARGS_END)
        || !launch (q, q->apply, 2, global, local, ev, error))
      return FALSE;
  }
  return TRUE;

wrong_output:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "quantize output must be "
      "8-bit %dx%d, not %d-byte %dx%d", w, h, di->bpp, di->width, di->height);
  return FALSE;
too_large:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "SAR_Q_VARIANT=naive "
      "sums whole lines in 32 bits: at most %u rows and columns, not %dx%d",
      MAX_UINT_TERMS, w, h);
  return FALSE;
}

void
clv_quantize_events_clear (ClvQuantizeEvents * ev)
{
  for (guint i = 0; i < ev->n_events; i++)
    clReleaseEvent (ev->events[i]);
  ev->n_events = 0;
}

void
clv_quantize_free (ClvQuantize * q)
{
  if (q == NULL)
    return;
  release_scratch (q);
  g_clear_pointer (&q->sums, clReleaseKernel);
  g_clear_pointer (&q->sums_total, clReleaseKernel);
  g_clear_pointer (&q->row_sums, clReleaseKernel);
  g_clear_pointer (&q->col_sums, clReleaseKernel);
  g_clear_pointer (&q->finish, clReleaseKernel);
  g_clear_pointer (&q->apply, clReleaseKernel);
  clv_device_unref (q->dev);
  g_free (q);
}
