/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rotation and scaling: the geometry facts, and the kernel against the C
 * reference. */
#include "clv-sar.h"
#include "clv-test-util.h"

#include <math.h>

static ClvImage
image_like (int width, int height, int bpp)
{
  return clv_image_make (width, height, bpp, clv_round_up ((gsize) width * bpp,
          4));
}

/* Runs the kernel once; returns the output image (g_free it). */
static guint8 *
run_kernel (ClvDevice * dev, ClvRotscale * rs, const guint8 * src,
    const ClvImage * si, const ClvImage * di, const ClvRotscaleGeometry * g,
    guint background)
{
  GError *error = NULL;
  const gsize in_size = si->offset + si->stride * si->height;
  const gsize out_size = di->offset + di->stride * di->height;
  guint8 *out = g_malloc0 (out_size);
  cl_mem in_mem, out_mem;

  in_mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, in_size, &error);
  g_assert_no_error (error);
  out_mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, out_size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, in_mem, CL_TRUE, 0,
          in_size, src, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clv_rotscale_enqueue (rs, in_mem, si, out_mem, di, g,
          background, NULL, &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, out_mem, out, out_size);
  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  return out;
}

static guint8 *
run_reference (const guint8 * src, const ClvImage * si, const ClvImage * di,
    const ClvRotscaleGeometry * g, ClvInterpolation interp, guint background)
{
  guint8 *out = g_malloc0 (di->offset + di->stride * di->height);

  clv_rotscale_ref (src, si, out, di, g, interp, background);
  return out;
}

/* The kernels under test, one per (bytes per pixel, interpolation). */
typedef struct
{
  ClvDevice *dev;
  ClvRotscale *rs[2][2];
} Fixture;

static Fixture fx;

static ClvRotscale *
kernel_for (int bpp, ClvInterpolation interp)
{
  ClvRotscale **rs = &fx.rs[bpp - 1][interp];
  GError *error = NULL;

  if (fx.dev == NULL)
    fx.dev = clv_test_device ();
  if (*rs == NULL)
    *rs = clv_rotscale_new (fx.dev, bpp, interp, &error);
  g_assert_no_error (error);
  return *rs;
}

/* Output of the kernel, asserted equal to the reference's but for at most
 * 0.1% of pixels off by one level.  Both evaluate the same float operations
 * in the same order, multiply-adds as explicit correctly rounded fma and
 * nothing else contracted, so a conforming device agrees exactly (PoCL
 * does: the tolerance is never used here).  The tolerance is the
 * contract's margin for devices whose float arithmetic is not exact (the
 * embedded profile allows an fma that is not correctly rounded): such an
 * error can only move a sample across a rounding boundary, by one level. */
static guint8 *
checked_kernel_output (const guint8 * src, const ClvImage * si,
    const ClvImage * di, const ClvRotscaleGeometry * g,
    ClvInterpolation interp, guint background)
{
  ClvRotscale *rs = kernel_for (si->bpp, interp);
  guint8 *out = run_kernel (fx.dev, rs, src, si, di, g, background);
  guint8 *ref = run_reference (src, si, di, g, interp, background);

  clv_test_assert_images_close (out, ref, di);
  g_free (ref);
  return out;
}

typedef struct
{
  int w, h, ow, oh;
  double angle, scale;
  guint background;
} Case;

/* Odd and tiny sizes, angles of every quadrant, far-out angles, zoom in
 * and out, output larger and smaller than the input. */
static const Case cases[] = {
  {1, 1, 1, 1, 30, 1.5, 7},
  {1, 1, 3, 2, 0, 1, 9},
  {7, 5, 7, 5, 30, 1.5, 0},
  {7, 5, 5, 7, 90, 1, 3},
  {33, 17, 40, 20, -45, 0.8, 200},
  {64, 64, 64, 64, 137.5, 2.25, 11},
  {101, 77, 90, 120, 1000.25, 0.37, 0},
  {130, 64, 130, 64, -719.9, 3, 65535},
  {257, 130, 200, 200, 30, 1.5, 100},
  /* Past every edge, at fractional positions: groups near an edge must not
   * take the inside path. */
  {300, 200, 400, 300, 10, 1.3, 5},
};

