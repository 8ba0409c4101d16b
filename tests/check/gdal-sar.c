/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SAR elements on Float32 and complex rasters through gdalsrc and
 * gdalsink, with GDAL's tools as the oracle: sarmultilook against
 * gdal_translate -r average, ground control points through sarmultilook
 * against gdalinfo and gdalwarp -tps. */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <cpl_conv.h>
#include <ogr_srs_api.h>

#include "clv-sar.h"
#include "clv-test-util.h"
#include "caps-check-util.h"
#include "gdal-check-util.h"

/* Band 1 of `path` as floats (g_free them) and its size. */
static float *
read_floats (const gchar * path, int *w, int *h)
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  float *v;

  fail_unless (ds != NULL, "%s: %s", path, CPLGetLastErrorMsg ());
  *w = GDALGetRasterXSize (ds);
  *h = GDALGetRasterYSize (ds);
  v = g_new (float, (gsize) * w * *h);
  fail_unless_equals_int (GDALRasterIO (GDALGetRasterBand (ds, 1), GF_Read,
          0, 0, *w, *h, v, *w, *h, GDT_Float32, 0, 0), CE_None);
  GDALClose (ds);
  return v;
}

/* The ERS scene as Float32: `fraction` FALSE gives its values squared
 * (integers: every block sum is exact in float), TRUE v / 255 + 1e-3 (most
 * sums are not).  g_free the path. */
static gchar *
make_ers_float (gboolean fraction, int *w, int *h)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  gchar *path = tmp_path (fraction ? "ers-fraction.tif" : "ers-square.tif");
  guint16 *v = read_band (png, w, h, NULL);
  float *f = g_new (float, (gsize) * w * *h);

  for (int i = 0; i < *w * *h; i++)
    f[i] = fraction ? (float) v[i] / 255 + 1e-3f : (float) v[i] * v[i];
  write_tiff (path, GDT_Float32, *w, *h, f);
  g_free (f);
  g_free (v);
  g_free (png);
  return path;
}

/* Whether the block's sum is the same in float as in double, added one by
 * one, row sums added, and column sums added (GDAL's vectorised 2 x 2 path
 * adds the rows first): then the orders GDAL uses are exact. */
static gboolean
block_sum_exact (const float *v, int w, int x0, int y0, int rl, int al)
{
  double d = 0;
  float seq = 0, rows = 0, columns = 0;

  for (int j = 0; j < al; j++) {
    float row = 0;
    for (int i = 0; i < rl; i++) {
      const float x = v[(gsize) (y0 + j) * w + x0 + i];
      d += x;
      seq += x;
      row += x;
    }
    rows += row;
  }
  for (int i = 0; i < rl; i++) {
    float column = 0;
    for (int j = 0; j < al; j++)
      column += v[(gsize) (y0 + j) * w + x0 + i];
    columns += column;
  }
  return seq == d && rows == d && columns == d;
}

/* Float32 sarmultilook against gdal_translate -r average: bit for bit
 * where the block sums are exact, otherwise within one ulp of the
 * double-precision mean; both memory kinds. */
static void
check_float_multilook (gboolean fraction, int rl, int al)
{
  int w, h, rw, rh, ow, oh;
  gchar *in = make_ers_float (fraction, &w, &h);
  gchar *ref = gdal_translate_average (in, w, h, rl, al);
  gchar *out = tmp_path ("multilook.tif");
  float *v = read_floats (in, &w, &h), *r = read_floats (ref, &rw, &rh);

  for (int m = 0; m < 2; m++) {
    gchar *desc = g_strdup_printf ("gdalsrc location=%s ! %ssarmultilook "
        "range-looks=%d azimuth-looks=%d ! %sgdalsink location=%s", in,
        m ? "clupload ! " : "", rl, al, m ? "cldownload ! " : "", out);
    float *o;
    int exact = 0;

    run_ok (desc, NULL, NULL);
    o = read_floats (out, &ow, &oh);
    fail_unless_equals_int (ow, rw);
    fail_unless_equals_int (oh, rh);
    for (int y = 0; y < oh; y++)
      for (int x = 0; x < ow; x++) {
        const gsize i = (gsize) y * ow + x;
        double mean = 0;

        for (int j = 0; j < al; j++)
          for (int k = 0; k < rl; k++)
            mean += v[(gsize) (y * al + j) * w + x * rl + k];
        mean /= rl * al;
        if (block_sum_exact (v, w, x * rl, y * al, rl, al)) {
          fail_unless (o[i] == r[i], "%s: pixel (%d, %d) is %.9g, "
              "gdal_translate's %.9g", desc, x, y, o[i], r[i]);
          exact++;
        } else {
          fail_unless (fabs (o[i] - mean) <= nextafterf ((float) mean,
                  INFINITY) - (float) mean, "%s: pixel (%d, %d) is %.9g, "
              "the mean %.17g", desc, x, y, o[i], mean);
        }
      }
    /* The integer scene is exact everywhere. */
    fail_unless (fraction || exact == ow * oh);
    g_free (o);
    g_free (desc);
  }
  g_free (r);
  g_free (v);
  g_free (out);
  g_free (ref);
  g_free (in);
}

