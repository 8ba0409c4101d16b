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

/* The ERS scene placed in UTM 33N, 25 m x 25 m pixels. */
#define ORIGIN_X 500000.0
#define ORIGIN_Y 4500000.0
#define PIXEL 25.0

static gchar *tmpdir;

static void
setup (void)
{
  GError *error = NULL;

  tmpdir = g_dir_make_tmp ("clv-gdal-XXXXXX", &error);
  fail_unless (tmpdir != NULL, "%s", error ? error->message : "");
}

static void
teardown (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);

  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
  g_clear_pointer (&tmpdir, g_free);
}

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* WGS 84 / UTM zone 33N as WKT. */
static const char *
utm33n_wkt (void)
{
  static char *wkt;

  if (wkt == NULL) {
    OGRSpatialReferenceH srs = OSRNewSpatialReference (NULL);

    fail_unless_equals_int (OSRImportFromEPSG (srs, 32633), OGRERR_NONE);
    fail_unless_equals_int (OSRExportToWkt (srs, &wkt), OGRERR_NONE);
    OSRDestroySpatialReference (srs);
  }
  return wkt;
}

/* A GeoTIFF of `bands` bands of `type` at `path` holding `data` (w x h
 * values of `data_type` per band). */
static void
write_tiff_typed (const gchar * path, GDALDataType type, int w, int h,
    int bands, GDALDataType data_type, const void *data)
{
  const double gt[6] = { ORIGIN_X, PIXEL, 0, ORIGIN_Y, 0, -PIXEL };
  GDALDatasetH ds = GDALCreate (GDALGetDriverByName ("GTiff"), path, w, h,
      bands, type, NULL);

  fail_unless (ds != NULL, "%s", CPLGetLastErrorMsg ());
  fail_unless_equals_int (GDALDatasetRasterIO (ds, GF_Write, 0, 0, w, h,
          (void *) data, w, h, data_type, bands, NULL, 0, 0, 0), CE_None);
  fail_unless_equals_int (GDALSetGeoTransform (ds, (double *) gt), CE_None);
  fail_unless_equals_int (GDALSetProjection (ds, utm33n_wkt ()), CE_None);
  GDALClose (ds);
}

/* One band of `type` from values of that type. */
static void
write_tiff (const gchar * path, GDALDataType type, int w, int h,
    const void *data)
{
  write_tiff_typed (path, type, w, h, 1, type, data);
}

/* `bands` bands of `type` from UInt16 values. */
static void
write_tiff_values (const gchar * path, GDALDataType type, int w, int h,
    int bands, const guint16 * data)
{
  write_tiff_typed (path, type, w, h, bands, GDT_UInt16, data);
}

/* The ERS scene (gray channel of examples/data/ERSBefore.png, 869 x 550) as
 * a GeoTIFF of `type`: Byte as it is; UInt16 as v * 256 plus a ramp, so
 * that the low byte matters too. */
static gchar *
make_ers_tiff (GDALDataType type, int *w, int *h)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  gchar *path = tmp_path (type == GDT_Byte ? "ers8.tif" : "ers16.tif");
  GDALDatasetH src = GDALOpen (png, GA_ReadOnly);
  guint16 *v;

  fail_unless (src != NULL, "%s: %s", png, CPLGetLastErrorMsg ());
  *w = GDALGetRasterXSize (src);
  *h = GDALGetRasterYSize (src);
  v = g_new (guint16, (gsize) * w * *h);
  fail_unless_equals_int (GDALRasterIO (GDALGetRasterBand (src, 1), GF_Read,
          0, 0, *w, *h, v, *w, *h, GDT_UInt16, 0, 0), CE_None);
  GDALClose (src);
  if (type == GDT_UInt16)
    for (gsize i = 0; i < (gsize) * w * *h; i++)
      v[i] = v[i] * 256 + (guint16) ((i * 37) % 256);
  /* GDAL converts the UInt16 values to Byte on write (they are < 256). */
  write_tiff_values (path, type, *w, *h, 1, v);
  g_free (v);
  g_free (png);
  return path;
}

/* Runs `description` to EOS; on an error, returns its message (g_free it)
 * and NULL on success.  `keep` (nullable) receives the stopped pipeline,
 * `messages` (nullable) its element and warning messages, in order. */
static gchar *
run_pipeline (const gchar * description, GstElement ** keep,
    GList ** messages)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstBus *bus;
  GstMessage *msg;
  gchar *result = NULL;

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT |
              GST_MESSAGE_WARNING))
      && (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
          || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)) {
    if (messages)
      *messages = g_list_append (*messages, msg);
    else
      gst_message_unref (msg);
  }
  fail_unless (msg != NULL, "%s: no EOS or error in 120 s", description);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    result = g_strdup (error->message);
    g_error_free (error);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (keep)
    *keep = pipeline;
  else
    gst_object_unref (pipeline);
  return result;
}

