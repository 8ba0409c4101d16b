/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAR image operations: plain C references and their OpenCL versions. */
#pragma once

#include "clv-image.h"
#include "clv-opencl.h"

G_BEGIN_DECLS

typedef enum
{
  CLV_MULTILOOK_INTENSITY,      /* plain block mean */
  CLV_MULTILOOK_AMPLITUDE,      /* sqrt of the block mean of squares */
} ClvMultilookDomain;

/* Output size of a multilook: partial blocks are dropped. */
static inline void
clv_multilook_out_size (int width, int height, int range_looks,
    int azimuth_looks, int *out_width, int *out_height)
{
  *out_width = width / range_looks;
  *out_height = height / azimuth_looks;
}

void clv_multilook_ref (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, int range_looks, int azimuth_looks,
    ClvMultilookDomain domain);

/* A no-data value (NaN matches NaN). */
typedef struct
{
  double value;
} ClvNodata;

/* The same for Float32 and complex samples, into Float32: the block sums
 * in double, the mean (or its root) rounded once.  Float32 pixels equal
 * to `nodata` (nullable) are left out, as GDAL's average does; a block of
 * them only gives `nodata`.  Complex samples are detected first, |z|^2,
 * so their mean is the intensity, or with CLV_MULTILOOK_AMPLITUDE its
 * root. */
void clv_multilook_ref_float (const guint8 * src, const ClvImage * src_im,
    ClvSample sample, guint8 * dst, const ClvImage * dst_im, int range_looks,
    int azimuth_looks, ClvMultilookDomain domain, const ClvNodata * nodata);

typedef struct _ClvMultilook ClvMultilook;

/* The output size lets the launch shape give the device enough work-items.
 * Integers give the same format out, the others Float32. */
ClvMultilook *clv_multilook_new (ClvDevice * dev, ClvSample sample,
    int range_looks, int azimuth_looks, ClvMultilookDomain domain,
    const ClvNodata * nodata, int out_width, int out_height,
    GError ** error);
/* Enqueues the kernel; `event` (nullable) receives its event. */
gboolean clv_multilook_enqueue (ClvMultilook * ml, cl_mem src,
    const ClvImage * src_im, cl_mem dst, const ClvImage * dst_im,
    cl_event * event, GError ** error);
void clv_multilook_free (ClvMultilook * ml);

/* Rotation and scaling.  Output pixel (xo, yo) samples the input at
 *   u = (xo - cxo) / s, v = (yo - cyo) / s,
 *   xs = u cos a - v sin a + cxi,  ys = u sin a + v cos a + cyi,
 * with centres c = (size - 1) / 2, in pixel-index coordinates.  As image y
 * grows downwards, a positive angle turns the picture counter-clockwise on
 * screen. */
typedef enum
{
  CLV_INTERP_NEAREST,
  CLV_INTERP_BILINEAR,
} ClvInterpolation;

/* The per-frame invariants, computed once on the host (in double, then
 * rounded to float once) and passed to the kernel as constants. */
typedef struct
{
  int in_width, in_height, out_width, out_height;
  /* Sampling map in float, as the kernel evaluates it. */
  float a;                      /* cos(angle) / scale */
  float b;                      /* sin(angle) / scale */
  float cxi, cyi, cxo, cyo;
  /* The same map in double, for ROI metas. */
  double cos_a, sin_a, scale;
} ClvRotscaleGeometry;

/* `angle` in degrees (any finite value), `scale` > 0.  Multiples of 90
 * degrees give sin and cos of exactly 0 and +-1. */
void clv_rotscale_geometry_init (ClvRotscaleGeometry * g, double angle,
    double scale, int in_width, int in_height, int out_width, int out_height);

/* Forward map of a point from input to output frame in edge coordinates
 * (pixel i spans [i, i + 1)): the inverse of the sampling map. */
void clv_rotscale_map_point (const ClvRotscaleGeometry * g, double *x,
    double *y);

/* The inverse of clv_rotscale_map_point as an affine map from output to
 * input edge coordinates: in_x = m[0] + x m[1] + y m[2],
 * in_y = m[3] + x m[4] + y m[5] (for georeferencing metas). */
void clv_rotscale_inverse_affine (const ClvRotscaleGeometry * g,
    double m[6]);

/* `background` is clamped to the format's range (255 for GRAY8). */
void clv_rotscale_ref (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, guint background);
/* The same on Float32, the interpolated value stored as it is. */
void clv_rotscale_ref_float (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, float background);

typedef struct _ClvRotscale ClvRotscale;

/* U8, U16 (out the same, rounded) or F32. */
ClvRotscale *clv_rotscale_new (ClvDevice * dev, ClvSample sample,
    ClvInterpolation interp, GError ** error);
gboolean clv_rotscale_enqueue (ClvRotscale * rs, cl_mem src,
    const ClvImage * src_im, cl_mem dst, const ClvImage * dst_im,
    const ClvRotscaleGeometry * g, double background, cl_event * event,
    GError ** error);
void clv_rotscale_free (ClvRotscale * rs);

/* Quantization to GRAY8 display levels:
 *   F(x,y) = clamp(round(I(x,y) coef M / (Rmean(y) Cmean(x))), 0, 255)
 * which, with integer row sums R, column sums C and total T, is
 *   I coef T / (R(y) C(x)).
 * Sums are exact (integers); the rest is evaluated as
 *   ((I * k) * rinv(y)) * cinv(x),  k = (float) (coef * (double) T),
 *   rinv = (float) (1.0 / (double) (float) R), cinv likewise,
 * in float with contraction off, identically on host and device.  A zero
 * row or column sum gives 0. */
void clv_quantize_ref (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, double coef);

typedef struct _ClvQuantize ClvQuantize;

