/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Viola–Jones C reference equals OpenCV 4.6: against the committed
 * golden files on real photographs and video frames, live against the
 * oracle when OpenCV is installed, and piece by piece on hand-made cases. */
#include "clv-pgm.h"
#include "clv-vj-ref.h"
#include "vj-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Whole detections */

static ClvCascade *
load_test_cascade (const char *name)
{
  char *path = vj_test_cascade_path (name);
  GError *error = NULL;
  ClvCascade *cascade = clv_cascade_load (path, &error);

  g_assert_no_error (error);
  g_free (path);
  return cascade;
}

/* The golden files of one image and cascade: the raw candidates once per
 * scale factor, grouped for each min-neighbors. */
static void
assert_golden_cascade (const char *image, const guint8 * gray, int w, int h,
    const char *name)
{
  ClvCascade *cascade = load_test_cascade (name);

  for (int s = 0; s < 2; s++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    GArray *raw;

    p.scale_factor = vj_test_scale_factors[s];
    raw = clv_vj_detect_raw (cascade, gray, w, h, w, &p);
    for (int n = 0; n < 2; n++) {
      GArray *golden = vj_test_golden_faces (image, name, p.scale_factor,
          vj_test_min_neighbors[n]);
      GArray *faces = clv_vj_group_faces (raw, vj_test_min_neighbors[n], w,
          h);
      char *what = g_strdup_printf ("%s %s scale %g min-neighbors %d",
          image, name, p.scale_factor, vj_test_min_neighbors[n]);

      vj_test_assert_faces (golden, faces, 0, what);
      g_free (what);
      g_array_free (golden, TRUE);
      g_array_free (faces, TRUE);
    }
    g_array_free (raw, TRUE);
  }
  clv_cascade_free (cascade);
}

/* Every golden file of one image: Haar and LBP cascades. */
static void
test_golden (gconstpointer data)
{
  const char *image = data;
  int w, h;
  guint8 *gray = vj_test_load_image (image, &w, &h);

  for (int c = 0; vj_test_cascades[c] != NULL; c++)
    assert_golden_cascade (image, gray, w, h, vj_test_cascades[c]);
  for (int c = 0; vj_test_lbp_cascades[c] != NULL; c++)
    assert_golden_cascade (image, gray, w, h, vj_test_lbp_cascades[c]);
  g_free (gray);
}

/* Scores (detectMultiScale3): rectangles, reject levels and level weights
 * of the golden files; and the same rectangles as without scores. */
static void
test_golden_scores (gconstpointer data)
{
  const char *image = data;
  const char *const names[] = { "frontalface_default", "frontalface_alt",
    "frontalface_alt2", "frontalface_alt_tree", "lbp_frontalface"
  };
  int w, h;
  guint8 *gray = vj_test_load_image (image, &w, &h);

  for (guint c = 0; c < G_N_ELEMENTS (names); c++) {
    ClvCascade *cascade = load_test_cascade (names[c]);

    for (int n = 0; n < 2; n++) {
      ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
      GArray *golden, *faces, *plain;
      char *what = g_strdup_printf ("%s %s scores min-neighbors %d", image,
          names[c], vj_test_min_neighbors[n]);

      p.min_neighbors = vj_test_min_neighbors[n];
      plain = clv_vj_detect_ref (cascade, gray, w, h, w, &p);
      p.output_reject_levels = TRUE;
      faces = clv_vj_detect_ref (cascade, gray, w, h, w, &p);
      golden = vj_test_golden_scores (image, names[c], p.min_neighbors);
      vj_test_assert_scores (golden, faces, what);
      for (guint i = 0; i < faces->len; i++) {
        const ClvVjFace *f = &g_array_index (faces, ClvVjFace, i);
        g_assert_cmpint (f->reject_level, ==, cascade->n_stages);
      }
      /* The rectangles and neighbours of detectMultiScale. */
      vj_test_assert_faces (plain, faces, 0, what);
      g_array_free (golden, TRUE);
      g_array_free (faces, TRUE);
      g_array_free (plain, TRUE);
      g_free (what);
    }
    clv_cascade_free (cascade);
  }
  g_free (gray);
}

/* Eyes inside faces: OpenCV's eye detections on each face's crop of the
 * image, mapped back, for the faces OpenCV finds. */
