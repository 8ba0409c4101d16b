/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ROI overlay: colour conversion, boxes, clipping, chroma rule and label
 * blending against hand-computed values; the kernel equals the C reference
 * byte for byte. */
#include "clv-overlay.h"
#include "clv-test-util.h"

#include <string.h>

static ClvDevice *dev;

static const ClvRgb red = { 255, 0, 0 }, white = { 255, 255, 255 },
    black = { 0, 0, 0 }, green = { 0, 255, 0 };

/* A one-plane, one-byte-per-pixel layout (GRAY8). */
static ClvOverlayLayout
gray_layout (int w, int h)
{
  ClvOverlayLayout l = { w, h, 1, {{CLV_OVERLAY_GRAY, 0, 0, w, 1, 0, 0}} };
  return l;
}

/* I420: Y, then U and V planes of half size (rounded up); one buffer with
 * the planes at `offsets`. */
static ClvOverlayLayout
i420_layout (int w, int h, gsize offsets[3])
{
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  ClvOverlayLayout l = { w, h, 3, {
          {CLV_OVERLAY_Y, 0, 0, w, 1, 0, 0},
          {CLV_OVERLAY_U, 1, 0, cw, 1, 1, 1},
          {CLV_OVERLAY_V, 2, 0, cw, 1, 1, 1}}
  };
  offsets[0] = 0;
  offsets[1] = (gsize) w * h;
  offsets[2] = offsets[1] + (gsize) cw * ch;
  return l;
}

/* NV21: Y, then interleaved V, U. */
static ClvOverlayLayout
nv21_layout (int w, int h, gsize offsets[2])
{
  const int cw = (w + 1) / 2;
  ClvOverlayLayout l = { w, h, 3, {
          {CLV_OVERLAY_Y, 0, 0, w, 1, 0, 0},
          {CLV_OVERLAY_U, 1, 1, 2 * cw, 2, 1, 1},
          {CLV_OVERLAY_V, 1, 0, 2 * cw, 2, 1, 1}}
  };
  offsets[0] = 0;
  offsets[1] = (gsize) w * h;
  return l;
}

/* Packed ARGB, 4 bytes a pixel, stride padded. */
static ClvOverlayLayout
argb_layout (int w, int h)
{
  const gsize stride = 4 * w + 8;
  ClvOverlayLayout l = { w, h, 4, {
          {CLV_OVERLAY_R, 0, 1, stride, 4, 0, 0},
          {CLV_OVERLAY_G, 0, 2, stride, 4, 0, 0},
          {CLV_OVERLAY_B, 0, 3, stride, 4, 0, 0},
          {CLV_OVERLAY_A, 0, 0, stride, 4, 0, 0}}
  };
  return l;
}

static ClvOverlayOp
box_op (const ClvOverlayLayout * l, int x0, int y0, int x1, int y1, int t,
    ClvRgb c)
{
  ClvOverlayOp op = { CLV_OVERLAY_BOX, x0, y0, x1, y1, t };
  clv_overlay_op_set_colors (&op, l, c, c);
  return op;
}

static ClvOverlayOp
label_op (const ClvOverlayLayout * l, int x0, int y0, int w, int h,
    gint32 mask_offset, ClvRgb fg, ClvRgb bg)
{
  ClvOverlayOp op = { CLV_OVERLAY_LABEL, x0, y0, x0 + w, y0 + h, 0,
    mask_offset
  };
  clv_overlay_op_set_colors (&op, l, fg, bg);
  return op;
}

/* A fill, pixelation or blur of [x0, x1) x [y0, y1). */
static ClvOverlayOp
redact_op (const ClvOverlayLayout * l, ClvOverlayOpKind kind, int x0, int y0,
    int x1, int y1, int size, ClvRgb c)
{
  ClvOverlayOp op = { kind, x0, y0, x1, y1, 0, 0, size };
  clv_overlay_op_set_colors (&op, l, c, c);
  return op;
}

static void
test_colors (void)
{
  /* BT.601 limited range, by hand: white 235/128/128, black 16/128/128,
   * red 82/90/240, green 144/54/34. */
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_Y, white), ==,
      235);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_U, white), ==,
      128);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_V, black), ==,
      128);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_Y, black), ==,
      16);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_Y, red), ==, 82);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_U, red), ==, 90);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_V, red), ==,
      240);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_Y, green), ==,
      144);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_U, green), ==,
      54);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_V, green), ==,
      34);
  /* OpenCV's gray: red 76, green 150. */
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_GRAY, red), ==,
      76);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_GRAY, green), ==,
      150);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_A, black), ==,
      255);
  g_assert_cmpuint (clv_overlay_component_value (CLV_OVERLAY_B, red), ==, 0);
}

