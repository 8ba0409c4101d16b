/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The float SAR kernels (speckle filters, detection, decibels) against
 * their C references, on awkward sizes and every sample type they take. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_GDAL
#include <gdal.h>
#endif

#include "clv-sar.h"
#include "clv-test-util.h"

/* Enqueues the kernel under test from `src` into `dst`. */
typedef gboolean (*EnqueueFunc) (gpointer op, cl_mem src,
    const ClvImage * si, cl_mem dst, const ClvImage * di, GError ** error);

/* The device's Float32 output of `enqueue` on `src` (g_free it). */
static guint8 *
run_on_device (ClvDevice * dev, gpointer op, EnqueueFunc enqueue,
    const guint8 * src, const ClvImage * si, const ClvImage * di)
{
  GError *error = NULL;
  guint8 *out = g_malloc0 (di->stride * di->height);
  cl_mem in_mem = clv_buffer_new (dev, CL_MEM_READ_ONLY,
      si->stride * si->height, &error);
  cl_mem out_mem;

  g_assert_no_error (error);
  out_mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, di->stride * di->height,
      &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, in_mem, CL_TRUE, 0,
          si->stride * si->height, src, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (enqueue (op, in_mem, si, out_mem, di, &error));
  g_assert_no_error (error);
  clv_test_read_buffer (dev, out_mem, out, di->stride * di->height);
  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  return out;
}

static gboolean
speckle_enqueue (gpointer op, cl_mem src, const ClvImage * si, cl_mem dst,
    const ClvImage * di, GError ** error)
{
  return clv_speckle_enqueue (op, src, si, dst, di, NULL, error);
}

static gboolean
pointwise_enqueue (gpointer op, cl_mem src, const ClvImage * si, cl_mem dst,
    const ClvImage * di, GError ** error)
{
  return clv_pointwise_enqueue (op, src, si, dst, di, NULL, error);
}

/* Sizes smaller than a window, than a work-group, and not multiples. */
static const int sizes[][2] = { {1, 1}, {2, 9}, {7, 5}, {65, 33},
{130, 71}
};

/* The device's output of the filter `p` on `src`, built under the
 * CLVISION_TUNE value `tune` (NULL: the defaults). */
static guint8 *
speckle_on_device (ClvDevice * dev, const char *tune, ClvSample sample,
    const ClvSpeckleParams * p, const guint8 * src, const ClvImage * si,
    const ClvImage * di)
{
  GError *error = NULL;
  ClvSpeckle *sp;
  guint8 *out;

  if (tune)
    g_setenv ("CLVISION_TUNE", tune, TRUE);
  sp = clv_speckle_new (dev, sample, p, &error);
  g_unsetenv ("CLVISION_TUNE");
  g_assert_no_error (error);
  out = run_on_device (dev, sp, speckle_enqueue, src, si, di);
  clv_speckle_free (sp);
  return out;
}

/* The filter `p` under `tune` against the C reference on every size; with
 * a tune, its output is also the default shape's, bit for bit. */
static void
check_speckle (ClvDevice * dev, const char *tune, ClvSample sample,
    const ClvSpeckleParams * p)
{
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    ClvImage si, di;
    guint8 *src = clv_test_random_samples (&si, sizes[s][0], sizes[s][1],
        sample, 17 * s + p->filter);
    guint8 *ref, *out;

    di = clv_image_make (si.width, si.height, 4, si.width * 4);
    ref = g_malloc0 (di.stride * di.height);
    clv_speckle_ref (src, &si, sample, ref, &di, p);
    out = speckle_on_device (dev, tune, sample, p, src, &si, &di);
    /* The median picks a value; the others sum in another order, in
     * float on GPUs (within the tolerance against Orfeo ToolBox). */
    if (p->filter == CLV_SPECKLE_MEDIAN)
      clv_test_assert_floats_close (out, ref, &di, 0, 0);
    else
      clv_test_assert_floats_close (out, ref, &di, 1e-4, 1e-6);
    if (tune) {
      guint8 *plain = speckle_on_device (dev, NULL, sample, p, src, &si, &di);

      clv_test_assert_floats_close (out, plain, &di, 0, 0);
      g_free (plain);
    }
    g_free (out);
    g_free (ref);
    g_free (src);
  }
}