/* Launches of one frame, in order, for profiling. */
#define CLV_QUANTIZE_MAX_LAUNCHES 4
typedef struct
{
  cl_event events[CLV_QUANTIZE_MAX_LAUNCHES];
  guint n_events;
} ClvQuantizeEvents;

ClvQuantize *clv_quantize_new (ClvDevice * dev, int bpp, GError ** error);
/* Output is GRAY8 of the input's size.  `events` (nullable) receives one
 * event per launch; release them with clv_quantize_events_clear(). */
gboolean clv_quantize_enqueue (ClvQuantize * q, cl_mem src,
    const ClvImage * src_im, cl_mem dst, const ClvImage * dst_im, double coef,
    ClvQuantizeEvents * events, GError ** error);
void clv_quantize_events_clear (ClvQuantizeEvents * events);
void clv_quantize_free (ClvQuantize * q);

/* Detection of complex samples (real samples count as z = v + 0i), into
 * Float32: intensity |z|^2, amplitude |z|, phase arg z in (-pi, pi].  In
 * double where the device has it, rounded once to float. */
typedef enum
{
  CLV_DETECT_INTENSITY,
  CLV_DETECT_AMPLITUDE,
  CLV_DETECT_PHASE,
} ClvDetect;

void clv_detect_ref (const guint8 * src, const ClvImage * si,
    ClvSample sample, guint8 * dst, const ClvImage * di, ClvDetect detect);

/* Decibels into Float32: 10 log10 v (20 log10 v for amplitudes); values
 * <= 0 or below `floor_db` give floor_db; NaN stays NaN; values equal to
 * nodata_in (where has_nodata; NaN matches NaN) give nodata_out. */
typedef struct
{
  gboolean amplitude;
  float floor_db;
  gboolean has_nodata;
  float nodata_in, nodata_out;
} ClvDbParams;

void clv_db_ref (const guint8 * src, const ClvImage * si, ClvSample sample,
    guint8 * dst, const ClvImage * di, const ClvDbParams * params);

/* A launcher of one of those maps. */
typedef struct _ClvPointwise ClvPointwise;

ClvPointwise *clv_detect_new (ClvDevice * dev, ClvSample sample,
    ClvDetect detect, GError ** error);
ClvPointwise *clv_db_new (ClvDevice * dev, ClvSample sample,
    const ClvDbParams * params, GError ** error);
/* `di` is Float32 of `si`'s size. */
gboolean clv_pointwise_enqueue (ClvPointwise * pw, cl_mem src,
    const ClvImage * si, cl_mem dst, const ClvImage * di, cl_event * event,
    GError ** error);
void clv_pointwise_free (ClvPointwise * pw);

/* Speckle filters, Float32 out; see clv-sar-speckle-ref.c for the rules
 * and kernels/sar_speckle.cl for the device's way. */
typedef enum
{
  CLV_SPECKLE_LEE,
  CLV_SPECKLE_FROST,
  CLV_SPECKLE_GAMMA_MAP,
  CLV_SPECKLE_KUAN,
  CLV_SPECKLE_REFINED_LEE,
  CLV_SPECKLE_BOXCAR,
  CLV_SPECKLE_MEDIAN,
} ClvSpeckleFilter;

/* Refined Lee's window is always 7 x 7. */
#define CLV_REFINED_LEE_RADIUS 3
/* The largest radius of the other filters. */
#define CLV_SPECKLE_MAX_RADIUS 15

typedef struct
{
  ClvSpeckleFilter filter;
  int radius;                   /* window side 2 radius + 1 */
  double looks;                 /* Lee, Gamma-MAP, Kuan, refined Lee */
  double deramp;                /* Frost */
} ClvSpeckleParams;

void clv_speckle_ref (const guint8 * src, const ClvImage * si,
    ClvSample sample, guint8 * dst, const ClvImage * di,
    const ClvSpeckleParams * params);

typedef struct _ClvSpeckle ClvSpeckle;

ClvSpeckle *clv_speckle_new (ClvDevice * dev, ClvSample sample,
    const ClvSpeckleParams * params, GError ** error);
/* `di` is Float32 of `si`'s size; `ev` (may be NULL) gets the launch's
 * event. */
gboolean clv_speckle_enqueue (ClvSpeckle * sp, cl_mem src,
    const ClvImage * si, cl_mem dst, const ClvImage * di, cl_event * ev,
    GError ** error);
void clv_speckle_free (ClvSpeckle * sp);

/* The same quantization of Float32: sums in double (where the device has
 * it), k = (float) ((float) coef * T), rinv = (float) (1 / R), cinv
 * likewise, a sum <= 0 giving 0; pixels that are no data or not finite
 * count as 0 and give 0.  Device and reference sum in other orders, so a
 * rounded value may differ by one level in rare pixels. */
void clv_quantize_ref_float (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, double coef,
    const ClvNodata * nodata);

typedef struct _ClvQuantizeFloat ClvQuantizeFloat;

ClvQuantizeFloat *clv_quantize_float_new (ClvDevice * dev,
    const ClvNodata * nodata, GError ** error);
gboolean clv_quantize_float_enqueue (ClvQuantizeFloat * q, cl_mem src,
    const ClvImage * src_im, cl_mem dst, const ClvImage * dst_im, double coef,
    GError ** error);
void clv_quantize_float_free (ClvQuantizeFloat * q);

/* sarmultilook `looks` (intensity) ! sarrotscale `angle` `scale` (bilinear,
 * background 0, the multilooked size) ! sarquantize `coef` by the C
 * references: the GRAY8 result (g_free it), its layout in `qi`. */
guint8 *clv_sar_chain_ref (const guint8 * src, const ClvImage * si,
    int looks, double angle, double scale, double coef, ClvImage * qi);

G_END_DECLS
