/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OpenCL Viola–Jones path equals the C reference: pyramid pictures and
 * integrals bit for bit, raw candidate windows one for one, final faces;
 * for the uberkernel (over chunks and over tiles) and the simple variant,
 * gray planes and packed RGB. */
#include <string.h>

#include "clv-test-util.h"
#include "clv-vj.h"
#include "clv-vj-batch.h"
#include "vj-test-gray.h"

static ClvDevice *device;

/* The detection kernels every equality test runs. */
static const struct
{
  ClvVjVariant variant;
  gboolean unroll;              /* VJ_UNROLL (tiled only) */
  const char *name;
} variants[] = {
  {CLV_VJ_VARIANT_UBER, TRUE, "uber"},
  {CLV_VJ_VARIANT_TILED, TRUE, "tiled"},
  {CLV_VJ_VARIANT_TILED, FALSE, "tiled, node loop"},
  {CLV_VJ_VARIANT_SIMPLE, TRUE, "simple"},
  {CLV_VJ_VARIANT_CPU, TRUE, "cpu"},
};

/* opencv-data's haarcascade_NAME.xml */
static ClvCascade *
load_cascade (const char *name)
{
  GError *error = NULL;
  char *path = vj_test_cascade_path (name);
  ClvCascade *c = clv_cascade_load (path, &error);

  g_assert_no_error (error);
  g_free (path);
  return c;
}

static cl_mem
upload (const guint8 * data, gsize size)
{
  GError *error = NULL;
  cl_mem m = clv_buffer_new (device, CL_MEM_READ_ONLY, size, &error);

  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (device->queue, m, CL_TRUE, 0, size,
          data, 0, NULL, NULL), ==, CL_SUCCESS);
  return m;
}

/* A small shape for tuning `t`: twice its work-items, twice its windows at
 * once in the cooperative stages. */
static void
set_double_small_shape (ClvVjTuning * t)
{
  t->small_wg = 2 * t->wg;
  t->small_coop_windows = 2 * t->coop_windows;
}

static ClvVjDetector *
detector_unrolled (const ClvCascade * c, ClvVjVariant variant,
    gboolean unroll, const char *extra)
{
  GError *error = NULL;
  ClvVjTuning t;
  ClvVjDetector *d;

  clv_vj_tuning_for_device (device, &t);
  t.variant = variant;
  t.unroll = unroll;
  if (extra && g_str_equal (extra, "coop-all")) {
    /* Every stage cooperative, one window at a time, long chunks dealt
     * round-robin. */
    t.coop_stage = 0;
    t.coop_windows = 1;
    t.chunk = 3 * t.wg + 1;
    t.static_schedule = TRUE;
    /* Tiles cut across the levels' edges. */
    t.tile_x = 5;
    t.tile_y = 3;
  } else if (extra && g_str_equal (extra, "coop-4")) {
    t.coop_stage = 4;
  } else if (extra && g_str_equal (extra, "registers-64")) {
    t.max_registers = 64;
  } else if (extra && g_str_equal (extra, "no-shuffles")) {
    t.shuffle = 0;
  } else if (extra && (g_str_equal (extra, "small")
          || g_str_equal (extra, "small-stage-nodes"))) {
    /* Every batch on the small shape. */
    set_double_small_shape (&t);
    t.small_tiles = G_MAXINT;
    t.small_groups_per_cu = 1;
    t.stage_nodes = g_str_equal (extra, "small-stage-nodes");
  }
  d = clv_vj_detector_new (device, c, &t, &error);
  g_assert_no_error (error);
  return d;
}

static ClvVjDetector *
detector (const ClvCascade * c, ClvVjVariant variant, const char *extra)
{
  return detector_unrolled (c, variant, TRUE, extra);
}

static void
assert_rects_equal (GArray * a, GArray * b, const char *what)
{
  if (a->len != b->len)
    g_error ("%s: %u candidates, reference %u", what, a->len, b->len);
  for (guint i = 0; i < a->len; i++) {
    ClvRect *r = &g_array_index (a, ClvRect, i);
    ClvRect *s = &g_array_index (b, ClvRect, i);
    if (memcmp (r, s, sizeof (ClvRect)) != 0)
      g_error ("%s: candidate %u is %d,%d %dx%d, reference %d,%d %dx%d",
          what, i, r->x, r->y, r->width, r->height, s->x, s->y, s->width,
          s->height);
  }
}

static GArray *
gpu_candidates (ClvVjDetector * d, const Gray * g, const ClvVjParams * p)
{
  GError *error = NULL;
  cl_mem m = upload (g->pixels, (gsize) g->width * g->height);
  ClvLumaImage f = clv_luma_image_gray (g->width, g->height, 0, g->width);
  GArray *r = clv_vj_detector_candidates (d, m, &f, p, &error);

  g_assert_no_error (error);
  clReleaseMemObject (m);
  return r;
}

/* Every level's picture and integrals equal the reference's, summed over
 * tiles of `band_rows` rows by `band_wg` columns (0: the device's
 * tuning). */
static void
check_pyramid (const char *cascade, const Gray * g, int band_wg,
    int band_rows)
{
  ClvCascade *c = load_cascade (cascade);
  ClvVjTuning t;
  ClvVjDetector *d;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  ClvVjScale *scales;
  int n = clv_vj_scales (g->width, g->height, c->window_w, c->window_h, &p,
      &scales);
  GArray *cand;
  GError *error = NULL;

  clv_vj_tuning_for_device (device, &t);
  t.variant = CLV_VJ_VARIANT_UBER;
  if (band_wg) {
    t.band_wg = band_wg;
    t.band_rows = band_rows;
  }
  d = clv_vj_detector_new (device, c, &t, &error);
  g_assert_no_error (error);
  cand = gpu_candidates (d, g, &p);
  g_assert_cmpint (n, >, 3);
  for (int i = 0; i < n; i++) {
    const int w = scales[i].width, h = scales[i].height;
    const gsize np = (gsize) (w + 1) * (h + 1);
    guint8 *ref_pix = g_malloc ((gsize) w * h), *pix = g_malloc ((gsize) w * h);
    ClvVjIntegrals *ref = clv_vj_integrals_new (w, h, c->has_tilted);
    ClvVjIntegrals *got = clv_vj_integrals_new (w, h, c->has_tilted);

    clv_vj_resize (g->pixels, g->width, g->height, g->width, ref_pix, w, h,
        w);
    clv_vj_integrals_compute (ref, ref_pix, w, h, w);
    g_assert_true (clv_vj_detector_read_level (d, i, pix, got, &error));
    g_assert_no_error (error);
    if (memcmp (pix, ref_pix, (gsize) w * h) != 0)
      g_error ("%s, tiles %d x %d: level %d (%dx%d) picture differs",
          cascade, t.band_wg, t.band_rows, i, w, h);
    if (memcmp (got->sum, ref->sum, np * 4) != 0)
      g_error ("%s, tiles %d x %d: level %d (%dx%d) integral differs",
          cascade, t.band_wg, t.band_rows, i, w, h);
    if (memcmp (got->sqsum, ref->sqsum, np * 4) != 0)
      g_error ("%s, tiles %d x %d: level %d (%dx%d) squared integral "
          "differs", cascade, t.band_wg, t.band_rows, i, w, h);
    if (c->has_tilted && memcmp (got->tilted, ref->tilted, np * 4) != 0)
      g_error ("%s, tiles %d x %d: level %d (%dx%d) tilted integral "
          "differs", cascade, t.band_wg, t.band_rows, i, w, h);
    clv_vj_integrals_free (ref);
    clv_vj_integrals_free (got);
    g_free (ref_pix);
    g_free (pix);
  }
  g_assert_false (clv_vj_detector_read_level (d, n, NULL, NULL, &error));
  g_array_free (cand, TRUE);
  g_free (scales);
  clv_vj_detector_free (d);
  clv_cascade_free (c);
}