static void
test_kernel_matches_reference (gconstpointer data)
{
  const int *params = data;     /* bpp, interpolation */

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    ClvImage si, di = image_like (c->ow, c->oh, params[0]);
    guint8 *src = clv_test_random_image (&si, c->w, c->h, params[0], i + 1);
    ClvRotscaleGeometry g;

    clv_rotscale_geometry_init (&g, c->angle, c->scale, c->w, c->h, c->ow,
        c->oh);
    g_free (checked_kernel_output (src, &si, &di, &g, params[1],
            c->background));
    g_free (src);
  }
}

/* Several output pixels per work-item (the GPU launch shape; not the
 * default on a CPU) give the same bytes, partial groups at row ends too. */
static void
test_pixels_per_work_item (void)
{
  static const char *tunes[] = { "SAR_RS_X=4", "SAR_RS_X=3,SAR_RS_WG_X=8" };
  GError *error = NULL;

  if (fx.dev == NULL)
    fx.dev = clv_test_device ();
  for (guint t = 0; t < G_N_ELEMENTS (tunes); t++) {
    g_setenv ("CLVISION_TUNE", tunes[t], TRUE);
    for (int interp = CLV_INTERP_NEAREST; interp <= CLV_INTERP_BILINEAR;
        interp++) {
      ClvRotscale *rs = clv_rotscale_new (fx.dev, 2, interp, &error);

      g_assert_no_error (error);
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        const Case *c = &cases[i];
        ClvImage si, di = image_like (c->ow, c->oh, 2);
        guint8 *src = clv_test_random_image (&si, c->w, c->h, 2, i + 7);
        guint8 *out, *ref;
        ClvRotscaleGeometry g;

        clv_rotscale_geometry_init (&g, c->angle, c->scale, c->w, c->h,
            c->ow, c->oh);
        out = run_kernel (fx.dev, rs, src, &si, &di, &g, c->background);
        ref = run_reference (src, &si, &di, &g, interp, c->background);
        clv_test_assert_images_close (out, ref, &di);
        g_free (out);
        g_free (ref);
        g_free (src);
      }
      clv_rotscale_free (rs);
    }
  }
  g_unsetenv ("CLVISION_TUNE");
}

/* A source image with an offset and row padding, as a sub-buffer would
 * have, gives the same output as a packed one. */
static void
test_offset_and_stride (void)
{
  ClvImage packed, padded;
  guint8 *src = clv_test_random_image (&packed, 31, 19, 2, 5), *big;
  ClvImage di = image_like (25, 23, 2);
  ClvRotscaleGeometry g;
  guint8 *a, *b;

  big = clv_test_padded_copy (src, &packed, 10, 6, &padded);
  clv_rotscale_geometry_init (&g, 20, 1.2, 31, 19, 25, 23);
  a = checked_kernel_output (src, &packed, &di, &g, CLV_INTERP_BILINEAR, 0);
  b = checked_kernel_output (big, &padded, &di, &g, CLV_INTERP_BILINEAR, 0);
  clv_test_assert_images_equal (a, b, &di);
  g_free (a);
  g_free (b);
  g_free (big);
  g_free (src);
}