/* Asserts a gray frame against a picture: '#' = value, '.' = untouched. */
static void
assert_picture (const guint8 * frame, int w, const char *const *rows,
    int n_rows, guint8 value, guint8 bg)
{
  for (int y = 0; y < n_rows; y++)
    for (int x = 0; x < w; x++)
      g_assert_cmpuint (frame[y * w + x], ==, rows[y][x] == '#' ? value : bg);
}

static void
test_box (void)
{
  ClvOverlayLayout l = gray_layout (10, 8);
  guint8 frame[80];
  guint8 *planes[1] = { frame };
  ClvOverlayOp op = box_op (&l, 2, 1, 8, 6, 1, red);
  const char *const want[] = {
    "..........",
    "..######..",
    "..#....#..",
    "..#....#..",
    "..#....#..",
    "..######..",
    "..........",
    "..........",
  };

  memset (frame, 9, sizeof frame);
  clv_overlay_draw_ref (planes, &l, &op, 1, NULL);
  assert_picture (frame, 10, want, 8, 76, 9);
}

/* A box reaching past the top-left corner: only its part inside is drawn. */
static void
test_clipping (void)
{
  ClvOverlayLayout l = gray_layout (6, 5);
  guint8 frame[30];
  guint8 *planes[1] = { frame };
  /* Outer [-3, 4) x [-2, 3), hole [-1, 2) x [0, 1). */
  ClvOverlayOp ops[2] = { box_op (&l, -3, -2, 4, 3, 2, red),
    /* Past the bottom-right corner, thicker than half the box: filled. */
    box_op (&l, 4, 3, 9, 9, 4, green)
  };
  const char *const want[] = {
    "..##..",
    "####..",
    "####..",
    "....##",
    "....##",
  };

  memset (frame, 0, sizeof frame);
  clv_overlay_draw_ref (planes, &l, ops, 1, NULL);
  assert_picture (frame, 6, want, 3, 76, 0);
  clv_overlay_draw_ref (planes, &l, ops + 1, 1, NULL);
  assert_picture (frame + 18, 6, want + 3, 2, 150, 0);
}

/* 4:2:0 chroma: a sample is painted when the ring touches its block; at
 * odd sizes the last blocks are one pixel wide or high. */
static void
test_chroma_rule (void)
{
  gsize offs[3];
  ClvOverlayLayout l = i420_layout (5, 5, offs);
  guint8 frame[25 + 9 + 9];
  guint8 *planes[3] = { frame + offs[0], frame + offs[1], frame + offs[2] };
  ClvOverlayOp ops[2] = { box_op (&l, 1, 1, 3, 3, 1, red),
    box_op (&l, 4, 0, 5, 1, 1, green)
  };
  /* U samples: blocks (0,0) (1,0) (0,1) (1,1) touch the first box; block
   * (2,0) is the single column 4, rows 0-1, touched by the second. */
  const guint8 want_u[9] = { 90, 90, 54, 90, 90, 7, 7, 7, 7 };
  const guint8 want_v[9] = { 240, 240, 34, 240, 240, 7, 7, 7, 7 };

  memset (frame, 7, sizeof frame);
  clv_overlay_draw_ref (planes, &l, ops, 2, NULL);
  for (int i = 0; i < 9; i++) {
    g_assert_cmpuint (planes[1][i], ==, want_u[i]);
    g_assert_cmpuint (planes[2][i], ==, want_v[i]);
  }
  g_assert_cmpuint (planes[0][1 * 5 + 1], ==, 82);
  g_assert_cmpuint (planes[0][0], ==, 7);
  g_assert_cmpuint (planes[0][4], ==, 144);
}

/* Labels: fg blended over bg by the mask, (fg m + bg (255 - m) + 127) /
 * 255; subsampled samples take the rounded mean mask of their block. */