GST_START_TEST (test_float_multilook_equals_gdal_translate)
{
  const int looks[][2] = { {2, 2}, {3, 5}, {4, 4}, {7, 3} };

  for (guint i = 0; i < G_N_ELEMENTS (looks); i++) {
    check_float_multilook (FALSE, looks[i][0], looks[i][1]);
    check_float_multilook (TRUE, looks[i][0], looks[i][1]);
  }
}

GST_END_TEST;

/* No-data pixels are left out of the blocks, as gdal_translate leaves them
 * out; a block of no-data stays no-data. */
GST_START_TEST (test_float_multilook_nodata)
{
  const int w = 40, h = 24;
  float *v = g_new (float, w * h), *o, *r;
  gchar *in = tmp_path ("holes.tif"), *out = tmp_path ("holes-ml.tif");
  gchar *ref, *desc;
  GDALDatasetH ds;
  int ow, oh, rw, rh;

  for (int i = 0; i < w * h; i++)
    v[i] = (i % 7 == 0 || (i % w < 4 && i / w < 4)) ? -9999.0f : (float) i;
  write_tiff (in, GDT_Float32, w, h, v);
  ds = GDALOpen (in, GA_Update);
  GDALSetRasterNoDataValue (GDALGetRasterBand (ds, 1), -9999);
  GDALClose (ds);
  ref = gdal_translate_average (in, w, h, 4, 4);
  desc = g_strdup_printf ("gdalsrc location=%s ! sarmultilook looks=4 ! "
      "gdalsink location=%s", in, out);
  run_ok (desc, NULL, NULL);
  o = read_floats (out, &ow, &oh);
  r = read_floats (ref, &rw, &rh);
  fail_unless_equals_float (o[0], -9999);
  for (int i = 0; i < ow * oh; i++)
    fail_unless (o[i] == r[i], "pixel %d is %.9g, gdal_translate's %.9g", i,
        o[i], r[i]);
  g_free (r);
  g_free (o);
  g_free (desc);
  g_free (ref);
  g_free (out);
  g_free (in);
  g_free (v);
}

GST_END_TEST;

/* The float chain, gdalsrc ! sarmultilook ! sarrotscale ! sarquantize,
 * in both memory kinds, against the C references of its steps (within one
 * level on rare pixels: the quantization's sums go in other orders). */