static void
test_pyramid_matches_reference (void)
{
  Gray g = load_gray ("grace_hopper");
  Gray odd = scaled (&g, 333, 301);

  /* The device's tiles; the GPUs' (several work-items sum a row across);
   * segments of a row that are not a power of two; tiles of one row (the
   * carry runs down every row); tiles taller than most levels. */
  static const int bands[][2] = { {0, 0}, {128, 16}, {48, 8}, {32, 1},
  {64, 64}
  };

  for (guint i = 0; i < G_N_ELEMENTS (bands); i++) {
    check_pyramid ("frontalface_default", &g, bands[i][0], bands[i][1]);
    /* Tilted features need the tilted integral too. */
    check_pyramid ("smile", &odd, bands[i][0], bands[i][1]);
  }
  g_free (odd.pixels);
  g_free (g.pixels);
}

typedef struct
{
  const char *cascade;
  const char *image;
  int width, height;            /* 0: as is */
  double scale_factor;
} Case;

/* The candidate windows of every variant equal the reference's, in order. */
static void
check_candidates (const Case * k, const char *tuning)
{
  ClvCascade *c = load_cascade (k->cascade);
  Gray full = load_gray (k->image);
  Gray g = k->width ? scaled (&full, k->width, k->height) : full;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GArray *ref;

  p.scale_factor = k->scale_factor;
  ref = clv_vj_detect_raw (c, g.pixels, g.width, g.height, g.width, &p);
  g_assert_cmpuint (ref->len, >, 0);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    ClvVjDetector *d = detector_unrolled (c, variants[v].variant,
        variants[v].unroll, tuning);
    GArray *got = gpu_candidates (d, &g, &p);
    char *what = g_strdup_printf ("%s %s %dx%d x%g %s%s", k->cascade,
        k->image, g.width, g.height, k->scale_factor, variants[v].name,
        tuning ? tuning : "");
    assert_rects_equal (got, ref, what);
    g_free (what);
    g_array_free (got, TRUE);
    clv_vj_detector_free (d);
  }
  g_array_free (ref, TRUE);
  if (k->width)
    g_free (g.pixels);
  g_free (full.pixels);
  clv_cascade_free (c);
}

static const Case cases[] = {
  {"frontalface_default", "grace_hopper", 0, 0, 1.1},
  {"frontalface_alt", "astronaut", 0, 0, 1.2},
  {"frontalface_alt2", "grace_hopper", 0, 0, 1.2},
  {"frontalface_alt_tree", "astronaut", 256, 256, 1.1},
  {"frontalface_default", "astronaut", 200, 171, 1.2},
  /* tilted features */
  {"smile", "astronaut", 160, 160, 1.2},
  /* LBP */
  {"lbp_frontalface", "grace_hopper", 256, 256, 1.1},
  {"lbp_frontalface_improved", "franck-2500", 0, 0, 1.2},
};

static void
test_candidates_match_reference (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_candidates (&cases[i], NULL);
}

/* The cooperative path on every stage (all split sums) still equals it. */
static void
test_all_stages_cooperative (void)
{
  check_candidates (&cases[0], "coop-all");
  check_candidates (&cases[2], "coop-all");
}

/* How many stages a detector of `c` compiles in. */
static int
unrolled_stages (const ClvCascade * c, ClvVjVariant variant, gboolean unroll,
    int coop_stage)
{
  GError *error = NULL;
  ClvVjTuning t;
  ClvVjDetector *d;
  int n;

  clv_vj_tuning_for_device (device, &t);
  t.variant = variant;
  t.unroll = unroll;
  t.coop_stage = coop_stage;
  d = clv_vj_detector_new (device, c, &t, &error);
  g_assert_no_error (error);
  n = clv_vj_detector_unrolled_stages (d);
  clv_vj_detector_free (d);
  return n;
}

/* The tiled variant compiles the stages before the cooperative ones into
 * its code, for stump cascades and a bounded number of trees only, and
 * with four such stages (the GPU default) still equals the reference,
 * tilted features included. */
static void
test_stages_compiled_in (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvCascade *tree = load_cascade ("frontalface_alt2");

  g_assert_cmpint (unrolled_stages (c, CLV_VJ_VARIANT_TILED, TRUE, 3), ==, 3);
  g_assert_cmpint (unrolled_stages (c, CLV_VJ_VARIANT_TILED, TRUE, 4), ==, 4);
  g_assert_cmpint (unrolled_stages (c, CLV_VJ_VARIANT_TILED, FALSE, 3), ==,
      0);
  g_assert_cmpint (unrolled_stages (c, CLV_VJ_VARIANT_UBER, TRUE, 3), ==, 0);
  /* Trees of two nodes. */
  g_assert_cmpint (unrolled_stages (tree, CLV_VJ_VARIANT_TILED, TRUE, 3), ==,
      0);
  /* Every stage one window per work-item: 2,913 trees. */
  g_assert_cmpint (unrolled_stages (c, CLV_VJ_VARIANT_TILED, TRUE,
          c->n_stages), ==, 0);
  clv_cascade_free (tree);
  clv_cascade_free (c);

  check_candidates (&cases[0], "coop-4");
  check_candidates (&cases[5], "coop-4");
}

