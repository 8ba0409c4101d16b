/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCV's bit-exact bilinear resize of 8-bit images (INTER_LINEAR_EXACT),
 * shared by the Viola–Jones pyramid and the Eigenface crops. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One axis of a src_size → dst_size resize: destination index d reads source
 * ofs[d] and ofs[d] + 1, the latter with weight frac[d] / 256 (positions in
 * double as cv::resize computes them, weights rounded to 8 fraction bits).
 * Indices in [*first, *end) interpolate; those before take source 0 and
 * those from *end on the last source pixel, with frac 0.  `first` and `end`
 * may be NULL. */
void clv_resize_axis_exact (int src_size, int dst_size, int *ofs,
    guint16 * frac, int *first, int *end);

G_END_DECLS
