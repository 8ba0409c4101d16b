/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR rotation and scaling: C reference and OpenCL launcher.
 *
 * The reference evaluates the same float operations in the same order as
 * kernels/sar_rotscale.cl, every multiply-add an explicit correctly rounded
 * fmaf()/fma() and nothing else contracted (common/ is built with
 * -ffp-contract=off, the kernel with FP_CONTRACT OFF), so host and device
 * agree bit for bit. */
#include "clv-sar.h"

#include <math.h>

/* sin and cos of `deg` degrees, exact (0, +-1) at multiples of 90: the
 * angle is reduced to a quadrant and a remainder in [-45, 45], whose sine
 * is exactly 0 when the remainder is. */
static void
sincos_degrees (double deg, double *s, double *c)
{
  const double r = fmod (deg, 360.0);   /* exact */
  const double q = nearbyint (r / 90.0);
  const double rad = (r - 90.0 * q) * (G_PI / 180.0);   /* r - 90q is exact */
  const double sr = sin (rad), cr = cos (rad);

  switch (((int) q % 4 + 4) % 4) {
    case 0:
      *s = sr;
      *c = cr;
      break;
    case 1:
      *s = cr;
      *c = -sr;
      break;
    case 2:
      *s = -sr;
      *c = -cr;
      break;
    default:
      *s = -cr;
      *c = sr;
      break;
  }
  /* No negative zeros: they would print oddly and change nothing else. */
  *s += 0.0;
  *c += 0.0;
}

void
clv_rotscale_geometry_init (ClvRotscaleGeometry * g, double angle,
    double scale, int in_width, int in_height, int out_width, int out_height)
{
  g->in_width = in_width;
  g->in_height = in_height;
  g->out_width = out_width;
  g->out_height = out_height;
  sincos_degrees (angle, &g->sin_a, &g->cos_a);
  g->scale = scale;
  g->a = (float) (g->cos_a / scale);
  g->b = (float) (g->sin_a / scale);
  g->cxi = (in_width - 1) / 2.0f;
  g->cyi = (in_height - 1) / 2.0f;
  g->cxo = (out_width - 1) / 2.0f;
  g->cyo = (out_height - 1) / 2.0f;
}

void
clv_rotscale_map_point (const ClvRotscaleGeometry * g, double *x, double *y)
{
  /* Edge coordinates put the centre of a w-pixel axis at w / 2. */
  const double dx = *x - g->in_width / 2.0, dy = *y - g->in_height / 2.0;
  const double u = dx * g->cos_a + dy * g->sin_a;
  const double v = dy * g->cos_a - dx * g->sin_a;

  *x = u * g->scale + g->out_width / 2.0;
  *y = v * g->scale + g->out_height / 2.0;
}

void
clv_rotscale_inverse_affine (const ClvRotscaleGeometry * g, double m[6])
{
  const double c = g->cos_a / g->scale, s = g->sin_a / g->scale;
  const double cxo = g->out_width / 2.0, cyo = g->out_height / 2.0;

  /* dx = (u cos - v sin) / scale, dy = (u sin + v cos) / scale. */
  m[1] = c;
  m[2] = -s;
  m[0] = g->in_width / 2.0 - c * cxo + s * cyo;
  m[4] = s;
  m[5] = c;
  m[3] = g->in_height / 2.0 - s * cxo - c * cyo;
}

/* Pixel (x, y) as a float, or the background outside the image. */
static inline float
fetch (const guint8 * src, const ClvImage * si, ClvSample sample, int x,
    int y, float bg)
{
  const float v = clv_image_get_real (src, si, sample, CLAMP (x, 0,
          si->width - 1), CLAMP (y, 0, si->height - 1));
  return (guint) x < (guint) si->width && (guint) y < (guint) si->height ?
      v : bg;
}

/* Both references: integers rounded to nearest, Float32 as interpolated. */
static void
rotscale_ref (const guint8 * src, const ClvImage * si, ClvSample sample,
    guint8 * dst, const ClvImage * di, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, float bg)
{
  const float maxval = sample == CLV_SAMPLE_U8 ? 255.0f : 65535.0f;
  /* Far-outside samples are clamped so that float->int stays defined. */
  const float xmax = si->width + 1.0f, ymax = si->height + 1.0f;

  for (int yo = 0; yo < di->height; yo++) {
    const float yf = (float) yo - g->cyo;
    const float bx = fmaf (-yf, g->b, g->cxi), by = fmaf (yf, g->a, g->cyi);

    for (int xo = 0; xo < di->width; xo++) {
      const float xf = (float) xo - g->cxo;
      const float xs = fminf (fmaxf (fmaf (xf, g->a, bx), -2.0f), xmax);
      const float ys = fminf (fmaxf (fmaf (xf, g->b, by), -2.0f), ymax);
      float v;

      if (interp == CLV_INTERP_NEAREST) {
        v = fetch (src, si, sample, (int) floorf (xs + 0.5f),
            (int) floorf (ys + 0.5f), bg);
      } else {
        const float x0 = floorf (xs), y0 = floorf (ys);
        const float fx = xs - x0, fy = ys - y0;
        const float gx = 1.0f - fx, gy = 1.0f - fy;
        const int ix = (int) x0, iy = (int) y0;
        const float w[4] = { gx * gy, fx * gy, gx * fy, fx * fy };
        const float q[4] = { fetch (src, si, sample, ix, iy, bg),
          fetch (src, si, sample, ix + 1, iy, bg),
          fetch (src, si, sample, ix, iy + 1, bg),
          fetch (src, si, sample, ix + 1, iy + 1, bg)
        };
        v = fmaf (w[3], q[3], fmaf (w[2], q[2], fmaf (w[1], q[1],
                    w[0] * q[0])));
        if (sample != CLV_SAMPLE_F32)
          v = roundf (fminf (v, maxval));
      }
      if (sample == CLV_SAMPLE_F32)
        *clv_image_f32 (dst, di, xo, yo) = v;
      else
        clv_image_set (dst, di, xo, yo, (guint) v);
    }
  }
}

