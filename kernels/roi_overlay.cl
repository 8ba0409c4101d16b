/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ROI overlay: boxes, text labels and fills drawn on one component of a
 * frame, one work-item per sample of the region the operations touch, and
 * the redactions that work on whole regions (pixelation, blur).  Same
 * rules and integer arithmetic as clv_overlay_draw_ref
 * (common/clv-overlay.c): an operation is 16 ints (kind, x0, y0, x1, y1,
 * thickness, mask_offset, size, fg[4], bg[4]); operations apply in
 * order. */

#define OP_BOX 0
#define OP_FILL 2

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
  if (op[0] == OP_FILL)
    return op[8 + c];
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
    __global const int *ops, int first, int n_ops,
    __global const uchar * masks)
{
  const int sx = sx0 + (int) get_global_id (0);
  const int sy = sy0 + (int) get_global_id (1);
  const int bx0 = sx << xsub, by0 = sy << ysub;
  const int bx1 = min ((sx + 1) << xsub, width);
  const int by1 = min ((sy + 1) << ysub, height);
  __global uchar *p = frame + offset + (ulong) sy * stride
      + (ulong) sx * pstride;
  int v = -1;

  for (int i = first; i < first + n_ops; i++) {
    const int s = op_sample (ops + 16 * i, c, bx0, by0, bx1, by1, masks);
    if (s >= 0)
      v = s;
  }
  if (v >= 0)
    *p = (uchar) v;
}

#define SAMPLE(x, y) \
  frame[offset + (ulong) (y) * stride + (ulong) (x) * pstride]

/* One work-item per cell of cw x ch samples of the region [x0, x1) x
 * [y0, y1): the cell becomes the rounded mean of its samples. */
__kernel void
roi_pixelate (__global uchar * frame, ulong offset, ulong stride,
    int pstride, int x0, int y0, int x1, int y1, int cw, int ch)
{
  const int cx = x0 + (int) get_global_id (0) * cw;
  const int cy = y0 + (int) get_global_id (1) * ch;
  const int ex = min (cx + cw, x1), ey = min (cy + ch, y1);
  const uint n = (uint) ((ex - cx) * (ey - cy));
  uint sum = 0;

  for (int y = cy; y < ey; y++)
    for (int x = cx; x < ex; x++)
      sum += SAMPLE (x, y);
  for (int y = cy; y < ey; y++)
    for (int x = cx; x < ex; x++)
      SAMPLE (x, y) = (uchar) ((sum + n / 2) / n);
}

/* A blur's first pass: each sample's sum over the samples within rx of it
 * along its row, inside the region of width w starting at (x0, y0). */
__kernel void
roi_blur_rows (__global const uchar * frame, ulong offset, ulong stride,
    int pstride, int x0, int y0, int w, int rx, __global uint * rows)
{
  const int x = (int) get_global_id (0), y = (int) get_global_id (1);
  uint sum = 0;

  for (int k = max (x - rx, 0); k <= min (x + rx, w - 1); k++)
    sum += SAMPLE (x0 + k, y0 + y);
  rows[y * w + x] = sum;
}

/* The second pass: the row sums within ry along the column, divided by the
 * number of samples summed, rounded, written back. */
__kernel void
roi_blur_cols (__global uchar * frame, ulong offset, ulong stride,
    int pstride, int x0, int y0, int w, int h, int rx, int ry,
    __global const uint * rows)
{
  const int x = (int) get_global_id (0), y = (int) get_global_id (1);
  const uint n = (uint) ((min (x + rx, w - 1) - max (x - rx, 0) + 1)
      * (min (y + ry, h - 1) - max (y - ry, 0) + 1));
  uint sum = 0;

  for (int k = max (y - ry, 0); k <= min (y + ry, h - 1); k++)
    sum += rows[k * w + x];
  SAMPLE (x0 + x, y0 + y) = (uchar) ((sum + n / 2) / n);
}