static void
test_golden_children (gconstpointer data)
{
  const char *image = data;
  ClvCascade *face = load_test_cascade ("frontalface_default");
  ClvCascade *eye = load_test_cascade ("eye");
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GArray *golden_parents, *golden, *parents;
  int w, h;
  guint8 *gray = vj_test_load_image (image, &w, &h);

  golden = vj_test_golden_children (image, "eye", "frontalface_default",
      &golden_parents);
  parents = clv_vj_detect_ref (face, gray, w, h, w, &p);
  /* Sorts both into the golden file's parent order. */
  vj_test_assert_faces (golden_parents, parents, 0, image);
  for (guint i = 0; i < parents->len; i++) {
    const ClvRect *r = &g_array_index (parents, ClvVjFace, i).rect;
    GArray *expected = g_array_new (FALSE, FALSE, sizeof (ClvVjFace));
    GArray *eyes = clv_vj_detect_ref (eye, gray + r->y * w + r->x, r->width,
        r->height, w, &p);
    char *what = g_strdup_printf ("%s eyes in face %u", image, i);

    for (guint k = 0; k < golden->len; k++)
      if (g_array_index (golden, VjTestChild, k).parent == (int) i)
        g_array_append_val (expected, g_array_index (golden, VjTestChild,
                k).face);
    for (guint k = 0; k < eyes->len; k++) {
      g_array_index (eyes, ClvVjFace, k).rect.x += r->x;
      g_array_index (eyes, ClvVjFace, k).rect.y += r->y;
    }
    vj_test_assert_faces (expected, eyes, 0, what);
    g_free (what);
    g_array_free (expected, TRUE);
    g_array_free (eyes, TRUE);
  }
  g_array_free (golden_parents, TRUE);
  g_array_free (golden, TRUE);
  g_array_free (parents, TRUE);
  clv_cascade_free (face);
  clv_cascade_free (eye);
  g_free (gray);
}

/* The reference must say the same as OpenCV itself on `pgm`. */
static void
assert_file_matches_oracle (const char *path, const char *pgm,
    const ClvVjParams * p)
{
  char *what;
  GError *error = NULL;
  ClvCascade *cascade = clv_cascade_load (path, &error);
  int w, h;
  guint8 *gray = clv_pgm_read (pgm, &w, &h, &error);
  GArray *expected, *faces;

  g_assert_no_error (error);
  expected = vj_test_oracle_faces (path, pgm, p);
  faces = clv_vj_detect_ref (cascade, gray, w, h, w, p);
  what = g_strdup_printf ("%s on %s (%dx%d) scale %g min-neighbors %d "
      "min %dx%d max %dx%d%s", path, pgm, w, h, p->scale_factor,
      p->min_neighbors, p->min_width, p->min_height, p->max_width,
      p->max_height, p->output_reject_levels ? " scores" : "");
  if (p->output_reject_levels)
    vj_test_assert_scores (expected, faces, what);
  else
    vj_test_assert_faces (expected, faces, 0, what);
  g_free (what);
  g_array_free (expected, TRUE);
  g_array_free (faces, TRUE);
  g_free (gray);
  clv_cascade_free (cascade);
}

static void
assert_matches_oracle (const char *cascade_name, const char *pgm,
    const ClvVjParams * p)
{
  char *path = vj_test_cascade_path (cascade_name);

  assert_file_matches_oracle (path, pgm, p);
  g_free (path);
}

/* The golden images against the oracle itself (catches stale golden files)
 * and cascades the golden files do not cover: tilted features, trees of 3
 * nodes, non-square windows. */
static void
test_oracle_cascades (void)
{
  static const struct
  {
    const char *cascade, *image;
    double scale;
    int neighbors;
  } cases[] = {
    {"frontalface_default", "franck-2500", 1.1, 3},
    {"frontalface_alt2", "grace_hopper", 1.2, 0},
    {"eye_tree_eyeglasses", "astronaut", 1.1, 0},
    {"eye", "franck-1000", 1.05, 2},
    {"smile", "franck-1000", 1.1, 0},
    {"upperbody", "franck-2500", 1.05, 0},
    {"profileface", "astronaut", 1.1, 0},
    {"licence_plate_rus_16stages", "astronaut", 1.1, 0},
    {"lbp_frontalcatface", "astronaut", 1.05, 0},
    {"lbp_silverware", "franck-2500", 1.1, 0},
    {"lbp_frontalface_improved", "franck-1000", 1.05, 2},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    char *pgm = vj_test_image_path (cases[i].image);

    p.scale_factor = cases[i].scale;
    p.min_neighbors = cases[i].neighbors;
    assert_matches_oracle (cases[i].cascade, pgm, &p);
    g_free (pgm);
  }
}

/* Old-format cascades with trees and tilted features, as OpenCV converts
 * them on loading (haar_cvt): Debian ships its Haar cascades in the new
 * format except one stump cascade, so trees are written out here. */
