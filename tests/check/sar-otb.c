/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The float SAR elements against Orfeo ToolBox, the installed otb-bin:
 * sarspeckle against otbcli_Despeckle (Lee, Frost, Gamma-MAP, Kuan; radius
 * 1-3, looks 1 and 4; on the ERS scene made Float32 intensity and on a
 * synthetic single-look speckled scene of known statistics),
 * sarintensity against otbcli_ComputeModulusAndPhase and otbcli_BandMath,
 * sardb against otbcli_BandMath; every pixel, borders included, in system
 * memory and in memory:OpenCL. */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gdal.h>
#include <cpl_conv.h>

#include "clv-test-util.h"
#include "gdal-check-util.h"

/* A Float32 GeoTIFF (or `bands` bands of it) of `v`, band after band. */
static void
write_float (const gchar * path, int w, int h, int bands, const float *v)
{
  write_tiff_typed (path, GDT_Float32, w, h, bands, GDT_Float32, v);
}

/* Band `band` of `path` as floats (g_free them); its size must be w x h. */
static float *
read_float (const gchar * path, int band, int w, int h)
{
  GDALDatasetH ds = GDALOpen (path, GA_ReadOnly);
  float *v = g_new (float, (gsize) w * h);

  fail_unless (ds != NULL, "%s: %s", path, CPLGetLastErrorMsg ());
  fail_unless_equals_int (GDALGetRasterXSize (ds), w);
  fail_unless_equals_int (GDALGetRasterYSize (ds), h);
  fail_unless_equals_int (GDALRasterIO (GDALGetRasterBand (ds, band),
          GF_Read, 0, 0, w, h, v, w, h, GDT_Float32, 0, 0), CE_None);
  GDALClose (ds);
  return v;
}

/* Every pixel of `ours` within 1e-4 relative, or 1e-6 absolute, of OTB's
 * (NaN where OTB has NaN). */
static void
assert_close (const gchar * what, const gchar * ours_path,
    const gchar * otb_path, int w, int h)
{
  float *ours = read_float (ours_path, 1, w, h);
  float *otb = read_float (otb_path, 1, w, h);

  for (int i = 0; i < w * h; i++) {
    const double d = fabs ((double) ours[i] - otb[i]);

    fail_unless ((isnan (otb[i]) && isnan (ours[i]))
        || d <= 1e-6 || d <= 1e-4 * fabs (otb[i]),
        "%s: pixel (%d, %d) is %.9g, OTB's %.9g", what, i % w, i / w,
        ours[i], otb[i]);
  }
  g_free (otb);
  g_free (ours);
}

/* Runs the OTB application `app` with `args` (space-separated), on one
 * thread, and fails on its failure. */
static void
run_otb (const gchar * app, const gchar * args)
{
  gchar *exe = g_strdup_printf ("otbcli_%s", app);
  gchar *path = g_find_program_in_path (exe);
  gchar *cmd, *out = NULL, *err = NULL;
  gchar **argv, **env;
  gint status;

  fail_unless (path != NULL, "%s is missing: install Debian's otb-bin", exe);
  cmd = g_strdup_printf ("%s %s", path, args);
  argv = g_strsplit (cmd, " ", -1);
  env = g_environ_setenv (g_get_environ (),
      "ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS", "1", TRUE);
  env = g_environ_setenv (env, "OTB_LOGGER_LEVEL", "WARNING", TRUE);
  fail_unless (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s: %s%s", cmd,
      out, err);
  g_strfreev (env);
  g_strfreev (argv);
  g_free (err);
  g_free (out);
  g_free (cmd);
  g_free (path);
  g_free (exe);
}

/* Runs `element` (an element and its properties) on `in`, into
 * ours-sys.tif in system memory and ours-cl.tif on memory:OpenCL. */
static void
run_ours (const gchar * in, const gchar * element)
{
  gchar *sys = tmp_path ("ours-sys.tif"), *cl = tmp_path ("ours-cl.tif");
  gchar *desc = g_strdup_printf ("gdalsrc location=%s ! tee name=t "
      "! queue ! %s ! gdalsink location=%s t. ! queue ! clupload ! %s ! "
      "cldownload ! gdalsink location=%s", in, element, sys, element, cl);

  run_ok (desc, NULL, NULL);
  g_free (desc);
  g_free (cl);
  g_free (sys);
}