GST_START_TEST (test_float_chain_matches_references)
{
  int w, h, ow, oh;
  gchar *in = make_ers_float (TRUE, &w, &h), *out = tmp_path ("chain.tif");
  float *v = read_floats (in, &w, &h);
  const ClvImage si = clv_image_make (w, h, 4, (gsize) w * 4);
  const ClvImage mi = clv_image_make (w / 2, h / 2, 4, (gsize) (w / 2) * 4);
  const ClvImage qi = clv_image_make (w / 2, h / 2, 1, w / 2);
  guint8 *ml = g_malloc (mi.stride * mi.height);
  guint8 *rs = g_malloc (mi.stride * mi.height);
  guint8 *q = g_malloc (qi.stride * qi.height);
  ClvRotscaleGeometry g;

  clv_multilook_ref_float ((guint8 *) v, &si, CLV_SAMPLE_F32, ml, &mi, 2, 2,
      CLV_MULTILOOK_INTENSITY, NULL);
  clv_rotscale_geometry_init (&g, 30, 1.5, mi.width, mi.height, mi.width,
      mi.height);
  clv_rotscale_ref_float (ml, &mi, rs, &mi, &g, CLV_INTERP_BILINEAR, 0);
  clv_quantize_ref_float (rs, &mi, q, &qi, 35, NULL);
  for (int m = 0; m < 2; m++) {
    gchar *desc = g_strdup_printf ("gdalsrc location=%s ! %ssarmultilook "
        "looks=2 ! sarrotscale angle=30 scale=1.5 ! sarquantize ! %s"
        "gdalsink location=%s", in, m ? "clupload ! " : "",
        m ? "cldownload ! " : "", out);
    guint8 *got = g_malloc (qi.stride * qi.height);
    guint16 *o;

    run_ok (desc, NULL, NULL);
    o = read_band (out, &ow, &oh, NULL);
    fail_unless_equals_int (ow, qi.width);
    fail_unless_equals_int (oh, qi.height);
    for (int i = 0; i < ow * oh; i++)
      got[i] = (guint8) o[i];
    clv_test_assert_images_close (got, q, &qi);
    g_free (got);
    g_free (o);
    g_free (desc);
  }
  g_free (q);
  g_free (rs);
  g_free (ml);
  g_free (v);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* A 4 x 4 grid of GCPs over the ERS scene, by gdal_translate -gcp as a
 * user would: longitude and latitude of a slightly curved, rotated swath
 * (no affine transform fits it). */
static gchar *
make_gcp_scene (int *w, int *h)
{
  int fw, fh;
  gchar *in = make_ers_float (FALSE, &fw, &fh);
  gchar *out = tmp_path ("gcps.tif");
  GString *cmd = g_string_new ("gdal_translate -q -a_srs EPSG:4326");

  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++) {
      const double p = i * (fw / 3.0), l = j * (fh / 3.0);
      const double lon = 12 + 2e-4 * p + 5e-5 * l + 2e-8 * p * p;
      const double lat = 41.5 - 1.5e-4 * l + 4e-5 * p - 1e-8 * l * l;

      g_string_append_printf (cmd, " -gcp %.3f %.3f %.9f %.9f", p, l, lon,
          lat);
    }
  g_string_append_printf (cmd, " %s %s", in, out);
  fail_unless_equals_int (system (cmd->str), 0);
  *w = fw;
  *h = fh;
  g_string_free (cmd, TRUE);
  g_free (in);
  return out;
}

/* gdalwarp -tps of `in` into `out` with extra arguments (g_free nothing). */
static void
gdalwarp_tps (const gchar * in, const gchar * out, const gchar * args)
{
  gchar *cmd = g_strdup_printf ("gdalwarp -q -overwrite -tps -t_srs "
      "EPSG:4326 -dstnodata 0 %s %s %s", args, in, out);

  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
}

/* The mean absolute difference of a and b (w x h, 0 is no data) with b
 * shifted by (dx, dy), over the pixels both have. */
static double
shifted_difference (const float *a, const float *b, int w, int h, int dx,
    int dy)
{
  double sum = 0;
  gsize n = 0;

  for (int y = 2; y < h - 2; y++)
    for (int x = 2; x < w - 2; x++) {
      const float va = a[y * w + x], vb = b[(y + dy) * w + x + dx];
      if (va != 0 && vb != 0) {
        sum += fabs (va - vb);
        n++;
      }
    }
  fail_unless (n > (gsize) w * h / 4);
  return sum / n;
}

/* gdalsrc ! sarmultilook looks=4 ! gdalsink keeps the GCPs: the same
 * longitude and latitude at pixel and line divided by 4, so that gdalwarp
 * -tps puts the output where it puts the input, downsampled: the two line
 * up within a pixel (the best shift between them is none). */