static void
test_oracle_old_format (void)
{
  const char *names[] = { "frontalface_alt2", "eye_tree_eyeglasses",
    "licence_plate_rus_16stages"
  };
  char *dir = g_dir_make_tmp ("clv-vj-XXXXXX", NULL);
  char *xml_path = g_build_filename (dir, "old.xml", NULL);
  char *pgm = vj_test_image_path ("franck-2500");

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    char *path = vj_test_cascade_path (names[i]), *xml;
    GError *error = NULL;
    ClvCascade *c = clv_cascade_load (path, &error);
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;

    g_assert_no_error (error);
    xml = vj_test_cascade_to_old_format (c);
    g_assert_true (g_file_set_contents (xml_path, xml, -1, &error));
    p.min_neighbors = 0;
    assert_file_matches_oracle (xml_path, pgm, &p);
    g_free (xml);
    clv_cascade_free (c);
    g_free (path);
  }
  g_unlink (xml_path);
  g_rmdir (dir);
  g_free (xml_path);
  g_free (dir);
  g_free (pgm);
}

/* min-size / max-size, including the nearest-scale rule for equal bounds
 * between two scales and bounds larger than the image. */
static void
test_oracle_sizes (void)
{
  static const int sizes[][4] = {
    {60, 60, 0, 0}, {60, 60, 120, 120}, {100, 100, 100, 100},
    {101, 101, 101, 101}, {30, 90, 200, 50}, {0, 0, 0, 90},
    {600, 600, 0, 0}, {0, 0, 30, 30},
  };
  char *pgm = vj_test_image_path ("astronaut");

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    p.min_neighbors = i % 2 ? 0 : 3;
    p.min_width = sizes[i][0];
    p.min_height = sizes[i][1];
    p.max_width = sizes[i][2];
    p.max_height = sizes[i][3];
    assert_matches_oracle ("frontalface_alt", pgm, &p);
  }
  g_free (pgm);
}

/* Scores with a tree cascade, min and max sizes, other scales and
 * neighbour counts, and LBP. */
static void
test_oracle_scores (void)
{
  static const struct
  {
    const char *cascade, *image;
    double scale;
    int neighbors, min, max;
  } cases[] = {
    {"frontalface_alt2", "grace_hopper", 1.05, 1, 0, 0},
    {"frontalface_default", "franck-2500", 1.2, 5, 60, 200},
    {"eye_tree_eyeglasses", "astronaut", 1.1, 2, 0, 0},
    {"lbp_frontalface_improved", "franck-4000", 1.07, 3, 50, 0},
    {"lbp_profileface", "astronaut", 1.1, 0, 0, 0},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
    char *pgm = vj_test_image_path (cases[i].image);

    p.scale_factor = cases[i].scale;
    p.min_neighbors = cases[i].neighbors;
    p.min_width = p.min_height = cases[i].min;
    p.max_width = p.max_height = cases[i].max;
    p.output_reject_levels = TRUE;
    assert_matches_oracle (cases[i].cascade, pgm, &p);
    g_free (pgm);
  }
}

/* Odd sizes, images barely larger or smaller than the window, flat and
 * noisy images: crops and fills written as PGMs for both detectors. */
static void
test_oracle_image_sizes (void)
{
  static const int crops[][4] = {
    /* x, y, width, height in astronaut (512x512) */
    {100, 30, 333, 211}, {170, 50, 111, 113}, {180, 60, 24, 24},
    {180, 60, 23, 40}, {150, 40, 40, 28}, {0, 0, 512, 1}, {130, 20, 200, 57},
  };
  int w, h;
  guint8 *astro = vj_test_load_image ("astronaut", &w, &h);
  char *dir = g_dir_make_tmp ("clv-vj-XXXXXX", NULL);
  char *pgm = g_build_filename (dir, "case.pgm", NULL);
  GRand *rand = g_rand_new_with_seed (11);
  GError *error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (crops) + 2; i++) {
    ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;

    if (i < G_N_ELEMENTS (crops)) {
      const int *c = crops[i];
      g_assert_true (clv_pgm_write (pgm, astro + c[1] * w + c[0], c[2], c[3],
              w, &error));
    } else {
      /* A flat image (zero variance) and noise. */
      guint8 *img = g_malloc (257 * 201);
      for (int k = 0; k < 257 * 201; k++)
        img[k] = i == G_N_ELEMENTS (crops) ? 77 : g_rand_int_range (rand, 0,
            256);
      g_assert_true (clv_pgm_write (pgm, img, 257, 201, 257, &error));
      g_free (img);
    }
    g_assert_no_error (error);
    p.scale_factor = i % 2 ? 1.07 : 1.1;
    p.min_neighbors = 0;
    assert_matches_oracle ("frontalface_default", pgm, &p);
    assert_matches_oracle ("frontalface_alt2", pgm, &p);
    assert_matches_oracle ("lbp_frontalface", pgm, &p);
  }
  g_rand_free (rand);
  g_unlink (pgm);
  g_rmdir (dir);
  g_free (pgm);
  g_free (dir);
  g_free (astro);
}

/* ---------------------------------------------------------------------- */
/* Pieces, on cases computed by hand */

