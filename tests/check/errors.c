/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One error per cause: every bad input of the tests (the fuzz corpora's
 * cascades and models that do not load, missing files, bad settings,
 * frames an element cannot take) makes a pipeline fail with exactly one
 * GST_ELEMENT_ERROR, from the element concerned, whose message says what
 * is wrong (the detail is in its debug part).  A source's "Internal data
 * stream error" that follows a refusal at negotiation is GStreamer's echo
 * of the same cause, not counted. */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

#include "clv-cascade.h"
#include "clv-device.h"
#include "clv-eigen.h"

#define ECHO "Internal data stream error."
#define GRAY_SRC "videotestsrc num-buffers=2 ! " \
  "video/x-raw,format=GRAY8,width=64,height=48"

static gchar *tmp_dir;

static void
setup (void)
{
  tmp_dir = g_dir_make_tmp ("errors-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
}

static void
teardown (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);

  fail_unless_equals_int (system (cmd), 0);
  g_free (cmd);
  g_clear_pointer (&tmp_dir, g_free);
}

/* Runs `desc` until EOS or an error, then takes what else comes in the
 * next 200 ms (the bus is flushed in NULL): one error from `element`
 * saying `says`, and besides it at most the source's echo.  `late_caps`
 * (nullable) go to its capsfilter named "late" once it is linked, as when
 * a stream changes size: fixed caps beyond the element's templates would
 * not even link. */
static void
assert_one_error (const gchar * desc, const gchar * late_caps,
    const gchar * element, const gchar * says)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstBus *bus;
  GstMessage *msg;
  GstClockTime wait = 60 * GST_SECOND;
  guint causes = 0;

  fail_unless (pipe != NULL && error == NULL, "%s: %s", desc,
      error ? error->message : "");
  if (late_caps) {
    GstElement *late = gst_bin_get_by_name (GST_BIN (pipe), "late");
    gst_util_set_object_arg (G_OBJECT (late), "caps", late_caps);
    gst_object_unref (late);
  }
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, wait,
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS)) != NULL) {
    gchar *debug = NULL;

    wait = 200 * GST_MSECOND;
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: no error", desc);
    gst_message_parse_error (msg, &error, &debug);
    if (g_strcmp0 (error->message, ECHO) != 0) {
      causes++;
      fail_unless (g_strcmp0 (GST_MESSAGE_SRC_NAME (msg), element) == 0,
          "%s: error from %s: %s", desc, GST_MESSAGE_SRC_NAME (msg),
          error->message);
      fail_unless (strstr (error->message, says) != NULL,
          "%s: \"%s\" does not say \"%s\"", desc, error->message, says);
      fail_unless (debug != NULL && debug[0] != '\0');
    }
    g_clear_error (&error);
    g_free (debug);
    gst_message_unref (msg);
  }
  fail_unless (causes == 1, "%s: %u errors", desc, causes);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* Each file of a fuzz corpus that `loads` refuses, as `property` of
 * `element_desc`: one error, naming the file. */
static void
walk_corpus (const gchar * corpus, const gchar * element_desc,
    const gchar * property, gboolean (*loads) (const gchar * path))
{
  gchar *dir_path = g_build_filename (g_getenv ("CLV_SOURCE_DIR"),
      "tests/fuzz/corpus", corpus, NULL);
  GDir *dir = g_dir_open (dir_path, 0, NULL);
  const gchar *name;
  guint bad = 0;

  fail_unless (dir != NULL, "no corpus %s", dir_path);
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_build_filename (dir_path, name, NULL);
    gchar *desc;

    if (!loads (path)) {
      desc = g_strdup_printf ("%s ! %s %s=\"%s\" name=under-test ! fakesink",
          GRAY_SRC, element_desc, property, path);
      assert_one_error (desc, NULL, "under-test", name);
      g_free (desc);
      bad++;
    }
    g_free (path);
  }
  GST_INFO ("%s: %u bad inputs", corpus, bad);
  fail_unless (bad > 10, "only %u bad inputs in %s", bad, corpus);
  g_dir_close (dir);
  g_free (dir_path);
}

static gboolean
cascade_loads (const gchar * path)
{
  ClvCascade *c = clv_cascade_load (path, NULL);
  gboolean ok = c != NULL;

  g_clear_pointer (&c, clv_cascade_free);
  return ok;
}