static void
test_label_blend (void)
{
  const guint8 mask[6] = { 0, 255, 128, 64, 255, 0 };
  ClvOverlayLayout l = argb_layout (4, 3);
  guint8 frame[3 * (4 * 4 + 8)];
  guint8 *planes[1] = { frame };
  ClvOverlayOp op = label_op (&l, 1, 1, 3, 2, 0, (ClvRgb) {
      200, 10, 0}, (ClvRgb) {
      100, 250, 0}
  );
  gsize offs[3];
  ClvOverlayLayout yl = i420_layout (4, 2, offs);
  guint8 yframe[8 + 2 + 2];
  guint8 *yplanes[3] = { yframe + offs[0], yframe + offs[1],
    yframe + offs[2]
  };
  ClvOverlayOp yop = label_op (&yl, 0, 0, 3, 2, 0, white, red);

  memset (frame, 1, sizeof frame);
  clv_overlay_draw_ref (planes, &l, &op, 1, mask);
  /* Pixel (1, 1): m 0 -> bg; (2, 1): m 255 -> fg; (3, 1): m 128 ->
   * R (200·128 + 100·127 + 127) / 255 = 150, G (10·128 + 250·127 + 127) /
   * 255 = 130; (1, 2): m 64 -> R 125, G 190.  A: 255.  Row 0 untouched. */
  const gsize s = 4 * 4 + 8;
  g_assert_cmpuint (frame[s + 4 + 1], ==, 100);
  g_assert_cmpuint (frame[s + 4 + 2], ==, 250);
  g_assert_cmpuint (frame[s + 4 + 0], ==, 255);
  g_assert_cmpuint (frame[s + 8 + 1], ==, 200);
  g_assert_cmpuint (frame[s + 8 + 2], ==, 10);
  g_assert_cmpuint (frame[s + 12 + 1], ==, 150);
  g_assert_cmpuint (frame[s + 12 + 2], ==, 130);
  g_assert_cmpuint (frame[2 * s + 4 + 1], ==, 125);
  g_assert_cmpuint (frame[2 * s + 4 + 2], ==, 190);
  g_assert_cmpuint (frame[5], ==, 1);
  g_assert_cmpuint (frame[s + 0 + 1], ==, 1);

  /* I420 4x2, label over x 0..2: U sample 0 covers mask {0, 255, 64,
   * 255}, mean (574 + 2) / 4 = 144 -> (128·144 + 90·111 + 127) / 255 = 111;
   * sample 1 covers only column 2: {128, 0}, mean 64 -> (128·64 + 90·191 +
   * 127) / 255 = 100.  Luma (0,0): bg 82; (1,0): fg 235. */
  memset (yframe, 3, sizeof yframe);
  clv_overlay_draw_ref (yplanes, &yl, &yop, 1, mask);
  g_assert_cmpuint (yplanes[0][0], ==, 82);
  g_assert_cmpuint (yplanes[0][1], ==, 235);
  g_assert_cmpuint (yplanes[0][3], ==, 3);
  g_assert_cmpuint (yplanes[1][0], ==, 111);
  g_assert_cmpuint (yplanes[1][1], ==, 100);
}

static void
test_render_text (void)
{
  GError *error = NULL;
  int w, h, w2, h2, full = 0;
  guint8 *mask = clv_overlay_render_text ("Sans 10", "alice 87%", 2, &w, &h,
      &error);
  guint8 *longer = clv_overlay_render_text ("Sans 10", "alice 87% more", 2,
      &w2, &h2, &error);

  g_assert_no_error (error);
  g_assert_nonnull (mask);
  g_assert_cmpint (h, >, 8);
  g_assert_cmpint (w2, >, w);
  /* Padding is empty; some text pixels are fully covered. */
  for (int x = 0; x < w; x++)
    g_assert_cmpuint (mask[x], ==, 0);
  for (int i = 0; i < w * h; i++)
    full += mask[i] == 255;
  g_assert_cmpint (full, >, 0);
  g_free (mask);
  g_free (longer);
  /* Nothing to draw is no error. */
  g_assert_null (clv_overlay_render_text ("Sans 10", "", 2, &w, &h, &error));
  g_assert_no_error (error);
  g_assert_cmpint (w, ==, 0);
  g_assert_cmpint (h, ==, 0);
}

/* Fonts Pango would honour pass; an unknown family (alone or in a list of
 * unknown ones) or an absurd size is refused with a message naming it. */
static void
test_check_font (void)
{
  const char *good[] = { NULL, "", "12", "Sans 10", "DejaVu Sans Bold 9",
    "monospace 8", "NoSuchFamilyXyz, Serif 10", "Sans 20px"
  };
  const struct
  {
    const char *desc, *said;
  } bad[] = {
    {"NoSuchFamilyXyz 10", "\"NoSuchFamilyXyz\" is installed"},
    {"NoSuchFamilyXyz, Other Missing 10", "NoSuchFamilyXyz,Other Missing"},
    {"Sans 300", "between 1 and 256"},
    {"Sans 0", "between 1 and 256"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++) {
    GError *error = NULL;

    g_assert_true (clv_overlay_check_font (good[i], &error));
    g_assert_no_error (error);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *error = NULL;

    g_assert_false (clv_overlay_check_font (bad[i].desc, &error));
    g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, bad[i].said));
    g_error_free (error);
  }
}