static void
test_scales (void)
{
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  ClvVjScale *s;
  int n;

  /* 40x28 with a 24x24 window: one stripe (first level 17 windows wide), so
   * the odd last row of the first level (y = 4) is never visited. */
  n = clv_vj_scales (40, 28, 24, 24, &p, &s);
  g_assert_cmpint (n, ==, 2);
  g_assert_cmpfloat (s[0].scale, ==, 1.0f);
  g_assert_cmpint (s[0].width, ==, 40);
  g_assert_cmpint (s[0].height, ==, 28);
  g_assert_cmpint (s[0].step, ==, 2);
  g_assert_cmpint (s[0].x_end, ==, 17);
  g_assert_cmpint (s[0].y_end, ==, 4);
  g_assert_cmpfloat (s[1].scale, ==, 1.1f);
  g_assert_cmpint (s[1].width, ==, 36);  /* rint (40 / 1.1f) */
  g_assert_cmpint (s[1].height, ==, 25); /* rint (28 / 1.1f) */
  g_assert_cmpint (s[1].win_width, ==, 26);
  g_assert_cmpint (s[1].x_end, ==, 13);
  g_assert_cmpint (s[1].y_end, ==, 2);
  g_free (s);

  /* Window 100 is scale 1.1^15 (24 * 4.177 = 100.25). */
  p.min_width = p.min_height = p.max_width = p.max_height = 100;
  n = clv_vj_scales (512, 512, 24, 24, &p, &s);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (s[0].win_width, ==, 100);
  g_assert_cmpint (s[0].step, ==, 1);
  g_free (s);
  /* No scale gives 101: the nearest window (100, not 110) is used. */
  p.min_width = p.min_height = p.max_width = p.max_height = 101;
  n = clv_vj_scales (512, 512, 24, 24, &p, &s);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (s[0].win_width, ==, 100);
  g_free (s);
  /* Smaller than the window: nothing. */
  p = (ClvVjParams) CLV_VJ_PARAMS_DEFAULT;
  g_assert_cmpint (clv_vj_scales (23, 100, 24, 24, &p, &s), ==, 0);
  g_free (s);
  /* Scale 2 and up step by 1; the candidate rectangles scale back. */
  p.scale_factor = 2.0;
  n = clv_vj_scales (100, 100, 24, 24, &p, &s);
  g_assert_cmpint (n, ==, 3);           /* windows 24, 48, 96 */
  g_assert_cmpint (s[1].step, ==, 1);
  g_assert_cmpint (s[1].width, ==, 50);
  ClvRect r = clv_vj_candidate_rect (&s[1], 3, 5);
  g_assert_cmpint (r.x, ==, 6);
  g_assert_cmpint (r.y, ==, 10);
  g_assert_cmpint (r.width, ==, 48);
  g_free (s);
}

static void
test_resize (void)
{
  GRand *rand = g_rand_new_with_seed (3);
  guint8 src[37 * 29], dst[37 * 29];

  for (int i = 0; i < 37 * 29; i++)
    src[i] = g_rand_int_range (rand, 0, 256);
  /* Same size: a copy. */
  clv_vj_resize (src, 37, 29, 37, dst, 37, 29, 37);
  g_assert_cmpmem (src, sizeof src, dst, sizeof dst);
  /* Exactly half (36x28 -> 18x14): the 2x2 mean rounded half up, which is
   * what bit-exact bilinear gives (OpenCV uses INTER_AREA for it). */
  clv_vj_resize (src, 36, 28, 37, dst, 18, 14, 18);
  for (int y = 0; y < 14; y++)
    for (int x = 0; x < 18; x++) {
      const guint8 *p = src + 2 * y * 37 + 2 * x;
      g_assert_cmpint (dst[y * 18 + x], ==, (p[0] + p[1] + p[37] + p[38] + 2)
          >> 2);
    }
  /* 37 -> 1 column: centre 18 exactly, no interpolation. */
  clv_vj_resize (src, 37, 1, 37, dst, 1, 1, 1);
  g_assert_cmpint (dst[0], ==, src[18]);
  /* 3 -> 2: source x = 1.5 * (d + 0.5) - 0.5 = 0.25, 1.75; weights in
   * 1/256; rows of 8.8 fixed point rounded once at the end. */
  {
    const guint8 row[3] = { 10, 200, 31 };
    guint8 out[2];
    clv_vj_resize (row, 3, 1, 3, out, 2, 1, 2);
    g_assert_cmpint (out[0], ==, (192 * 10 + 64 * 200 + 128) >> 8);
    g_assert_cmpint (out[1], ==, (64 * 200 + 192 * 31 + 128) >> 8);
  }
  g_rand_free (rand);
}

