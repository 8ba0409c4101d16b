/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ROI overlay: boxes and text labels drawn on one component of a frame, one
 * work-item per sample of the region the operations touch.  Same rules and
 * integer arithmetic as clv_overlay_draw_ref (common/clv-overlay.c): an
 * operation is 16 ints (kind, x0, y0, x1, y1, thickness, mask_offset,
 * reserved, fg[4], bg[4]); operations apply in order. */

#define OP_BOX 0

/* op_sample of the C reference. */
static int
op_sample (__global const int *op, int c, int bx0, int by0, int bx1, int by1,
    __global const uchar * masks)
{
  const int x0 = op[1], y0 = op[2], x1 = op[3], y1 = op[4], t = op[5];
  const int ix0 = max (bx0, x0), ix1 = min (bx1, x1);
  const int iy0 = max (by0, y0), iy1 = min (by1, y1);
  int sum = 0, n, m;

  if (ix0 >= ix1 || iy0 >= iy1)
    return -1;
  if (op[0] == OP_BOX) {
    if (bx0 >= x0 + t && bx1 <= x1 - t && by0 >= y0 + t && by1 <= y1 - t)
      return -1;
    return op[8 + c];
  }
  for (int y = iy0; y < iy1; y++)
    for (int x = ix0; x < ix1; x++)
      sum += masks[op[6] + (y - y0) * (x1 - x0) + (x - x0)];
  n = (ix1 - ix0) * (iy1 - iy0);
  m = (sum + n / 2) / n;
  return (op[8 + c] * m + op[12 + c] * (255 - m) + 127) / 255;
}

__kernel void
roi_overlay (__global uchar * frame, ulong offset, ulong stride, int pstride,
    int xsub, int ysub, int width, int height, int sx0, int sy0, int c,
    __global const int *ops, int n_ops, __global const uchar * masks)
{
  const int sx = sx0 + (int) get_global_id (0);
  const int sy = sy0 + (int) get_global_id (1);
  const int bx0 = sx << xsub, by0 = sy << ysub;
  const int bx1 = min ((sx + 1) << xsub, width);
  const int by1 = min ((sy + 1) << ysub, height);
  __global uchar *p = frame + offset + (ulong) sy * stride
      + (ulong) sx * pstride;
  int v = -1;

  for (int i = 0; i < n_ops; i++) {
    const int s = op_sample (ops + 16 * i, c, bx0, by0, bx1, by1, masks);
    if (s >= 0)
      v = s;
  }
  if (v >= 0)
    *p = (uchar) v;
}