void
clv_rotscale_ref (const guint8 * src, const ClvImage * si, guint8 * dst,
    const ClvImage * di, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, guint background)
{
  rotscale_ref (src, si, si->bpp == 1 ? CLV_SAMPLE_U8 : CLV_SAMPLE_U16, dst,
      di, g, interp, MIN (background, si->bpp == 1 ? 255u : 65535u));
}

void
clv_rotscale_ref_float (const guint8 * src, const ClvImage * si,
    guint8 * dst, const ClvImage * di, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, float background)
{
  rotscale_ref (src, si, CLV_SAMPLE_F32, dst, di, g, interp, background);
}

struct _ClvRotscale
{
  ClvDevice *dev;
  ClvSample sample;
  cl_kernel kernel;
  size_t local[2];
  int per_item;                 /* output pixels per work-item along x */
};

ClvRotscale *
clv_rotscale_new (ClvDevice * dev, ClvSample sample, ClvInterpolation interp,
    GError ** error)
{
  ClvRotscale *rs = g_new0 (ClvRotscale, 1);
  const guint simd = dev->simd_width;
  cl_program prog;
  char *opts;

  rs->dev = clv_device_ref (dev);
  rs->sample = sample;
  /* 2-D tiles: a rotated tile still reads a compact input area.  On GPUs
   * 4 pixels per work-item in 16x16 groups, the fastest shape of the H100
   * sweeps: bilinear 57.7 against 59.6 us in 8x32,
   * nearest 40.8 against 44.9 us. */
  rs->local[0] = (size_t) clv_device_tune_int (dev, "SAR_RS_WG_X",
      simd > 1 ? 16 : 64);
  rs->local[1] = (size_t) clv_device_tune_int (dev, "SAR_RS_WG_Y",
      simd > 1 ? 16 : 1);
  rs->per_item = (int) CLAMP (clv_device_tune_int (dev, "SAR_RS_X",
          simd > 1 ? 4 : 1), 1, 16);
  if (rs->local[0] < 1 || rs->local[1] < 1 || rs->local[0] > 4096
      || rs->local[1] > 4096
      || rs->local[0] * rs->local[1] > dev->max_work_group_size)
    goto bad_tuning;
  opts = g_strdup_printf ("-DSAMPLE=%d -DBILINEAR=%d -DRS_X=%d", sample,
      interp == CLV_INTERP_BILINEAR, rs->per_item);
  prog = clv_device_get_program (dev, "sar_rotscale", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  rs->kernel = clv_kernel_new (prog, "sar_rotscale", error);
  clReleaseProgram (prog);
  if (rs->kernel == NULL)
    goto fail;
  return rs;

bad_tuning:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "CLVISION_TUNE for "
      "sarrotscale out of range: SAR_RS_WG_X=%zu x SAR_RS_WG_Y=%zu must be "
      "a work-group of 1..%zu work-items", rs->local[0], rs->local[1],
      dev->max_work_group_size);
fail:
  clv_rotscale_free (rs);
  return NULL;
}

gboolean
clv_rotscale_enqueue (ClvRotscale * rs, cl_mem src, const ClvImage * si,
    cl_mem dst, const ClvImage * di, const ClvRotscaleGeometry * g,
    double background, cl_event * event, GError ** error)
{
  const cl_uint a[4] = { si->offset / si->bpp, si->stride / si->bpp,
    di->offset / di->bpp, di->stride / di->bpp
  };
  const cl_int iw = si->width, ih = si->height, ow = di->width,
      oh = di->height;
  const cl_float bg = rs->sample == CLV_SAMPLE_F32 ? (float) background :
      MIN (background, rs->sample == CLV_SAMPLE_U8 ? 255 : 65535);
  const cl_float xmax = iw + 1.0f, ymax = ih + 1.0f;
  const size_t global[2] = {
    clv_round_up ((ow + rs->per_item - 1) / rs->per_item, rs->local[0]),
    clv_round_up (oh, rs->local[1])
  };

  if (g->in_width != iw || g->in_height != ih || g->out_width != ow
      || g->out_height != oh)
    goto wrong_geometry;
  if (!clv_kernel_set_args (rs->kernel, error, CLV_ARG (src), CLV_ARG (a[0]),
          CLV_ARG (a[1]), CLV_ARG (iw), CLV_ARG (ih), CLV_ARG (dst),
          CLV_ARG (a[2]), CLV_ARG (a[3]), CLV_ARG (ow), CLV_ARG (oh),
          CLV_ARG (g->a), CLV_ARG (g->b), CLV_ARG (g->cxi), CLV_ARG (g->cyi),
          CLV_ARG (g->cxo), CLV_ARG (g->cyo), CLV_ARG (xmax), CLV_ARG (ymax),
          CLV_ARG (bg), CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (rs->dev->queue, rs->kernel, 2, NULL,
          global, rs->local, 0, NULL, event), error, fail);
  return TRUE;

wrong_geometry:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "rotscale geometry for "
      "%dx%d -> %dx%d used on %dx%d -> %dx%d", g->in_width, g->in_height,
      g->out_width, g->out_height, iw, ih, ow, oh);
fail:
  return FALSE;
}

void
clv_rotscale_free (ClvRotscale * rs)
{
  if (rs == NULL)
    return;
  if (rs->kernel)
    clReleaseKernel (rs->kernel);
  clv_device_unref (rs->dev);
  g_free (rs);
}