/* Every filter, radius 1 and 3 (the median 2 and 4 too: each size of its
 * sorting networks, and the path for windows too large to sort in
 * registers), looks 1 on Float32 and 3.5 on UInt16. */
static void
test_speckle_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const ClvSample samples[2] = { CLV_SAMPLE_F32, CLV_SAMPLE_U16 };

  for (int f = CLV_SPECKLE_LEE; f <= CLV_SPECKLE_MEDIAN; f++)
    for (int r = 1; r <= 4; r++)
      for (int k = 0; k < 2; k++) {
        const ClvSpeckleParams p = { f, r, k ? 3.5 : 1, k ? 2 : 0.1 };

        if (f == CLV_SPECKLE_REFINED_LEE ? r != CLV_REFINED_LEE_RADIUS :
            f != CLV_SPECKLE_MEDIAN && (r == 2 || r == 4))
          continue;
        check_speckle (dev, NULL, samples[k], &p);
      }
  clv_device_unref (dev);
}

/* Column strips of outputs per work-item (SAR_SPECKLE_ROWS), from a local
 * tile and straight from the image (SAR_SPECKLE_LOCAL=0): every filter,
 * radius 1-3, strips that do not divide the sizes and a short work-group;
 * Float32 at odd radii, UInt16 at even ones. */
static void
test_speckle_strips (void)
{
  static const char *tunes[] = { "SAR_SPECKLE_ROWS=16",
    "SAR_SPECKLE_ROWS=5,SAR_SPECKLE_LY=2,SAR_SPECKLE_LX=8",
    "SAR_SPECKLE_ROWS=16,SAR_SPECKLE_LOCAL=0",
    "SAR_SPECKLE_ROWS=5,SAR_SPECKLE_LY=2,SAR_SPECKLE_LX=8,SAR_SPECKLE_LOCAL=0"
  };
  ClvDevice *dev = clv_test_device ();

  for (guint t = 0; t < G_N_ELEMENTS (tunes); t++)
    for (int f = CLV_SPECKLE_LEE; f <= CLV_SPECKLE_MEDIAN; f++)
      for (int r = 1; r <= 3; r++) {
        const ClvSpeckleParams p = { f, r, r % 2 ? 1 : 3.5, r % 2 ? 0.1 : 2 };

        if (f != CLV_SPECKLE_REFINED_LEE || r == CLV_REFINED_LEE_RADIUS)
          check_speckle (dev, tunes[t], r % 2 ? CLV_SAMPLE_F32 :
              CLV_SAMPLE_U16, &p);
      }
  clv_device_unref (dev);
}

/* A uniform image stays as it is: no speckle to reduce. */
static void
test_speckle_uniform (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvImage si = clv_image_make (40, 30, 4, 160);
  guint8 *src = g_malloc (si.stride * si.height), *out;

  for (int i = 0; i < 40 * 30; i++)
    ((float *) src)[i] = 0.125f;
  for (int f = CLV_SPECKLE_LEE; f <= CLV_SPECKLE_MEDIAN; f++) {
    const ClvSpeckleParams p = { f, 2, 4, 0.1 };
    GError *error = NULL;
    ClvSpeckle *sp = clv_speckle_new (dev, CLV_SAMPLE_F32, &p, &error);

    g_assert_no_error (error);
    out = run_on_device (dev, sp, speckle_enqueue, src, &si, &si);
    clv_test_assert_floats_close (out, src, &si, 0, 0);
    clv_speckle_free (sp);
    g_free (out);
  }
  g_free (src);
  clv_device_unref (dev);
}

/* The median on Float32 images of a few values, most windows holding
 * equal ones, with -0 and +0, +-Inf and NaNs of both signs: the device's
 * output is the reference's bit for bit (IEEE 754 totalOrder), at every
 * radius of the sorted path and one of the ranks-counting path, per pixel
 * and in strips. */
