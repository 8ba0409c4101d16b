/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gdalsrc and gdalsink on every sample type, several bands, I/Q pairs,
 * no-data values and ground control points: what goes in comes out, value
 * for value, as GDAL reads it back. */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_string.h>
#include <ogr_srs_api.h>

#include "clv-test-util.h"
#include "gdal-check-util.h"

/* A GeoTIFF (or `driver`'s raster) of `bands` bands of `type` holding
 * `data`, interleaved by pixel; `nodata` (nullable) the bands' no-data. */
static void
write_pixels (const gchar * path, const gchar * driver, GDALDataType type,
    int w, int h, int bands, const void *data, const double *nodata)
{
  const int sample = GDALGetDataTypeSizeBytes (type);
  GDALDatasetH ds = GDALCreate (GDALGetDriverByName (driver), path, w, h,
      bands, type, NULL);

  fail_unless (ds != NULL, "%s: %s", path, CPLGetLastErrorMsg ());
  fail_unless_equals_int (GDALDatasetRasterIO (ds, GF_Write, 0, 0, w, h,
          (void *) data, w, h, type, bands, NULL, (GSpacing) sample * bands,
          (GSpacing) sample * bands * w, sample), CE_None);
  for (int b = 1; nodata && b <= bands; b++)
    fail_unless_equals_int (GDALSetRasterNoDataValue (GDALGetRasterBand (ds,
                b), *nodata), CE_None);
  GDALClose (ds);
}

/* The pixels of `path` in its own type, interleaved by pixel (g_free them),
 * with its size, bands and type (of band 1; all bands must share it). */
static guint8 *
read_pixels (const gchar * path, GDALDataType * type, int *w, int *h,
    int *bands)
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  guint8 *data;
  int sample;

  fail_unless (ds != NULL, "%s: %s", path, CPLGetLastErrorMsg ());
  *w = GDALGetRasterXSize (ds);
  *h = GDALGetRasterYSize (ds);
  *bands = GDALGetRasterCount (ds);
  *type = GDALGetRasterDataType (GDALGetRasterBand (ds, 1));
  for (int b = 2; b <= *bands; b++)
    fail_unless_equals_int (GDALGetRasterDataType (GDALGetRasterBand (ds,
                b)), *type);
  sample = GDALGetDataTypeSizeBytes (*type);
  data = g_malloc ((gsize) sample * *bands * *w * *h);
  fail_unless_equals_int (GDALDatasetRasterIO (ds, GF_Read, 0, 0, *w, *h,
          data, *w, *h, *type, *bands, NULL, (GSpacing) sample * *bands,
          (GSpacing) sample * *bands * *w, sample), CE_None);
  GDALClose (ds);
  return data;
}

