/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gdalsrc and gdalsink (the clvisiongdal plugin) with the SAR elements, on
 * GeoTIFFs made from the real ERS scene: GDAL's own tools are the oracle
 * for pixels and georeferencing. */
#include <math.h>

#include <gst/check/gstcheck.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <cpl_conv.h>
#include <ogr_srs_api.h>

#include "clv-opencl.h"
#include "clv-test-util.h"
#include "gdal-check-util.h"

/* The data type of band 1 of `path`, and its spatial reference (nullable;
 * g_free it). */
static GDALDataType
file_type (const gchar * path, gchar ** wkt)
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  GDALDataType t = GDALGetRasterDataType (GDALGetRasterBand (ds, 1));

  if (wkt)
    *wkt = g_strdup (GDALGetProjectionRef (ds));
  GDALClose (ds);
  return t;
}

/* gdalsrc ! sarmultilook ! gdalsink, in system memory and memory:OpenCL,
 * equals gdal_translate -r average: pixels, type and geotransform. */
static void
check_multilook (GDALDataType type)
{
  const int rl = 3, al = 2;
  int w, h, rw, rh, ow, oh;
  gchar *in = make_ers_tiff (type, &w, &h);
  gchar *ref = gdal_translate_average (in, w, h, rl, al);
  gchar *out = tmp_path ("multilook.tif");
  double rgt[6], ogt[6];
  guint16 *r = read_band (ref, &rw, &rh, rgt);
  const gchar *memories[] = { "", "clupload ! ", NULL };

  for (int m = 0; memories[m]; m++) {
    gchar *desc = g_strdup_printf ("gdalsrc location=%s ! %s"
        "sarmultilook range-looks=%d azimuth-looks=%d ! %sgdalsink "
        "location=%s", in, memories[m], rl, al, m ? "cldownload ! " : "",
        out);
    guint16 *o;
    gchar *wkt;

    run_ok (desc, NULL, NULL);
    o = read_band (out, &ow, &oh, ogt);
    fail_unless_equals_int (ow, rw);
    fail_unless_equals_int (oh, rh);
    fail_unless_equals_int (file_type (out, &wkt), type);
    for (int i = 0; i < 6; i++)
      fail_unless (ogt[i] == rgt[i], "%s: geotransform[%d] %.17g, GDAL's "
          "%.17g", desc, i, ogt[i], rgt[i]);
    fail_unless_equals_float (ogt[1], PIXEL * rl);
    fail_unless (strstr (wkt, "UTM zone 33N") != NULL, "%s", wkt);
    g_free (wkt);
    for (gsize i = 0; i < (gsize) ow * oh; i++)
      fail_unless (o[i] == r[i], "%s: pixel (%d, %d) is %u, gdal_translate "
          "-r average gives %u", desc, (int) (i % ow), (int) (i / ow), o[i],
          r[i]);
    g_free (o);
    g_free (desc);
  }
  g_free (r);
  g_free (out);
  g_free (ref);
  g_free (in);
}

GST_START_TEST (test_multilook_uint16_equals_gdal_translate)
{
  check_multilook (GDT_UInt16);
}

GST_END_TEST;

GST_START_TEST (test_multilook_uint8_equals_gdal_translate)
{
  check_multilook (GDT_Byte);
}

GST_END_TEST;

/* (x, y) through a geotransform, and back. */
static void
apply_gt (const double gt[6], double c, double r, double *x, double *y)
{
  *x = gt[0] + c * gt[1] + r * gt[2];
  *y = gt[3] + c * gt[4] + r * gt[5];
}

static void
invert_gt (const double gt[6], double x, double y, double *c, double *r)
{
  const double det = gt[1] * gt[5] - gt[2] * gt[4];
  const double dx = x - gt[0], dy = y - gt[3];

  *c = (dx * gt[5] - dy * gt[2]) / det;
  *r = (dy * gt[1] - dx * gt[4]) / det;
}

/* After sarrotscale, each output pixel's georeferenced centre (gdalsink's
 * geotransform) is where the sampling formula (element-sarrotscale) takes
 * it from in the input (gdalsrc's geotransform), within a pixel; with nearest
 * interpolation the value there is the input pixel's. */