static void
test_speckle_median_special (void)
{
  static const char *tunes[] = { "SAR_SPECKLE_ROWS=0", "SAR_SPECKLE_ROWS=7" };
  const float values[] = { -INFINITY, INFINITY, NAN, -NAN, -0.0f, 0.0f, 1,
    1, 1, 2, -3.5f, 1e-40f
  };
  ClvDevice *dev = clv_test_device ();
  ClvImage im = clv_image_make (67, 45, 4, 67 * 4);
  GRand *rand = g_rand_new_with_seed (7);
  float *src = g_new (float, 67 * 45);
  guint8 *ref = g_malloc (im.stride * im.height);

  for (int i = 0; i < 67 * 45; i++)
    src[i] = values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))];
  for (int r = 1; r <= 4; r++) {
    const ClvSpeckleParams p = { CLV_SPECKLE_MEDIAN, r, 1, 0.1 };

    clv_speckle_ref ((const guint8 *) src, &im, CLV_SAMPLE_F32, ref, &im, &p);
    for (guint t = 0; t < G_N_ELEMENTS (tunes); t++) {
      guint8 *out = speckle_on_device (dev, tunes[t], CLV_SAMPLE_F32, &p,
          (const guint8 *) src, &im, &im);

      for (int i = 0; i < 67 * 45; i++)
        if (memcmp (out + 4 * i, ref + 4 * i, 4) != 0)
          g_error ("radius %d, %s: (%d,%d) is %g (0x%08x), not %g (0x%08x)",
              r, tunes[t], i % 67, i / 67, ((float *) out)[i],
              ((guint32 *) out)[i], ((float *) ref)[i], ((guint32 *) ref)[i]);
      g_free (out);
    }
  }
  g_rand_free (rand);
  g_free (ref);
  g_free (src);
  clv_device_unref (dev);
}

/* Float statistics with the double fallback (kernels/sar_speckle.cl's
 * guarded_output), and float alone, as on devices without doubles. */
#define GUARDED "SAR_SPECKLE_FP64=0"
#define UNGUARDED "SAR_SPECKLE_FP64=0,SAR_SPECKLE_GUARD=0"

/* The pixels of the filter `p` under `tune` on the w x h Float32 image
 * `img` that miss the reference by more than the tolerance of the tests
 * against Orfeo ToolBox: 1e-4 relative and 1e-6 absolute. */
static guint
speckle_misses (ClvDevice * dev, const char *tune, const ClvSpeckleParams * p,
    const float *img, int w, int h)
{
  const ClvImage im = clv_image_make (w, h, 4, (gsize) w * 4);
  float *ref = g_new (float, (gsize) w * h), *out;
  guint misses = 0;

  clv_speckle_ref ((const guint8 *) img, &im, CLV_SAMPLE_F32,
      (guint8 *) ref, &im, p);
  out = (float *) speckle_on_device (dev, tune, CLV_SAMPLE_F32, p,
      (const guint8 *) img, &im, &im);
  for (int i = 0; i < w * h; i++)
    misses += !clv_test_float_close (out[i], ref[i], 1e-4, 1e-6);
  g_free (out);
  g_free (ref);
  return misses;
}

/* Lee, Frost, Gamma-MAP and Kuan (whose statistics the fallback guards) at
 * radius `r` with looks 1 or 4 (Frost: deramp 0.1 or 2), as the tests
 * against Orfeo ToolBox run them. */
static ClvSpeckleParams
guarded_params (int f, int r, int k)
{
  const ClvSpeckleParams p = { f, r, k ? 4 : 1, k ? 2 : 0.1 };

  return p;
}

/* The guarded float path equals the reference on `img` for every box-sum
 * filter, radius 1-3, looks 1 and 4; the misses of float alone are
 * logged. */
static void
check_guarded_scene (const char *name, const char *shape, const float *img,
    int w, int h)
{
  ClvDevice *dev = clv_test_device ();
  char *guarded = g_strconcat (GUARDED, shape, NULL);
  char *unguarded = g_strconcat (UNGUARDED, shape, NULL);

  for (int f = CLV_SPECKLE_LEE; f <= CLV_SPECKLE_BOXCAR; f++) {
    if (f == CLV_SPECKLE_REFINED_LEE)
      continue;
    for (int r = 1; r <= 3; r++)
      for (int k = 0; k < 2; k++) {
        const ClvSpeckleParams p = guarded_params (f, r, k);

        g_assert_cmpuint (speckle_misses (dev, guarded, &p, img, w, h), ==,
            0);
        g_test_message ("%s: filter %d, radius %d, looks %g: float alone "
            "misses %u pixels", name, f, r, p.looks, speckle_misses (dev,
                unguarded, &p, img, w, h));
      }
  }
  g_free (unguarded);
  g_free (guarded);
  clv_device_unref (dev);
}