/* The caps gdalsrc `properties` gives a sink (gst_caps_unref them). */
static GstCaps *
source_caps (const gchar * properties)
{
  gchar *desc = g_strdup_printf ("gdalsrc %s ! fakesink name=sink",
      properties);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *caps;

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (caps != NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return caps;
}

/* gdalsrc `properties` on `in` gives caps `expected`, and through gdalsink
 * a file of `type` x `bands` holding `data` (interleaved by pixel). */
static void
check_through (const gchar * in, const gchar * properties,
    const gchar * expected_caps, GDALDataType type, int w, int h, int bands,
    const void *data)
{
  gchar *out = tmp_path ("through.tif");
  gchar *props = g_strdup_printf ("location=%s %s", in, properties);
  gchar *desc = g_strdup_printf ("gdalsrc %s ! gdalsink location=%s", props,
      out);
  GstCaps *caps = source_caps (props);
  GstCaps *expected = gst_caps_from_string (expected_caps);
  GDALDataType otype;
  int ow, oh, obands;
  guint8 *o;

  fail_unless (gst_caps_is_equal (caps, expected), "%" GST_PTR_FORMAT
      " is not %" GST_PTR_FORMAT, caps, expected);
  run_ok (desc, NULL, NULL);
  o = read_pixels (out, &otype, &ow, &oh, &obands);
  fail_unless_equals_int (otype, type);
  fail_unless_equals_int (ow, w);
  fail_unless_equals_int (oh, h);
  fail_unless_equals_int (obands, bands);
  fail_unless (memcmp (o, data, (gsize) GDALGetDataTypeSizeBytes (type) *
          bands * w * h) == 0, "%s: the values differ", in);
  g_free (o);
  gst_caps_unref (expected);
  gst_caps_unref (caps);
  g_free (desc);
  g_free (props);
  g_free (out);
}

/* A Float32 raster in 0..1 (the issue: it used to become 0/1 UInt16)
 * round-trips bit for bit, as application/x-raster Float32. */
GST_START_TEST (test_float32_round_trip)
{
  const int w = 67, h = 45;
  float *v = g_new (float, w * h);
  gchar *in = tmp_path ("sigma0.tif");

  for (int i = 0; i < w * h; i++)
    v[i] = (float) ((i * 7919) % 10007) / 10007.0f;
  /* The smallest values, a subnormal, an ulp below 1, and 1. */
  v[0] = 0;
  v[1] = 1e-30f;
  v[2] = 1e-40f;
  v[3] = nextafterf (1.0f, 0);
  v[4] = 1;
  write_pixels (in, "GTiff", GDT_Float32, w, h, 1, v, NULL);
  check_through (in, "", "application/x-raster, format=Float32, width=67, "
      "height=45, bands=1, framerate=0/1", GDT_Float32, w, h, 1, v);
  g_free (v);
  g_free (in);
}

GST_END_TEST;

/* Every other type goes through as it is: its own format in the caps, the
 * same bytes in the file. */
GST_START_TEST (test_types_round_trip)
{
  const GDALDataType types[] = { GDT_Int16, GDT_UInt32, GDT_Int32,
    GDT_Float64, GDT_CInt16, GDT_CInt32, GDT_CFloat32, GDT_CFloat64
  };
  const int w = 13, h = 7;

  for (guint t = 0; t < G_N_ELEMENTS (types); t++) {
    const GDALDataType type = types[t];
    const int parts = GDALDataTypeIsComplex (type) ? 2 : 1;
    const int sample = GDALGetDataTypeSizeBytes (type);
    gdouble *values = g_new (gdouble, w * h * parts);
    guint8 *v = g_malloc ((gsize) sample * w * h);
    gchar *in = tmp_path ("typed.tif");
    gchar *caps = g_strdup_printf ("application/x-raster, format=%s, "
        "width=%d, height=%d, bands=1, framerate=0/1",
        GDALGetDataTypeName (type), w, h);

    /* Negative, large and fractional values where the type has them. */
    for (int i = 0; i < w * h * parts; i++)
      values[i] = (i % 2 ? -1.0 : 1.0) * ((i * 2654435761u) % 30000) +
          (GDALDataTypeIsFloating (type) ? 1.0 / (i + 3) : 0);
    GDALCopyWords (values, GDT_Float64, sizeof (gdouble) * parts, v, type,
        sample, w * h);
    if (parts == 2)
      GDALCopyWords (values + 1, GDT_Float64, sizeof (gdouble) * 2,
          v + sample / 2, GDALGetNonComplexDataType (type), sample, w * h);
    write_pixels (in, "GTiff", type, w, h, 1, v, NULL);
    check_through (in, "", caps, type, w, h, 1, v);
    g_free (caps);
    g_free (in);
    g_free (v);
    g_free (values);
  }
}

GST_END_TEST;

/* band=0 puts every band into one frame and one file (it used to keep only
 * the last band in a plain file name); band=2 picks one. */
GST_START_TEST (test_band0_keeps_every_band)
{
  const int w = 11, h = 9, bands = 3;
  guint16 *v = g_new (guint16, w * h * bands), *b2 = g_new (guint16, w * h);
  gchar *in = tmp_path ("bands.tif");

  for (int i = 0; i < w * h * bands; i++)
    v[i] = (guint16) (i * 977 + 13);
  for (int i = 0; i < w * h; i++)
    b2[i] = v[i * bands + 1];
  write_pixels (in, "GTiff", GDT_UInt16, w, h, bands, v, NULL);
  check_through (in, "band=0", "application/x-raster, format=UInt16, "
      "width=11, height=9, bands=3, framerate=0/1", GDT_UInt16, w, h, bands,
      v);
  /* One band of UInt16 stays GRAY16_LE video. */
  check_through (in, "band=2", "video/x-raw, format=GRAY16_LE, width=11, "
      "height=9, framerate=0/1", GDT_UInt16, w, h, 1, b2);
  g_free (b2);
  g_free (v);
  g_free (in);
}

GST_END_TEST;

/* A VRT of two one-band rasters `a` and `b` with band descriptions `da`
 * and `db` (a VRT's bands may differ in type). */
static gchar *
make_pair_vrt (const gchar * a, GDALDataType ta, const gchar * da,
    const gchar * b, GDALDataType tb, const gchar * db, int w, int h)
{
  gchar *path = tmp_path ("pair.vrt");
  gchar *xml = g_strdup_printf ("<VRTDataset rasterXSize=\"%d\" "
      "rasterYSize=\"%d\">"
      "<VRTRasterBand dataType=\"%s\" band=\"1\"><Description>%s</Description>"
      "<SimpleSource><SourceFilename>%s</SourceFilename><SourceBand>1"
      "</SourceBand></SimpleSource></VRTRasterBand>"
      "<VRTRasterBand dataType=\"%s\" band=\"2\"><Description>%s</Description>"
      "<SimpleSource><SourceFilename>%s</SourceFilename><SourceBand>1"
      "</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>", w, h,
      GDALGetDataTypeName (ta), da, a, GDALGetDataTypeName (tb), db, b);

  fail_unless (g_file_set_contents (path, xml, -1, NULL));
  g_free (xml);
  return path;
}

/* Bands of different types go into one frame of a type that holds both
 * (Byte and Float32: Float32), values unchanged. */
GST_START_TEST (test_band0_mixed_types)
{
  const int w = 7, h = 5;
  guint8 a[7 * 5];
  float b[7 * 5], expected[2 * 7 * 5];
  gchar *pa = tmp_path ("a.tif"), *pb = tmp_path ("b.tif"), *vrt;

  for (int i = 0; i < w * h; i++) {
    a[i] = (guint8) (i * 37);
    b[i] = (float) i / 3.0f - 4;
    expected[2 * i] = a[i];
    expected[2 * i + 1] = b[i];
  }
  write_pixels (pa, "GTiff", GDT_Byte, w, h, 1, a, NULL);
  write_pixels (pb, "GTiff", GDT_Float32, w, h, 1, b, NULL);
  vrt = make_pair_vrt (pa, GDT_Byte, "HH", pb, GDT_Float32, "HV", w, h);
  check_through (vrt, "band=0", "application/x-raster, format=Float32, "
      "width=7, height=5, bands=2, framerate=0/1", GDT_Float32, w, h, 2,
      expected);
  g_free (vrt);
  g_free (pb);
  g_free (pa);
}

GST_END_TEST;

/* Two real bands described as I and Q (or SNAP's i_VV, q_VV) become one
 * band of complex samples: Float32 as CFloat32, Int16 as CInt16. */
GST_START_TEST (test_iq_bands_become_complex)
{
  const int w = 9, h = 4;
  float i32[9 * 4], q32[9 * 4], c32[2 * 9 * 4];
  gint16 i16[9 * 4], q16[9 * 4], c16[2 * 9 * 4];
  gchar *pi = tmp_path ("i.tif"), *pq = tmp_path ("q.tif"), *vrt;

  for (int i = 0; i < w * h; i++) {
    c32[2 * i] = i32[i] = (float) (i - 10) / 7.0f;
    c32[2 * i + 1] = q32[i] = (float) (i * i) / 11.0f - 20;
    c16[2 * i] = i16[i] = (gint16) (i * 900 - 16000);
    c16[2 * i + 1] = q16[i] = (gint16) (-i * 700 + 3);
  }
  write_pixels (pi, "GTiff", GDT_Float32, w, h, 1, i32, NULL);
  write_pixels (pq, "GTiff", GDT_Float32, w, h, 1, q32, NULL);
  vrt = make_pair_vrt (pi, GDT_Float32, "I", pq, GDT_Float32, "Q", w, h);
  check_through (vrt, "band=0", "application/x-raster, format=CFloat32, "
      "width=9, height=4, bands=1, framerate=0/1", GDT_CFloat32, w, h, 1,
      c32);
  g_free (vrt);

  write_pixels (pi, "GTiff", GDT_Int16, w, h, 1, i16, NULL);
  write_pixels (pq, "GTiff", GDT_Int16, w, h, 1, q16, NULL);
  vrt = make_pair_vrt (pi, GDT_Int16, "i_VV", pq, GDT_Int16, "q_VV", w, h);
  check_through (vrt, "band=0", "application/x-raster, format=CInt16, "
      "width=9, height=4, bands=1, framerate=0/1", GDT_CInt16, w, h, 1, c16);
  g_free (vrt);
  g_free (pq);
  g_free (pi);
}

GST_END_TEST;

/* The no-data value of `path`'s band 1; *has says whether it has one. */
static double
file_nodata (const gchar * path, int *has)
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  double v = GDALGetRasterNoDataValue (GDALGetRasterBand (ds, 1), has);

  GDALClose (ds);
  return v;
}