GST_START_TEST (test_rotscale_keeps_ground_position)
{
  const double angle = 30.0, scale = 0.75;
  const int ow = 700, oh = 500;
  int w, h, iw, ih, rw, rh, checked = 0;
  gchar *in = make_ers_tiff (GDT_Byte, &w, &h);
  gchar *out = tmp_path ("rotated.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! sarrotscale "
      "angle=%g scale=%g width=%d height=%d interpolation=nearest "
      "background=0 ! gdalsink location=%s", in, angle, scale, ow, oh, out);
  double igt[6], ogt[6];
  guint16 *iv, *ov;
  const double a = angle * G_PI / 180.0;
  const double cxi = (w - 1) / 2.0, cyi = (h - 1) / 2.0;
  const double cxo = (ow - 1) / 2.0, cyo = (oh - 1) / 2.0;

  run_ok (desc, NULL, NULL);
  iv = read_band (in, &iw, &ih, igt);
  ov = read_band (out, &rw, &rh, ogt);
  fail_unless_equals_int (rw, ow);
  fail_unless_equals_int (rh, oh);
  for (int yo = 0; yo < oh; yo += 7) {
    for (int xo = 0; xo < ow; xo += 7) {
      const double u = (xo - cxo) / scale, v = (yo - cyo) / scale;
      const double xs = u * cos (a) - v * sin (a) + cxi;
      const double ys = u * sin (a) + v * cos (a) + cyi;
      double gx, gy, ci, ri;

      /* The centre of output pixel (xo, yo) on the ground, then in the
       * input's pixel grid (edge coordinates: centres at + 0.5). */
      apply_gt (ogt, xo + 0.5, yo + 0.5, &gx, &gy);
      invert_gt (igt, gx, gy, &ci, &ri);
      fail_unless (fabs (ci - (xs + 0.5)) < 1 && fabs (ri - (ys + 0.5)) < 1,
          "output pixel (%d, %d) is at input (%g, %g) on the ground, the "
          "sampling takes it from (%g, %g)", xo, yo, ci, ri, xs + 0.5,
          ys + 0.5);
      /* Away from ties and edges, its value is that input pixel's. */
      if (ci < 1 || ri < 1 || ci > w - 1 || ri > h - 1
          || fabs (ci - floor (ci) - 0.5) > 0.45
          || fabs (ri - floor (ri) - 0.5) > 0.45)
        continue;
      fail_unless_equals_int (ov[yo * ow + xo],
          iv[(int) floor (ri) * w + (int) floor (ci)]);
      checked++;
    }
  }
  fail_unless (checked > 1000, "only %d pixels checked", checked);
  g_free (iv);
  g_free (ov);
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* `band` picks a band, counted from 1; a missing one is a clear error. */
GST_START_TEST (test_missing_band)
{
  int w, h;
  gchar *in = make_ers_tiff (GDT_Byte, &w, &h);
  gchar *desc = g_strdup_printf ("gdalsrc location=%s band=3 ! fakesink",
      in);
  gchar *err = run_pipeline (desc, NULL, NULL);

  fail_unless (err != NULL);
  fail_unless (strstr (err, "has no band 3: it has 1 band") != NULL, "%s",
      err);
  g_free (err);
  g_free (desc);
  g_free (in);
}

GST_END_TEST;

GST_START_TEST (test_not_a_raster)
{
  gchar *in = tmp_path ("notes.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! fakesink", in);

  fail_unless (g_file_set_contents (in, "not an image\n", -1, NULL));
  check_one_error (desc, "is not a raster that GDAL can open");
  g_free (desc);
  g_free (in);
}

GST_END_TEST;

/* A missing file is one error that says so (GstBaseSrc adds none). */
GST_START_TEST (test_missing_file)
{
  gchar *in = tmp_path ("no-such-scene.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! fakesink", in);
  gchar *text = g_strdup_printf ("No such file: \"%s\"", in);

  check_one_error (desc, text);
  g_free (text);
  g_free (desc);
  g_free (in);
}

GST_END_TEST;

/* No location on either element: one error each. */
GST_START_TEST (test_no_location)
{
  check_one_error ("gdalsrc ! fakesink", "No file name given");
  check_one_error ("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8 ! "
      "gdalsink", "No file name given");
}

GST_END_TEST;

/* gdalsink names a driver that cannot write, and does not write. */
GST_START_TEST (test_sink_bad_driver)
{
  int w, h;
  gchar *in = make_ers_tiff (GDT_Byte, &w, &h);
  gchar *out = tmp_path ("out.xyz");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
      "driver=NoSuchDriver location=%s", in, out);

  check_one_error (desc, "\"NoSuchDriver\" is not a GDAL driver that "
      "can write rasters");
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* A raster one row larger than the device's largest buffer (a VRT: GDAL
 * reads nothing before the error) fails at negotiation with the frame size
 * and the device limit. */
