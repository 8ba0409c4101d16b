/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR speckle filters: the OpenCL launcher of kernels/sar_speckle.cl. */
#include "clv-sar.h"

#include <math.h>

struct _ClvSpeckle
{
  ClvDevice *dev;
  cl_kernel kernel;
  size_t local[2];
  int rows;                     /* outputs per work-item down a column */
};

/* Frost's distance classes: -DNCLASS, -DFROST_CLASS_OF (the class of each
 * window offset, row by row) and -DFROST_DIST (each class's distance). */
static void
append_frost_classes (GString * opts, int r)
{
  const int side = 2 * r + 1;
  int squares[(2 * CLV_SPECKLE_MAX_RADIUS + 1) * (2 *
          CLV_SPECKLE_MAX_RADIUS + 1)];
  int n = 0;

  g_string_append (opts, " -DFROST_CLASS_OF=");
  for (int j = 0; j < side * side; j++) {
    const int dx = j % side - r, dy = j / side - r;
    const int d2 = dx * dx + dy * dy;
    int k = 0;

    while (k < n && squares[k] != d2)
      k++;
    if (k == n)
      squares[n++] = d2;
    g_string_append_printf (opts, "%s%d", j ? "," : "", k);
  }
  g_string_append (opts, " -DFROST_DIST=");
  for (int k = 0; k < n; k++)
    g_string_append_printf (opts, "%s%.17g", k ? "," : "",
        sqrt ((double) squares[k]));
  g_string_append_printf (opts, " -DNCLASS=%d", n);
}

/* The kernel's local memory (kernels/sar_speckle.cl's tile where it has
 * one, its row sums where they are shared, and with the guard its list of
 * doubtful outputs). */
static guint64
local_bytes (const ClvSpeckle * sp, ClvSpeckleFilter filter, int r,
    gboolean tile, gboolean strips, gsize real, gboolean guard)
{
  const guint64 th = sp->local[1] * sp->rows + 2 * r, tw = sp->local[0] + 2 * r;
  const guint64 outputs = sp->local[0] * sp->local[1] * sp->rows;
  guint64 bytes = tile ? th * tw * sizeof (float) : 0;

  if (filter == CLV_SPECKLE_REFINED_LEE)
    bytes += th * (tw - 2) * real;
  else if (filter != CLV_SPECKLE_MEDIAN && !strips)
    bytes += 2 * th * sp->local[0] * real;
  /* The doubtful outputs' count and list, and boxcar's certificate. */
  if (guard)
    bytes += 2 * sizeof (cl_uint) + outputs * (outputs <= 65536 ? 2 : 4);
  return bytes;
}