static void
test_sincos_exact (void)
{
  static const double angles[] = { 0, 90, 180, 270, 360, -90, -180, 450,
    -630, 3600090, 1e6 * 360 + 180
  };
  static const float cos_want[] = { 1, 0, -1, 0, 1, 0, -1, 0, 0, 0, -1 };
  static const float sin_want[] = { 0, 1, 0, -1, 0, -1, 0, 1, 1, 1, 0 };
  ClvRotscaleGeometry g;

  for (guint i = 0; i < G_N_ELEMENTS (angles); i++) {
    clv_rotscale_geometry_init (&g, angles[i], 1, 4, 4, 4, 4);
    g_assert_cmpfloat (g.a, ==, cos_want[i]);
    g_assert_cmpfloat (g.b, ==, sin_want[i]);
    g_assert_false (signbit (g.a) && g.a == 0);
    g_assert_false (signbit (g.b) && g.b == 0);
  }
}

/* Angle 0, scale 1 (and any full turn) reproduces the input exactly. */
static void
test_identity (gconstpointer data)
{
  const int bpp = GPOINTER_TO_INT (data);
  ClvImage si;
  guint8 *src = clv_test_random_image (&si, 37, 21, bpp, 3);
  ClvRotscaleGeometry g;

  for (int turn = 0; turn < 2; turn++)
    for (int interp = 0; interp < 2; interp++) {
      guint8 *out;
      clv_rotscale_geometry_init (&g, turn * -360.0, 1, 37, 21, 37, 21);
      out = checked_kernel_output (src, &si, &si, &g, interp, 5);
      clv_test_assert_images_equal (src, out, &si);
      g_free (out);
    }
  g_free (src);
}

/* Where output pixel (xo, yo) must come from, for a quarter turn q. */
static void
quarter_turn_source (int q, int w, int h, int xo, int yo, int *x, int *y)
{
  switch (q) {
    case 1:                    /* counter-clockwise: the right edge goes up */
      *x = w - 1 - yo;
      *y = xo;
      break;
    case 2:
      *x = w - 1 - xo;
      *y = h - 1 - yo;
      break;
    default:
      *x = yo;
      *y = h - 1 - xo;
      break;
  }
}

/* 90, 180 and 270 degrees are exact pixel permutations, on a square and,
 * with the output transposed, on a non-square image; both interpolations. */
static void
test_quarter_turns (gconstpointer data)
{
  const int bpp = GPOINTER_TO_INT (data);
  static const int sizes[][2] = { {16, 16}, {15, 15}, {12, 7} };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    ClvImage si;
    guint8 *src = clv_test_random_image (&si, w, h, bpp, 7 + s);

    for (int q = 1; q <= 3; q++)
      for (int interp = 0; interp < 2; interp++) {
        const int ow = q == 2 ? w : h, oh = q == 2 ? h : w;
        ClvImage di = image_like (ow, oh, bpp);
        ClvRotscaleGeometry g;
        guint8 *out;

        clv_rotscale_geometry_init (&g, 90.0 * q - 360.0 * (q == 3), 1, w, h,
            ow, oh);
        out = checked_kernel_output (src, &si, &di, &g, interp, 1);
        for (int yo = 0; yo < oh; yo++)
          for (int xo = 0; xo < ow; xo++) {
            int x, y;
            quarter_turn_source (q, w, h, xo, yo, &x, &y);
            g_assert_cmpuint (clv_image_get (out, &di, xo, yo), ==,
                clv_image_get (src, &si, x, y));
          }
        g_free (out);
      }
    g_free (src);
  }
}

/* Scale 2 at the input size shows the centre half enlarged: on a 9x9 image
 * (centre 4) output (2i, 2j) is input (2 + i, 2 + j) for both
 * interpolations; between them nearest repeats the next pixel and bilinear
 * gives the rounded mean of the two. */
