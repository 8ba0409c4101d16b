/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SAR chain of Li, Liang, Zhang and Li, "Parallel Optimization
 * Strategy of Airborne SAR Imaging Algorithm Based on ARM GPU", in C: the
 * references of sarmultilook, sarrotscale and sarquantize in turn, as the
 * elements chained compute it. */
#include "clv-sar.h"

guint8 *
clv_sar_chain_ref (const guint8 * src, const ClvImage * si, int looks,
    double angle, double scale, double coef, ClvImage * qi)
{
  ClvImage mi;
  ClvRotscaleGeometry g;
  int mw, mh;
  guint8 *ml, *rs, *q;

  clv_multilook_out_size (si->width, si->height, looks, looks, &mw, &mh);
  mi = clv_image_make (mw, mh, si->bpp, clv_round_up ((gsize) mw * si->bpp,
          4));
  ml = g_malloc0 (mi.stride * mh);
  clv_multilook_ref (src, si, ml, &mi, looks, looks,
      CLV_MULTILOOK_INTENSITY);
  rs = g_malloc0 (mi.stride * mh);
  clv_rotscale_geometry_init (&g, angle, scale, mw, mh, mw, mh);
  clv_rotscale_ref (ml, &mi, rs, &mi, &g, CLV_INTERP_BILINEAR, 0);
  *qi = clv_image_make (mw, mh, 1, clv_round_up (mw, 4));
  q = g_malloc0 (qi->stride * mh);
  clv_quantize_ref (rs, &mi, q, qi, coef);
  g_free (ml);
  g_free (rs);
  return q;
}