/* The small shape's cooperative stages that read a stump cascade's stage
 * from local memory (the NVIDIA default) equal it too, tilted features
 * included; trees of several nodes and LBP keep their nodes where they
 * are. */
static void
test_stage_nodes_local (void)
{
  check_candidates (&cases[0], "small-stage-nodes");
  check_candidates (&cases[4], "small-stage-nodes");
  check_candidates (&cases[5], "small-stage-nodes");
  check_candidates (&cases[3], "small-stage-nodes");
  check_candidates (&cases[6], "small-stage-nodes");
}

/* A two-stage cascade on noise: thousands of candidates (the output buffer
 * grows) and many stage-0 rejections next to each other, where OpenCV's
 * skip-the-next-window rule decides which windows count. */
static void
test_skip_rule_and_many_candidates (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvCascade weak = *c;
  ClvImage im;
  Gray g;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  GArray *ref;
  ClvVjIntegrals *in;
  int skipped = 0;

  weak.n_stages = 2;
  g.pixels = clv_test_random_image (&im, 300, 240, 1, 7);
  g.width = 300;
  g.height = 240;
  g_assert_cmpuint (im.stride, ==, 300);
  ref = clv_vj_detect_raw (&weak, g.pixels, g.width, g.height, g.width, &p);
  g_assert_cmpuint (ref->len, >, 4096);
  /* The rule must matter here: some windows that pass are skipped. */
  in = clv_vj_integrals_new (300, 240, FALSE);
  clv_vj_integrals_compute (in, g.pixels, 300, 240, 300);
  for (int y = 0; y < 240 - 24; y += 2) {
    int res[150], n = 0;
    for (int x = 0; x < 300 + 1 - 24; x += 2)
      res[n++] = clv_vj_eval_window (&weak, in, x, y);
    for (int i = 0; i < n; i++)
      skipped += res[i] > 0;
    skipped -= clv_vj_apply_skip (res, n, NULL);
    if (skipped > 0)
      break;
  }
  clv_vj_integrals_free (in);
  g_assert_cmpint (skipped, >, 0);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    ClvVjDetector *d = detector_unrolled (&weak, variants[v].variant,
        variants[v].unroll, NULL);
    GArray *got = gpu_candidates (d, &g, &p);
    assert_rects_equal (got, ref, variants[v].name);
    g_array_free (got, TRUE);
    clv_vj_detector_free (d);
  }
  g_array_free (ref, TRUE);
  g_free (g.pixels);
  clv_cascade_free (c);
}

