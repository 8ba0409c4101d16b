/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Drawing ROI boxes and text labels on video frames: the C reference and
 * the OpenCL launcher (kernels/roi_overlay.cl), byte-identical.  No
 * GStreamer here; the text itself is rendered by Pango/Cairo
 * (clv_overlay_render_text) into 8-bit alpha masks.
 *
 * A frame is described component by component (ClvOverlayLayout): where
 * each component's samples are, their subsampling and what they hold (gray,
 * Y, U, V, R, G, B, alpha).  What to draw is a list of operations applied in
 * order, each opaque:
 *  - a box: the ring between the rectangle [x0, x1) x [y0, y1) and the same
 *    rectangle shrunk by `thickness` on every side, in colour `fg`;
 *  - a label: the rectangle filled with `bg`, with text of colour `fg`
 *    blended in by an A8 mask m of the rectangle's size (row after row at
 *    `mask_offset` in one mask atlas): (fg m + bg (255 − m) + 127) / 255,
 *    integer arithmetic;
 *  - a fill: the rectangle in colour `fg`;
 *  - a pixelation: the rectangle cut into cells of `size` x `size` pixels
 *    from its top-left corner, each cell replaced by the rounded mean of
 *    its samples, (sum + n / 2) / n;
 *  - a blur: every sample of the rectangle replaced by the rounded mean of
 *    the samples within `size` of it (a (2 size + 1)^2 box) that are in
 *    the rectangle, computed from the samples as they were before the
 *    operation.
 * Rectangles may reach outside the frame: they are clipped at its edges.
 * Pixelations and blurs use only the rectangle's own samples, so nothing
 * from outside leaks in and the rest of the frame is untouched.
 *
 * Subsampled components (the chroma of I420, YV12, NV12, NV21): a sample
 * stands for the block of frame pixels it covers (2x2, or less at the right
 * and bottom edges of odd sizes).  A box paints the sample when its ring
 * touches any pixel of the block; a label paints it when the rectangle
 * touches the block, with m the rounded mean of the mask over the block's
 * pixels inside the rectangle; a fill paints every sample whose block the
 * rectangle touches; a pixelation or blur works on those samples with
 * cells and radii of `size` >> the subsampling (at least one sample for
 * cells).  Full-resolution components are the 1x1 case of the same
 * rule. */
#pragma once

#include <glib.h>
#include "clv-opencl.h"

G_BEGIN_DECLS

#define CLV_OVERLAY_MAX_COMPS 4

/* What a component holds, for converting RGB colours. */
typedef enum
{
  CLV_OVERLAY_GRAY,             /* OpenCV's RGB->gray, as vjfacedetect reads */
  CLV_OVERLAY_Y,                /* BT.601, limited range (16..235) */
  CLV_OVERLAY_U,                /* BT.601, limited range (16..240) */
  CLV_OVERLAY_V,
  CLV_OVERLAY_R,
  CLV_OVERLAY_G,
  CLV_OVERLAY_B,
  CLV_OVERLAY_A,                /* drawn pixels become opaque: 255 */
} ClvOverlayCompKind;

typedef struct
{
  ClvOverlayCompKind kind;
  int plane;
  gsize offset;                 /* bytes from the plane's start to sample (0, 0) */
  gsize stride;                 /* bytes between rows of the plane */
  int pstride;                  /* bytes between samples of a row */
  int xsub, ysub;               /* log2 of the subsampling: 0, or 1 for 2x */
} ClvOverlayComp;

typedef struct
{
  int width, height;            /* frame pixels */
  int n_comps;
  ClvOverlayComp comp[CLV_OVERLAY_MAX_COMPS];
} ClvOverlayLayout;

typedef enum
{
  CLV_OVERLAY_BOX = 0,
  CLV_OVERLAY_LABEL = 1,
  CLV_OVERLAY_FILL = 2,
  CLV_OVERLAY_PIXELATE = 3,
  CLV_OVERLAY_BLUR = 4,
} ClvOverlayOpKind;

/* One operation; 16 ints, the kernel reads them as such.  fg and bg are
 * component values in the layout's order (clv_overlay_op_set_colors). */
typedef struct
{
  gint32 kind;
  gint32 x0, y0, x1, y1;
  gint32 thickness;             /* box */
  gint32 mask_offset;           /* label: its (x1−x0)·(y1−y0) mask bytes */
  gint32 size;                  /* pixelation: cell side; blur: radius */
  gint32 fg[CLV_OVERLAY_MAX_COMPS];
  gint32 bg[CLV_OVERLAY_MAX_COMPS];
} ClvOverlayOp;

typedef struct
{
  guint8 r, g, b;
} ClvRgb;

/* The value of a component of kind `kind` for colour `c`:
 *   GRAY: (4899 R + 9617 G + 1868 B + 8192) >> 14 (OpenCV's weights)
 *   Y: ((66 R + 129 G + 25 B + 128) >> 8) + 16
 *   U: ((−38 R − 74 G + 112 B + 128) >> 8) + 128
 *   V: ((112 R − 94 G − 18 B + 128) >> 8) + 128   (>> rounds down)
 *   R, G, B: as is; A: 255. */
guint8 clv_overlay_component_value (ClvOverlayCompKind kind, ClvRgb c);

/* Sets op->fg and op->bg from RGB colours for `layout`'s components. */
void clv_overlay_op_set_colors (ClvOverlayOp * op,
    const ClvOverlayLayout * layout, ClvRgb fg, ClvRgb bg);

/* Draws `ops` in order on a frame whose planes start at planes[i]. */
void clv_overlay_draw_ref (guint8 * const planes[],
    const ClvOverlayLayout * layout, const ClvOverlayOp * ops, int n_ops,
    const guint8 * masks);

/* Renders `text` in the Pango font description `font_desc` (NULL or "" for
 * Pango's default) into an A8 mask with `pad` empty pixels on every side;
 * returns it (g_free) and its size.  When the text has no extent (empty, or
 * only zero-width characters): NULL, a 0 x 0 size and no error; NULL and
 * an error when Cairo fails. */
guint8 *clv_overlay_render_text (const char *font_desc, const char *text,
    int pad, int *width, int *height, GError ** error);

/* Whether Pango can render labels in `font_desc` as asked.  FALSE, with an
 * error saying why, when none of the families it names is known to
 * fontconfig (Pango would silently fall back to another font) or its size
 * is 0 or above CLV_OVERLAY_MAX_FONT_SIZE points (or pixels).  NULL, "" or
 * a size alone ask for Pango's default family. */
#define CLV_OVERLAY_MAX_FONT_SIZE 256
gboolean clv_overlay_check_font (const char *font_desc, GError ** error);

/* The device path: draws on a frame in one cl_mem whose planes start at
 * plane_offsets[i] bytes.  The mask atlas is kept on the device and grows
 * with `masks_size` (the caller only appends to it, or calls
 * clv_overlay_gpu_forget_masks after starting a new one). */
typedef struct _ClvOverlayGpu ClvOverlayGpu;

ClvOverlayGpu *clv_overlay_gpu_new (ClvDevice * dev, GError ** error);
gboolean clv_overlay_gpu_draw (ClvOverlayGpu * gpu, cl_mem frame,
    const gsize plane_offsets[], const ClvOverlayLayout * layout,
    const ClvOverlayOp * ops, int n_ops, const guint8 * masks,
    gsize masks_size, GError ** error);
void clv_overlay_gpu_forget_masks (ClvOverlayGpu * gpu);
void clv_overlay_gpu_free (ClvOverlayGpu * gpu);

G_END_DECLS