#ifdef HAVE_GDAL
/* The ERS scene as Float32 intensity (its gray values squared), in the
 * strips GPUs run. */
static void
test_speckle_guarded_ers (void)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  GDALDatasetH ds;
  float *img;
  int w, h;

  GDALAllRegister ();
  ds = GDALOpen (png, GA_ReadOnly);
  g_assert_nonnull (ds);
  w = GDALGetRasterXSize (ds);
  h = GDALGetRasterYSize (ds);
  img = g_new (float, (gsize) w * h);
  g_assert_cmpint (GDALRasterIO (GDALGetRasterBand (ds, 1), GF_Read, 0, 0,
          w, h, img, w, h, GDT_Float32, 0, 0), ==, CE_None);
  GDALClose (ds);
  for (int i = 0; i < w * h; i++)
    img[i] *= img[i];
  check_guarded_scene ("ERS", ",SAR_SPECKLE_ROWS=8,SAR_SPECKLE_LOCAL=0", img,
      w, h);
  g_free (img);
  g_free (png);
}
#endif

/* The single-look synthetic scene of the tests against Orfeo ToolBox. */
static void
test_speckle_guarded_synthetic (void)
{
  int w, h;
  float *img = clv_test_speckled_scene (1, &w, &h);

  check_guarded_scene ("synthetic", "", img, w, h);
  g_free (img);
}

/* A statistic of the n values of `cell`, mean and variance in two passes
 * in double as the reference: ci2 = var / e^2 where k > 0, else var. */
static double
cell_statistic (const float *cell, int n, double k)
{
  double sum = 0, sum2 = 0, e;

  for (int j = 0; j < n; j++)
    sum += cell[j];
  e = sum / n;
  for (int j = 0; j < n; j++)
    sum2 += (cell[j] - e) * (cell[j] - e);
  return k > 0 ? sum2 / (n - 1) / (e * e) : sum2 / (n - 1);
}

/* Sets the centre of `cell` (its other values set) to the float that puts
 * the window's statistic nearest `target`: var - k e^2 = t solved for the
 * centre c, with P and Q the sums of the others and their squares:
 * (1 - a) c^2 - 2 a P c + Q - a P^2 - t (n - 1) = 0, a = 1 / n +
 * k (n - 1) / n^2; then the floats around its root are tried.  FALSE
 * where there is no root. */
static gboolean
set_centre (float *cell, int n, double k, double t)
{
  const double a = 1.0 / n + k * (n - 1) / ((double) n * n);
  const double target = k > 0 ? k : t;
  double p = 0, q = 0, disc, best = INFINITY;
  float c;

  cell[n / 2] = 0;
  for (int j = 0; j < n; j++) {
    p += cell[j];
    q += (double) cell[j] * cell[j];
  }
  disc = a * a * p * p - (1 - a) * (q - a * p * p - t * (n - 1));
  if (disc < 0)
    return FALSE;
  c = (float) ((a * p + sqrt (disc)) / (1 - a));
  for (int step = -4; step <= 4; step++) {
    float v = c;
    double miss;

    for (int s = 0; s < abs (step); s++)
      v = nextafterf (v, step < 0 ? 0 : INFINITY);
    cell[n / 2] = v;
    miss = fabs (cell_statistic (cell, n, k) - target);
    if (miss < best) {
      best = miss;
      c = v;
    }
  }
  cell[n / 2] = c;
  return TRUE;
}

/* A Float32 image of 16 x 12 side-by-side windows of radius `r`, whose
 * centres sit, in double, as near as floats allow to a threshold of the
 * rules: ci2 = cu2 (every rule's first branch), ci2 = 2 cu2 (Gamma-MAP's
 * sqrt(ci2) >= cmax) among `looks`-look speckle of mean 1 (whose ci2 is
 * near cu2, so that a centre reaches them), and var = 1e-10 (the variance
 * threshold) among values near 5e-6, where the two sides differ by far
 * more than the tolerance. */