/* Faces (grouped, clipped) equal clv_vj_detect_ref's, with neighbours. */
static void
test_faces_match_reference (void)
{
  ClvCascade *c = load_cascade ("frontalface_alt2");
  Gray g = load_gray ("astronaut");
  ClvVjDetector *d = detector (c, CLV_VJ_VARIANT_UBER, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  cl_mem m = upload (g.pixels, (gsize) g.width * g.height);
  ClvLumaImage f = clv_luma_image_gray (g.width, g.height, 0, g.width);
  GError *error = NULL;

  for (int mn = 0; mn <= 3; mn += 3) {
    GArray *ref, *got;
    p.min_neighbors = mn;
    ref = clv_vj_detect_ref (c, g.pixels, g.width, g.height, g.width, &p);
    got = clv_vj_detector_detect (d, m, &f, &p, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (got->len, ==, ref->len);
    g_assert_cmpuint (got->len, >, 0);
    g_assert_cmpmem (got->data, got->len * sizeof (ClvVjFace), ref->data,
        ref->len * sizeof (ClvVjFace));
    g_array_free (ref, TRUE);
    g_array_free (got, TRUE);
  }
  clReleaseMemObject (m);
  clv_vj_detector_free (d);
  g_free (g.pixels);
  clv_cascade_free (c);
}

/* Scores (reject levels and level weights) equal clv_vj_detect_ref's, for
 * every variant, Haar stumps and trees and LBP, grouped or not. */
static void
test_scores_match_reference (void)
{
  const char *const names[] = { "frontalface_alt2", "lbp_frontalface" };
  Gray full = load_gray ("grace_hopper");
  Gray g = scaled (&full, 256, 256);
  cl_mem m = upload (g.pixels, (gsize) g.width * g.height);
  ClvLumaImage f = clv_luma_image_gray (g.width, g.height, 0, g.width);

  for (guint c = 0; c < G_N_ELEMENTS (names); c++) {
    ClvCascade *cascade = load_cascade (names[c]);
    for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
      ClvVjDetector *d = detector_unrolled (cascade, variants[v].variant,
          variants[v].unroll, NULL);
      for (int mn = 0; mn <= 3; mn += 3) {
        ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
        GError *error = NULL;
        GArray *ref, *got;
        char *what = g_strdup_printf ("%s %s min-neighbors %d", names[c],
            variants[v].name, mn);

        p.min_neighbors = mn;
        p.output_reject_levels = TRUE;
        ref = clv_vj_detect_ref (cascade, g.pixels, g.width, g.height,
            g.width, &p);
        got = clv_vj_detector_detect (d, m, &f, &p, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (ref->len, >, 0);
        vj_test_assert_scores (ref, got, what);
        for (guint i = 0; i < got->len; i++)
          g_assert_cmpfloat (g_array_index (got, ClvVjFace, i).level_weight,
              ==, g_array_index (ref, ClvVjFace, i).level_weight);
        g_free (what);
        g_array_free (ref, TRUE);
        g_array_free (got, TRUE);
      }
      clv_vj_detector_free (d);
    }
    clv_cascade_free (cascade);
  }
  clReleaseMemObject (m);
  g_free (g.pixels);
  g_free (full.pixels);
}

/* Sixteen regions of one frame (a face cascade's in 4 x 4 crops of one
 * picture, some at its edges, one too small for the window) equal the
 * reference on each crop, for gray and packed RGB frames, with one
 * pyramid launch (a luma launch more for RGB) and one detection launch. */
static void
test_regions_one_launch (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  Gray g = load_gray ("astronaut");
  const int k = g.width / 4;
  ClvRect regions[16];
  guint8 *rgb = g_malloc ((gsize) g.width * g.height * 3);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;

  p.min_neighbors = 0;
  for (int i = 0; i < 16; i++)
    regions[i] = (ClvRect) {
    (i % 4) * k, (i / 4) * k, i == 5 ? 20 : k + (i % 4 == 3 ? 0 : 40),
          i == 5 ? 20 : k + (i / 4 == 3 ? 0 : 40)};
  for (gsize i = 0; i < (gsize) g.width * g.height; i++)
    rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = g.pixels[i];
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    ClvVjDetector *d;
    if (variants[v].variant == CLV_VJ_VARIANT_SIMPLE)
      continue;
    d = detector_unrolled (c, variants[v].variant, variants[v].unroll, NULL);
    for (int packed = 0; packed < 2; packed++) {
      cl_mem m = packed ? upload (rgb, (gsize) g.width * g.height * 3)
          : upload (g.pixels, (gsize) g.width * g.height);
      ClvLumaImage f = clv_luma_image_gray (g.width, g.height, 0, g.width);
      GError *error = NULL;
      GPtrArray *got;

      if (packed) {
        f.image.bpp = 3;
        f.image.stride = (gsize) g.width * 3;
        f.r = 0;
        f.g = 1;
        f.b = 2;
      }
      got = clv_vj_detector_detect_regions (d, m, &f, regions, 16, &p,
          &error);
      g_assert_no_error (error);
      g_assert_cmpuint (got->len, ==, 16);
      for (int i = 0; i < 16; i++) {
        const ClvRect *r = &regions[i];
        GArray *ref = clv_vj_detect_ref (c, g.pixels + r->y * g.width + r->x,
            r->width, r->height, g.width, &p);
        char *what = g_strdup_printf ("%s region %d%s", variants[v].name, i,
            packed ? " (RGB)" : "");
        vj_test_assert_faces (ref, got->pdata[i], 0, what);
        g_free (what);
        g_array_free (ref, TRUE);
      }
      g_assert_cmpuint (clv_vj_detector_launches (d, variants[v].variant
              == CLV_VJ_VARIANT_CPU ? "vj_cpu_levels" : "vj_band_sums"),
          ==, 1);
      g_assert_cmpuint (clv_vj_detector_launches (d, "vj_luma"), ==, packed);
      g_assert_cmpuint (clv_vj_detector_launches (d, variants[v].variant
              == CLV_VJ_VARIANT_CPU ? "vj_detect_cpu" : variants[v].variant
              == CLV_VJ_VARIANT_TILED ? "vj_detect_tiled" : "vj_detect_uber"),
          ==, 1);
      g_ptr_array_unref (got);
      clReleaseMemObject (m);
    }
    clv_vj_detector_free (d);
  }
  g_free (rgb);
  g_free (g.pixels);
  clv_cascade_free (c);
}

/* The device's busy record (the benchmarks' busy fraction) holds the
 * detection kernels run between start and stop, and nothing outside. */
static void
test_busy_record (void)
{
  ClvCascade *c = load_cascade ("frontalface_alt2");
  Gray g = load_gray ("astronaut");
  ClvVjDetector *d = detector (c, CLV_VJ_VARIANT_UBER, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  cl_mem m = upload (g.pixels, (gsize) g.width * g.height);
  ClvLumaImage f = clv_luma_image_gray (g.width, g.height, 0, g.width);
  GError *error = NULL;
  double span = -1, fraction;

  for (int run = 0; run < 3; run++) {
    GArray *faces;

    if (run == 1)
      clv_device_busy_start (device);
    faces = clv_vj_detector_detect (d, m, &f, &p, &error);
    g_assert_no_error (error);
    g_array_free (faces, TRUE);
    if (run == 0) {
      g_assert_cmpfloat (clv_device_busy_stop (device, &span), ==, 0);
      g_assert_cmpfloat (span, ==, 0);
    }
  }
  fraction = clv_device_busy_stop (device, &span);
  g_assert_cmpfloat (span, >, 0);
  g_assert_cmpfloat (fraction, >, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  /* Stopping ended the record. */
  g_assert_cmpfloat (clv_device_busy_stop (device, &span), ==, 0);
  clReleaseMemObject (m);
  clv_vj_detector_free (d);
  g_free (g.pixels);
  clv_cascade_free (c);
}

/* Packed RGB(x) with an offset and a padded stride: the device luma equals
 * OpenCV's RGB->GRAY, so the candidates equal the reference's on it. */
static void
test_packed_rgb (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  Gray full = load_gray ("grace_hopper");
  Gray g = scaled (&full, 240, 240);
  ClvVjDetector *d = detector (c, CLV_VJ_VARIANT_UBER, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  const int w = g.width, h = g.height;
  const gsize offset = 13, stride = w * 4 + 12;
  guint8 *rgbx = g_malloc0 (offset + stride * h), *gray = g_malloc (w * h);
  GRand *rand = g_rand_new_with_seed (3);
  GError *error = NULL;
  GArray *ref, *got;
  cl_mem m;

  /* A colour picture whose luma is not the gray one: channels differ. */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint8 *px = rgbx + offset + y * stride + x * 4;
      int v = g.pixels[y * w + x];
      px[0] = (guint8) CLAMP (v + g_rand_int_range (rand, -40, 40), 0, 255);
      px[1] = (guint8) v;
      px[2] = (guint8) CLAMP (v + g_rand_int_range (rand, -40, 40), 0, 255);
      px[3] = 0xff;
    }
  /* As BGRx: b at byte 0, g at 1, r at 2. */
  clv_rgb_to_gray_ref (rgbx + offset, stride, 4, 2, 1, 0, w, h, gray, w);
  ref = clv_vj_detect_raw (c, gray, w, h, w, &p);
  m = upload (rgbx, offset + stride * h);
  {
    ClvLumaImage f = { clv_image_make (w, h, 4, stride), 2, 1, 0 };
    f.image.offset = offset;
    got = clv_vj_detector_candidates (d, m, &f, &p, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (ref->len, >, 0);
  assert_rects_equal (got, ref, "BGRx");
  {
    guint8 *level0 = g_malloc (w * h);
    g_assert_true (clv_vj_detector_read_level (d, 0, level0, NULL, &error));
    g_assert_cmpmem (level0, w * h, gray, w * h);
    g_free (level0);
  }
  g_rand_free (rand);
  g_array_free (ref, TRUE);
  g_array_free (got, TRUE);
  clReleaseMemObject (m);
  clv_vj_detector_free (d);
  g_free (rgbx);
  g_free (gray);
  g_free (g.pixels);
  g_free (full.pixels);
  clv_cascade_free (c);
}

/* A luma plane inside a bigger buffer (offset, stride) as YUV formats have. */
static void
test_plane_with_offset_and_stride (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  Gray full = load_gray ("grace_hopper");
  Gray g = scaled (&full, 250, 250);
  ClvVjDetector *d = detector (c, CLV_VJ_VARIANT_SIMPLE, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  const gsize offset = 100, stride = 256;
  guint8 *buf = g_malloc0 (offset + stride * g.height + 4000);
  ClvLumaImage f = clv_luma_image_gray (g.width, g.height, offset, stride);
  GError *error = NULL;
  GArray *ref, *got;
  cl_mem m;

  for (int y = 0; y < g.height; y++)
    memcpy (buf + offset + y * stride, g.pixels + y * g.width, g.width);
  m = upload (buf, offset + stride * g.height + 4000);
  ref = clv_vj_detect_raw (c, g.pixels, g.width, g.height, g.width, &p);
  got = clv_vj_detector_candidates (d, m, &f, &p, &error);
  g_assert_no_error (error);
  assert_rects_equal (got, ref, "plane");
  g_array_free (ref, TRUE);
  g_array_free (got, TRUE);
  clReleaseMemObject (m);
  clv_vj_detector_free (d);
  g_free (buf);
  g_free (g.pixels);
  g_free (full.pixels);
  clv_cascade_free (c);
}

/* Frames smaller than the window, or with min size above the frame: no
 * windows, no error; a bad scale factor or a frame too large to index is
 * an error. */
static void
check_tiny_frames (ClvVjVariant variant)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvVjDetector *d = detector (c, variant, NULL);
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  guint8 px[40 * 40];
  GError *error = NULL;
  cl_mem m;
  GArray *got;
  const int sizes[][2] = { {1, 1}, {23, 100}, {100, 23}, {24, 24} };

  memset (px, 128, sizeof (px));
  m = upload (px, sizeof (px));
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    ClvLumaImage f = clv_luma_image_gray (sizes[i][0], sizes[i][1], 0,
        sizes[i][0]);
    if (f.image.width * f.image.height > 40 * 40)
      f.image.height = 40 * 40 / f.image.width;
    got = clv_vj_detector_detect (d, m, &f, &p, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (got->len, ==, 0);
    g_array_free (got, TRUE);
  }
  {
    ClvLumaImage f = clv_luma_image_gray (40, 40, 0, 40);
    p.min_width = p.min_height = 41;
    got = clv_vj_detector_detect (d, m, &f, &p, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (got->len, ==, 0);
    g_array_free (got, TRUE);
    p.scale_factor = 1.0;
    g_assert_null (clv_vj_detector_detect (d, m, &f, &p, &error));
    g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
    g_clear_error (&error);
  }
  {
    /* Too large for int indexing: an error before anything is read. */
    ClvLumaImage f = clv_luma_image_gray (40000, 40000, 0, 40000);
    p = (ClvVjParams) CLV_VJ_PARAMS_DEFAULT;
    g_assert_null (clv_vj_detector_detect (d, m, &f, &p, &error));
    g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "too large"));
    g_clear_error (&error);
  }
  clReleaseMemObject (m);
  clv_vj_detector_free (d);
  clv_cascade_free (c);
}

static void
test_tiny_frames (void)
{
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    check_tiny_frames (variants[v].variant);
}

/* One frame of a batch test: a picture in one of the layouts the element
 * hands over, its parameters, and the reference candidates of its luma. */
typedef enum
{ LAYOUT_GRAY, LAYOUT_PLANE, LAYOUT_BGRX } Layout;

typedef struct
{
  const char *image;
  int width, height;            /* 0: as is */
  Layout layout;
  double scale_factor;
  int min_size;
} BatchCase;

typedef struct
{
  cl_mem mem;
  ClvLumaImage image;
  ClvVjParams params;
  GArray *ref;
} BatchFrame;

static BatchFrame
batch_frame (const ClvCascade * c, const BatchCase * k)
{
  Gray full = load_gray (k->image);
  Gray g = k->width ? scaled (&full, k->width, k->height) : full;
  const int w = g.width, h = g.height;
  BatchFrame f;

  f.params = (ClvVjParams) CLV_VJ_PARAMS_DEFAULT;
  f.params.scale_factor = k->scale_factor;
  f.params.min_width = f.params.min_height = k->min_size;
  f.ref = clv_vj_detect_raw (c, g.pixels, w, h, w, &f.params);
  if (k->layout == LAYOUT_GRAY) {
    f.image = clv_luma_image_gray (w, h, 0, w);
    f.mem = upload (g.pixels, (gsize) w * h);
  } else if (k->layout == LAYOUT_PLANE) {
    /* A luma plane after an offset, rows padded (YUV formats). */
    const gsize offset = 100, stride = clv_round_up (w, 64);
    guint8 *buf = g_malloc0 (offset + stride * h);
    for (int y = 0; y < h; y++)
      memcpy (buf + offset + y * stride, g.pixels + (gsize) y * w, w);
    f.image = clv_luma_image_gray (w, h, offset, stride);
    f.mem = upload (buf, offset + stride * h);
    g_free (buf);
  } else {
    /* BGRx with equal channels: its luma is the gray picture. */
    const gsize offset = 12, stride = (gsize) w * 4 + 8;
    guint8 *buf = g_malloc0 (offset + stride * h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        memset (buf + offset + y * stride + x * 4, g.pixels[y * w + x], 4);
    f.image = (ClvLumaImage) {
    clv_image_make (w, h, 4, stride), 2, 1, 0};
    f.image.image.offset = offset;
    f.mem = upload (buf, offset + stride * h);
    g_free (buf);
  }
  if (k->width)
    g_free (g.pixels);
  g_free (full.pixels);
  return f;
}

/* Frames of several sizes, layouts and parameters, one without windows. */
static const BatchCase batch_cases[] = {
  {"grace_hopper", 0, 0, LAYOUT_GRAY, 1.1, 0},
  {"astronaut", 200, 171, LAYOUT_BGRX, 1.2, 0},
  {"astronaut", 256, 256, LAYOUT_PLANE, 1.1, 0},
  {"grace_hopper", 20, 20, LAYOUT_GRAY, 1.1, 0},
  {"astronaut", 0, 0, LAYOUT_PLANE, 1.2, 60},
  {"grace_hopper", 333, 301, LAYOUT_BGRX, 1.2, 0},
  {"franck-1000", 320, 240, LAYOUT_GRAY, 1.1, 0},
  {"grace_hopper", 250, 250, LAYOUT_GRAY, 1.3, 30},
};

/* Runs frames[order[0..n)] as one batch and checks that each frame's
 * candidates equal the reference's, in order. */
static void
check_batch (ClvVjDetector * d, BatchFrame * frames, const guint * order,
    guint n, const char *what)
{
  ClvVjFrame *batch = g_new0 (ClvVjFrame, n);
  GError *error = NULL;

  for (guint i = 0; i < n; i++) {
    BatchFrame *f = &frames[order[i]];
    batch[i] = (ClvVjFrame) {
    .frame = f->mem,.image = f->image,.params = f->params};
  }
  g_assert_true (clv_vj_detector_candidates_batch (d, batch, n, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++) {
    char *name = g_strdup_printf ("%s, batch of %u, position %u (frame %u)",
        what, n, i, order[i]);
    assert_rects_equal (batch[i].candidates, frames[order[i]].ref, name);
    g_free (name);
    g_array_free (batch[i].candidates, TRUE);
    g_array_free (batch[i].weights, TRUE);
  }
  g_free (batch);
}

/* Batches of 1 to 8 frames in shuffled orders give every frame exactly the
 * reference's candidates (each lands on its own frame), for every variant,
 * also after batches of other sizes have been through the detector. */
static void
test_batches_match_reference (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  const guint n = G_N_ELEMENTS (batch_cases);
  BatchFrame frames[G_N_ELEMENTS (batch_cases)];
  GRand *rand = g_rand_new_with_seed (11);
  guint order[G_N_ELEMENTS (batch_cases)];

  for (guint i = 0; i < n; i++)
    frames[i] = batch_frame (c, &batch_cases[i]);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    const gboolean simple = variants[v].variant == CLV_VJ_VARIANT_SIMPLE;
    ClvVjDetector *d = detector_unrolled (c, variants[v].variant,
        variants[v].unroll, NULL);
    for (guint m = simple ? n : 1; m <= n; m++) {
      for (guint i = 0; i < n; i++)
        order[i] = i;
      for (guint i = n - 1; i > 0; i--) {
        guint j = g_rand_int_range (rand, 0, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      check_batch (d, frames, order, m, variants[v].name);
    }
    clv_vj_detector_free (d);
  }
  for (guint i = 0; i < n; i++) {
    clReleaseMemObject (frames[i].mem);
    g_array_free (frames[i].ref, TRUE);
  }
  g_rand_free (rand);
  clv_cascade_free (c);
}

/* A cascade with tilted features: the tilted integrals of every frame of
 * a batch live in their own bands too. */
static void
test_batch_tilted (void)
{
  ClvCascade *c = load_cascade ("smile");
  const BatchCase k[] = {
    {"astronaut", 160, 160, LAYOUT_GRAY, 1.2, 0},
    {"grace_hopper", 150, 170, LAYOUT_BGRX, 1.2, 0},
    {"astronaut", 120, 100, LAYOUT_PLANE, 1.1, 0},
  };
  BatchFrame frames[G_N_ELEMENTS (k)];
  const guint order[] = { 2, 0, 1 };

  for (guint i = 0; i < G_N_ELEMENTS (k); i++)
    frames[i] = batch_frame (c, &k[i]);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    ClvVjDetector *d = detector_unrolled (c, variants[v].variant,
        variants[v].unroll, NULL);
    check_batch (d, frames, order, G_N_ELEMENTS (k), variants[v].name);
    clv_vj_detector_free (d);
  }
  for (guint i = 0; i < G_N_ELEMENTS (k); i++) {
    clReleaseMemObject (frames[i].mem);
    g_array_free (frames[i].ref, TRUE);
  }
  clv_cascade_free (c);
}

/* Streams submitting to the per-device service from their own threads. */
typedef struct
{
  ClvBatchService *svc;
  BatchFrame *frames;
  GArray **faces;               /* expected, per frame */
  guint first, rounds, n_frames;
  gboolean too_large;           /* submits a frame no batch can hold */
  GMutex *lock;
  GCond *cond;
  gboolean *go;
} Stream;

static gpointer
stream_thread (gpointer data)
{
  Stream *s = data;

  g_mutex_lock (s->lock);
  while (!*s->go)
    g_cond_wait (s->cond, s->lock);
  g_mutex_unlock (s->lock);
  for (guint r = 0; r < s->rounds; r++) {
    GError *error = NULL;
    GArray *got;

    if (s->too_large) {
      ClvLumaImage f = clv_luma_image_gray (40000, 40000, 0, 40000);
      ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
      got = clv_vj_service_detect (s->svc, s->frames[0].mem, &f, &p, NULL,
          &error);
      g_assert_null (got);
      g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "too large"));
      g_clear_error (&error);
    } else {
      const guint k = (s->first + r) % s->n_frames;
      BatchFrame *f = &s->frames[k];
      got = clv_vj_service_detect (s->svc, f->mem, &f->image, &f->params,
          NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (got->len, ==, s->faces[k]->len);
      g_assert_cmpmem (got->data, got->len * sizeof (ClvVjFace),
          s->faces[k]->data, got->len * sizeof (ClvVjFace));
      g_array_free (got, TRUE);
    }
  }
  return NULL;
}

/* Eight streams and one that sends a frame too large for any batch: each
 * stream's faces are its own frame's reference faces, the bad frame's
 * error stays with it, and frames gathered into shared batches. */
static void
test_service_streams (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvCascade *other = load_cascade ("frontalface_alt");
  const guint n = G_N_ELEMENTS (batch_cases), rounds = 6;
  BatchFrame frames[G_N_ELEMENTS (batch_cases)];
  GArray *faces[G_N_ELEMENTS (batch_cases)];
  Stream streams[G_N_ELEMENTS (batch_cases) + 1];
  GThread *threads[G_N_ELEMENTS (batch_cases) + 1];
  GMutex lock;
  GCond cond;
  gboolean go = FALSE;
  GError *error = NULL;
  ClvBatchService *svc = clv_vj_service_get (device, c, CLV_VJ_VARIANT_AUTO,
      CLV_BATCH_DEFAULT_FRAMES, &error), *same, *alt[3];
  ClvBatchStats st;

  g_assert_no_error (error);
  /* One service per device, cascade file, variant and batch size. */
  same = clv_vj_service_get (device, c, CLV_VJ_VARIANT_AUTO,
      CLV_BATCH_DEFAULT_FRAMES, &error);
  alt[0] = clv_vj_service_get (device, other, CLV_VJ_VARIANT_AUTO,
      CLV_BATCH_DEFAULT_FRAMES, &error);
  alt[1] = clv_vj_service_get (device, c, CLV_VJ_VARIANT_UBER,
      CLV_BATCH_DEFAULT_FRAMES, &error);
  alt[2] = clv_vj_service_get (device, c, CLV_VJ_VARIANT_AUTO, 4, &error);
  g_assert_no_error (error);
  g_assert_true (same == svc);
  clv_batch_service_unref (same);
  for (guint i = 0; i < G_N_ELEMENTS (alt); i++) {
    g_assert_true (alt[i] != svc);
    clv_batch_service_unref (alt[i]);
  }

  g_mutex_init (&lock);
  g_cond_init (&cond);
  for (guint i = 0; i < n; i++) {
    frames[i] = batch_frame (c, &batch_cases[i]);
    faces[i] = clv_vj_group_faces (frames[i].ref, frames[i].params.min_neighbors,
        frames[i].image.image.width, frames[i].image.image.height);
  }
  for (guint i = 0; i <= n; i++) {
    streams[i] = (Stream) {
    svc, frames, faces, i, i < n ? rounds : 2, n, i == n, &lock, &cond,
          &go};
    threads[i] = g_thread_new ("stream", stream_thread, &streams[i]);
  }
  g_mutex_lock (&lock);
  go = TRUE;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
  for (guint i = 0; i <= n; i++)
    g_thread_join (threads[i]);

  clv_batch_service_stats (svc, &st);
  g_assert_cmpuint (st.requests, ==, n * rounds + 2);
  g_assert_cmpuint (st.batches, <, st.requests);
  g_assert_cmpuint (st.max_batch_seen, >=, 2);
  g_test_message ("%" G_GUINT64_FORMAT " frames in %" G_GUINT64_FORMAT
      " batches, the largest %u", st.requests, st.batches, st.max_batch_seen);
  clv_batch_service_unref (svc);
  for (guint i = 0; i < n; i++) {
    clReleaseMemObject (frames[i].mem);
    g_array_free (frames[i].ref, TRUE);
    g_array_free (faces[i], TRUE);
  }
  g_mutex_clear (&lock);
  g_cond_clear (&cond);
  clv_cascade_free (other);
  clv_cascade_free (c);
}

/* Split sums are allowed for OpenCV's cascades; not when a leaf is too
 * small for its stage's sum to stay exact in double, and then the detector
 * keeps every stage per work-item and still matches. */
static void
test_split_sums_only_when_exact (void)
{
  const char *names[] = { "frontalface_default",
    "frontalface_alt", "frontalface_alt2",
    "frontalface_alt_tree"
  };
  ClvCascade *c;
  float saved;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    c = load_cascade (names[i]);
    g_assert_true (clv_vj_cascade_sums_exact (c, 0));
    clv_cascade_free (c);
  }
  c = load_cascade ("frontalface_default");
  saved = c->leaves[c->trees[c->stages[5].first_tree].first_leaf];
  c->leaves[c->trees[c->stages[5].first_tree].first_leaf] = 1e-30f;
  g_assert_false (clv_vj_cascade_sums_exact (c, 3));
  g_assert_true (clv_vj_cascade_sums_exact (c, 6));
  c->leaves[c->trees[c->stages[5].first_tree].first_leaf] = saved;
  clv_cascade_free (c);
}

/* The tiled variant's detection work-group for `g`: the small shape's
 * where the batch has at most `small_tiles` tiles per compute unit. */
static int
detect_wg (const ClvCascade * c, const Gray * g, int small_tiles)
{
  GError *error = NULL;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  ClvVjTuning t;
  ClvVjDetector *d;
  GArray *got;
  int wg;

  clv_vj_tuning_for_device (device, &t);
  t.variant = CLV_VJ_VARIANT_TILED;
  set_double_small_shape (&t);
  t.small_tiles = small_tiles;
  d = clv_vj_detector_new (device, c, &t, &error);
  g_assert_no_error (error);
  g_assert_cmpint (clv_vj_detector_last_detect_wg (d), ==, 0);
  got = gpu_candidates (d, g, &p);
  wg = clv_vj_detector_last_detect_wg (d);
  g_assert_true (wg == t.wg || wg == t.small_wg);
  g_array_free (got, TRUE);
  clv_vj_detector_free (d);
  return wg;
}

/* Batches of few tiles (VJ_SMALL_TILES per compute unit) run the small
 * shape (VJ_SMALL_WG, VJ_SMALL_COOP_WINDOWS), others the usual one; the
 * small shape's windows equal the reference's, tilted features and LBP
 * included. */
static void
test_small_frames_shape (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  Gray g = load_gray ("grace_hopper");
  ClvVjTuning t;

  clv_vj_tuning_for_device (device, &t);
  g_assert_cmpint (detect_wg (c, &g, G_MAXINT), ==, 2 * t.wg);
  g_assert_cmpint (detect_wg (c, &g, 0), ==, t.wg);
  g_free (g.pixels);
  clv_cascade_free (c);
  check_candidates (&cases[0], "small");
  check_candidates (&cases[5], "small");
  check_candidates (&cases[7], "small");
}

/* The detector refuses tuning `t` with an error that says `says` (and
 * `also`, if not NULL). */
static void
assert_tuning_refused (const ClvCascade * c, const ClvVjTuning * t,
    const char *says, const char *also)
{
  GError *error = NULL;

  g_assert_null (clv_vj_detector_new (device, c, t, &error));
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, says));
  if (also)
    g_assert_nonnull (strstr (error->message, also));
  g_clear_error (&error);
}

/* Bad tuning is an error that names the values, not a crash. */
static void
test_bad_tuning (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvVjTuning t;

  clv_vj_tuning_for_device (device, &t);
  t.coop_windows = 3;
  t.wg = 8;
  assert_tuning_refused (c, &t, "VJ_COOP_WINDOWS=3", NULL);
  /* A tile larger than the device's local memory. */
  clv_vj_tuning_for_device (device, &t);
  t.variant = CLV_VJ_VARIANT_TILED;
  t.tile_x = (int) device->local_mem_size;
  assert_tuning_refused (c, &t, "local memory", "VJ_TILE_X");
  /* A tile of more integrals than the nodes' 16-bit offsets reach (one
   * that fits PoCL's local memory). */
  clv_vj_tuning_for_device (device, &t);
  t.variant = CLV_VJ_VARIANT_TILED;
  t.tile_x = 128;
  t.tile_y = 64;
  assert_tuning_refused (c, &t, "16 bits", NULL);
  /* The cpu variant's vectors are 8 or 16 windows wide. */
  clv_vj_tuning_for_device (device, &t);
  t.variant = CLV_VJ_VARIANT_CPU;
  t.lanes = 4;
  assert_tuning_refused (c, &t, "VJ_LANES", "(4)");
  /* The small shape's windows at once must divide its work-group. */
  clv_vj_tuning_for_device (device, &t);
  t.small_wg = 24;
  t.small_coop_windows = 5;
  assert_tuning_refused (c, &t, "VJ_SMALL_WG=24", "VJ_SMALL_COOP_WINDOWS=5");
  clv_vj_tuning_for_device (device, &t);
  set_double_small_shape (&t);
  t.small_groups_per_cu = 0;
  assert_tuning_refused (c, &t, "VJ_SMALL_GROUPS_PER_CU=0", NULL);
  clv_cascade_free (c);
}

/* The device's own tuning (what the elements use) with tiles too large
 * for local memory: the detector runs over chunks and still equals the
 * reference, where the same values passed in are refused above. */
static void
test_tile_too_large_falls_back (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  Gray g = load_gray ("grace_hopper");
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  char *tune = g_strdup_printf ("VJ_VARIANT=tiled,VJ_TILE_X=%"
      G_GUINT64_FORMAT, device->local_mem_size);
  GError *error = NULL;
  ClvVjDetector *d;
  GArray *ref, *got;

  g_setenv ("CLVISION_TUNE", tune, TRUE);
  d = clv_vj_detector_new (device, c, NULL, &error);
  g_unsetenv ("CLVISION_TUNE");
  g_assert_no_error (error);
  g_assert_nonnull (d);
  ref = clv_vj_detect_raw (c, g.pixels, g.width, g.height, g.width, &p);
  got = gpu_candidates (d, &g, &p);
  g_assert_cmpuint (ref->len, >, 0);
  assert_rects_equal (got, ref, "tiles too large, over chunks");
  g_array_free (got, TRUE);
  g_array_free (ref, TRUE);
  clv_vj_detector_free (d);
  g_free (g.pixels);
  g_free (tune);
  clv_cascade_free (c);
}

/* VJ_MAX_REGISTERS: with NVIDIA's compiler a register cap still gives the
 * reference's windows; elsewhere, and for a negative count, a clear error. */
static void
test_register_limit (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvVjTuning t;
  GError *error = NULL;
  ClvVjDetector *d;

  clv_vj_tuning_for_device (device, &t);
  t.max_registers = -1;
  assert_tuning_refused (c, &t, "VJ_MAX_REGISTERS=-1", NULL);

  t.max_registers = 64;
  d = clv_vj_detector_new (device, c, &t, &error);
  if (d == NULL) {
    g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "does not have"));
    g_clear_error (&error);
  } else {
    clv_vj_detector_free (d);
    check_candidates (&cases[0], "registers-64");
  }
  clv_cascade_free (c);
}

