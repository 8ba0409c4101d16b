/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ROI overlay: C reference and OpenCL launcher; see the header. */
#include "clv-overlay.h"

#include <string.h>

guint8
clv_overlay_component_value (ClvOverlayCompKind kind, ClvRgb c)
{
  const int r = c.r, g = c.g, b = c.b;

  /* The +32768 keeps the sums positive, so >> 8 rounds down as documented
   * (then 128 less). */
  switch (kind) {
    case CLV_OVERLAY_GRAY:
      return (guint8) ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14);
    case CLV_OVERLAY_Y:
      return (guint8) (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
    case CLV_OVERLAY_U:
      return (guint8) ((-38 * r - 74 * g + 112 * b + 128 + 32768) >> 8);
    case CLV_OVERLAY_V:
      return (guint8) ((112 * r - 94 * g - 18 * b + 128 + 32768) >> 8);
    case CLV_OVERLAY_R:
      return c.r;
    case CLV_OVERLAY_G:
      return c.g;
    case CLV_OVERLAY_B:
      return c.b;
    case CLV_OVERLAY_A:
    default:
      return 255;
  }
}

void
clv_overlay_op_set_colors (ClvOverlayOp * op, const ClvOverlayLayout * layout,
    ClvRgb fg, ClvRgb bg)
{
  for (int c = 0; c < layout->n_comps; c++) {
    op->fg[c] = clv_overlay_component_value (layout->comp[c].kind, fg);
    op->bg[c] = clv_overlay_component_value (layout->comp[c].kind, bg);
  }
}

/* The value `op` gives the sample of component `c` that stands for the
 * frame pixels [bx0, bx1) x [by0, by1) (inside the frame), or -1 where it
 * leaves the sample alone.  kernels/roi_overlay.cl has the same function. */
static int
op_sample (const ClvOverlayOp * op, int c, int bx0, int by0, int bx1,
    int by1, const guint8 * masks)
{
  const int ix0 = MAX (bx0, op->x0), ix1 = MIN (bx1, op->x1);
  const int iy0 = MAX (by0, op->y0), iy1 = MIN (by1, op->y1);
  const int t = op->thickness;
  const guint8 *mask;
  int sum = 0, n, m;

  if (ix0 >= ix1 || iy0 >= iy1)
    return -1;
  if (op->kind == CLV_OVERLAY_FILL)
    return op->fg[c];
  if (op->kind == CLV_OVERLAY_BOX) {
    /* A block touching the rectangle misses the ring only inside the hole. */
    if (bx0 >= op->x0 + t && bx1 <= op->x1 - t && by0 >= op->y0 + t
        && by1 <= op->y1 - t)
      return -1;
    return op->fg[c];
  }
  mask = masks + op->mask_offset;
  for (int y = iy0; y < iy1; y++)
    for (int x = ix0; x < ix1; x++)
      sum += mask[(y - op->y0) * (op->x1 - op->x0) + (x - op->x0)];
  n = (ix1 - ix0) * (iy1 - iy0);
  m = (sum + n / 2) / n;
  return (op->fg[c] * m + op->bg[c] * (255 - m) + 127) / 255;
}

/* Whether `op` works on whole regions (pixelation, blur) rather than
 * sample by sample. */
static gboolean
op_is_region (const ClvOverlayOp * op)
{
  return op->kind == CLV_OVERLAY_PIXELATE || op->kind == CLV_OVERLAY_BLUR;
}

/* The samples of `comp` whose blocks the rectangle of `op`, clipped to the
 * frame, touches: [r[0], r[2]) x [r[1], r[3]); FALSE when none. */
static gboolean
op_samples (const ClvOverlayOp * op, const ClvOverlayLayout * layout,
    const ClvOverlayComp * comp, int r[4])
{
  const int px0 = MAX (op->x0, 0), px1 = MIN (op->x1, layout->width);
  const int py0 = MAX (op->y0, 0), py1 = MIN (op->y1, layout->height);

  if (px0 >= px1 || py0 >= py1)
    return FALSE;
  r[0] = px0 >> comp->xsub;
  r[1] = py0 >> comp->ysub;
  r[2] = ((px1 - 1) >> comp->xsub) + 1;
  r[3] = ((py1 - 1) >> comp->ysub) + 1;
  return TRUE;
}

#define SAMPLE(base, comp, x, y) \
  ((base)[(gsize) (y) * (comp)->stride + (gsize) (x) * (comp)->pstride])

