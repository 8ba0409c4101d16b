/* SPDX-License-Identifier: LGPL-2.1-or-later */
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

/* Whether `v` is the no-data value (NaN matches NaN). */
static gboolean
is_nodata (double v, const ClvNodata * nodata)
{
  return nodata && (v == nodata->value || (isnan (nodata->value)
          && isnan (v)));
}

void
clv_multilook_ref_float (const guint8 * src, const ClvImage * si,
    ClvSample sample, guint8 * dst, const ClvImage * di, int rl, int al,
    ClvMultilookDomain domain, const ClvNodata * nodata)
{
  const gboolean complex = clv_sample_is_complex (sample);
  /* Complex samples are detected to powers, not squared again. */
  const gboolean square = domain == CLV_MULTILOOK_AMPLITUDE && !complex;

  for (int oy = 0; oy < di->height; oy++)
    for (int ox = 0; ox < di->width; ox++) {
      double s = 0;
      int n = 0;

      for (int j = 0; j < al; j++)
        for (int i = 0; i < rl; i++) {
          double re, im;

          clv_image_get_complex (src, si, sample, ox * rl + i, oy * al + j,
              &re, &im);
          const double v = complex ? re * re + im * im : re;

          if (complex || !is_nodata (re, nodata)) {
            s += square ? v * v : v;
            n++;
          }
        }
      *clv_image_f32 (dst, di, ox, oy) = n == 0 ? (float) nodata->value :
          domain == CLV_MULTILOOK_AMPLITUDE ? (float) sqrt (s / n) :
          (float) (s / n);
    }
}

struct _ClvMultilook
{
  ClvDevice *dev;
  cl_kernel kernel;
  cl_kernel kernel_aligned;     /* whole-vector loads; see the .cl */
  int vector_bytes;             /* the alignment it needs, 0: none */
  int out_x;                    /* outputs per work-item along a row */
  int split;                    /* work-items per output sharing the rows */
  size_t local_x;
};

/* Outputs per work-item: as many as fill one 16-byte vector load. */
static int
default_out_x (int bpp, int rl)
{
  const int span = rl * bpp;
  return span < 16 && 16 % span == 0 ? 16 / span : 1;
}

ClvMultilook *
clv_multilook_new (ClvDevice * dev, ClvSample sample, int rl, int al,
    ClvMultilookDomain domain, const ClvNodata * nodata, int out_width,
    int out_height, GError ** error)
{
  ClvMultilook *ml = g_new0 (ClvMultilook, 1);
  const int bpp = clv_sample_size (sample);
  char nodata_opt[48] = "";
  cl_program prog = NULL;
  const gboolean gpu = dev->simd_width > 1;
  size_t wg;
  gint64 items, target;
  char *opts;

  ml->dev = clv_device_ref (dev);
  ml->out_x = (int) CLAMP (clv_device_tune_int (dev, "SAR_ML_OUT_X",
          default_out_x (bpp, rl)), 1, 64);
  wg = (size_t) CLAMP (clv_device_tune_int (dev, "SAR_ML_WG", gpu ? 256 : 16),
      1, (gint64) dev->max_work_group_size);
  /* Split a block's rows while the device would have too few work-items;
   * a CPU has few lanes and prefers whole blocks. */
  items = (gint64) (out_width + ml->out_x - 1) / ml->out_x * out_height;
  target = (gint64) dev->compute_units * 2048;
  ml->split = 1;
  while (gpu && ml->split * 2 <= al && (size_t) ml->split * 2 <= wg / 8
      && items * ml->split < target)
    ml->split *= 2;
  ml->split = (int) CLAMP (clv_device_tune_int (dev, "SAR_ML_SPLIT",
          ml->split), 1, (gint64) wg);
  ml->local_x = MAX (wg / ml->split, 1);
  /* Exact as a hexadecimal float literal. */
  if (sample == CLV_SAMPLE_F32 && nodata)
    g_snprintf (nodata_opt, sizeof (nodata_opt), isnan (nodata->value) ?
        "-DNODATA=NAN" : "-DNODATA=%af", (float) nodata->value);
  opts = g_strdup_printf ("-DSAMPLE=%d -DRL=%d -DAL=%d -DAMPLITUDE=%d "
      "-DOUT_X=%d -DVW=%d -DSPLIT=%d -DLX=%zu -DHAVE_FP64=%d%s%s", sample, rl,
      al, domain == CLV_MULTILOOK_AMPLITUDE, ml->out_x, rl * ml->out_x,
      ml->split, ml->local_x, dev->has_fp64, nodata_opt[0] ? " " : "",
      nodata_opt);
  prog = clv_device_get_program (dev, "sar_multilook", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  ml->kernel = clv_kernel_new (prog, "sar_multilook", error);
  if (ml->kernel)
    ml->kernel_aligned = clv_kernel_new (prog, "sar_multilook_aligned", error);
  clReleaseProgram (prog);
  if (ml->kernel_aligned == NULL)
    goto fail;
  /* Vector loads exist for 2, 4, 8 and 16 real pixels. */
  if (!clv_sample_is_complex (sample) && ((rl * ml->out_x) == 2
          || (rl * ml->out_x) == 4 || (rl * ml->out_x) == 8
          || (rl * ml->out_x) == 16))
    ml->vector_bytes = rl * ml->out_x * bpp;
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
  size_t local[2] = { ml->local_x, (size_t) ml->split };
  size_t global[2] = { clv_round_up ((ow + ml->out_x - 1) / ml->out_x,
        local[0]), (size_t) oh * ml->split
  };

  cl_kernel k = ml->vector_bytes && si->offset % ml->vector_bytes == 0
      && si->stride % ml->vector_bytes == 0 ? ml->kernel_aligned : ml->kernel;

  if (ow == 0 || oh == 0)
    return TRUE;
  if (!clv_kernel_set_args (k, error, CLV_ARG (src), CLV_ARG (a[0]),
          CLV_ARG (a[1]), CLV_ARG (dst), CLV_ARG (a[2]), CLV_ARG (a[3]),
          CLV_ARG (ow), CLV_ARG (oh), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (ml->dev->queue, k, 2, NULL,
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
  if (ml->kernel_aligned)
    clReleaseKernel (ml->kernel_aligned);
  clv_device_unref (ml->dev);
  g_free (ml);
}