static float *
threshold_image (int r, double looks, int *w, int *h)
{
  const int side = 2 * r + 1, n = side * side, cols = 16, rows = 12;
  GRand *rand = g_rand_new_with_seed (10 * r + (guint32) looks);
  float *img, *cell = g_new (float, n);

  *w = cols * side;
  *h = rows * side;
  img = g_new (float, (gsize) * w * *h);
  for (int i = 0; i < cols * rows; i++) {
    const int kind = i % 3;

    do
      for (int j = 0; j < n; j++) {
        double g = 0;

        for (int l = 0; l < looks; l++)
          g -= log (1 - g_rand_double (rand)) / looks;
        cell[j] = kind == 2 ? 5e-6 * (1 + 0.5 * g_rand_double (rand)) : g;
      }
    while (!set_centre (cell, n, kind == 2 ? 0 : (kind + 1) / looks,
            kind == 2 ? 1e-10 : 0));
    for (int j = 0; j < n; j++)
      img[(i / cols * side + j / side) * *w + i % cols * side + j % side] =
          cell[j];
  }
  g_free (cell);
  g_rand_free (rand);
  return img;
}

/* `cells` (w x h) at (7, 5) in a side x side area of ones. */
static float *
in_uniform_area (const float *cells, int w, int h, int side)
{
  float *img = g_new (float, side * side);

  for (int i = 0; i < side * side; i++)
    img[i] = 1;
  for (int y = 0; y < h; y++)
    memcpy (img + (gsize) (y + 5) * side + 7, cells + (gsize) y * w,
        w * sizeof (float));
  return img;
}

/* At the thresholds (threshold_image, alone or with `area` > 0 inside an
 * area x area uniform one), the guarded float path goes the reference's way
 * on every pixel, where float alone does not: Lee, Frost, Gamma-MAP and
 * Kuan, radius 1-3, looks 1 and 4. */
static void
check_thresholds (int area)
{
  ClvDevice *dev = clv_test_device ();

  for (int f = CLV_SPECKLE_LEE; f <= CLV_SPECKLE_KUAN; f++) {
    guint unguarded = 0;

    for (int r = 1; r <= 3; r++)
      for (int k = 0; k < 2; k++) {
        const ClvSpeckleParams p = guarded_params (f, r, k);
        int w, h;
        float *img = threshold_image (r, p.looks, &w, &h);

        if (area > 0) {
          float *cells = img;

          img = in_uniform_area (cells, w, h, area);
          w = h = area;
          g_free (cells);
        }
        g_assert_cmpuint (speckle_misses (dev, GUARDED, &p, img, w, h), ==,
            0);
        unguarded += speckle_misses (dev, UNGUARDED, &p, img, w, h);
        g_free (img);
      }
    g_test_message ("filter %d: float alone misses %u pixels", f, unguarded);
    g_assert_cmpuint (unguarded, >, 0);
  }
  clv_device_unref (dev);
}

static void
test_speckle_guarded_thresholds (void)
{
  check_thresholds (0);
}

/* Work-groups all of whose windows are doubtful: every window of a
 * uniform area is (its variance, 0, is within float's error of the
 * threshold), so its work-groups redo every output in double. */
static void
test_speckle_guarded_overflow (void)
{
  check_thresholds (128);
}

/* Boxcar's strips certify a tile that holds no negative value and no NaN
 * and skip its squares there: the guarded float path still equals the
 * reference at radius 1-3, in strips from the tile and per pixel, on an
 * image of four parts: speckle (certified); values of both signs near 1e6,
 * each row of a window summing to nearly 0 (float alone misses there);
 * values near 3e38, whose float sums overflow (certified, each window
 * redone in double; float alone gives infinity); speckle with a NaN. */
static void
test_speckle_boxcar_certified (void)
{
  static const char *shapes[] = { ",SAR_SPECKLE_ROWS=16",
    ",SAR_SPECKLE_ROWS=0"
  };
  const int w = 96, h = 72;
  ClvDevice *dev = clv_test_device ();
  GRand *rand = g_rand_new_with_seed (3);
  float *img = g_new (float, w * h);

  for (int r = 1; r <= 3; r++) {
    const ClvSpeckleParams p = { CLV_SPECKLE_BOXCAR, r, 1, 0.1 };
    const int side = 2 * r + 1;

    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const double g = -log (1 - g_rand_double (rand));
        float *v = img + y * w + x;

        if (x < 32)
          *v = g;
        else if (x < 64)
          *v = (x % side ? -1e6f : (side - 1) * 1e6f) + g;
        else
          *v = y < 36 ? 3e38f * (0.5f + 0.25f * g_rand_double (rand)) : g;
      }
    img[50 * w + 80] = NAN;
    for (guint k = 0; k < G_N_ELEMENTS (shapes); k++) {
      char *guarded = g_strconcat (GUARDED, shapes[k], NULL);
      char *unguarded = g_strconcat (UNGUARDED, shapes[k], NULL);

      g_assert_cmpuint (speckle_misses (dev, guarded, &p, img, w, h), ==, 0);
      g_assert_cmpuint (speckle_misses (dev, unguarded, &p, img, w, h), >,
          0);
      g_free (unguarded);
      g_free (guarded);
    }
  }
  g_rand_free (rand);
  g_free (img);
  clv_device_unref (dev);
}