static void
run_ok (const gchar * description, GstElement ** keep, GList ** messages)
{
  gchar *err = run_pipeline (description, keep, messages);

  fail_unless (err == NULL, "%s: %s", description, err);
}

/* Starts `description`, which must fail, and returns its error messages'
 * texts in order (g_strfreev them): all of them, not only the first. */
static gchar **
pipeline_errors (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GPtrArray *texts = g_ptr_array_new ();
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    gst_message_parse_error (msg, &error, NULL);
    g_ptr_array_add (texts, g_strdup (error->message));
    g_clear_error (&error);
    gst_message_unref (msg);
  }
  g_ptr_array_add (texts, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return (gchar **) g_ptr_array_free (texts, FALSE);
}

/* `description` fails with exactly one error, which contains `text`. */
static void
check_one_error (const gchar * description, const gchar * text)
{
  gchar **errors = pipeline_errors (description);

  fail_unless_equals_int (g_strv_length (errors), 1);
  fail_unless (strstr (errors[0], text) != NULL, "%s", errors[0]);
  g_strfreev (errors);
}

/* Reads band 1 of `path` as UInt16 values (g_free them). */
static guint16 *
read_band (const gchar * path, int *w, int *h, double gt[6])
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  guint16 *v;

  fail_unless (ds != NULL, "%s: %s", path, CPLGetLastErrorMsg ());
  *w = GDALGetRasterXSize (ds);
  *h = GDALGetRasterYSize (ds);
  v = g_new (guint16, (gsize) * w * *h);
  fail_unless_equals_int (GDALRasterIO (GDALGetRasterBand (ds, 1), GF_Read,
          0, 0, *w, *h, v, *w, *h, GDT_UInt16, 0, 0), CE_None);
  fail_unless_equals_int (GDALGetGeoTransform (ds, gt), CE_None);
  GDALClose (ds);
  return v;
}

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

/* gdal_translate -r average over the whole looks of the scene (sarmultilook
 * drops partial blocks: -srcwin keeps the same pixels). */