static void
test_scale2_centre (void)
{
  ClvImage si;
  guint8 *src = clv_test_random_image (&si, 9, 9, 1, 11);
  ClvRotscaleGeometry g;
  guint8 *out[2];

  clv_rotscale_geometry_init (&g, 0, 2, 9, 9, 9, 9);
  for (int interp = 0; interp < 2; interp++)
    out[interp] = checked_kernel_output (src, &si, &si, &g, interp, 0);
  for (int yo = 0; yo < 9; yo += 2)
    for (int xo = 0; xo < 9; xo++) {
      const guint a = clv_image_get (src, &si, 2 + xo / 2, 2 + yo / 2);
      const guint b = clv_image_get (src, &si, 2 + (xo + 1) / 2, 2 + yo / 2);
      const guint nearest = clv_image_get (out[CLV_INTERP_NEAREST], &si, xo,
          yo);
      const guint bilinear = clv_image_get (out[CLV_INTERP_BILINEAR], &si, xo,
          yo);
      if (xo % 2 == 0) {
        g_assert_cmpuint (nearest, ==, a);
        g_assert_cmpuint (bilinear, ==, a);
      } else {
        g_assert_cmpuint (nearest, ==, b);
        g_assert_cmpuint (bilinear, ==, (a + b + 1) / 2);
      }
    }
  g_free (out[0]);
  g_free (out[1]);
  g_free (src);
}

/* Shrunk by 2 into the same size, the outer ring samples outside the
 * input: it is the background exactly; samples whose neighbours are all
 * inside do not depend on the background; GRAY8 clamps it to 255. */
static void
test_background (gconstpointer data)
{
  const int bpp = GPOINTER_TO_INT (data);
  const guint maxval = bpp == 1 ? 255 : 65535;
  ClvImage si;
  guint8 *src = clv_test_random_image (&si, 16, 16, bpp, 13);
  ClvRotscaleGeometry g;

  clv_rotscale_geometry_init (&g, 0, 0.5, 16, 16, 16, 16);
  for (int interp = 0; interp < 2; interp++) {
    guint8 *dark = checked_kernel_output (src, &si, &si, &g, interp, 0);
    guint8 *bright = checked_kernel_output (src, &si, &si, &g, interp, 70000);

    for (int yo = 0; yo < 16; yo++)
      for (int xo = 0; xo < 16; xo++) {
        /* Sample position 7.5 + 2 (o - 7.5): -7.5, -5.5, ..., 22.5. */
        const double xs = 2 * xo - 7.5, ys = 2 * yo - 7.5;
        const gboolean outside = xs <= -1 || ys <= -1 || xs >= 16 || ys >= 16;
        const gboolean inside = xs >= 0 && ys >= 0 && xs <= 15 && ys <= 15;
        const guint d = clv_image_get (dark, &si, xo, yo);
        const guint b = clv_image_get (bright, &si, xo, yo);
        if (outside) {
          g_assert_cmpuint (d, ==, 0);
          g_assert_cmpuint (b, ==, maxval);
        } else if (inside) {
          g_assert_cmpuint (d, ==, b);
        }
      }
    g_free (dark);
    g_free (bright);
  }
  g_free (src);
}

/* Nearest and bilinear agree on integer sample positions and differ on a
 * half-pixel shift, where bilinear averages. */
static void
test_nearest_vs_bilinear (void)
{
  /* Columns alternate 0 and 200; a 180-degree turn of an even-width image
   * into an odd width puts every sample half-way between two columns. */
  ClvImage si = image_like (8, 4, 1), di = image_like (7, 4, 1);
  guint8 *src = g_malloc0 (si.stride * si.height), *near, *bil;
  ClvRotscaleGeometry g;

  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 8; x++)
      clv_image_set (src, &si, x, y, x % 2 ? 200 : 0);
  clv_rotscale_geometry_init (&g, 180, 1, 8, 4, 7, 4);
  near = checked_kernel_output (src, &si, &di, &g, CLV_INTERP_NEAREST, 0);
  bil = checked_kernel_output (src, &si, &di, &g, CLV_INTERP_BILINEAR, 0);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 7; x++) {
      /* xs = 3.5 - (x - 3) = 6.5 - x; nearest rounds up to column 7 - x. */
      g_assert_cmpuint (clv_image_get (bil, &di, x, y), ==, 100);
      g_assert_cmpuint (clv_image_get (near, &di, x, y), ==,
          (7 - x) % 2 ? 200 : 0);
    }
  g_free (near);
  g_free (bil);
  g_free (src);
}