/* Pixelation by hand: cells of 2 from the rectangle's corner, each its
 * rounded mean, the last ones cut by the rectangle; nothing else moves. */
static void
test_pixelate (void)
{
  ClvOverlayLayout l = gray_layout (6, 4);
  guint8 frame[24];
  guint8 *planes[1] = { frame };
  const ClvOverlayOp op = redact_op (&l, CLV_OVERLAY_PIXELATE, 1, 0, 6, 3, 2,
      black);

  for (int i = 0; i < 24; i++)
    frame[i] = i;
  clv_overlay_draw_ref (planes, &l, &op, 1, NULL);
  g_assert_cmpuint (frame[1], ==, (1 + 2 + 7 + 8 + 2) / 4);
  g_assert_cmpuint (frame[8], ==, frame[1]);
  g_assert_cmpuint (frame[3], ==, (3 + 4 + 9 + 10 + 2) / 4);
  /* The last column is a cell one sample wide. */
  g_assert_cmpuint (frame[5], ==, (5 + 11 + 1) / 2);
  g_assert_cmpuint (frame[11], ==, frame[5]);
  /* The last row is cut by the rectangle: cells one row high. */
  g_assert_cmpuint (frame[13], ==, (13 + 14 + 1) / 2);
  g_assert_cmpuint (frame[17], ==, 17);
  /* Outside: untouched. */
  g_assert_cmpuint (frame[0], ==, 0);
  g_assert_cmpuint (frame[6], ==, 6);
  for (int i = 18; i < 24; i++)
    g_assert_cmpuint (frame[i], ==, i);
}

/* Blur by hand: the mean of the samples within the radius that are in the
 * rectangle, from the samples before the blur; fill: fg everywhere in the
 * rectangle. */
static void
test_blur_and_fill (void)
{
  ClvOverlayLayout l = gray_layout (5, 3);
  guint8 frame[15];
  guint8 *planes[1] = { frame };
  const ClvOverlayOp blur = redact_op (&l, CLV_OVERLAY_BLUR, 1, 0, 4, 2, 1,
      black);
  const ClvOverlayOp fill = redact_op (&l, CLV_OVERLAY_FILL, 3, 1, 9, 9, 0,
      red);

  for (int i = 0; i < 15; i++)
    frame[i] = 10 * i;
  clv_overlay_draw_ref (planes, &l, &blur, 1, NULL);
  /* (1,0): samples (1..2, 0..1) = 10 20 60 70 -> 40. */
  g_assert_cmpuint (frame[1], ==, 40);
  /* (2,0): (1..3, 0..1) = 10 20 30 60 70 80 -> 45. */
  g_assert_cmpuint (frame[2], ==, 45);
  /* (3,1): (2..3, 0..1) = 20 30 70 80 -> 50. */
  g_assert_cmpuint (frame[8], ==, 50);
  g_assert_cmpuint (frame[0], ==, 0);
  g_assert_cmpuint (frame[4], ==, 40);
  g_assert_cmpuint (frame[11], ==, 110);

  clv_overlay_draw_ref (planes, &l, &fill, 1, NULL);
  g_assert_cmpuint (frame[8], ==, 76);
  g_assert_cmpuint (frame[14], ==, 76);
  g_assert_cmpuint (frame[7], ==, 45);
}

/* Random shapes, inside and across the edges, overlapping: the kernel
 * writes the same bytes as the reference. */