/* The band's no-data value travels in the caps to the file; gdalsink's
 * `nodata` replaces it or removes it. */
GST_START_TEST (test_nodata)
{
  const double nodata = -9999;
  const float v[6] = { -9999, 0.5f, 0.25f, -9999, 1, 2 };
  gchar *in = tmp_path ("nodata.tif"), *out = tmp_path ("nodata-out.tif");
  const gchar *settings[3] = { "", "nodata=none", "nodata=nan" };
  GstCaps *caps;
  gdouble caps_nodata = 0;
  int has;

  write_pixels (in, "GTiff", GDT_Float32, 3, 2, 1, v, &nodata);
  {
    gchar *props = g_strdup_printf ("location=%s", in);
    caps = source_caps (props);
    g_free (props);
  }
  fail_unless (gst_structure_get_double (gst_caps_get_structure (caps, 0),
          "nodata", &caps_nodata));
  fail_unless_equals_float (caps_nodata, nodata);
  gst_caps_unref (caps);
  for (int s = 0; s < 3; s++) {
    gchar *desc = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
        "location=%s %s", in, out, settings[s]);
    double got;

    run_ok (desc, NULL, NULL);
    got = file_nodata (out, &has);
    fail_unless_equals_int (has, s != 1);
    if (s == 0)
      fail_unless_equals_float (got, nodata);
    if (s == 2)
      fail_unless (isnan (got));
    g_free (desc);
  }
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* gdalsink refuses a no-data value it cannot read, with one error. */
GST_START_TEST (test_sink_bad_nodata)
{
  const guint8 v[4] = { 1, 2, 3, 4 };
  gchar *in = tmp_path ("small.tif"), *out = tmp_path ("out.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
      "location=%s nodata=zero", in, out);

  write_pixels (in, "GTiff", GDT_Byte, 2, 2, 1, v, NULL);
  check_one_error (desc, "nodata \"zero\" is not a number");
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* Ground control points, with their reference system, go through gdalsrc
 * and gdalsink as they are. */
GST_START_TEST (test_gcps_round_trip)
{
  const float v[16 * 8] = { 0 };
  GDAL_GCP gcps[4];
  gchar *in = tmp_path ("gcps.tif"), *out = tmp_path ("gcps-out.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! gdalsink "
      "location=%s", in, out);
  GDALDatasetH ds;
  const GDAL_GCP *got;

  write_pixels (in, "GTiff", GDT_Float32, 16, 8, 1, v, NULL);
  GDALInitGCPs (4, gcps);
  for (int i = 0; i < 4; i++) {
    gcps[i].dfGCPPixel = (i % 2) * 16 + 0.5;
    gcps[i].dfGCPLine = (i / 2) * 8 + 0.25;
    gcps[i].dfGCPX = 12.5 + 0.01 * i;
    gcps[i].dfGCPY = 41.75 - 0.02 * i;
    gcps[i].dfGCPZ = 100 + i;
  }
  ds = GDALOpen (in, GA_Update);
  fail_unless_equals_int (GDALSetGCPs (ds, 4, gcps, SRS_WKT_WGS84_LAT_LONG),
      CE_None);
  GDALClose (ds);
  run_ok (desc, NULL, NULL);
  ds = GDALOpen (out, GA_ReadOnly);
  fail_unless_equals_int (GDALGetGCPCount (ds), 4);
  got = GDALGetGCPs (ds);
  for (int i = 0; i < 4; i++) {
    fail_unless_equals_float (got[i].dfGCPPixel, gcps[i].dfGCPPixel);
    fail_unless_equals_float (got[i].dfGCPLine, gcps[i].dfGCPLine);
    fail_unless_equals_float (got[i].dfGCPX, gcps[i].dfGCPX);
    fail_unless_equals_float (got[i].dfGCPY, gcps[i].dfGCPY);
    fail_unless_equals_float (got[i].dfGCPZ, gcps[i].dfGCPZ);
  }
  fail_unless (strstr (GDALGetGCPProjection (ds), "WGS 84") != NULL);
  GDALClose (ds);
  GDALDeinitGCPs (4, gcps);
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

static Suite *
gdal_raster_suite (void)
{
  Suite *s = suite_create ("gdal-raster");
  TCase *tc = tcase_create ("general");

  GDALAllRegister ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, gdal_test_setup, gdal_test_teardown);
  tcase_add_test (tc, test_float32_round_trip);
  tcase_add_test (tc, test_types_round_trip);
  tcase_add_test (tc, test_band0_keeps_every_band);
  tcase_add_test (tc, test_band0_mixed_types);
  tcase_add_test (tc, test_iq_bands_become_complex);
  tcase_add_test (tc, test_nodata);
  tcase_add_test (tc, test_sink_bad_nodata);
  tcase_add_test (tc, test_gcps_round_trip);
  return s;
}

GST_CHECK_MAIN (gdal_raster);
