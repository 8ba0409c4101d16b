/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR quantization of Float32: C reference and the OpenCL launcher of
 * kernels/sar_quantize_float.cl. */
#include "clv-sar.h"

#include <math.h>

/* What a pixel counts as: 0 if it is no data or not finite. */
static inline float
pixel_value (float v, const ClvNodata * nodata)
{
  if (nodata && (v == (float) nodata->value || (isnan (nodata->value)
              && isnan (v))))
    return 0;
  return isfinite (v) ? v : 0;
}

static inline float
reciprocal (double s)
{
  return s > 0 ? (float) (1 / s) : 0.0f;
}

void
clv_quantize_ref_float (const guint8 * src, const ClvImage * si,
    guint8 * dst, const ClvImage * di, double coef, const ClvNodata * nodata)
{
  const int w = si->width, h = si->height;
  double *rows = g_new0 (double, h), *cols = g_new0 (double, w), t = 0;
  float k;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float v = pixel_value (*clv_image_f32 ((guint8 *) src, si, x, y),
          nodata);
      rows[y] += v;
      cols[x] += v;
    }
  for (int y = 0; y < h; y++)
    t += rows[y];
  k = (float) ((float) coef * t);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float f = ((pixel_value (*clv_image_f32 ((guint8 *) src, si, x,
                      y), nodata) * k) * reciprocal (rows[y])) *
          reciprocal (cols[x]);
      clv_image_set (dst, di, x, y, (guint) roundf (CLAMP (f, 0.0f, 255.0f)));
    }
  g_free (rows);
  g_free (cols);
}

struct _ClvQuantizeFloat
{
  ClvDevice *dev;
  cl_kernel rows, cols, total, apply;
  size_t wg;
  cl_mem row_sums, col_sums, inv;       /* inv: k, then the reciprocals */
  gsize row_size, col_size, inv_size;
};

ClvQuantizeFloat *
clv_quantize_float_new (ClvDevice * dev, const ClvNodata * nodata,
    GError ** error)
{
  ClvQuantizeFloat *q = g_new0 (ClvQuantizeFloat, 1);
  char nodata_opt[48] = "";
  char *opts;
  cl_program prog;

  q->dev = clv_device_ref (dev);
  q->wg = 1;
  while (q->wg * 2 <= MIN (dev->max_work_group_size, 256))
    q->wg *= 2;
  if (nodata)
    g_snprintf (nodata_opt, sizeof (nodata_opt), isnan (nodata->value) ?
        " -DNODATA=NAN" : " -DNODATA=%af", (float) nodata->value);
  opts = g_strdup_printf ("-DWG=%zu -DHAVE_FP64=%d%s", q->wg, dev->has_fp64,
      nodata_opt);
  prog = clv_device_get_program (dev, "sar_quantize_float", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  if ((q->rows = clv_kernel_new (prog, "sar_qf_rows", error)))
    if ((q->cols = clv_kernel_new (prog, "sar_qf_cols", error)))
      if ((q->total = clv_kernel_new (prog, "sar_qf_total", error)))
        q->apply = clv_kernel_new (prog, "sar_qf_apply", error);
  clReleaseProgram (prog);
  if (q->apply == NULL)
    goto fail;
  return q;

fail:
  clv_quantize_float_free (q);
  return NULL;
}

/* Grows *mem to at least `size` bytes. */
static gboolean
ensure_buffer (ClvDevice * dev, cl_mem * mem, gsize * have, gsize size,
    GError ** error)
{
  if (*mem && *have >= size)
    return TRUE;
  if (*mem)
    clReleaseMemObject (*mem);
  *mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, error);
  *have = *mem ? size : 0;
  return *mem != NULL;
}

gboolean
clv_quantize_float_enqueue (ClvQuantizeFloat * q, cl_mem src,
    const ClvImage * si, cl_mem dst, const ClvImage * di, double coef,
    GError ** error)
{
  const cl_uint so = si->offset / 4, ss = si->stride / 4;
  const cl_uint doff = di->offset, ds = di->stride;
  const cl_int w = si->width, h = si->height;
  const cl_float fcoef = (float) coef;
  const gsize sum_size = q->dev->has_fp64 ? sizeof (double) : sizeof (float);
  const size_t rows_global[2] = { q->wg, (size_t) h }, rows_local[2] = {
  q->wg, 1};
  const size_t cols_global = clv_round_up (w, q->wg);
  const size_t apply_local[2] = { MIN (q->wg, 64), 1 };
  const size_t apply_global[2] = { clv_round_up (w, apply_local[0]),
    (size_t) h
  };

  if (w == 0 || h == 0)
    return TRUE;
  if (!ensure_buffer (q->dev, &q->row_sums, &q->row_size, sum_size * h,
          error) || !ensure_buffer (q->dev, &q->col_sums, &q->col_size,
          sum_size * w, error) || !ensure_buffer (q->dev, &q->inv,
          &q->inv_size, sizeof (float) * (1 + w + h), error))
    return FALSE;
  if (!clv_kernel_set_args (q->rows, error, CLV_ARG (src), CLV_ARG (so),
          CLV_ARG (ss), CLV_ARG (w), CLV_ARG (q->row_sums), CLV_ARGS_END)
      || !clv_kernel_set_args (q->cols, error, CLV_ARG (src), CLV_ARG (so),
          CLV_ARG (ss), CLV_ARG (w), CLV_ARG (h), CLV_ARG (q->col_sums),
          CLV_ARGS_END)
      || !clv_kernel_set_args (q->total, error, CLV_ARG (q->row_sums),
          CLV_ARG (q->col_sums), CLV_ARG (w), CLV_ARG (h), CLV_ARG (fcoef),
          CLV_ARG (q->inv), CLV_ARGS_END)
      || !clv_kernel_set_args (q->apply, error, CLV_ARG (src), CLV_ARG (so),
          CLV_ARG (ss), CLV_ARG (w), CLV_ARG (h), CLV_ARG (q->inv),
          CLV_ARG (dst), CLV_ARG (doff), CLV_ARG (ds), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (q->dev->queue, q->rows, 2, NULL,
          rows_global, rows_local, 0, NULL, NULL), error, fail);
  CLV_CHECK (clEnqueueNDRangeKernel (q->dev->queue, q->cols, 1, NULL,
          &cols_global, &q->wg, 0, NULL, NULL), error, fail);
  CLV_CHECK (clEnqueueNDRangeKernel (q->dev->queue, q->total, 1, NULL,
          &q->wg, &q->wg, 0, NULL, NULL), error, fail);
  CLV_CHECK (clEnqueueNDRangeKernel (q->dev->queue, q->apply, 2, NULL,
          apply_global, apply_local, 0, NULL, NULL), error, fail);
  return TRUE;

fail:
  return FALSE;
}

void
clv_quantize_float_free (ClvQuantizeFloat * q)
{
  if (q == NULL)
    return;
  if (q->rows)
    clReleaseKernel (q->rows);
  if (q->cols)
    clReleaseKernel (q->cols);
  if (q->total)
    clReleaseKernel (q->total);
  if (q->apply)
    clReleaseKernel (q->apply);
  if (q->row_sums)
    clReleaseMemObject (q->row_sums);
  if (q->col_sums)
    clReleaseMemObject (q->col_sums);
  if (q->inv)
    clReleaseMemObject (q->inv);
  clv_device_unref (q->dev);
  g_free (q);
}