static void
check_kernel (const ClvOverlayLayout * l, const gsize offsets[], gsize size)
{
  GError *error = NULL;
  GRand *rand = g_rand_new_with_seed (l->width * 31 + l->n_comps);
  guint8 *masks = g_malloc (4096), *ref = g_malloc (size),
      *out = g_malloc (size);
  guint8 *planes[3];
  ClvOverlayOp ops[12];
  ClvOverlayGpu *gpu = clv_overlay_gpu_new (dev, &error);
  cl_mem mem;

  g_assert_no_error (error);
  for (int i = 0; i < 4096; i++)
    masks[i] = g_rand_int (rand);
  for (gsize i = 0; i < size; i++)
    ref[i] = g_rand_int (rand);
  for (int i = 0; i < 12; i++) {
    const int x0 = g_rand_int_range (rand, -10, l->width),
        y0 = g_rand_int_range (rand, -10, l->height);
    const int w = g_rand_int_range (rand, 1, 30), h = g_rand_int_range (rand,
        1, 30);
    const ClvRgb a = { g_rand_int (rand), g_rand_int (rand),
      g_rand_int (rand)
    }, b = { g_rand_int (rand), g_rand_int (rand), g_rand_int (rand) };

    switch (i % 5) {
      case 0:
        ops[i] = box_op (l, x0, y0, x0 + w, y0 + h, g_rand_int_range (rand, 1,
                6), a);
        break;
      case 1:
        ops[i] = label_op (l, x0, y0, w, h, g_rand_int_range (rand, 0,
                4096 - 900), a, b);
        break;
      default:
        ops[i] = redact_op (l, CLV_OVERLAY_FILL + i % 5 - 2, x0, y0, x0 + w,
            y0 + h, g_rand_int_range (rand, 0, 9), a);
        break;
    }
  }
  mem = clv_buffer_new_with_data (dev, CL_MEM_READ_WRITE, ref, size, &error);
  g_assert_no_error (error);
  for (int c = 0; c < 3; c++)
    planes[c] = ref + offsets[MIN (c, 2)];
  g_assert_true (clv_overlay_gpu_draw (gpu, mem, offsets, l, ops, 12, masks,
          4096, &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, mem, out, size);
  clv_overlay_draw_ref (planes, l, ops, 12, masks);
  g_assert_cmpmem (out, size, ref, size);

  clReleaseMemObject (mem);
  clv_overlay_gpu_free (gpu);
  g_free (masks);
  g_free (ref);
  g_free (out);
  g_rand_free (rand);
}

static void
test_kernel_matches_reference (void)
{
  gsize offs[3] = { 0, 0, 0 };
  ClvOverlayLayout l = gray_layout (37, 23);

  check_kernel (&l, offs, 37 * 23);
  l = i420_layout (37, 23, offs);
  check_kernel (&l, offs, offs[2] + 19 * 12);
  l = nv21_layout (37, 23, offs);
  offs[2] = offs[1];
  check_kernel (&l, offs, offs[1] + 2 * 19 * 12);
  l = argb_layout (37, 23);
  offs[0] = offs[1] = offs[2] = 0;
  check_kernel (&l, offs, l.comp[0].stride * 23);
}

/* Boxes only: no mask atlas at all. */
static void
test_kernel_without_masks (void)
{
  GError *error = NULL;
  ClvOverlayLayout l = gray_layout (10, 8);
  ClvOverlayOp op = box_op (&l, 2, 1, 8, 6, 1, red);
  const gsize offs[1] = { 0 };
  guint8 frame[80], out[80];
  guint8 *planes[1] = { frame };
  ClvOverlayGpu *gpu = clv_overlay_gpu_new (dev, &error);
  cl_mem mem;

  memset (frame, 9, sizeof frame);
  mem = clv_buffer_new_with_data (dev, CL_MEM_READ_WRITE, frame, 80, &error);
  g_assert_no_error (error);
  g_assert_true (clv_overlay_gpu_draw (gpu, mem, offs, &l, &op, 1, NULL, 0,
          &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, mem, out, 80);
  clv_overlay_draw_ref (planes, &l, &op, 1, NULL);
  g_assert_cmpmem (out, 80, frame, 80);
  g_assert_cmpuint (out[1 * 10 + 2], ==, 76);
  clReleaseMemObject (mem);
  clv_overlay_gpu_free (gpu);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dev = clv_test_device ();
  g_test_add_func ("/overlay/colors", test_colors);
  g_test_add_func ("/overlay/box", test_box);
  g_test_add_func ("/overlay/clipping", test_clipping);
  g_test_add_func ("/overlay/chroma-rule", test_chroma_rule);
  g_test_add_func ("/overlay/label-blend", test_label_blend);
  g_test_add_func ("/overlay/pixelate", test_pixelate);
  g_test_add_func ("/overlay/blur-and-fill", test_blur_and_fill);
  g_test_add_func ("/overlay/render-text", test_render_text);
  g_test_add_func ("/overlay/check-font", test_check_font);
  g_test_add_func ("/overlay/kernel", test_kernel_matches_reference);
  g_test_add_func ("/overlay/kernel-without-masks", test_kernel_without_masks);
  ret = g_test_run ();
  clv_device_unref (dev);
  return ret;
}