/* VJ_SHUFFLE: where the device takes them (NVIDIA) the default, and the
 * barriers' path without them gives the reference's windows too; elsewhere
 * VJ_SHUFFLE=1 is a clear error, as is a value not 0, 1 or -1. */
static void
test_warp_shuffles (void)
{
  ClvCascade *c = load_cascade ("frontalface_default");
  ClvVjTuning t;
  GError *error = NULL;
  ClvVjDetector *d;
  gboolean by_default;

  clv_vj_tuning_for_device (device, &t);
  t.shuffle = 2;
  assert_tuning_refused (c, &t, "VJ_SHUFFLE=2", NULL);

  clv_vj_tuning_for_device (device, &t);
  d = clv_vj_detector_new (device, c, &t, &error);
  g_assert_no_error (error);
  by_default = clv_vj_detector_shuffles (d);
  clv_vj_detector_free (d);

  t.shuffle = 1;
  d = clv_vj_detector_new (device, c, &t, &error);
  if (d == NULL) {
    g_assert_false (by_default);
    g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "warp shuffles need"));
    g_clear_error (&error);
  } else {
    g_assert_true (by_default);
    g_assert_true (clv_vj_detector_shuffles (d));
    clv_vj_detector_free (d);
    /* Windows over several warps: no shuffles. */
    t.coop_windows = 1;
    t.shuffle = -1;
    d = clv_vj_detector_new (device, c, &t, &error);
    g_assert_no_error (error);
    g_assert_false (clv_vj_detector_shuffles (d));
    clv_vj_detector_free (d);
    check_candidates (&cases[0], "no-shuffles");
    check_candidates (&cases[5], "no-shuffles");
  }
  clv_cascade_free (c);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* The busy record reads kernel times. */
  g_setenv ("CLVISION_PROFILE", "1", TRUE);
  device = clv_test_device ();
  g_test_add_func ("/vj-gpu/pyramid-matches-reference",
      test_pyramid_matches_reference);
  g_test_add_func ("/vj-gpu/candidates-match-reference",
      test_candidates_match_reference);
  g_test_add_func ("/vj-gpu/all-stages-cooperative",
      test_all_stages_cooperative);
  g_test_add_func ("/vj-gpu/stages-compiled-in", test_stages_compiled_in);
  g_test_add_func ("/vj-gpu/stage-nodes-local", test_stage_nodes_local);
  g_test_add_func ("/vj-gpu/skip-rule-and-many-candidates",
      test_skip_rule_and_many_candidates);
  g_test_add_func ("/vj-gpu/faces-match-reference",
      test_faces_match_reference);
  g_test_add_func ("/vj-gpu/scores-match-reference",
      test_scores_match_reference);
  g_test_add_func ("/vj-gpu/regions-one-launch", test_regions_one_launch);
  g_test_add_func ("/vj-gpu/busy-record", test_busy_record);
  g_test_add_func ("/vj-gpu/packed-rgb", test_packed_rgb);
  g_test_add_func ("/vj-gpu/plane-with-offset-and-stride",
      test_plane_with_offset_and_stride);
  g_test_add_func ("/vj-gpu/tiny-frames", test_tiny_frames);
  g_test_add_func ("/vj-gpu/tile-too-large-falls-back",
      test_tile_too_large_falls_back);
  g_test_add_func ("/vj-gpu/batches-match-reference",
      test_batches_match_reference);
  g_test_add_func ("/vj-gpu/batch-tilted", test_batch_tilted);
  g_test_add_func ("/vj-gpu/service-streams", test_service_streams);
  g_test_add_func ("/vj-gpu/split-sums-only-when-exact",
      test_split_sums_only_when_exact);
  g_test_add_func ("/vj-gpu/bad-tuning", test_bad_tuning);
  g_test_add_func ("/vj-gpu/register-limit", test_register_limit);
  g_test_add_func ("/vj-gpu/warp-shuffles", test_warp_shuffles);
  g_test_add_func ("/vj-gpu/small-frames-shape", test_small_frames_shape);
  ret = g_test_run ();
  clv_device_unref (device);
  return ret;
}
