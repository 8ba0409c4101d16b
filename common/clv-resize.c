/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "clv-resize.h"

#include <math.h>

void
clv_resize_axis_exact (int src_size, int dst_size, int *ofs, guint16 * frac,
    int *first, int *end)
{
  const double scale = 1.0 / ((double) dst_size / src_size);
  int lo = 0, hi = dst_size;

  for (int d = 0; d < dst_size; d++) {
    /* No fused multiply-add here (-ffp-contract=off): OpenCV rounds the
     * product first. */
    const double f = scale * ((double) d + 0.5) - 0.5;
    const int i = (int) floor (f);

    ofs[d] = 0;
    frac[d] = 0;
    if (i >= 0 && src_size > 1) {
      if (i < src_size - 1) {
        ofs[d] = i;
        frac[d] = (guint16) lrint ((f - i) * 256);
      } else {
        ofs[d] = src_size - 1;
        hi = MIN (hi, d);
      }
    } else {
      lo = MAX (lo, d + 1);
    }
  }
  if (first)
    *first = lo;
  if (end)
    *end = hi;
}