static gboolean
model_loads (const gchar * path)
{
  ClvEigenModel *m = clv_eigen_model_load (path, 0, 0, NULL);
  gboolean ok = m != NULL;

  g_clear_pointer (&m, clv_eigen_model_free);
  return ok;
}

/* The cascades of the fuzz corpus that do not load. */
GST_START_TEST (test_cascade_corpus)
{
  walk_corpus ("cascade", "vjfacedetect", "cascade", cascade_loads);
}

GST_END_TEST;

/* The models of the fuzz corpus that do not load. */
GST_START_TEST (test_model_corpus)
{
  walk_corpus ("eigen-model", "vjfacedetect ! eigenrecognise", "model",
      model_loads);
}

GST_END_TEST;

typedef struct
{
  /* @MISSING@: a file that does not exist, @DIR@: a folder of this
   * test's own, @MODEL@: a good model */
  const gchar *desc;
  const gchar *says;
  const gchar *late_caps;       /* see assert_one_error */
} BadCase;

/* A frame larger than the device's largest buffer (256 MiB with
 * POCL_MEMORY_LIMIT=1, which meson sets): refused at negotiation, before
 * any buffer is made, by every element that takes frames to the device.
 * A GPU whose largest buffer holds it (an H200's holds 35 GiB, more than
 * any video frame) has no such case. */
#define BIG_BYTES 400000000
#define BIG_SRC "videotestsrc num-buffers=2 ! " \
  "video/x-raw,format=GRAY8,width=20000,height=20000"
#define BIG_SAYS "A 20000x20000 GRAY8 frame needs a buffer of 400000000 " \
  "bytes (381.5 MiB), but the largest buffer"

/* The bad settings and missing files of the element tests, each in a
 * pipeline whose element under test is named "under-test". */
static const BadCase bad_cases[] = {
  {GRAY_SRC " ! vjfacedetect name=under-test cascade=@MISSING@ ! fakesink",
      "Cannot read cascade"},
  {GRAY_SRC " ! vjfacedetect name=under-test min-size=40 ! fakesink",
      "Invalid min-size \"40\""},
  {GRAY_SRC " ! vjfacedetect name=under-test min-size=50x50 max-size=30x30 "
        "! fakesink", "min-size 50x50 is larger than max-size 30x30"},
  {GRAY_SRC " ! vjfacedetect name=under-test device=no-such-device ! "
        "fakesink", "No OpenCL device matches \"no-such-device\""},
  {"videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=16,height=16 "
        "! vjfacedetect name=under-test ! fakesink",
      "is smaller than the cascade's 24x24 detection window"},
  {"videotestsrc num-buffers=2 ! capsfilter name=late ! vjfacedetect "
        "name=under-test ! fakesink",
        "A 70000x30 frame is larger than vjfacedetect takes (65535 pixels a "
        "side at most): scale it down (videoscale) or crop it",
      "video/x-raw,format=GRAY8,width=70000,height=30"},
  {GRAY_SRC " ! eigenrecognise name=under-test ! fakesink", "No model"},
  {GRAY_SRC " ! eigenrecognise name=under-test model=@MISSING@ ! fakesink",
      "No such file"},
  {GRAY_SRC " ! eigenrecognise name=under-test train-dir=@MISSING@ ! fakesink",
      "@MISSING@"},
  {GRAY_SRC " ! roioverlay name=under-test font-desc=NoSuchFontFamily ! "
        "fakesink", "No font family \"NoSuchFontFamily\" is installed"},
  {GRAY_SRC " ! clupload name=under-test device=no-such-device ! fakesink",
      "No OpenCL device matches"},
  {BIG_SRC " ! vjfacedetect name=under-test ! fakesink", BIG_SAYS},
  {BIG_SRC " ! eigenrecognise name=under-test model=@MODEL@ ! fakesink",
      BIG_SAYS},
  {BIG_SRC " ! roioverlay name=under-test ! fakesink", BIG_SAYS},
  {BIG_SRC " ! clupload name=under-test ! fakesink", BIG_SAYS},
  {BIG_SRC " ! cldownload name=under-test ! fakesink", BIG_SAYS},
  {GRAY_SRC " ! roiexport name=under-test ! fakesink",
      "No destination for the results"},
  {GRAY_SRC " ! roiexport name=under-test location=@MISSING@/out.jsonl ! "
        "fakesink", "Cannot open"},
  {GRAY_SRC " ! roiexport name=under-test mqtt-broker=localhost:notaport ! "
        "fakesink", "mqtt-broker \"localhost:notaport\""},
  {GRAY_SRC " ! roiexport name=under-test mqtt-broker=localhost "
        "mqtt-topic=faces/# ! fakesink", "mqtt-topic \"faces/#\""},
  {GRAY_SRC " ! roiexport name=under-test mqtt-broker=localhost "
        "mqtt-ca-file=@MISSING@ ! fakesink", "mqtt-ca-file"},
  {GRAY_SRC " ! roiexport name=under-test mqtt-broker=localhost "
        "spool-dir=/proc/no-spool ! fakesink", "spool-dir"},
};