ClvSpeckle *
clv_speckle_new (ClvDevice * dev, ClvSample sample,
    const ClvSpeckleParams * p, GError ** error)
{
  ClvSpeckle *sp = g_new0 (ClvSpeckle, 1);
  const gboolean gpu = dev->simd_width > 1;
  const int r = p->filter == CLV_SPECKLE_REFINED_LEE ?
      CLV_REFINED_LEE_RADIUS : p->radius;
  GString *opts = g_string_new (NULL);
  gboolean box, fp64, guard, tile, long_strips;
  gint64 strips;
  cl_program prog;

  sp->dev = clv_device_ref (dev);
  /* A warp or wavefront wide on GPUs; CPUs run a work-group as a loop. */
  sp->local[0] = (size_t) CLAMP (clv_device_tune_int (dev, "SAR_SPECKLE_LX",
          gpu ? 32 : 64), 1, (gint64) dev->max_work_group_size);
  sp->local[1] = (size_t) CLAMP (clv_device_tune_int (dev, "SAR_SPECKLE_LY",
          gpu ? 8 : 4), 1, (gint64) (dev->max_work_group_size /
          sp->local[0]));
  /* Window statistics in double, as OTB computes them, where the device
   * has it.  SAR_SPECKLE_FP64=0: the box-sum filters compute them in
   * float, and each work-group redoes in double its few windows where
   * float could give another output (the same outputs as OTB's); refined
   * Lee's half-windows have no such guard.  GPUs take float for every
   * box-sum filter.  SAR_SPECKLE_GUARD=0 drops the double pass: float
   * alone, as on devices without doubles. */
  box = p->filter != CLV_SPECKLE_REFINED_LEE && p->filter != CLV_SPECKLE_MEDIAN;
  fp64 = dev->has_fp64 && clv_device_tune_int (dev, "SAR_SPECKLE_FP64",
      !(gpu && box));
  guard = dev->has_fp64 && !fp64 && box
      && clv_device_tune_int (dev, "SAR_SPECKLE_GUARD", 1) != 0;
  /* 0: one output per work-item; K: a strip of K outputs down a column,
   * which sums each row once for its windows (the median: sorts it once).
   * On GPUs, strips of 16 for Lee, Kuan and boxcar in float and for the
   * median, and of 8 for Frost and Gamma-MAP (their rules are long), in
   * double (registers run out first) and for refined Lee; on CPUs, strips
   * of 4 for the median. */
  long_strips = p->filter == CLV_SPECKLE_MEDIAN || (box && !fp64
      && p->filter != CLV_SPECKLE_FROST && p->filter != CLV_SPECKLE_GAMMA_MAP);
  strips = CLAMP (clv_device_tune_int (dev, "SAR_SPECKLE_ROWS",
          gpu ? (long_strips ? 16 : 8) :
          (p->filter == CLV_SPECKLE_MEDIAN ? 4 : 0)), 0, 64);
  sp->rows = MAX (strips, 1);
  /* SAR_SPECKLE_LOCAL=0: the box-sum filters' strips read their windows
   * straight from the image, through the device's caches, with no tile. */
  tile = strips == 0 || p->filter == CLV_SPECKLE_REFINED_LEE ||
      p->filter == CLV_SPECKLE_MEDIAN ||
      clv_device_tune_int (dev, "SAR_SPECKLE_LOCAL", 1) != 0;
  /* Large radii and strips: a shorter work-group, so that the tile and the
   * list fit. */
  while (sp->local[1] > 1 && local_bytes (sp, p->filter, r, tile, strips > 0,
          fp64 ? sizeof (double) : sizeof (float), guard)
      > dev->local_mem_size)
    sp->local[1] /= 2;
  g_string_printf (opts, "-DSAMPLE=%d -DFILTER=%d -DR=%d -DLX=%zu -DLY=%zu "
      "-DROWS=%d -DLOCAL=%d -DHAVE_FP64=%d -DGUARD=%d -DLOOKS=%.17g "
      "-DDERAMP=%.17g", sample, p->filter, r, sp->local[0], sp->local[1],
      (int) strips, tile, fp64, guard, p->looks, p->deramp);
  if (p->filter == CLV_SPECKLE_FROST)
    append_frost_classes (opts, r);
  prog = clv_device_get_program (dev, "sar_speckle", opts->str, error);
  g_string_free (opts, TRUE);
  if (prog == NULL)
    goto fail;
  sp->kernel = clv_kernel_new (prog, "sar_speckle", error);
  clReleaseProgram (prog);
  if (sp->kernel == NULL)
    goto fail;
  return sp;

fail:
  clv_speckle_free (sp);
  return NULL;
}

gboolean
clv_speckle_enqueue (ClvSpeckle * sp, cl_mem src, const ClvImage * si,
    cl_mem dst, const ClvImage * di, cl_event * ev, GError ** error)
{
  const cl_uint a[4] = { si->offset / si->bpp, si->stride / si->bpp,
    di->offset / sizeof (float), di->stride / sizeof (float)
  };
  const cl_int w = si->width, h = si->height;
  size_t global[2] = { clv_round_up (w, sp->local[0]),
    clv_round_up (h, sp->local[1] * sp->rows) / sp->rows
  };

  if (ev)
    *ev = NULL;
  if (w == 0 || h == 0)
    return TRUE;
  if (!clv_kernel_set_args (sp->kernel, error, CLV_ARG (src), CLV_ARG (a[0]),
          CLV_ARG (a[1]), CLV_ARG (dst), CLV_ARG (a[2]), CLV_ARG (a[3]),
          CLV_ARG (w), CLV_ARG (h), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (sp->dev->queue, sp->kernel, 2, NULL,
          global, sp->local, 0, NULL, ev), error, fail);
  return TRUE;

fail:
  return FALSE;
}

void
clv_speckle_free (ClvSpeckle * sp)
{
  if (sp == NULL)
    return;
  if (sp->kernel)
    clReleaseKernel (sp->kernel);
  clv_device_unref (sp->dev);
  g_free (sp);
}