GST_START_TEST (test_gcps_through_multilook)
{
  int w, h, ww, wh, iw, ih;
  gchar *in = make_gcp_scene (&w, &h), *out = tmp_path ("gcps-ml.tif");
  gchar *out_w = tmp_path ("out-warped.tif"), *in_w = tmp_path ("in-w.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! sarmultilook "
      "looks=4 ! gdalsink location=%s", in, out);
  GDALDatasetH src, dst;
  gchar *args;
  double gt[6], best = G_MAXDOUBLE;
  int best_dx = 9, best_dy = 9;
  float *a, *b;

  run_ok (desc, NULL, NULL);
  src = GDALOpen (in, GA_ReadOnly);
  dst = GDALOpen (out, GA_ReadOnly);
  fail_unless_equals_int (GDALGetGCPCount (dst), 16);
  for (int i = 0; i < 16; i++) {
    const GDAL_GCP *s = GDALGetGCPs (src) + i, *d = GDALGetGCPs (dst) + i;

    fail_unless_equals_float (d->dfGCPX, s->dfGCPX);
    fail_unless_equals_float (d->dfGCPY, s->dfGCPY);
    fail_unless (fabs (d->dfGCPPixel - s->dfGCPPixel / 4) < 1e-9);
    fail_unless (fabs (d->dfGCPLine - s->dfGCPLine / 4) < 1e-9);
  }
  fail_unless (strstr (GDALGetGCPProjection (dst), "WGS 84") != NULL);
  GDALClose (dst);
  GDALClose (src);

  /* The output warped as GDAL chooses, the input onto the same grid. */
  gdalwarp_tps (out, out_w, "-r bilinear");
  dst = GDALOpen (out_w, GA_ReadOnly);
  GDALGetGeoTransform (dst, gt);
  ww = GDALGetRasterXSize (dst);
  wh = GDALGetRasterYSize (dst);
  GDALClose (dst);
  args = g_strdup_printf ("-r average -te %.12f %.12f %.12f %.12f -ts %d %d",
      gt[0], gt[3] + wh * gt[5], gt[0] + ww * gt[1], gt[3], ww, wh);
  gdalwarp_tps (in, in_w, args);
  a = read_floats (out_w, &ww, &wh);
  b = read_floats (in_w, &iw, &ih);
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
      const double d = shifted_difference (a, b, ww, wh, dx, dy);
      if (d < best) {
        best = d;
        best_dx = dx;
        best_dy = dy;
      }
    }
  fail_unless (best_dx == 0 && best_dy == 0, "the warped output lines up "
      "with the warped input shifted by (%d, %d)", best_dx, best_dy);
  g_free (b);
  g_free (a);
  g_free (args);
  g_free (desc);
  g_free (in_w);
  g_free (out_w);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* Frames beyond a SAR element's limits fail at negotiation, once, saying
 * what is too large or small and what to change: a frame smaller than
 * sarmultilook's look block, a sarrotscale output or a sarspeckle output
 * beyond the device's largest buffer (POCL_MEMORY_LIMIT=1: 256 MiB). */
GST_START_TEST (test_limits_said_at_negotiation)
{
  const struct
  {
    const char *element, *caps, *says, *change;
  } cases[] = {
    {"sarmultilook looks=64", "video/x-raw,format=GRAY8,width=10,height=10",
        "The 10x10 frame is smaller than one 64x64 look block",
        "lower range-looks/azimuth-looks"},
    {"sarrotscale width=20000 height=20000",
          "video/x-raw,format=GRAY16_LE,width=10,height=10",
          "A 20000x20000 output frame of GRAY16_LE needs 800000000 bytes, "
          "more than the device's largest buffer",
        "lower sarrotscale's width and height"},
    {"sarspeckle", "video/x-raw,format=GRAY16_LE,width=9000,height=9000",
        "A 9000x9000 Float32 frame", "use smaller frames"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GError *err = NULL;

    fail_unless_equals_int (clv_check_late_caps_errors (cases[i].element,
            cases[i].caps, &err), 1);
    fail_unless (strstr (err->message, cases[i].says) != NULL, "%s",
        err->message);
    fail_unless (strstr (err->message, cases[i].change) != NULL, "%s",
        err->message);
    g_error_free (err);
  }
}

GST_END_TEST;

/* A raster larger than one frame can be (4 GiB) is refused when gdalsrc
 * opens it, with one error (a VRT: nothing is read). */
GST_START_TEST (test_raster_too_large_for_a_frame)
{
  gchar *vrt = tmp_path ("huge.vrt"), *desc;

  fail_unless (g_file_set_contents (vrt, "<VRTDataset rasterXSize=\"70000\" "
          "rasterYSize=\"70000\"><VRTRasterBand dataType=\"Float32\" "
          "band=\"1\"/></VRTDataset>", -1, NULL));
  desc = g_strdup_printf ("gdalsrc location=%s ! fakesink", vrt);
  check_one_error (desc, "The 70000x70000 raster of 1 band(s) of Float32 "
      "needs 19600000000 bytes, more than one frame holds (under 4 GiB): "
      "read one band (band=N) or a part of it");
  g_free (desc);
  g_free (vrt);
}

GST_END_TEST;

static Suite *
gdal_sar_suite (void)
{
  Suite *s = suite_create ("gdal-sar");
  TCase *tc = tcase_create ("general");

  GDALAllRegister ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, gdal_test_setup, gdal_test_teardown);
  tcase_add_test (tc, test_float_multilook_equals_gdal_translate);
  tcase_add_test (tc, test_float_multilook_nodata);
  tcase_add_test (tc, test_float_chain_matches_references);
  tcase_add_test (tc, test_gcps_through_multilook);
  tcase_add_test (tc, test_limits_said_at_negotiation);
  tcase_add_test (tc, test_raster_too_large_for_a_frame);
  return s;
}

GST_CHECK_MAIN (gdal_sar);