GST_START_TEST (test_too_large_for_device)
{
  ClvDevice *dev = clv_test_device ();
  const int w = 50000;
  const int h = dev->max_mem_alloc_size / (2 * w) + 1;
  gchar *in = tmp_path ("huge.vrt");
  gchar *vrt = g_strdup_printf ("<VRTDataset rasterXSize=\"%d\" "
      "rasterYSize=\"%d\"><VRTRasterBand dataType=\"UInt16\" band=\"1\"/>"
      "</VRTDataset>\n", w, h);
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! sarmultilook ! "
      "fakesink", in);
  gchar *size = g_strdup_printf ("%dx%d GRAY16_LE", w, h);
  gchar *limit = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes",
      dev->max_mem_alloc_size);
  gchar *err;

  fail_unless ((guint64) w * h * 2 < G_MAXINT, "the device's largest "
      "buffer (%" G_GUINT64_FORMAT " bytes) is larger than a video frame "
      "can be: set POCL_MEMORY_LIMIT (tests/meson.build)",
      dev->max_mem_alloc_size);
  fail_unless (g_file_set_contents (in, vrt, -1, NULL));
  err = run_pipeline (desc, NULL, NULL);
  fail_unless (err != NULL);
  fail_unless (strstr (err, size) != NULL, "%s", err);
  fail_unless (strstr (err, limit) != NULL, "%s", err);
  fail_unless (strstr (err, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL, "%s",
      err);
  g_free (err);
  g_free (limit);
  g_free (size);
  g_free (desc);
  g_free (vrt);
  g_free (in);
  clv_device_unref (dev);
}

GST_END_TEST;

/* Frame `f` of a time series: w x h values of `type` (< 256). */
static guint16 *
series_values (int f, int w, int h)
{
  guint16 *v = g_new (guint16, w * h);

  for (int i = 0; i < w * h; i++)
    v[i] = (guint16) ((i * 11 + f * 50) % 256);
  return v;
}

/* Asserts that the file out-`f`.tif holds series_values (f, w, h) as
 * `type`, and the test's georeferencing. */
static void
check_series_file (int f, GDALDataType type, int w, int h)
{
  gchar *name = g_strdup_printf ("out-%d.tif", f);
  gchar *path = tmp_path (name);
  guint16 *expected = series_values (f, w, h), *o;
  double gt[6];
  int ow, oh;

  o = read_band (path, &ow, &oh, gt);
  fail_unless_equals_int (ow, w);
  fail_unless_equals_int (oh, h);
  fail_unless_equals_int (file_type (path, NULL), type);
  fail_unless_equals_float (gt[3], ORIGIN_Y);
  for (int i = 0; i < w * h; i++)
    fail_unless_equals_int (o[i], expected[i]);
  g_free (o);
  g_free (expected);
  g_free (path);
  g_free (name);
}

/* A printf-pattern location reads the files in turn, one frame each, up
 * to the first missing one; a change of size and type renegotiates. */