static gchar *
gdal_translate_average (const gchar * in, int w, int h, int rl, int al)
{
  gchar *out = tmp_path ("reference.tif");
  gchar *args = g_strdup_printf ("-r average -srcwin 0 0 %d %d -outsize %d "
      "%d", (w / rl) * rl, (h / al) * al, w / rl, h / al);
  gchar **argv = g_strsplit (args, " ", -1);
  GDALTranslateOptions *opts = GDALTranslateOptionsNew (argv, NULL);
  GDALDatasetH src = GDALOpen (in, GA_ReadOnly);
  GDALDatasetH dst = GDALTranslate (out, src, opts, NULL);

  fail_unless (dst != NULL, "gdal_translate: %s", CPLGetLastErrorMsg ());
  GDALClose (dst);
  GDALClose (src);
  GDALTranslateOptionsFree (opts);
  g_strfreev (argv);
  g_free (args);
  return out;
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

/* gdalsrc `properties` on a 4 x `n / 4` raster of `type` holding `values`
 * gives the GRAY16_LE `expected` values and reports `clipped` pixels (the
 * property and the gdalsrc-conversion message). */
static void
check_conversion (GDALDataType type, const void *values, gsize n,
    const gchar * properties, const guint16 * expected, guint64 clipped)
{
  gchar *in = tmp_path ("converted-in.tif");
  gchar *out = tmp_path ("converted-out.tif");
  gchar *desc = g_strdup_printf ("gdalsrc name=src location=%s %s ! "
      "video/x-raw,format=GRAY16_LE ! gdalsink location=%s", in, properties,
      out);
  GstElement *pipeline;
  GstElement *src;
  GList *messages = NULL, *warning;
  const GstStructure *s;
  guint64 count = G_MAXUINT64, total = 0;
  double gt[6];
  int w, h;
  guint16 *o;

  write_tiff (in, type, 4, n / 4, values);
  run_ok (desc, &pipeline, &messages);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  g_object_get (src, "clipped-pixels", &count, NULL);
  fail_unless_equals_uint64 (count, clipped);
  /* The element message, then (clipping is never silent) a warning. */
  fail_unless (messages != NULL, "no gdalsrc-conversion message");
  fail_unless_equals_int (GST_MESSAGE_TYPE (messages->data),
      GST_MESSAGE_ELEMENT);
  s = gst_message_get_structure (messages->data);
  fail_unless (gst_structure_has_name (s, "gdalsrc-conversion"));
  fail_unless (gst_structure_get_uint64 (s, "clipped-pixels", &count));
  fail_unless (gst_structure_get_uint64 (s, "total-pixels", &total));
  fail_unless_equals_uint64 (count, clipped);
  fail_unless_equals_uint64 (total, n);
  warning = messages->next;
  fail_unless_equals_int (warning != NULL, clipped > 0);
  if (warning)
    fail_unless_equals_int (GST_MESSAGE_TYPE (warning->data),
        GST_MESSAGE_WARNING);
  g_list_free_full (messages, (GDestroyNotify) gst_message_unref);

  o = read_band (out, &w, &h, gt);
  fail_unless_equals_int (file_type (out, NULL), GDT_UInt16);
  for (gsize i = 0; i < n; i++)
    fail_unless (o[i] == expected[i], "%s: value %d is %u, expected %u",
        properties, (int) i, o[i], expected[i]);
  fail_unless_equals_float (gt[0], ORIGIN_X);
  g_free (o);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (out);
  g_free (in);
}

/* scaling=linear: round(v x scale); below 0, above 65535 and NaN clip. */
GST_START_TEST (test_float32_linear)
{
  const float v[12] = { 0, 1.4f, 1.6f, 100.2f, -3, 70000, NAN, 65535.4f,
    65535.6f, 2.5f, 1000, 0.5f
  };
  const guint16 expected[12] = { 0, 1, 2, 100, 0, 65535, 0, 65535, 65535, 3,
    1000, 1
  };
  const float v2[4] = { 0.25f, 100, 30000, 40000 };
  const guint16 expected2[4] = { 1, 200, 60000, 65535 };

  check_conversion (GDT_Float32, v, 12, "", expected, 4);
  check_conversion (GDT_Float32, v2, 4, "scale=2", expected2, 1);
}

GST_END_TEST;

/* detection=amplitude (the default): |z| x scale. */
GST_START_TEST (test_cint16_amplitude)
{
  const gint16 v[8 * 2] = { 3, 4, -6, 8, 0, 0, 300, 400, -3, -4, 5, 12,
    8000, 6000, 1, 1
  };
  /* (8000, 6000) clips at 65535; (1, 1) gives round(10 sqrt 2) */
  const guint16 expected[8] = { 50, 100, 0, 5000, 50, 130, 65535, 14 };

  check_conversion (GDT_CInt16, v, 8, "scale=10", expected, 1);
}

GST_END_TEST;

/* detection=intensity scaling=db: (10 log10 |z|^2 - db-min) / (db-max -
 * db-min) x 65535; intensity 0 and above db-max clip. */
GST_START_TEST (test_cfloat32_intensity_db)
{
  const float v[8 * 2] = { 1, 0, 0.1f, 0, 3, 1, 0, 0, 10, 0, 0.3f, 0.1f,
    0, 1, 0.1f, 0.3f
  };
  /* 0 dB, -20 dB, 10 dB, -inf, 20 dB, -10 dB, 0 dB, -10 dB over
   * [-20, 10] dB */
  const guint16 expected[8] = { 43690, 0, 65535, 0, 65535, 21845, 43690,
    21845
  };

  check_conversion (GDT_CFloat32, v, 8, "detection=intensity scaling=db "
      "db-min=-20 db-max=10", expected, 2);
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

/* band=0 pushes every band, one frame each. */
GST_START_TEST (test_band_series)
{
  gchar *in = tmp_path ("bands.tif"), *out = tmp_path ("out-%d.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s band=0 ! gdalsink "
      "location=%s", in, out);
  gchar *missing = tmp_path ("out-3.tif");
  guint16 *v = g_new (guint16, 3 * 5 * 4);

  for (int f = 0; f < 3; f++) {
    guint16 *band = series_values (f, 5, 4);

    memcpy (v + f * 5 * 4, band, 5 * 4 * sizeof (guint16));
    g_free (band);
  }
  write_tiff_values (in, GDT_UInt16, 5, 4, 3, v);
  run_ok (desc, NULL, NULL);
  for (int f = 0; f < 3; f++)
    check_series_file (f, GDT_UInt16, 5, 4);
  fail_if (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_free (v);
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
  dir = g_dir_open (tmpdir, 0, NULL);
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
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_multilook_uint16_equals_gdal_translate);
  tcase_add_test (tc, test_multilook_uint8_equals_gdal_translate);
  tcase_add_test (tc, test_rotscale_keeps_ground_position);
  tcase_add_test (tc, test_float32_linear);
  tcase_add_test (tc, test_cint16_amplitude);
  tcase_add_test (tc, test_cfloat32_intensity_db);
  tcase_add_test (tc, test_missing_band);
  tcase_add_test (tc, test_not_a_raster);
  tcase_add_test (tc, test_missing_file);
  tcase_add_test (tc, test_no_location);
  tcase_add_test (tc, test_too_large_for_device);
  tcase_add_test (tc, test_sink_bad_driver);
  tcase_add_test (tc, test_file_series);
  tcase_add_test (tc, test_band_series);
  tcase_add_test (tc, test_sink_renames_whole_rasters);
  return s;
}

GST_CHECK_MAIN (gdal);
