/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR detection and decibels: C references and OpenCL launchers (one
 * kernel of kernels/sar_pointwise.cl each). */
#include "clv-sar.h"

#include <math.h>

void
clv_detect_ref (const guint8 * src, const ClvImage * si, ClvSample sample,
    guint8 * dst, const ClvImage * di, ClvDetect detect)
{
  for (int y = 0; y < si->height; y++)
    for (int x = 0; x < si->width; x++) {
      double re, im;

      clv_image_get_complex (src, si, sample, x, y, &re, &im);
      *clv_image_f32 (dst, di, x, y) = detect == CLV_DETECT_INTENSITY ?
          (float) (re * re + im * im) : detect == CLV_DETECT_AMPLITUDE ?
          (float) sqrt (re * re + im * im) : (float) atan2 (im, re);
    }
}

/* One value by the rule of clv_db_ref; `v` exact in double. */
static float
db_value (double v, const ClvDbParams * p)
{
  if (p->has_nodata && ((float) v == p->nodata_in
          || (isnan (p->nodata_in) && isnan (v))))
    return p->nodata_out;
  if (isnan (v))
    return (float) v;
  if (v > 0)
    return fmaxf ((float) ((p->amplitude ? 20.0 : 10.0) * log10 (v)),
        p->floor_db);
  return p->floor_db;
}

void
clv_db_ref (const guint8 * src, const ClvImage * si, ClvSample sample,
    guint8 * dst, const ClvImage * di, const ClvDbParams * p)
{
  for (int y = 0; y < si->height; y++)
    for (int x = 0; x < si->width; x++)
      *clv_image_f32 (dst, di, x, y) = db_value (clv_image_get_real (src, si,
              sample, x, y), p);
}

struct _ClvPointwise
{
  ClvDevice *dev;
  cl_kernel kernel;
  ClvDbParams db;               /* sar_db's arguments */
  gboolean is_db;
};

static ClvPointwise *
pointwise_new (ClvDevice * dev, const char *kernel, const char *map_opts,
    ClvSample sample, GError ** error)
{
  ClvPointwise *pw = g_new0 (ClvPointwise, 1);
  char *opts = g_strdup_printf ("-DSAMPLE=%d -DHAVE_FP64=%d %s", sample,
      dev->has_fp64, map_opts);
  cl_program prog = clv_device_get_program (dev, "sar_pointwise", opts,
      error);

  pw->dev = clv_device_ref (dev);
  g_free (opts);
  if (prog == NULL) {
    clv_pointwise_free (pw);
    return NULL;
  }
  pw->kernel = clv_kernel_new (prog, kernel, error);
  clReleaseProgram (prog);
  if (pw->kernel == NULL) {
    clv_pointwise_free (pw);
    return NULL;
  }
  return pw;
}

ClvPointwise *
clv_detect_new (ClvDevice * dev, ClvSample sample, ClvDetect detect,
    GError ** error)
{
  char opt[16];

  g_snprintf (opt, sizeof (opt), "-DDETECT=%d", detect);
  return pointwise_new (dev, "sar_detect", opt, sample, error);
}

ClvPointwise *
clv_db_new (ClvDevice * dev, ClvSample sample, const ClvDbParams * params,
    GError ** error)
{
  ClvPointwise *pw = pointwise_new (dev, "sar_db", params->amplitude ?
      "-DDB_K=20" : "-DDB_K=10", sample, error);

  if (pw) {
    pw->db = *params;
    pw->is_db = TRUE;
  }
  return pw;
}

gboolean
clv_pointwise_enqueue (ClvPointwise * pw, cl_mem src, const ClvImage * si,
    cl_mem dst, const ClvImage * di, cl_event * event, GError ** error)
{
  const cl_uint a[4] = { si->offset / si->bpp, si->stride / si->bpp,
    di->offset / sizeof (float), di->stride / sizeof (float)
  };
  const cl_int w = si->width, h = si->height, has_nodata = pw->db.has_nodata;
  size_t local[2] = { MIN (64, pw->dev->max_work_group_size), 1 };
  size_t global[2] = { clv_round_up (w, local[0]), (size_t) h };

  if (w == 0 || h == 0)
    return TRUE;
  /* sar_db takes the rule's four values after the images'. */
  if (!(pw->is_db ? clv_kernel_set_args (pw->kernel, error, CLV_ARG (src),
              CLV_ARG (a[0]), CLV_ARG (a[1]), CLV_ARG (dst), CLV_ARG (a[2]),
              CLV_ARG (a[3]), CLV_ARG (w), CLV_ARG (h),
              CLV_ARG (pw->db.floor_db), CLV_ARG (has_nodata),
              CLV_ARG (pw->db.nodata_in), CLV_ARG (pw->db.nodata_out),
              CLV_ARGS_END) : clv_kernel_set_args (pw->kernel, error,
              CLV_ARG (src), CLV_ARG (a[0]), CLV_ARG (a[1]), CLV_ARG (dst),
              CLV_ARG (a[2]), CLV_ARG (a[3]), CLV_ARG (w), CLV_ARG (h),
              CLV_ARGS_END)))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (pw->dev->queue, pw->kernel, 2, NULL,
          global, local, 0, NULL, event), error, fail);
  return TRUE;

fail:
  return FALSE;
}

void
clv_pointwise_free (ClvPointwise * pw)
{
  if (pw == NULL)
    return;
  if (pw->kernel)
    clReleaseKernel (pw->kernel);
  clv_device_unref (pw->dev);
  g_free (pw);
}