GST_START_TEST (test_file_series)
{
  const GDALDataType types[3] = { GDT_Byte, GDT_Byte, GDT_UInt16 };
  const int widths[3] = { 8, 8, 6 }, heights[3] = { 4, 4, 3 };
  gchar *in = tmp_path ("ts-%d.tif"), *out = tmp_path ("out-%d.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
      "location=%s", in, out);
  gchar *missing = tmp_path ("out-3.tif");

  for (int f = 0; f < 3; f++) {
    gchar *name = g_strdup_printf ("ts-%d.tif", f);
    gchar *path = tmp_path (name);
    guint16 *v = series_values (f, widths[f], heights[f]);

    write_tiff_values (path, types[f], widths[f], heights[f], 1, v);
    g_free (v);
    g_free (path);
    g_free (name);
  }
  run_ok (desc, NULL, NULL);
  for (int f = 0; f < 3; f++)
    check_series_file (f, types[f], widths[f], heights[f]);
  fail_if (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_free (missing);
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar **) a, *(const gchar **) b);
}

/* Runs `description` (freeing it); then tmpdir holds exactly `names`
 * (sorted, separated by spaces). */
static void
run_and_list (gchar * description, const gchar * names)
{
  GDir *dir;
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  const gchar *name;
  gchar *joined;

  run_ok (description, NULL, NULL);
  g_free (description);
  dir = g_dir_open (gdal_test_dir (), 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (found, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_sort (found, compare_names);
  g_ptr_array_add (found, NULL);
  joined = g_strjoinv (" ", (gchar **) found->pdata);
  fail_unless_equals_string (joined, names);
  g_free (joined);
  g_ptr_array_unref (found);
}

/* Rasters are written under a temporary name and renamed with their
 * side-car files (PNG's .aux.xml with the georeferencing, ENVI's .hdr):
 * nothing partial is left, and a raster rewritten without
 * georeferencing loses the old .aux.xml, as GDALCreate would. */
GST_START_TEST (test_sink_renames_whole_rasters)
{
  gchar *in = tmp_path ("bands.tif"), *plain = tmp_path ("plain.tif");
  gchar *png = tmp_path ("one.png"), *envi = tmp_path ("one.bin");
  guint16 *v = series_values (0, 5, 4);
  GDALDatasetH ds;

  write_tiff_values (in, GDT_Byte, 5, 4, 1, v);
  ds = GDALCreate (GDALGetDriverByName ("GTiff"), plain, 5, 4, 1, GDT_Byte,
      NULL);
  GDALClose (ds);

  run_and_list (g_strdup_printf ("gdalsrc location=%s ! tee name=t ! queue "
          "! gdalsink driver=PNG location=%s t. ! queue ! gdalsink "
          "driver=ENVI location=%s", in, png, envi),
      "bands.tif one.bin one.hdr one.png one.png.aux.xml plain.tif");
  fail_unless_equals_int (file_type (png, NULL), GDT_Byte);
  run_and_list (g_strdup_printf ("gdalsrc location=%s ! gdalsink driver=PNG "
          "location=%s", plain, png),
      "bands.tif one.bin one.hdr one.png plain.tif");
  g_free (v);
  g_free (envi);
  g_free (png);
  g_free (plain);
  g_free (in);
}

GST_END_TEST;

static Suite *
gdal_suite (void)
{
  Suite *s = suite_create ("gdal");
  TCase *tc = tcase_create ("general");

  GDALAllRegister ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, gdal_test_setup, gdal_test_teardown);
  tcase_add_test (tc, test_multilook_uint16_equals_gdal_translate);
  tcase_add_test (tc, test_multilook_uint8_equals_gdal_translate);
  tcase_add_test (tc, test_rotscale_keeps_ground_position);
  tcase_add_test (tc, test_missing_band);
  tcase_add_test (tc, test_not_a_raster);
  tcase_add_test (tc, test_missing_file);
  tcase_add_test (tc, test_no_location);
  tcase_add_test (tc, test_too_large_for_device);
  tcase_add_test (tc, test_sink_bad_driver);
  tcase_add_test (tc, test_file_series);
  tcase_add_test (tc, test_sink_renames_whole_rasters);
  return s;
}

GST_CHECK_MAIN (gdal);