static void
pixelate_ref (guint8 * base, const ClvOverlayComp * comp,
    const ClvOverlayOp * op, const int r[4])
{
  const int cw = MAX (op->size >> comp->xsub, 1);
  const int ch = MAX (op->size >> comp->ysub, 1);

  for (int cy = r[1]; cy < r[3]; cy += ch)
    for (int cx = r[0]; cx < r[2]; cx += cw) {
      const int ex = MIN (cx + cw, r[2]), ey = MIN (cy + ch, r[3]);
      const guint n = (guint) (ex - cx) * (ey - cy);
      guint sum = 0;

      for (int y = cy; y < ey; y++)
        for (int x = cx; x < ex; x++)
          sum += SAMPLE (base, comp, x, y);
      for (int y = cy; y < ey; y++)
        for (int x = cx; x < ex; x++)
          SAMPLE (base, comp, x, y) = (guint8) ((sum + n / 2) / n);
    }
}

/* Separable: the sums along rows first (from the untouched samples), then
 * along columns; one rounding at the end, so the kernels' two passes give
 * the same bytes. */
static void
blur_ref (guint8 * base, const ClvOverlayComp * comp,
    const ClvOverlayOp * op, const int r[4])
{
  const int rx = op->size >> comp->xsub, ry = op->size >> comp->ysub;
  const int w = r[2] - r[0], h = r[3] - r[1];
  guint32 *rows = g_new (guint32, (gsize) w * h);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint32 sum = 0;

      for (int k = MAX (x - rx, 0); k <= MIN (x + rx, w - 1); k++)
        sum += SAMPLE (base, comp, r[0] + k, r[1] + y);
      rows[(gsize) y * w + x] = sum;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const guint32 n = (guint32) (MIN (x + rx, w - 1) - MAX (x - rx, 0) + 1)
          * (MIN (y + ry, h - 1) - MAX (y - ry, 0) + 1);
      guint32 sum = 0;

      for (int k = MAX (y - ry, 0); k <= MIN (y + ry, h - 1); k++)
        sum += rows[(gsize) k * w + x];
      SAMPLE (base, comp, r[0] + x, r[1] + y) = (guint8) ((sum + n / 2) / n);
    }
  g_free (rows);
}

void
clv_overlay_draw_ref (guint8 * const planes[], const ClvOverlayLayout * layout,
    const ClvOverlayOp * ops, int n_ops, const guint8 * masks)
{
  for (int c = 0; c < layout->n_comps; c++) {
    const ClvOverlayComp *comp = &layout->comp[c];
    guint8 *base = planes[comp->plane] + comp->offset;

    for (int i = 0; i < n_ops; i++) {
      const ClvOverlayOp *op = &ops[i];
      int r[4];

      if (!op_samples (op, layout, comp, r))
        continue;
      if (op->kind == CLV_OVERLAY_PIXELATE) {
        pixelate_ref (base, comp, op, r);
        continue;
      }
      if (op->kind == CLV_OVERLAY_BLUR) {
        blur_ref (base, comp, op, r);
        continue;
      }
      for (int sy = r[1]; sy < r[3]; sy++) {
        const int by0 = sy << comp->ysub;
        const int by1 = MIN ((sy + 1) << comp->ysub, layout->height);

        for (int sx = r[0]; sx < r[2]; sx++) {
          const int bx0 = sx << comp->xsub;
          const int bx1 = MIN ((sx + 1) << comp->xsub, layout->width);
          const int v = op_sample (op, c, bx0, by0, bx1, by1, masks);

          if (v >= 0)
            SAMPLE (base, comp, sx, sy) = (guint8) v;
        }
      }
    }
  }
}

/* ---- OpenCL ------------------------------------------------------------- */

struct _ClvOverlayGpu
{
  ClvDevice *dev;
  cl_kernel kernel;             /* boxes, labels, fills */
  cl_kernel pixelate;
  cl_kernel blur_rows, blur_cols;
  cl_mem ops;
  gsize ops_size;
  cl_mem masks;
  gsize masks_capacity;
  gsize masks_uploaded;         /* atlas bytes already on the device */
  cl_mem rows;                  /* a blur's row sums */
  gsize rows_size;
};

ClvOverlayGpu *
clv_overlay_gpu_new (ClvDevice * dev, GError ** error)
{
  ClvOverlayGpu *gpu = g_new0 (ClvOverlayGpu, 1);
  cl_program prog = clv_device_get_program (dev, "roi_overlay", "", error);

  gpu->dev = clv_device_ref (dev);
  if (prog == NULL)
    goto fail;
  if ((gpu->kernel = clv_kernel_new (prog, "roi_overlay", error)) == NULL
      || (gpu->pixelate = clv_kernel_new (prog, "roi_pixelate",
              error)) == NULL
      || (gpu->blur_rows = clv_kernel_new (prog, "roi_blur_rows",
              error)) == NULL
      || (gpu->blur_cols = clv_kernel_new (prog, "roi_blur_cols",
              error)) == NULL) {
    clReleaseProgram (prog);
    goto fail;
  }
  clReleaseProgram (prog);
  return gpu;

fail:
  clv_overlay_gpu_free (gpu);
  return NULL;
}