/* `text` with @MISSING@, @DIR@ and @MODEL@ replaced. */
static gchar *
fill (const gchar * text, const gchar * missing, const gchar * model)
{
  GString *s = g_string_new (text);

  g_string_replace (s, "@MISSING@", missing, 0);
  g_string_replace (s, "@DIR@", tmp_dir, 0);
  g_string_replace (s, "@MODEL@", model, 0);
  return g_string_free (s, FALSE);
}

/* The bad settings of every element: one error each. */
GST_START_TEST (test_bad_settings)
{
  gchar *missing = g_build_filename (tmp_dir, "missing", NULL);
  gchar *model = g_build_filename (tmp_dir, "model.yml", NULL);
  ClvEigenModel *m = clv_eigen_model_new (8, 8, 2, 1);
  GError *error = NULL;
  ClvDevice *dev;
  gboolean big_fits;

  /* A model that loads: eigenrecognise then starts. */
  m->eigenvalues[0] = m->eigenvectors[0] = 1.0;
  m->labels[1] = 1;
  fail_unless (clv_eigen_model_save (m, model, TRUE, &error));
  clv_eigen_model_free (m);

  dev = clv_device_open (NULL, &error);
  fail_unless (dev != NULL, "%s", error ? error->message : "");
  big_fits = dev->max_mem_alloc_size >= BIG_BYTES;
  if (big_fits)
    g_printerr ("%s holds a %d-byte buffer: no frame too large for it\n",
        dev->device_name, BIG_BYTES);
  clv_device_unref (dev);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++) {
    gchar *desc, *says;

    if (big_fits && g_strcmp0 (bad_cases[i].says, BIG_SAYS) == 0)
      continue;
    desc = fill (bad_cases[i].desc, missing, model);
    says = fill (bad_cases[i].says, missing, model);
    assert_one_error (desc, bad_cases[i].late_caps, "under-test", says);
    g_free (desc);
    g_free (says);
  }
  g_free (model);
  g_free (missing);
}

GST_END_TEST;

#ifdef HAVE_GDAL_PLUGIN
/* gdalsrc and gdalsink. */
GST_START_TEST (test_gdal)
{
  gchar *missing = g_build_filename (tmp_dir, "missing.tif", NULL);
  gchar *desc;

  desc = g_strdup_printf ("gdalsrc name=under-test location=%s ! fakesink",
      missing);
  assert_one_error (desc, NULL, "under-test", "No such file");
  g_free (desc);
  desc = g_strdup_printf ("%s ! gdalsink name=under-test driver=NoSuchDriver "
      "location=%s/out.xyz", GRAY_SRC, tmp_dir);
  assert_one_error (desc, NULL, "under-test", "\"NoSuchDriver\" is not a "
      "GDAL driver");
  g_free (desc);
  desc = g_strdup_printf ("%s ! gdalsink name=under-test", GRAY_SRC);
  assert_one_error (desc, NULL, "under-test", "location");
  g_free (desc);
  g_free (missing);
}

GST_END_TEST;
#endif

static Suite *
errors_suite (void)
{
  Suite *s = suite_create ("errors");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_bad_settings);
#ifdef HAVE_GDAL_PLUGIN
  tcase_add_test (tc, test_gdal);
#endif
  tcase_add_test (tc, test_cascade_corpus);
  tcase_add_test (tc, test_model_corpus);
  return s;
}

GST_CHECK_MAIN (errors);