static void
check_pointwise (ClvDevice * dev, ClvSample sample, ClvPointwise * pw,
    const ClvDetect * detect, const ClvDbParams * db)
{
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    ClvImage si, di;
    guint8 *src = clv_test_random_samples (&si, sizes[s][0], sizes[s][1],
        sample, 31 * s + sample);
    guint8 *ref, *out;

    di = clv_image_make (si.width, si.height, 4, si.width * 4);
    ref = g_malloc0 (di.stride * di.height);
    if (detect)
      clv_detect_ref (src, &si, sample, ref, &di, *detect);
    else
      clv_db_ref (src, &si, sample, ref, &di, db);
    out = run_on_device (dev, pw, pointwise_enqueue, src, &si, &di);
    /* One rounding of a double value; the device's own libm. */
    clv_test_assert_floats_close (out, ref, &di, 2e-7, 1e-30);
    g_free (out);
    g_free (ref);
    g_free (src);
  }
}

static void
test_detect_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const ClvSample samples[2] = { CLV_SAMPLE_CI16, CLV_SAMPLE_CF32 };

  for (int d = CLV_DETECT_INTENSITY; d <= CLV_DETECT_PHASE; d++)
    for (int s = 0; s < 2; s++) {
      const ClvDetect detect = d;
      GError *error = NULL;
      ClvPointwise *pw = clv_detect_new (dev, samples[s], detect, &error);

      g_assert_no_error (error);
      check_pointwise (dev, samples[s], pw, &detect, NULL);
      clv_pointwise_free (pw);
    }
  clv_device_unref (dev);
}

/* dB of every real sample type, amplitudes too, with a floor that zeros
 * and small values reach and a no-data value that some pixels hold. */
static void
test_db_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const ClvSample samples[3] = { CLV_SAMPLE_U8, CLV_SAMPLE_U16,
    CLV_SAMPLE_F32
  };

  for (int s = 0; s < 3; s++)
    for (int a = 0; a < 2; a++) {
      const ClvDbParams db = { a, -20, s != 2, 0, -9999 };
      GError *error = NULL;
      ClvPointwise *pw = clv_db_new (dev, samples[s], &db, &error);

      g_assert_no_error (error);
      check_pointwise (dev, samples[s], pw, NULL, &db);
      clv_pointwise_free (pw);
    }
  clv_device_unref (dev);
}

typedef struct
{
  ClvRotscale *rs;
  ClvRotscaleGeometry g;
} Rotscale;

static gboolean
rotscale_enqueue (gpointer op, cl_mem src, const ClvImage * si, cl_mem dst,
    const ClvImage * di, GError ** error)
{
  Rotscale *r = op;

  return clv_rotscale_enqueue (r->rs, src, si, dst, di, &r->g, 0.5, NULL,
      error);
}

/* Float32 rotation and scaling equals its reference bit for bit (the same
 * float operations, fused the same way), both interpolations. */
static void
test_rotscale_float_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const double params[][2] = { {0, 1}, {90, 1}, {30, 1.5}, {-47, 0.7} };

  for (int interp = CLV_INTERP_NEAREST; interp <= CLV_INTERP_BILINEAR;
      interp++)
    for (guint p = 0; p < G_N_ELEMENTS (params); p++) {
      ClvImage si, di;
      guint8 *src = clv_test_random_samples (&si, 130, 71, CLV_SAMPLE_F32,
          p), *ref, *out;
      GError *error = NULL;
      Rotscale r;

      di = clv_image_make (97, 120, 4, 97 * 4);
      clv_rotscale_geometry_init (&r.g, params[p][0], params[p][1], 130, 71,
          97, 120);
      r.rs = clv_rotscale_new (dev, CLV_SAMPLE_F32, interp, &error);
      g_assert_no_error (error);
      ref = g_malloc0 (di.stride * di.height);
      clv_rotscale_ref_float (src, &si, ref, &di, &r.g, interp, 0.5f);
      out = run_on_device (dev, &r, rotscale_enqueue, src, &si, &di);
      clv_test_assert_floats_close (out, ref, &di, 0, 0);
      clv_rotscale_free (r.rs);
      g_free (out);
      g_free (ref);
      g_free (src);
    }
  clv_device_unref (dev);
}