static void
test_integrals (void)
{
  enum { W = 23, H = 17 };
  GRand *rand = g_rand_new_with_seed (5);
  guint8 img[W * H];
  ClvVjIntegrals *in = clv_vj_integrals_new (W + 5, H + 5, TRUE);

  for (int i = 0; i < W * H; i++)
    img[i] = g_rand_int_range (rand, 0, 256);
  clv_vj_integrals_compute (in, img, W, H, W);
  for (int Y = 0; Y <= H; Y++)
    for (int X = 0; X <= W; X++) {
      gint32 s = 0, t = 0;
      guint32 q = 0;
      for (int y = 0; y < Y; y++)
        for (int x = 0; x < W; x++) {
          int v = img[y * W + x];
          if (x < X) {
            s += v;
            q += v * v;
          }
          /* OpenCV: tilted(X,Y) = sum over y < Y, |x - X + 1| <= Y - y - 1 */
          if (ABS (x - X + 1) <= Y - y - 1)
            t += v;
        }
      g_assert_cmpint (in->sum[Y * in->stride + X], ==, s);
      g_assert_cmpuint (in->sqsum[Y * in->stride + X], ==, q);
      g_assert_cmpint (in->tilted[Y * in->stride + X], ==, t);
    }
  clv_vj_integrals_free (in);
  g_rand_free (rand);
}

static void
test_gray (void)
{
  /* OpenCV's cvtColor values for the primaries and a mixed colour. */
  const guint8 rgbx[] = { 255, 0, 0, 9, 0, 255, 0, 9, 0, 0, 255, 9,
    255, 255, 255, 9, 12, 200, 99, 9
  };
  const guint8 expect[] = { 76, 150, 29, 255, 132 };
  guint8 gray[5], gray_bgr[5], bgr[15];

  clv_rgb_to_gray_ref (rgbx, sizeof rgbx, 4, 0, 1, 2, 5, 1, gray, 5);
  g_assert_cmpmem (gray, 5, expect, 5);
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 3; k++)
      bgr[3 * i + k] = rgbx[4 * i + 2 - k];
  clv_rgb_to_gray_ref (bgr, sizeof bgr, 3, 2, 1, 0, 5, 1, gray_bgr, 5);
  g_assert_cmpmem (gray_bgr, 5, expect, 5);
}

static void
test_group_rectangles (void)
{
  ClvRect r[] = {
    {100, 100, 50, 50}, {104, 101, 50, 50}, {101, 105, 52, 52},
    {300, 50, 40, 40},          /* alone */
    {105, 103, 20, 20}, {106, 104, 20, 20}, {106, 103, 21, 21},
    {105, 104, 20, 20},         /* inside the first group, 4 members */
  };
  int neighbors[G_N_ELEMENTS (r)], n;
  ClvRect copy[G_N_ELEMENTS (r)];

  /* Threshold 0: untouched, one neighbour each. */
  memcpy (copy, r, sizeof r);
  n = clv_vj_group_rectangles (copy, G_N_ELEMENTS (r), 0, 0.2, neighbors);
  g_assert_cmpint (n, ==, G_N_ELEMENTS (r));
  g_assert_cmpmem (copy, sizeof copy, r, sizeof r);
  g_assert_cmpint (neighbors[7], ==, 1);

  /* Threshold 2: the group of 3 averages to (101.67, 102, 50.67, 50.67)
   * rounded to (102, 102, 51, 51); the lone one goes; the small group of 4
   * lies inside the big one but has more members (4 > max (3, 3)), so both
   * stay. */
  memcpy (copy, r, sizeof r);
  n = clv_vj_group_rectangles (copy, G_N_ELEMENTS (r), 2, 0.2, neighbors);
  g_assert_cmpint (n, ==, 2);
  g_assert_cmpint (copy[0].x, ==, 102);
  g_assert_cmpint (copy[0].y, ==, 102);
  g_assert_cmpint (copy[0].width, ==, 51);
  g_assert_cmpint (neighbors[0], ==, 3);
  /* 105.5, 103.5, 20.25, 20.25: halves round to even. */
  g_assert_cmpint (copy[1].x, ==, 106);
  g_assert_cmpint (copy[1].y, ==, 104);
  g_assert_cmpint (copy[1].width, ==, 20);
  g_assert_cmpint (neighbors[1], ==, 4);

  /* Threshold 3: only the group of 4 has enough members. */
  memcpy (copy, r, sizeof r);
  n = clv_vj_group_rectangles (copy, G_N_ELEMENTS (r), 3, 0.2, neighbors);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (neighbors[0], ==, 4);

  /* A small group of 3 inside a bigger group of 5 is dropped. */
  {
    ClvRect s[] = {
      {100, 100, 50, 50}, {101, 100, 50, 50}, {100, 101, 50, 50},
      {101, 101, 50, 50}, {100, 100, 51, 51},
      {110, 110, 20, 20}, {111, 110, 20, 20}, {110, 111, 20, 20},
    };
    n = clv_vj_group_rectangles (s, G_N_ELEMENTS (s), 1, 0.2, neighbors);
    g_assert_cmpint (n, ==, 1);
    g_assert_cmpint (neighbors[0], ==, 5);
    g_assert_cmpint (s[0].width, ==, 50);
  }
}

