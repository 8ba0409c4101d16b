/* SAR multilook: C reference and OpenCL launcher. */
#include "clv-sar.h"

#include <math.h>

/* Round-to-nearest sqrt(s / n), exact in integers; the kernel does the same. */
static guint
amplitude_round (guint64 s, guint n)
{
  guint64 r = (guint64) (sqrt ((double) s / n) + 0.5);
  while (n * (2 * r + 1) * (2 * r + 1) <= 4 * s)
    r++;
  while (r > 0 && n * (2 * r - 1) * (2 * r - 1) > 4 * s)
    r--;
  return (guint) r;
}

void
clv_multilook_ref (const guint8 * src, const ClvImage * si, guint8 * dst,
    const ClvImage * di, int rl, int al, ClvMultilookDomain domain)
{
  const guint n = (guint) (rl * al);

  for (int oy = 0; oy < di->height; oy++)
    for (int ox = 0; ox < di->width; ox++) {
      guint64 s = 0;
      for (int j = 0; j < al; j++)
        for (int i = 0; i < rl; i++) {
          guint64 v = clv_image_get (src, si, ox * rl + i, oy * al + j);
          s += domain == CLV_MULTILOOK_AMPLITUDE ? v * v : v;
        }
      clv_image_set (dst, di, ox, oy, domain == CLV_MULTILOOK_AMPLITUDE ?
          amplitude_round (s, n) : (guint) ((s + n / 2) / n));
    }
}

struct _ClvMultilook
{
  ClvDevice *dev;
  cl_kernel kernel;
  int rows_per_item;
  size_t local_x;
};

ClvMultilook *
clv_multilook_new (ClvDevice * dev, int bpp, int rl, int al,
    ClvMultilookDomain domain, GError ** error)
{
  ClvMultilook *ml = g_new0 (ClvMultilook, 1);
  cl_program prog = NULL;
  char *opts;

  ml->dev = clv_device_ref (dev);
  ml->rows_per_item = (int) clv_tune_int ("SAR_ML_ROWS", 4);
  ml->local_x = (size_t) clv_tune_int ("SAR_ML_WG",
      dev->simd_width > 1 ? 4 * dev->simd_width : 16);
  opts = g_strdup_printf ("-DPIX_BYTES=%d -DRL=%d -DAL=%d -DAMPLITUDE=%d "
      "-DML_ROWS=%d", bpp, rl, al, domain == CLV_MULTILOOK_AMPLITUDE,
      ml->rows_per_item);
  prog = clv_device_get_program (dev, "sar_multilook", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  ml->kernel = clv_kernel_new (prog, "sar_multilook", error);
  clReleaseProgram (prog);
  if (ml->kernel == NULL)
    goto fail;
  return ml;

fail:
  clv_multilook_free (ml);
  return NULL;
}

gboolean
clv_multilook_enqueue (ClvMultilook * ml, cl_mem src, const ClvImage * si,
    cl_mem dst, const ClvImage * di, cl_event * event, GError ** error)
{
  cl_uint a[4] = { si->offset / si->bpp, si->stride / si->bpp,
    di->offset / di->bpp, di->stride / di->bpp
  };
  cl_int ow = di->width, oh = di->height;
  size_t local[2] = { ml->local_x, 1 };
  size_t global[2] = { clv_round_up (ow, local[0]),
    (oh + ml->rows_per_item - 1) / ml->rows_per_item
  };

  if (ow == 0 || oh == 0)
    return TRUE;
  if (!clv_kernel_set_args (ml->kernel, error, CLV_ARG (src), CLV_ARG (a[0]),
          CLV_ARG (a[1]), CLV_ARG (dst), CLV_ARG (a[2]), CLV_ARG (a[3]),
          CLV_ARG (ow), CLV_ARG (oh), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (ml->dev->queue, ml->kernel, 2, NULL,
          global, local, 0, NULL, event), error, fail);
  return TRUE;

fail:
  return FALSE;
}

void
clv_multilook_free (ClvMultilook * ml)
{
  if (ml == NULL)
    return;
  if (ml->kernel)
    clReleaseKernel (ml->kernel);
  clv_device_unref (ml->dev);
  g_free (ml);
}