/* Our two outputs against OTB's `otb`. */
static void
assert_ours_close (const gchar * what, const gchar * otb, int w, int h)
{
  gchar *sys = tmp_path ("ours-sys.tif"), *cl = tmp_path ("ours-cl.tif");
  gchar *what_cl = g_strdup_printf ("%s, memory:OpenCL", what);

  assert_close (what, sys, otb, w, h);
  assert_close (what_cl, cl, otb, w, h);
  g_free (what_cl);
  g_free (cl);
  g_free (sys);
}

/* The ERS scene as Float32 intensity: its gray values squared. */
static gchar *
make_ers_intensity (int *w, int *h)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  gchar *path = tmp_path ("ers-intensity.tif");
  guint16 *v = read_band (png, w, h, NULL);
  float *f = g_new (float, (gsize) * w * *h);

  for (int i = 0; i < *w * *h; i++)
    f[i] = (float) v[i] * v[i];
  write_float (path, *w, *h, 1, f);
  g_free (f);
  g_free (v);
  g_free (png);
  return path;
}

/* clv_test_speckled_scene (`looks`) as a Float32 GeoTIFF. */
static gchar *
make_synthetic (int looks, int *w, int *h)
{
  gchar *name = g_strdup_printf ("synthetic-%d.tif", looks);
  gchar *path = tmp_path (name);
  float *f = clv_test_speckled_scene (looks, w, h);

  write_float (path, *w, *h, 1, f);
  g_free (f);
  g_free (name);
  return path;
}

/* sarspeckle `filter` against otbcli_Despeckle on `in`, radius 1-3, looks
 * 1 and 4 (Frost: deramp 0.1 and 2). */
static void
check_despeckle (const gchar * in, int w, int h, const gchar * filter)
{
  gchar *otb = tmp_path ("otb.tif");
  const gboolean frost = strcmp (filter, "frost") == 0;

  for (int r = 1; r <= 3; r++)
    for (int k = 0; k < 2; k++) {
      const double looks = k ? 4 : 1, deramp = k ? 2 : 0.1;
      gchar *args = frost ? g_strdup_printf ("-in %s -out %s float "
          "-filter frost -filter.frost.rad %d -filter.frost.deramp %g", in,
          otb, r, deramp) : g_strdup_printf ("-in %s -out %s float "
          "-filter %s -filter.%s.rad %d -filter.%s.nblooks %g", in, otb,
          filter, filter, r, filter, looks);
      gchar *element = g_strdup_printf ("sarspeckle filter=%s radius=%d "
          "looks=%g deramp=%g", filter, r, looks, deramp);

      run_otb ("Despeckle", args);
      run_ours (in, element);
      assert_ours_close (element, otb, w, h);
      g_free (element);
      g_free (args);
    }
  g_free (otb);
}

static void
check_despeckle_all (const gchar * filter)
{
  int w, h;
  gchar *ers = make_ers_intensity (&w, &h);

  gchar *synthetic;

  check_despeckle (ers, w, h, filter);
  synthetic = make_synthetic (1, &w, &h);
  check_despeckle (synthetic, w, h, filter);
  g_free (synthetic);
  g_free (ers);
}

GST_START_TEST (test_lee)
{
  check_despeckle_all ("lee");
}

GST_END_TEST;

GST_START_TEST (test_frost)
{
  check_despeckle_all ("frost");
}

GST_END_TEST;

GST_START_TEST (test_gammamap)
{
  check_despeckle_all ("gammamap");
}

GST_END_TEST;

GST_START_TEST (test_kuan)
{
  check_despeckle_all ("kuan");
}

GST_END_TEST;

/* A complex raster made as a user would, with gdal_translate from two
 * Float32 bands (I and Q of the ERS scene, centred): OTB reads it as one
 * complex band. */