void
clv_overlay_gpu_forget_masks (ClvOverlayGpu * gpu)
{
  gpu->masks_uploaded = 0;
}

/* Brings the device atlas up to `size` bytes of `masks`: only the new tail
 * is copied, unless the buffer has to grow.  Kernels need a buffer to bind
 * even when there are no masks. */
static gboolean
sync_masks (ClvOverlayGpu * gpu, const guint8 * masks, gsize size,
    GError ** error)
{
  if (size > gpu->masks_capacity || gpu->masks == NULL) {
    const gsize cap = MAX (clv_round_up (size * 2, 4096), 4096);
    cl_mem m = clv_buffer_new (gpu->dev, CL_MEM_READ_ONLY, cap, error);

    if (m == NULL)
      return FALSE;
    g_clear_pointer (&gpu->masks, clReleaseMemObject);
    gpu->masks = m;
    gpu->masks_capacity = cap;
    gpu->masks_uploaded = 0;
  }
  if (size > gpu->masks_uploaded) {
    CLV_CHECK (clEnqueueWriteBuffer (gpu->dev->queue, gpu->masks, CL_TRUE,
            gpu->masks_uploaded, size - gpu->masks_uploaded,
            masks + gpu->masks_uploaded, 0, NULL, NULL), error, fail);
    gpu->masks_uploaded = size;
  }
  return TRUE;
fail:
  return FALSE;
}

/* A device buffer of at least `size` bytes in *mem (grown to twice what
 * is asked when too small). */
static gboolean
ensure_buffer (ClvOverlayGpu * gpu, cl_mem * mem, gsize * capacity,
    gsize size, GError ** error)
{
  if (size <= *capacity && *mem != NULL)
    return TRUE;
  g_clear_pointer (mem, clReleaseMemObject);
  *capacity = 0;
  *mem = clv_buffer_new (gpu->dev, CL_MEM_READ_WRITE, MAX (size * 2, 64),
      error);
  if (*mem == NULL)
    return FALSE;
  *capacity = MAX (size * 2, 64);
  return TRUE;
}

/* Where one component of the frame is. */
typedef struct
{
  cl_mem frame;
  cl_ulong offset, stride;
  cl_int pstride, xsub, ysub;
} CompArgs;

/* Operations first .. first + n - 1, none of them a region operation, on
 * one component: one work-item per sample of the region they touch. */