/* map_point is the inverse of the sampling map (in edge coordinates), and
 * a quarter turn moves the top-left corner to the bottom-left. */
static void
test_map_point (void)
{
  ClvRotscaleGeometry g;
  double x = 0, y = 0;

  clv_rotscale_geometry_init (&g, 90, 1, 4, 4, 4, 4);
  clv_rotscale_map_point (&g, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (y, 4, 1e-12);

  clv_rotscale_geometry_init (&g, 33, 1.7, 50, 30, 64, 40);
  for (int i = 0; i < 20; i++) {
    /* The centre of output pixel (xo, yo) samples input (xs, ys). */
    const double xo = i * 3.1 - 5, yo = i * 1.7 + 2;
    const double u = (xo - (64 - 1) / 2.0) / 1.7, v = (yo - (40 - 1) / 2.0)
        / 1.7;
    const double xs = u * g.cos_a - v * g.sin_a + (50 - 1) / 2.0;
    const double ys = u * g.sin_a + v * g.cos_a + (30 - 1) / 2.0;
    x = xs + 0.5;
    y = ys + 0.5;
    clv_rotscale_map_point (&g, &x, &y);
    g_assert_cmpfloat_with_epsilon (x, xo + 0.5, 1e-9);
    g_assert_cmpfloat_with_epsilon (y, yo + 0.5, 1e-9);
  }
}

int
main (int argc, char **argv)
{
  static const int p8n[] = { 1, CLV_INTERP_NEAREST };
  static const int p8b[] = { 1, CLV_INTERP_BILINEAR };
  static const int p16n[] = { 2, CLV_INTERP_NEAREST };
  static const int p16b[] = { 2, CLV_INTERP_BILINEAR };
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rotscale/sincos-exact", test_sincos_exact);
  g_test_add_func ("/rotscale/map-point", test_map_point);
  g_test_add_data_func ("/rotscale/kernel/gray8-nearest", p8n,
      test_kernel_matches_reference);
  g_test_add_data_func ("/rotscale/kernel/gray8-bilinear", p8b,
      test_kernel_matches_reference);
  g_test_add_data_func ("/rotscale/kernel/gray16-nearest", p16n,
      test_kernel_matches_reference);
  g_test_add_data_func ("/rotscale/kernel/gray16-bilinear", p16b,
      test_kernel_matches_reference);
  g_test_add_func ("/rotscale/offset-and-stride", test_offset_and_stride);
  g_test_add_func ("/rotscale/pixels-per-work-item",
      test_pixels_per_work_item);
  g_test_add_data_func ("/rotscale/identity/gray8", GINT_TO_POINTER (1),
      test_identity);
  g_test_add_data_func ("/rotscale/identity/gray16", GINT_TO_POINTER (2),
      test_identity);
  g_test_add_data_func ("/rotscale/quarter-turns/gray8", GINT_TO_POINTER (1),
      test_quarter_turns);
  g_test_add_data_func ("/rotscale/quarter-turns/gray16",
      GINT_TO_POINTER (2), test_quarter_turns);
  g_test_add_func ("/rotscale/scale2-centre", test_scale2_centre);
  g_test_add_data_func ("/rotscale/background/gray8", GINT_TO_POINTER (1),
      test_background);
  g_test_add_data_func ("/rotscale/background/gray16", GINT_TO_POINTER (2),
      test_background);
  g_test_add_func ("/rotscale/nearest-vs-bilinear", test_nearest_vs_bilinear);
  ret = g_test_run ();

  for (int b = 0; b < 2; b++)
    for (int i = 0; i < 2; i++)
      clv_rotscale_free (fx.rs[b][i]);
  if (fx.dev)
    clv_device_unref (fx.dev);
  return ret;
}