static void
test_group_faces_clips (void)
{
  const ClvRect rects[] = { {-5, 10, 30, 30}, {90, 90, 30, 30},
  {100, 0, 10, 10}
  };
  GArray *raw = g_array_new (FALSE, FALSE, sizeof (ClvRect)), *faces;

  g_array_append_vals (raw, rects, G_N_ELEMENTS (rects));
  faces = clv_vj_group_faces (raw, 0, 100, 100);
  /* The candidates are left as they are. */
  g_assert_cmpint (raw->len, ==, 3);
  g_assert_cmpint (g_array_index (raw, ClvRect, 0).x, ==, -5);

  /* Clipped to 100x100; the one wholly outside is dropped. */
  g_assert_cmpint (faces->len, ==, 2);
  g_assert_cmpint (g_array_index (faces, ClvVjFace, 0).rect.x, ==, 0);
  g_assert_cmpint (g_array_index (faces, ClvVjFace, 0).rect.width, ==, 25);
  g_assert_cmpint (g_array_index (faces, ClvVjFace, 1).rect.width, ==, 10);
  g_assert_cmpint (g_array_index (faces, ClvVjFace, 1).neighbors, ==, 1);
  g_array_free (faces, TRUE);
  g_array_free (raw, TRUE);
}

static void
test_apply_skip (void)
{
  /* A stage-0 reject skips the next window; a skipped window skips
   * nothing; variance rejects (-1) and later-stage rejects skip nothing. */
  const int row[] = { 1, 0, 1, 1, 0, 0, 1, -1, 1, -3, 0, 0, 0, 1, 1 };
  int idx[G_N_ELEMENTS (row)];
  int n = clv_vj_apply_skip (row, G_N_ELEMENTS (row), idx);

  /* 0:1 yes, 1:0 -> skip 2, 3:1 yes, 4:0 -> skip 5, 6:1 yes, 7, 8:1 yes,
   * 9, 10:0 -> skip 11, 12:0 -> skip 13, 14:1 yes */
  g_assert_cmpint (n, ==, 5);
  g_assert_cmpint (idx[0], ==, 0);
  g_assert_cmpint (idx[1], ==, 3);
  g_assert_cmpint (idx[2], ==, 6);
  g_assert_cmpint (idx[3], ==, 8);
  g_assert_cmpint (idx[4], ==, 14);
}

/* The window scan equals clv_vj_eval_window + clv_vj_apply_skip row by
 * row: the decomposition the OpenCL path uses.  With the smile cascade
 * (tilted features) the skip rule drops accepted windows on this frame;
 * with the face cascades it rarely does. */