static gchar *
make_complex (int *w, int *h)
{
  gchar *png = clv_test_data_path ("examples/data/ERSBefore.png");
  gchar *two = tmp_path ("iq.tif"), *path = tmp_path ("slc.tif");
  gchar *vrt = tmp_path ("slc.vrt"), *cmd, *xml;
  guint16 *v = read_band (png, w, h, NULL);
  const gsize n = (gsize) * w * *h;
  float *f = g_new (float, 2 * n);

  /* I from the scene, Q from its mirror image, both about 0. */
  for (gsize i = 0; i < n; i++) {
    f[i] = (float) v[i] - 100.5f;
    f[n + i] = (float) v[n - 1 - i] / 3.0f - 40;
  }
  write_float (two, *w, *h, 2, f);
  /* gdal_translate -ot CFloat32 of a VRT that takes band 1 as the real
   * part and band 2 as the imaginary part (GDAL's way to build complex). */
  xml = g_strdup_printf ("<VRTDataset rasterXSize=\"%d\" rasterYSize=\"%d\">"
      "<VRTRasterBand dataType=\"CFloat32\" band=\"1\" "
      "subClass=\"VRTDerivedRasterBand\"><PixelFunctionType>complex"
      "</PixelFunctionType><SimpleSource><SourceFilename>%s</SourceFilename>"
      "<SourceBand>1</SourceBand></SimpleSource><SimpleSource>"
      "<SourceFilename>%s</SourceFilename><SourceBand>2</SourceBand>"
      "</SimpleSource></VRTRasterBand></VRTDataset>", *w, *h, two, two);
  fail_unless (g_file_set_contents (vrt, xml, -1, NULL));
  cmd = g_strdup_printf ("gdal_translate -q -ot CFloat32 %s %s", vrt, path);
  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
  g_free (xml);
  g_free (f);
  g_free (v);
  g_free (vrt);
  g_free (two);
  g_free (png);
  return path;
}

/* sarintensity's amplitude and phase equal ComputeModulusAndPhase's, its
 * intensity BandMath's |z|^2. */
GST_START_TEST (test_intensity)
{
  int w, h;
  gchar *slc = make_complex (&w, &h);
  gchar *mod = tmp_path ("otb-mod.tif"), *pha = tmp_path ("otb-pha.tif");
  gchar *inten = tmp_path ("otb-int.tif"), *args;

  args = g_strdup_printf ("-in %s -modulus %s float -phase %s float", slc,
      mod, pha);
  run_otb ("ComputeModulusAndPhase", args);
  g_free (args);
  run_ours (slc, "sarintensity output=amplitude");
  assert_ours_close ("amplitude", mod, w, h);
  run_ours (slc, "sarintensity output=phase");
  assert_ours_close ("phase", pha, w, h);
  args = g_strdup_printf ("-il %s -out %s float -exp "
      "im1b1*im1b1+im1b2*im1b2", slc, inten);
  run_otb ("BandMath", args);
  g_free (args);
  run_ours (slc, "sarintensity");
  assert_ours_close ("intensity", inten, w, h);
  g_free (inten);
  g_free (pha);
  g_free (mod);
  g_free (slc);
}

GST_END_TEST;

/* sardb equals BandMath's 10 log10 (20 log10 for amplitudes) where the
 * values are above 0. */
GST_START_TEST (test_db)
{
  int w, h;
  gchar *in = make_synthetic (4, &w, &h), *otb = tmp_path ("otb-db.tif");
  const gchar *k[2] = { "10", "20" };
  const gchar *input[2] = { "intensity", "amplitude" };

  for (int i = 0; i < 2; i++) {
    gchar *args = g_strdup_printf ("-il %s -out %s float -exp "
        "%s*log10(im1b1)", in, otb, k[i]);
    gchar *element = g_strdup_printf ("sardb input=%s", input[i]);

    run_otb ("BandMath", args);
    run_ours (in, element);
    assert_ours_close (element, otb, w, h);
    g_free (element);
    g_free (args);
  }
  g_free (otb);
  g_free (in);
}

GST_END_TEST;

static Suite *
sar_otb_suite (void)
{
  Suite *s = suite_create ("sar-otb");
  TCase *tc = tcase_create ("general");

  GDALAllRegister ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_checked_fixture (tc, gdal_test_setup, gdal_test_teardown);
  tcase_add_test (tc, test_lee);
  tcase_add_test (tc, test_frost);
  tcase_add_test (tc, test_gammamap);
  tcase_add_test (tc, test_kuan);
  tcase_add_test (tc, test_intensity);
  tcase_add_test (tc, test_db);
  return s;
}

GST_CHECK_MAIN (sar_otb);
