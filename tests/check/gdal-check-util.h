/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the GDAL tests share. */
#pragma once

#include <gst/gst.h>
#include <gdal.h>

G_BEGIN_DECLS

/* The ERS scene placed in UTM 33N, 25 m x 25 m pixels. */
#define ORIGIN_X 500000.0
#define ORIGIN_Y 4500000.0
#define PIXEL 25.0

/* A checked fixture: a temporary directory for each test. */
void gdal_test_setup (void);
void gdal_test_teardown (void);

/* The test's directory. */
const gchar *gdal_test_dir (void);

/* `name` in the test's directory (g_free it). */
gchar *tmp_path (const gchar * name);

/* WGS 84 / UTM zone 33N as WKT. */
const char *utm33n_wkt (void);

/* A GeoTIFF of `bands` bands of `type` at `path`, georeferenced at ORIGIN
 * in UTM 33N, holding `data`: w x h values of `data_type` per band, band
 * after band. */
void write_tiff_typed (const gchar * path, GDALDataType type, int w, int h,
    int bands, GDALDataType data_type, const void *data);
/* One band of `type` from values of that type. */
void write_tiff (const gchar * path, GDALDataType type, int w, int h,
    const void *data);
/* `bands` bands of `type` from UInt16 values. */
void write_tiff_values (const gchar * path, GDALDataType type, int w, int h,
    int bands, const guint16 * data);

/* Band 1 of `path` as UInt16 values (g_free them), its size, and its
 * geotransform (nullable). */
guint16 *read_band (const gchar * path, int *w, int *h, double gt[6]);

/* The ERS scene (869 x 550) as a GeoTIFF of `type` in the test's
 * directory (g_free the path): Byte as it is; UInt16 as v * 256 plus a
 * ramp, so that the low byte matters too. */
gchar *make_ers_tiff (GDALDataType type, int *w, int *h);

/* gdal_translate -r average of `in` (w x h) by looks rl x al over the whole
 * blocks (as sarmultilook drops partial ones), into reference.tif of the
 * test's directory (g_free the path). */
gchar *gdal_translate_average (const gchar * in, int w, int h, int rl,
    int al);

/* Runs `description` to EOS; on an error, returns its message (g_free it)
 * and NULL on success.  `keep` (nullable) receives the stopped pipeline,
 * `messages` (nullable) its element and warning messages, in order. */
gchar *run_pipeline (const gchar * description, GstElement ** keep,
    GList ** messages);
/* The same, failing the test on an error. */
void run_ok (const gchar * description, GstElement ** keep,
    GList ** messages);

/* Starts `description`, which must fail, and returns its error messages'
 * texts in order (g_strfreev them): all of them, not only the first. */
gchar **pipeline_errors (const gchar * description);
/* `description` fails with exactly one error, which contains `text`. */
void check_one_error (const gchar * description, const gchar * text);

G_END_DECLS