static void
test_scan_decomposition (void)
{
  int w, h;
  guint8 *gray = vj_test_load_image ("franck-1000", &w, &h);
  char *path = vj_test_cascade_path ("smile");
  ClvCascade *cascade = clv_cascade_load (path, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GArray *raw = clv_vj_detect_raw (cascade, gray, w, h, w, &p);
  GArray *mine = g_array_new (FALSE, FALSE, sizeof (ClvRect));
  ClvVjScale *s;
  int n = clv_vj_scales (w, h, cascade->window_w, cascade->window_h, &p, &s);
  ClvVjIntegrals *in = clv_vj_integrals_new (w, h, cascade->has_tilted);
  guint8 *level = g_malloc ((gsize) w * h);
  int *results = g_new (int, w), *idx = g_new (int, w), skips = 0;

  for (int i = 0; i < n; i++) {
    clv_vj_resize (gray, w, h, w, level, s[i].width, s[i].height, s[i].width);
    clv_vj_integrals_compute (in, level, s[i].width, s[i].height,
        s[i].width);
    for (int y = 0; y < s[i].y_end; y += s[i].step) {
      int nx = 0, nd;
      for (int x = 0; x < s[i].x_end; x += s[i].step)
        results[nx++] = clv_vj_eval_window (cascade, in, x, y);
      nd = clv_vj_apply_skip (results, nx, idx);
      for (int k = 0; k < nx; k++)
        skips += results[k] > 0;
      skips -= nd;
      for (int k = 0; k < nd; k++) {
        ClvRect r = clv_vj_candidate_rect (&s[i], idx[k] * s[i].step, y);
        g_array_append_val (mine, r);
      }
    }
  }
  g_assert_cmpuint (mine->len, ==, raw->len);
  g_assert_cmpmem (mine->data, mine->len * sizeof (ClvRect), raw->data,
      raw->len * sizeof (ClvRect));
  g_assert_cmpint (raw->len, >, 0);
  g_assert_cmpint (skips, >, 0);
  g_free (results);
  g_free (idx);
  g_free (level);
  g_free (s);
  clv_vj_integrals_free (in);
  g_array_free (raw, TRUE);
  g_array_free (mine, TRUE);
  clv_cascade_free (cascade);
  g_free (path);
  g_free (gray);
}

static int
keyed_cmp (const void *pa, const void *pb)
{
  const ClvVjKeyed *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* clv_vj_sort_keyed orders by key and keeps the order of equal keys: few
 * keys or thousands, keys that differ in a few bytes only (as the raw
 * windows' do) or in all, with many repeats, against qsort by (key,
 * original position). */
static void
test_sort_keyed (void)
{
  for (guint32 seed = 1; seed <= 40; seed++) {
    GRand *rand = g_rand_new_with_seed (seed);
    /* 1, a few (an insertion sort's sizes) and up to thousands. */
    const guint n = seed == 1 ? 1 : seed <= 12 ? 3 * seed :
        (guint) g_rand_int_range (rand, 2, 5000);
    /* Which bytes vary, and over how few values (repeats). */
    const guint64 mask = seed <= 12 ? 0xff00 : seed % 4 == 0 ? G_MAXUINT64
        : ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand));
    const guint32 spread = seed <= 12 ? 3 : g_rand_int_range (rand, 2, 50);
    const guint64 base = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
    ClvVjKeyed *a = g_new (ClvVjKeyed, n), *b;

    for (guint i = 0; i < n; i++) {
      guint64 v = 0;
      for (int k = 0; k < 8; k++)
        v = v << 8 | g_rand_int_range (rand, 0, spread) * 255 / spread;
      a[i].key = (base & ~mask) | (v & mask);
      a[i].index = i;
    }
    b = g_memdup2 (a, sizeof (ClvVjKeyed) * n);
    clv_vj_sort_keyed (a, n);
    qsort (b, n, sizeof (ClvVjKeyed), keyed_cmp);
    for (guint i = 0; i < n; i++) {
      g_assert_cmpuint (a[i].key, ==, b[i].key);
      g_assert_cmpuint (a[i].index, ==, b[i].index);
    }
    g_free (a);
    g_free (b);
    g_rand_free (rand);
  }
}

/* The sweep's classes equal cv::partition's all pairs on thousands of
 * rectangles in dense, overlapping clusters (as raw windows are) and
 * scattered ones, for several thresholds and eps. */
static void
test_group_sweep_equals_pairwise (void)
{
  for (guint32 seed = 1; seed <= 6; seed++) {
    GRand *rand = g_rand_new_with_seed (seed);
    const int n = 2000 + g_rand_int_range (rand, 0, 2000);
    ClvRect *r = g_new (ClvRect, n);
    const int n_centres = g_rand_int_range (rand, 5, 60);

    for (int i = 0; i < n; i++) {
      if (g_rand_int_range (rand, 0, 10) == 0) {
        int w = g_rand_int_range (rand, 20, 300);
        r[i] = (ClvRect) { g_rand_int_range (rand, -50, 2000),
          g_rand_int_range (rand, -50, 1500), w, w };
      } else {
        /* Around a centre of its own size, shifted and scaled a little. */
        GRand *c = g_rand_new_with_seed (seed * 1000 +
            g_rand_int_range (rand, 0, n_centres));
        int cx = g_rand_int_range (c, 0, 1900), cy = g_rand_int_range (c, 0,
            1400), cw = g_rand_int_range (c, 24, 400);
        int w = (int) (cw * g_rand_double_range (rand, 0.8, 1.3));
        r[i] = (ClvRect) { cx + g_rand_int_range (rand, -cw / 6, cw / 6 + 1),
          cy + g_rand_int_range (rand, -cw / 6, cw / 6 + 1), w,
          w + g_rand_int_range (rand, -2, 3) };
        g_rand_free (c);
      }
    }
    for (int thr = 0; thr <= 4; thr++) {
      const double eps = thr == 4 ? 0.5 : 0.2;
      ClvRect *a = g_memdup2 (r, sizeof (ClvRect) * n);
      ClvRect *b = g_memdup2 (r, sizeof (ClvRect) * n);
      int *na = g_new (int, n), *nb = g_new (int, n);
      int ka = clv_vj_group_rectangles (a, n, thr, eps, na);
      int kb = clv_vj_group_rectangles_pairwise (b, n, thr, eps, nb);

      g_assert_cmpint (ka, ==, kb);
      g_assert_cmpmem (a, sizeof (ClvRect) * ka, b, sizeof (ClvRect) * kb);
      g_assert_cmpmem (na, sizeof (int) * ka, nb, sizeof (int) * kb);
      /* Clusters merge: far fewer groups than rectangles. */
      if (thr > 0)
        g_assert_cmpint (kb, <, n / 10);
      g_free (a);
      g_free (b);
      g_free (na);
      g_free (nb);
    }
    g_free (r);
    g_rand_free (rand);
  }
}

