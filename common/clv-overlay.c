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

void
clv_overlay_draw_ref (guint8 * const planes[], const ClvOverlayLayout * layout,
    const ClvOverlayOp * ops, int n_ops, const guint8 * masks)
{
  for (int c = 0; c < layout->n_comps; c++) {
    const ClvOverlayComp *comp = &layout->comp[c];
    guint8 *base = planes[comp->plane] + comp->offset;

    for (int i = 0; i < n_ops; i++) {
      const ClvOverlayOp *op = &ops[i];
      const int px0 = MAX (op->x0, 0), px1 = MIN (op->x1, layout->width);
      const int py0 = MAX (op->y0, 0), py1 = MIN (op->y1, layout->height);

      if (px0 >= px1 || py0 >= py1)
        continue;
      /* The samples whose blocks the clipped rectangle touches. */
      for (int sy = py0 >> comp->ysub; sy <= (py1 - 1) >> comp->ysub; sy++) {
        const int by0 = sy << comp->ysub;
        const int by1 = MIN ((sy + 1) << comp->ysub, layout->height);

        for (int sx = px0 >> comp->xsub; sx <= (px1 - 1) >> comp->xsub; sx++) {
          const int bx0 = sx << comp->xsub;
          const int bx1 = MIN ((sx + 1) << comp->xsub, layout->width);
          const int v = op_sample (op, c, bx0, by0, bx1, by1, masks);

          if (v >= 0)
            base[sy * comp->stride + (gsize) sx * comp->pstride] = (guint8) v;
        }
      }
    }
  }
}

/* ---- OpenCL ------------------------------------------------------------- */

struct _ClvOverlayGpu
{
  ClvDevice *dev;
  cl_kernel kernel;
  cl_mem ops;
  gsize ops_size;
  cl_mem masks;
  gsize masks_capacity;
  gsize masks_uploaded;         /* atlas bytes already on the device */
};

ClvOverlayGpu *
clv_overlay_gpu_new (ClvDevice * dev, GError ** error)
{
  ClvOverlayGpu *gpu = g_new0 (ClvOverlayGpu, 1);
  cl_program prog = clv_device_get_program (dev, "roi_overlay", "", error);

  gpu->dev = clv_device_ref (dev);
  if (prog == NULL)
    goto fail;
  gpu->kernel = clv_kernel_new (prog, "roi_overlay", error);
  clReleaseProgram (prog);
  if (gpu->kernel == NULL)
    goto fail;
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

gboolean
clv_overlay_gpu_draw (ClvOverlayGpu * gpu, cl_mem frame,
    const gsize plane_offsets[], const ClvOverlayLayout * layout,
    const ClvOverlayOp * ops, int n_ops, const guint8 * masks,
    gsize masks_size, GError ** error)
{
  const gsize ops_size = sizeof (ClvOverlayOp) * n_ops;
  int px0 = layout->width, py0 = layout->height, px1 = 0, py1 = 0;
  const cl_int n = n_ops, width = layout->width, height = layout->height;

  /* The pixels any operation touches. */
  for (int i = 0; i < n_ops; i++) {
    px0 = MIN (px0, MAX (ops[i].x0, 0));
    py0 = MIN (py0, MAX (ops[i].y0, 0));
    px1 = MAX (px1, MIN (ops[i].x1, layout->width));
    py1 = MAX (py1, MIN (ops[i].y1, layout->height));
  }
  if (px0 >= px1 || py0 >= py1)
    return TRUE;

  if (ops_size > gpu->ops_size) {
    g_clear_pointer (&gpu->ops, clReleaseMemObject);
    gpu->ops_size = 0;
    gpu->ops = clv_buffer_new (gpu->dev, CL_MEM_READ_ONLY, ops_size * 2,
        error);
    if (gpu->ops == NULL)
      return FALSE;
    gpu->ops_size = ops_size * 2;
  }
  if (!sync_masks (gpu, masks, masks_size, error))
    return FALSE;
  CLV_CHECK (clEnqueueWriteBuffer (gpu->dev->queue, gpu->ops, CL_TRUE, 0,
          ops_size, ops, 0, NULL, NULL), error, fail);

  for (cl_int c = 0; c < layout->n_comps; c++) {
    const ClvOverlayComp *comp = &layout->comp[c];
    const cl_ulong offset = plane_offsets[comp->plane] + comp->offset;
    const cl_ulong stride = comp->stride;
    const cl_int pstride = comp->pstride, xsub = comp->xsub,
        ysub = comp->ysub;
    const cl_int sx0 = px0 >> xsub, sy0 = py0 >> ysub;
    const size_t global[2] = { ((px1 - 1) >> xsub) - sx0 + 1,
      ((py1 - 1) >> ysub) - sy0 + 1
    };

    if (!clv_kernel_set_args (gpu->kernel, error, CLV_ARG (frame),
            CLV_ARG (offset), CLV_ARG (stride), CLV_ARG (pstride),
            CLV_ARG (xsub), CLV_ARG (ysub), CLV_ARG (width), CLV_ARG (height),
            CLV_ARG (sx0), CLV_ARG (sy0), CLV_ARG (c), CLV_ARG (gpu->ops),
            CLV_ARG (n), CLV_ARG (gpu->masks), CLV_ARGS_END))
      return FALSE;
    CLV_CHECK (clEnqueueNDRangeKernel (gpu->dev->queue, gpu->kernel, 2, NULL,
            global, NULL, 0, NULL, NULL), error, fail);
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
  g_clear_pointer (&gpu->kernel, clReleaseKernel);
  clv_device_unref (gpu->dev);
  g_free (gpu);
}