static gboolean
launch_draw (ClvOverlayGpu * gpu, const CompArgs * a,
    const ClvOverlayLayout * layout, cl_int c, const ClvOverlayOp * ops,
    cl_int first, cl_int n, GError ** error)
{
  const cl_int width = layout->width, height = layout->height;
  int px0 = width, py0 = height, px1 = 0, py1 = 0;
  cl_int sx0, sy0;
  size_t global[2];

  for (int i = first; i < first + n; i++) {
    px0 = MIN (px0, MAX (ops[i].x0, 0));
    py0 = MIN (py0, MAX (ops[i].y0, 0));
    px1 = MAX (px1, MIN (ops[i].x1, width));
    py1 = MAX (py1, MIN (ops[i].y1, height));
  }
  if (px0 >= px1 || py0 >= py1)
    return TRUE;
  sx0 = px0 >> a->xsub;
  sy0 = py0 >> a->ysub;
  global[0] = ((px1 - 1) >> a->xsub) - sx0 + 1;
  global[1] = ((py1 - 1) >> a->ysub) - sy0 + 1;
  if (!clv_kernel_set_args (gpu->kernel, error, CLV_ARG (a->frame),
          CLV_ARG (a->offset), CLV_ARG (a->stride), CLV_ARG (a->pstride),
          CLV_ARG (a->xsub), CLV_ARG (a->ysub), CLV_ARG (width),
          CLV_ARG (height), CLV_ARG (sx0), CLV_ARG (sy0), CLV_ARG (c),
          CLV_ARG (gpu->ops), CLV_ARG (first), CLV_ARG (n),
          CLV_ARG (gpu->masks), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (gpu->dev->queue, gpu->kernel, 2, NULL,
          global, NULL, 0, NULL, NULL), error, fail);
  return TRUE;
fail:
  return FALSE;
}

/* A pixelation (one work-item per cell) or a blur (row sums, then column
 * sums written back) of one component's samples r[0] .. r[3]. */
static gboolean
launch_region (ClvOverlayGpu * gpu, const CompArgs * a,
    const ClvOverlayOp * op, const int r[4], GError ** error)
{
  const cl_int x0 = r[0], y0 = r[1], x1 = r[2], y1 = r[3];
  const cl_int w = x1 - x0, h = y1 - y0;
  const cl_int sizex = op->size >> a->xsub, sizey = op->size >> a->ysub;
  size_t global[2] = { w, h };

  if (op->kind == CLV_OVERLAY_PIXELATE) {
    const cl_int cw = MAX (sizex, 1), ch = MAX (sizey, 1);

    global[0] = (w + cw - 1) / cw;
    global[1] = (h + ch - 1) / ch;
    if (!clv_kernel_set_args (gpu->pixelate, error, CLV_ARG (a->frame),
            CLV_ARG (a->offset), CLV_ARG (a->stride), CLV_ARG (a->pstride),
            CLV_ARG (x0), CLV_ARG (y0), CLV_ARG (x1), CLV_ARG (y1),
            CLV_ARG (cw), CLV_ARG (ch), CLV_ARGS_END))
      return FALSE;
    CLV_CHECK (clEnqueueNDRangeKernel (gpu->dev->queue, gpu->pixelate, 2,
            NULL, global, NULL, 0, NULL, NULL), error, fail);
    return TRUE;
  }
  if (!ensure_buffer (gpu, &gpu->rows, &gpu->rows_size,
          sizeof (cl_uint) * w * h, error)
      || !clv_kernel_set_args (gpu->blur_rows, error, CLV_ARG (a->frame),
          CLV_ARG (a->offset), CLV_ARG (a->stride), CLV_ARG (a->pstride),
          CLV_ARG (x0), CLV_ARG (y0), CLV_ARG (w), CLV_ARG (sizex),
          CLV_ARG (gpu->rows), CLV_ARGS_END)
      || !clv_kernel_set_args (gpu->blur_cols, error, CLV_ARG (a->frame),
          CLV_ARG (a->offset), CLV_ARG (a->stride), CLV_ARG (a->pstride),
          CLV_ARG (x0), CLV_ARG (y0), CLV_ARG (w), CLV_ARG (h),
          CLV_ARG (sizex), CLV_ARG (sizey), CLV_ARG (gpu->rows),
          CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (gpu->dev->queue, gpu->blur_rows, 2,
          NULL, global, NULL, 0, NULL, NULL), error, fail);
  CLV_CHECK (clEnqueueNDRangeKernel (gpu->dev->queue, gpu->blur_cols, 2,
          NULL, global, NULL, 0, NULL, NULL), error, fail);
  return TRUE;
fail:
  return FALSE;
}

gboolean
clv_overlay_gpu_draw (ClvOverlayGpu * gpu, cl_mem frame,
    const gsize plane_offsets[], const ClvOverlayLayout * layout,
    const ClvOverlayOp * ops, int n_ops, const guint8 * masks,
    gsize masks_size, GError ** error)
{
  const gsize ops_size = sizeof (ClvOverlayOp) * n_ops;

  if (n_ops == 0)
    return TRUE;
  if (!ensure_buffer (gpu, &gpu->ops, &gpu->ops_size, ops_size, error)
      || !sync_masks (gpu, masks, masks_size, error))
    return FALSE;
  CLV_CHECK (clEnqueueWriteBuffer (gpu->dev->queue, gpu->ops, CL_TRUE, 0,
          ops_size, ops, 0, NULL, NULL), error, fail);

  for (cl_int c = 0; c < layout->n_comps; c++) {
    const ClvOverlayComp *comp = &layout->comp[c];
    const CompArgs a = { frame, plane_offsets[comp->plane] + comp->offset,
      comp->stride, comp->pstride, comp->xsub, comp->ysub
    };

    /* Runs of sample-by-sample operations in one launch each, region
     * operations on their own, in order. */
    for (int i = 0; i < n_ops;) {
      int j = i, r[4];

      if (op_is_region (&ops[i])) {
        if (op_samples (&ops[i], layout, comp, r)
            && !launch_region (gpu, &a, &ops[i], r, error))
          return FALSE;
        i++;
        continue;
      }
      while (j < n_ops && !op_is_region (&ops[j]))
        j++;
      if (!launch_draw (gpu, &a, layout, c, ops, i, j - i, error))
        return FALSE;
      i = j;
    }
  }
  return TRUE;
fail:
  return FALSE;
}

void
clv_overlay_gpu_free (ClvOverlayGpu * gpu)
{
  if (gpu == NULL)
    return;
  g_clear_pointer (&gpu->ops, clReleaseMemObject);
  g_clear_pointer (&gpu->masks, clReleaseMemObject);
  g_clear_pointer (&gpu->rows, clReleaseMemObject);
  g_clear_pointer (&gpu->kernel, clReleaseKernel);
  g_clear_pointer (&gpu->pixelate, clReleaseKernel);
  g_clear_pointer (&gpu->blur_rows, clReleaseKernel);
  g_clear_pointer (&gpu->blur_cols, clReleaseKernel);
  clv_device_unref (gpu->dev);
  g_free (gpu);
}