/* The same on random walks: each rectangle a step from the one before, of
 * about the similarity bound, so that classes grow as chains joined by
 * later rectangles, windows leave reach while their class goes on, and
 * rectangles repeat; every eps from 0 to 0.6 and sizes down to 1. */
static void
test_group_sweep_chains_equal_pairwise (void)
{
  for (guint32 seed = 1; seed <= 200; seed++) {
    GRand *rand = g_rand_new_with_seed (seed);
    const int n = g_rand_int_range (rand, 1, 400);
    const double eps = seed % 10 == 0 ? 0 : g_rand_double_range (rand, 0.02,
        0.6);
    ClvRect *r = g_new (ClvRect, n);
    int walks = g_rand_int_range (rand, 1, 6);

    for (int i = 0; i < n; i++) {
      if (i < walks || g_rand_int_range (rand, 0, 20) == 0) {
        int w = g_rand_int_range (rand, 1, 120);
        r[i] = (ClvRect) { g_rand_int_range (rand, -100, 500),
          g_rand_int_range (rand, -100, 500), w,
          MAX (1, w + g_rand_int_range (rand, -3, 4)) };
      } else {
        /* A step from an earlier rectangle of the same walk. */
        ClvRect p = r[i - walks];
        int d = (int) (eps * (p.width + p.height) * 0.5) + 1;
        r[i] = (ClvRect) { p.x + g_rand_int_range (rand, -d, d + 1),
          p.y + g_rand_int_range (rand, -d, d + 1),
          MAX (1, p.width + g_rand_int_range (rand, -1, 2)),
          MAX (1, p.height + g_rand_int_range (rand, -1, 2)) };
      }
    }
    for (int thr = 0; thr <= 3; thr++) {
      ClvRect *a = g_memdup2 (r, sizeof (ClvRect) * n);
      ClvRect *b = g_memdup2 (r, sizeof (ClvRect) * n);
      int *na = g_new (int, n), *nb = g_new (int, n);
      int ka = clv_vj_group_rectangles (a, n, thr, eps, na);
      int kb = clv_vj_group_rectangles_pairwise (b, n, thr, eps, nb);

      g_assert_cmpint (ka, ==, kb);
      g_assert_cmpmem (a, sizeof (ClvRect) * ka, b, sizeof (ClvRect) * kb);
      g_assert_cmpmem (na, sizeof (int) * ka, nb, sizeof (int) * kb);
      g_free (a);
      g_free (b);
      g_free (na);
      g_free (nb);
    }
    g_free (r);
    g_rand_free (rand);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/vj-ref/scales", test_scales);
  g_test_add_func ("/vj-ref/resize", test_resize);
  g_test_add_func ("/vj-ref/integrals", test_integrals);
  g_test_add_func ("/vj-ref/gray", test_gray);
  g_test_add_func ("/vj-ref/sort-keyed", test_sort_keyed);
  g_test_add_func ("/vj-ref/group-rectangles", test_group_rectangles);
  g_test_add_func ("/vj-ref/group-sweep-chains-equal-pairwise",
      test_group_sweep_chains_equal_pairwise);
  g_test_add_func ("/vj-ref/group-sweep-equals-pairwise",
      test_group_sweep_equals_pairwise);
  g_test_add_func ("/vj-ref/group-faces-clips", test_group_faces_clips);
  g_test_add_func ("/vj-ref/apply-skip", test_apply_skip);
  g_test_add_func ("/vj-ref/scan-decomposition", test_scan_decomposition);
  for (int i = 0; vj_test_images[i] != NULL; i++) {
    char *name = g_strdup_printf ("/vj-ref/golden/%s", vj_test_images[i]);
    g_test_add_data_func (name, vj_test_images[i], test_golden);
    g_free (name);
    name = g_strdup_printf ("/vj-ref/golden-scores/%s", vj_test_images[i]);
    g_test_add_data_func (name, vj_test_images[i], test_golden_scores);
    g_free (name);
    name = g_strdup_printf ("/vj-ref/golden-eyes-in-faces/%s",
        vj_test_images[i]);
    g_test_add_data_func (name, vj_test_images[i], test_golden_children);
    g_free (name);
  }
  /* Only where OpenCV is installed (the golden files cover the rest). */
  if (vj_test_have_oracle ()) {
    g_test_add_func ("/vj-ref/oracle/cascades", test_oracle_cascades);
    g_test_add_func ("/vj-ref/oracle/old-format", test_oracle_old_format);
    g_test_add_func ("/vj-ref/oracle/sizes", test_oracle_sizes);
    g_test_add_func ("/vj-ref/oracle/scores", test_oracle_scores);
    g_test_add_func ("/vj-ref/oracle/image-sizes", test_oracle_image_sizes);
  }
  return g_test_run ();
}
