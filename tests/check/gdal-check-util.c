/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the GDAL tests share: a temporary directory per test, GeoTIFFs made
 * with GDAL, and pipelines run to their end. */
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <cpl_conv.h>
#include <ogr_srs_api.h>

#include "clv-test-util.h"
#include "gdal-check-util.h"

static gchar *tmpdir;

void
gdal_test_setup (void)
{
  GError *error = NULL;

  tmpdir = g_dir_make_tmp ("clv-gdal-XXXXXX", &error);
  fail_unless (tmpdir != NULL, "%s", error ? error->message : "");
}

void
gdal_test_teardown (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);

  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
  g_clear_pointer (&tmpdir, g_free);
}

const gchar *
gdal_test_dir (void)
{
  return tmpdir;
}

gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* WGS 84 / UTM zone 33N as WKT. */
const char *
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
void
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
void
write_tiff (const gchar * path, GDALDataType type, int w, int h,
    const void *data)
{
  write_tiff_typed (path, type, w, h, 1, type, data);
}

/* `bands` bands of `type` from UInt16 values. */
void
write_tiff_values (const gchar * path, GDALDataType type, int w, int h,
    int bands, const guint16 * data)
{
  write_tiff_typed (path, type, w, h, bands, GDT_UInt16, data);
}

/* The ERS scene (gray channel of examples/data/ERSBefore.png, 869 x 550) as
 * a GeoTIFF of `type`: Byte as it is; UInt16 as v * 256 plus a ramp, so
 * that the low byte matters too. */
/* Reads band 1 of `path` as UInt16 values (g_free them). */
guint16 *
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
  if (gt)
    fail_unless_equals_int (GDALGetGeoTransform (ds, gt), CE_None);
  GDALClose (ds);
  return v;
}

gchar *
make_ers_tiff (GDALDataType type, int *w, int *h)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  gchar *path = tmp_path (type == GDT_Byte ? "ers8.tif" : "ers16.tif");
  guint16 *v = read_band (png, w, h, NULL);

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
gchar *
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

void
run_ok (const gchar * description, GstElement ** keep, GList ** messages)
{
  gchar *err = run_pipeline (description, keep, messages);

  fail_unless (err == NULL, "%s: %s", description, err);
}

/* Starts `description`, which must fail, and returns its error messages'
 * texts in order (g_strfreev them): all of them, not only the first. */
gchar **
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
void
check_one_error (const gchar * description, const gchar * text)
{
  gchar **errors = pipeline_errors (description);

  fail_unless_equals_int (g_strv_length (errors), 1);
  fail_unless (strstr (errors[0], text) != NULL, "%s", errors[0]);
  g_strfreev (errors);
}


/* gdal_translate -r average over the whole looks of the scene (sarmultilook
 * drops partial blocks: -srcwin keeps the same pixels). */
gchar *
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