static gboolean
quantize_enqueue (gpointer op, cl_mem src, const ClvImage * si, cl_mem dst,
    const ClvImage * di, GError ** error)
{
  return clv_quantize_float_enqueue (op, src, si, dst, di, 35, error);
}

/* Float32 quantization against its reference: the sums' order differs, so
 * a level may differ by one on rare pixels; no-data and NaN give 0. */
static void
test_quantize_float_matches_reference (void)
{
  ClvDevice *dev = clv_test_device ();
  const ClvNodata zero = { 0 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int n = 0; n < 2; n++) {
      ClvImage si, di;
      guint8 *src = clv_test_random_samples (&si, sizes[s][0], sizes[s][1],
          CLV_SAMPLE_F32, 5 * s + n), *ref, *out;
      GError *error = NULL;
      ClvQuantizeFloat *q = clv_quantize_float_new (dev, n ? &zero : NULL,
          &error);

      g_assert_no_error (error);
      if (si.width > 3)
        *clv_image_f32 (src, &si, 3, 0) = NAN;
      di = clv_image_make (si.width, si.height, 1, si.width);
      ref = g_malloc0 (di.stride * di.height);
      clv_quantize_ref_float (src, &si, ref, &di, 35, n ? &zero : NULL);
      out = run_on_device (dev, q, quantize_enqueue, src, &si, &di);
      clv_test_assert_images_close (out, ref, &di);
      if (si.width > 3)
        g_assert_cmpint (out[3], ==, 0);
      clv_quantize_float_free (q);
      g_free (out);
      g_free (ref);
      g_free (src);
    }
  clv_device_unref (dev);
}

/* The rules at their edges: 0 and negative values take the floor, NaN
 * stays NaN, no-data becomes the output's no-data. */
static void
test_db_rules (void)
{
  const float in[6] = { 100, 0, -1, NAN, 1e-5f, 7 };
  const float expected[6] = { 20, -40, -40, NAN, -40, -9999 };
  const ClvDbParams db = { FALSE, -40, TRUE, 7, -9999 };
  ClvImage im = clv_image_make (6, 1, 4, 24);
  float out[6];

  clv_db_ref ((const guint8 *) in, &im, CLV_SAMPLE_F32, (guint8 *) out, &im,
      &db);
  clv_test_assert_floats_close ((guint8 *) out, (const guint8 *) expected,
      &im, 0, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sar-float/speckle/reference",
      test_speckle_matches_reference);
  g_test_add_func ("/sar-float/speckle/strips", test_speckle_strips);
  g_test_add_func ("/sar-float/speckle/uniform", test_speckle_uniform);
  g_test_add_func ("/sar-float/speckle/median-special",
      test_speckle_median_special);
#ifdef HAVE_GDAL
  g_test_add_func ("/sar-float/speckle/guarded-ers", test_speckle_guarded_ers);
#endif
  g_test_add_func ("/sar-float/speckle/guarded-synthetic",
      test_speckle_guarded_synthetic);
  g_test_add_func ("/sar-float/speckle/guarded-thresholds",
      test_speckle_guarded_thresholds);
  g_test_add_func ("/sar-float/speckle/guarded-overflow",
      test_speckle_guarded_overflow);
  g_test_add_func ("/sar-float/speckle/boxcar-certified",
      test_speckle_boxcar_certified);
  g_test_add_func ("/sar-float/detect/reference",
      test_detect_matches_reference);
  g_test_add_func ("/sar-float/db/reference", test_db_matches_reference);
  g_test_add_func ("/sar-float/db/rules", test_db_rules);
  g_test_add_func ("/sar-float/rotscale/reference",
      test_rotscale_float_matches_reference);
  g_test_add_func ("/sar-float/quantize/reference",
      test_quantize_float_matches_reference);
  return g_test_run ();
}
