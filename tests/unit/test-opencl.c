/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OpenCL runtime: device selection, error reporting, program builds,
 * the binary cache and tuning overrides. */
#include <glib/gstdio.h>
#include <string.h>

#include "clv-opencl.h"
#include "clv-sar.h"
#include "clv-test-util.h"

static const char good_source[] =
    "__kernel void add_one (__global int *a) { a[get_global_id (0)] += ADD; }\n";

/* Each test gets its own cache folder so counts are its own. */
static char *
fresh_cache_dir (const char *name)
{
  char *tmpl = g_strdup_printf ("clv-cache-%s-XXXXXX", name);
  char *dir = g_dir_make_tmp (tmpl, NULL);

  g_assert_nonnull (dir);
  g_setenv ("XDG_CACHE_HOME", dir, TRUE);
  g_free (tmpl);
  return dir;
}

static void
remove_tree (const char *dir)
{
  char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  g_assert_cmpint (system (cmd), ==, 0);
  g_free (cmd);
}

static void
test_error_names (void)
{
  GError *error = NULL;

  g_assert_cmpstr (clv_cl_error_name (CL_OUT_OF_RESOURCES), ==,
      "CL_OUT_OF_RESOURCES");
  g_assert_cmpstr (clv_cl_error_name (CL_INVALID_KERNEL_ARGS), ==,
      "CL_INVALID_KERNEL_ARGS");
  g_assert_cmpstr (clv_cl_error_name (-1001), ==, "CL_PLATFORM_NOT_FOUND_KHR");
  g_assert_cmpstr (clv_cl_error_name (-9999), ==, "CL_UNKNOWN_ERROR");

  /* The check macro names the error, the call, the file and the line. */
  CLV_CHECK (clReleaseMemObject (NULL), &error, failed);
  g_assert_not_reached ();
failed:
  g_assert_error (error, CLV_ERROR, CLV_ERROR_OPENCL);
  g_assert_nonnull (strstr (error->message, "CL_INVALID_MEM_OBJECT"));
  g_assert_nonnull (strstr (error->message, "clReleaseMemObject (NULL)"));
  g_assert_nonnull (strstr (error->message, "test-opencl.c:"));
  g_error_free (error);
}

static void
test_device_selection (void)
{
  GError *error = NULL;
  /* "first", not "auto": auto picks the least-loaded GPU, another one on
   * a machine with several. */
  ClvDevice *dev = clv_device_open ("first", &error), *again, *by_index,
      *by_name;
  char *spec, *upper, *desc;

  g_assert_no_error (error);
  /* One object per device per process. */
  again = clv_device_open ("first", &error);
  g_assert_no_error (error);
  g_assert_true (again == dev);

  spec = g_strdup_printf ("%u:%u", dev->platform_index, dev->device_index);
  by_index = clv_device_open (spec, &error);
  g_assert_no_error (error);
  g_assert_true (by_index == dev);
  g_assert_true (clv_device_matches (dev, spec));

  /* Name substrings ignore case. */
  upper = g_utf8_strup (dev->device_name, 6);
  by_name = clv_device_open (upper, &error);
  g_assert_no_error (error);
  g_assert_true (by_name->device == dev->device);

  desc = clv_device_describe (dev);
  g_assert_nonnull (strstr (desc, dev->device_name));
  g_assert_nonnull (strstr (desc, spec));

  g_assert_true (dev->compute_units >= 1);
  g_assert_true (dev->simd_width >= 1);
  clv_device_unref (by_name);
  clv_device_unref (by_index);
  clv_device_unref (again);
  clv_device_unref (dev);
  g_free (desc);
  g_free (upper);
  g_free (spec);
}

static void
test_device_no_match (void)
{
  GError *error = NULL;
  ClvDevice *dev = clv_device_open ("no-such-device-xyz", &error);

  g_assert_null (dev);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_NO_DEVICE);
  /* The message lists what there is. */
  g_assert_nonnull (strstr (error->message, "no-such-device-xyz"));
  g_assert_nonnull (strstr (error->message, "Available: 0:0"));
  g_clear_error (&error);

  dev = clv_device_open ("99:0", &error);
  g_assert_null (dev);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_NO_DEVICE);
  g_clear_error (&error);
}

static void
test_device_env_override (void)
{
  GError *error = NULL;
  ClvDevice *dev;

  g_setenv ("CLVISION_DEVICE", "no-such-device-xyz", TRUE);
  dev = clv_device_open ("auto", &error);
  g_assert_null (dev);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_NO_DEVICE);
  g_assert_nonnull (strstr (error->message, "CLVISION_DEVICE"));
  g_clear_error (&error);

  /* An explicit spec is not overridden. */
  dev = clv_device_open ("0:0", &error);
  g_assert_no_error (error);
  clv_device_unref (dev);
  g_unsetenv ("CLVISION_DEVICE");
}

static void
test_tune_override (void)
{
  g_setenv ("CLVISION_TUNE", "FOO=12, BAR = abc ,BAD", TRUE);
  g_assert_cmpint (clv_tune_int ("FOO", 3), ==, 12);
  g_assert_cmpstr (clv_tune_string ("BAR", "x"), ==, "abc");
  g_assert_cmpint (clv_tune_int ("BAR", 7), ==, 7);     /* not a number */
  g_assert_cmpint (clv_tune_int ("MISSING", 5), ==, 5);
  g_unsetenv ("CLVISION_TUNE");
  g_assert_cmpint (clv_tune_int ("FOO", 3), ==, 3);
}

static void
test_build_failure_reports_log (void)
{
  ClvDevice *dev = clv_test_device ();
  char *dir = fresh_cache_dir ("broken");
  GError *error = NULL;
  cl_program prog;

  prog = clv_program_build (dev, "broken",
      "__kernel void k (__global int *a) { a[0] = undefined_thing; }\n",
      "-DMARKER_OPTION=1", &error);
  g_assert_null (prog);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_BUILD);
  g_assert_nonnull (strstr (error->message, "kernels/broken.cl"));
  g_assert_nonnull (strstr (error->message, "CL_BUILD_PROGRAM_FAILURE"));
  g_assert_nonnull (strstr (error->message, "-DMARKER_OPTION=1"));
  g_assert_nonnull (strstr (error->message, "undefined_thing"));
  g_clear_error (&error);

  prog = clv_device_get_program (dev, "no_such_kernel_file", "", &error);
  g_assert_null (prog);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_clear_error (&error);

  remove_tree (dir);
  g_free (dir);
  clv_device_unref (dev);
}

/* Runs add_one on a small buffer to prove a program works. */
static void
assert_program_runs (ClvDevice * dev, cl_program prog, int add)
{
  GError *error = NULL;
  cl_kernel k = clv_kernel_new (prog, "add_one", &error);
  int host[4] = { 1, 2, 3, 4 };
  size_t n = 4;
  cl_mem m;

  g_assert_no_error (error);
  m = clv_buffer_new (dev, CL_MEM_READ_WRITE, sizeof (host), &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, m, CL_TRUE, 0,
          sizeof (host), host, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clv_kernel_set_args (k, &error, CLV_ARG (m), CLV_ARGS_END));
  g_assert_cmpint (clEnqueueNDRangeKernel (dev->queue, k, 1, NULL, &n, NULL,
          0, NULL, NULL), ==, CL_SUCCESS);
  clv_test_read_buffer (dev, m, (guint8 *) host, sizeof (host));
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (host[i], ==, i + 1 + add);
  clReleaseMemObject (m);
  clReleaseKernel (k);
}

/* Builds good_source with `options` (and CLVISION_CL_OPTIONS) and checks
 * that the program adds `add`. */
static void
build_and_run (ClvDevice * dev, const char *options, int add)
{
  GError *error = NULL;
  cl_program prog = clv_program_build (dev, "cachetest", good_source,
      options, &error);

  g_assert_no_error (error);
  assert_program_runs (dev, prog, add);
  clReleaseProgram (prog);
}

static void
test_binary_cache (void)
{
  ClvDevice *dev = clv_test_device ();
  char *dir = fresh_cache_dir ("cache");
  ClvProgramStats s0, s1, s2;

  clv_program_stats (&s0);
  build_and_run (dev, "-DADD=5", 5);
  clv_program_stats (&s1);
  g_assert_cmpuint (s1.builds_from_source, ==, s0.builds_from_source + 1);
  g_assert_cmpuint (s1.disk_cache_writes, ==, s0.disk_cache_writes + 1);

  /* A second start finds the binary on disk and compiles nothing. */
  build_and_run (dev, "-DADD=5", 5);
  clv_program_stats (&s2);
  g_assert_cmpuint (s2.builds_from_source, ==, s1.builds_from_source);
  g_assert_cmpuint (s2.disk_cache_hits, ==, s1.disk_cache_hits + 1);

  /* Other options are another program. */
  build_and_run (dev, "-DADD=7", 7);
  clv_program_stats (&s1);
  g_assert_cmpuint (s1.builds_from_source, ==, s2.builds_from_source + 1);

  remove_tree (dir);
  g_free (dir);
  clv_device_unref (dev);
}

/* build_and_run with no options of its own and CLVISION_CL_OPTIONS
 * "-DADD=add". */
static void
build_with_extra_options (ClvDevice * dev, int add)
{
  char *extra = g_strdup_printf ("-DADD=%d", add);

  g_setenv ("CLVISION_CL_OPTIONS", extra, TRUE);
  build_and_run (dev, NULL, add);
  g_free (extra);
}

/* CLVISION_CL_OPTIONS reaches the compiler after the program's own options,
 * keys the cache (another value builds anew), and a bad one fails the build
 * with a message that names it. */
static void
test_extra_build_options (void)
{
  ClvDevice *dev = clv_test_device ();
  char *dir = fresh_cache_dir ("extra");
  ClvProgramStats s0, s1;
  GError *error = NULL;
  cl_program prog;

  build_with_extra_options (dev, 3);
  clv_program_stats (&s0);
  build_with_extra_options (dev, 4);
  clv_program_stats (&s1);
  g_assert_cmpuint (s1.builds_from_source, ==, s0.builds_from_source + 1);

  g_setenv ("CLVISION_CL_OPTIONS", "-cl-no-such-option-here", TRUE);
  prog = clv_program_build (dev, "cachetest", good_source, "-DADD=1", &error);
  g_assert_null (prog);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_BUILD);
  g_assert_nonnull (strstr (error->message, "-cl-no-such-option-here"));
  g_clear_error (&error);
  g_unsetenv ("CLVISION_CL_OPTIONS");

  remove_tree (dir);
  g_free (dir);
  clv_device_unref (dev);
}

/* Overwrites every cache file with `contents` (NULL: truncate to half). */
static void
damage_cache (const char *cache_home, const char *contents)
{
  char *dir = g_build_filename (cache_home, "clvision", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  int n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d))) {
    char *path = g_build_filename (dir, name, NULL), *data = NULL;
    gsize len = 0;
    g_assert_true (g_file_get_contents (path, &data, &len, NULL));
    if (contents)
      g_assert_true (g_file_set_contents (path, contents, -1, NULL));
    else
      g_assert_true (g_file_set_contents (path, data, len / 2, NULL));
    g_free (data);
    g_free (path);
    n++;
  }
  g_assert_cmpint (n, >, 0);
  g_dir_close (d);
  g_free (dir);
}

static void
test_corrupt_cache_is_rebuilt (gconstpointer damage)
{
  ClvDevice *dev = clv_test_device ();
  char *dir = fresh_cache_dir ("corrupt");
  ClvProgramStats s0, s1, s2;
  GError *error = NULL;
  cl_program prog;

  prog = clv_program_build (dev, "cachetest", good_source, "-DADD=9", &error);
  g_assert_no_error (error);
  clReleaseProgram (prog);

  damage_cache (dir, damage);
  clv_program_stats (&s0);
  build_and_run (dev, "-DADD=9", 9);
  clv_program_stats (&s1);
  g_assert_cmpuint (s1.disk_cache_rejects, ==, s0.disk_cache_rejects + 1);
  g_assert_cmpuint (s1.builds_from_source, ==, s0.builds_from_source + 1);
  g_assert_cmpuint (s1.disk_cache_writes, ==, s0.disk_cache_writes + 1);

  /* ... and the rewritten file is good again. */
  prog = clv_program_build (dev, "cachetest", good_source, "-DADD=9", &error);
  g_assert_no_error (error);
  clReleaseProgram (prog);
  clv_program_stats (&s2);
  g_assert_cmpuint (s2.disk_cache_hits, ==, s1.disk_cache_hits + 1);
  g_assert_cmpuint (s2.builds_from_source, ==, s1.builds_from_source);

  remove_tree (dir);
  g_free (dir);
  clv_device_unref (dev);
}

static void
test_embedded_program_cached_in_process (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvProgramStats s0, s1;
  GError *error = NULL;
  cl_program a, b;
  const char *opts = "-DSAMPLE=1 -DRL=2 -DAL=2 -DAMPLITUDE=0 -DOUT_X=1 -DVW=2 "
      "-DSPLIT=1 -DLX=1 -DHAVE_FP64=0";

  a = clv_device_get_program (dev, "sar_multilook", opts, &error);
  g_assert_no_error (error);
  clv_program_stats (&s0);
  b = clv_device_get_program (dev, "sar_multilook", opts, &error);
  g_assert_no_error (error);
  clv_program_stats (&s1);
  g_assert_true (a == b);
  g_assert_cmpuint (s1.builds_from_source + s1.disk_cache_hits, ==,
      s0.builds_from_source + s0.disk_cache_hits);
  clReleaseProgram (a);
  clReleaseProgram (b);
  clv_device_unref (dev);
}

/* A cache folder that cannot be made (its parent is a file): one warning
 * naming the fix, then every program builds from source and runs. */
static void
test_unwritable_cache_warns_and_runs (void)
{
  ClvDevice *dev = clv_test_device ();
  char *dir = fresh_cache_dir ("unwritable");
  char *blocker = g_build_filename (dir, "not-a-folder", NULL);
  ClvProgramStats s0, s1;
  GError *error = NULL;
  cl_program prog;

  g_assert_true (g_file_set_contents (blocker, "x", 1, NULL));
  g_setenv ("XDG_CACHE_HOME", blocker, TRUE);
  clv_program_stats (&s0);
  g_test_expect_message ("clvision", G_LOG_LEVEL_WARNING,
      "*program cache is not writable*not-a-folder*XDG_CACHE_HOME*");
  prog = clv_program_build (dev, "cachetest", good_source, "-DADD=11",
      &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  assert_program_runs (dev, prog, 11);
  clReleaseProgram (prog);
  /* Said once: the next build is as quiet as it is uncached. */
  build_and_run (dev, "-DADD=12", 12);
  clv_program_stats (&s1);
  g_assert_cmpuint (s1.disk_cache_writes, ==, s0.disk_cache_writes);
  g_assert_cmpuint (s1.builds_from_source, ==, s0.builds_from_source + 2);

  remove_tree (dir);
  g_free (blocker);
  g_free (dir);
  clv_device_unref (dev);
}

/* A buffer over CL_DEVICE_MAX_MEM_ALLOC_SIZE: an error naming both sizes,
 * before the driver is asked. */
static void
test_too_large_buffer_named (void)
{
  ClvDevice *dev = clv_test_device ();
  GError *error = NULL;
  gsize size = dev->max_mem_alloc_size + 1;
  char *expect_size = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes", size);
  char *expect_limit = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes",
      dev->max_mem_alloc_size);
  cl_mem m;

  g_assert_cmpuint (dev->max_mem_alloc_size, >, 0);
  g_assert_cmpuint (dev->max_mem_alloc_size, <, G_MAXSIZE);
  m = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, &error);
  g_assert_null (m);
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, expect_size));
  g_assert_nonnull (strstr (error->message, expect_limit));
  g_assert_nonnull (strstr (error->message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
  g_clear_error (&error);
  g_free (expect_size);
  g_free (expect_limit);
  clv_device_unref (dev);
}

/* Device strings: auto, "P:D" within guint, anything else a name. */
/* The busy fraction: the union of the spans over the whole span, with
 * overlapping, touching, nested, unsorted and empty spans. */
static void
test_spans_busy_fraction (void)
{
  ClvSpan spans[] = { {100, 100}, {40, 50}, {15, 30}, {10, 20}, {50, 60},
    {42, 45}
  };
  ClvSpan one = { 5, 9 };
  double span = -1;

  /* Busy [10, 30] and [40, 60] of [10, 100]. */
  g_assert_cmpfloat_with_epsilon (clv_spans_busy_fraction (spans,
          G_N_ELEMENTS (spans), &span), 40.0 / 90.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (span, 90e-9, 1e-15);
  g_assert_cmpfloat (clv_spans_busy_fraction (&one, 1, &span), ==, 1);
  g_assert_cmpfloat_with_epsilon (span, 4e-9, 1e-15);
  g_assert_cmpfloat (clv_spans_busy_fraction (spans, 0, &span), ==, 0);
  g_assert_cmpfloat (span, ==, 0);
}

static void
test_device_spec_parse (void)
{
  guint p = 99, d = 99;

  g_assert_cmpint (clv_device_spec_parse (NULL, &p, &d), ==,
      CLV_DEVICE_SPEC_AUTO);
  g_assert_cmpint (clv_device_spec_parse ("", &p, &d), ==,
      CLV_DEVICE_SPEC_AUTO);
  g_assert_cmpint (clv_device_spec_parse ("AUTO", &p, &d), ==,
      CLV_DEVICE_SPEC_AUTO);
  g_assert_cmpint (clv_device_spec_parse ("first", &p, &d), ==,
      CLV_DEVICE_SPEC_FIRST);
  g_assert_cmpint (clv_device_spec_parse ("First", &p, &d), ==,
      CLV_DEVICE_SPEC_FIRST);
  g_assert_cmpint (clv_device_spec_parse ("1:2", &p, &d), ==,
      CLV_DEVICE_SPEC_INDEX);
  g_assert_cmpuint (p, ==, 1);
  g_assert_cmpuint (d, ==, 2);
  g_assert_cmpint (clv_device_spec_parse ("4294967295:0", &p, &d), ==,
      CLV_DEVICE_SPEC_INDEX);
  g_assert_cmpuint (p, ==, G_MAXUINT);
  /* Out of range used to wrap round to 0:0, another device. */
  p = d = 99;
  g_assert_cmpint (clv_device_spec_parse ("4294967296:0", &p, &d), ==,
      CLV_DEVICE_SPEC_NAME);
  g_assert_cmpint (clv_device_spec_parse ("0:99999999999999999999", &p, &d),
      ==, CLV_DEVICE_SPEC_NAME);
  g_assert_cmpuint (p, ==, 99);
  g_assert_cmpint (clv_device_spec_parse ("0:1x", &p, &d), ==,
      CLV_DEVICE_SPEC_NAME);
  g_assert_cmpint (clv_device_spec_parse (":1", &p, &d), ==,
      CLV_DEVICE_SPEC_NAME);
  g_assert_cmpint (clv_device_spec_parse ("pthread", &p, &d), ==,
      CLV_DEVICE_SPEC_NAME);
}

static void
test_tune_lookup (void)
{
  char *v;

  g_assert_null (clv_tune_lookup ("", "A"));
  g_assert_null (clv_tune_lookup ("A", "A"));
  g_assert_null (clv_tune_lookup ("AB=1", "A"));
  v = clv_tune_lookup (" A = 1 ,B=2,A= 3 ", "A");
  g_assert_cmpstr (v, ==, "3");
  g_free (v);
  v = clv_tune_lookup ("B=2,,=,A=", "A");
  g_assert_cmpstr (v, ==, "");
  g_free (v);
  v = clv_tune_lookup ("A=x=y", "A");
  g_assert_cmpstr (v, ==, "x=y");
  g_free (v);
}

/* Writes a tuning file for `dev` holding `contents` verbatim. */
static void
write_tuning_file (ClvDevice * dev, const char *contents)
{
  char *path = clv_tuning_path (dev), *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_free (dir);
  g_free (path);
}

/* Quantizes a small GRAY16 ramp on `dev` and compares with the C reference. */
static void
assert_quantize_equals_reference (ClvDevice * dev)
{
  const int w = 96, h = 40;
  ClvImage si = clv_image_make (w, h, 2, (gsize) w * 2);
  ClvImage di = clv_image_make (w, h, 1, w);
  guint16 *in = g_new (guint16, w * h);
  guint8 *ref = g_new (guint8, w * h), *out = g_new0 (guint8, w * h);
  GError *error = NULL;
  ClvQuantize *q;
  cl_mem src, dst;

  for (int i = 0; i < w * h; i++)
    in[i] = (guint16) (100 + (i * 37) % 900);
  clv_quantize_ref ((guint8 *) in, &si, ref, &di, 35);
  q = clv_quantize_new (dev, 2, &error);
  g_assert_no_error (error);
  src = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY, in, w * h * 2,
      &error);
  dst = clv_buffer_new (dev, CL_MEM_WRITE_ONLY, w * h, &error);
  g_assert_no_error (error);
  g_assert_true (clv_quantize_enqueue (q, src, &si, dst, &di, 35, NULL,
          &error));
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueReadBuffer (dev->queue, dst, CL_TRUE, 0, w * h,
          out, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_cmpmem (out, w * h, ref, w * h);
  clReleaseMemObject (src);
  clReleaseMemObject (dst);
  clv_quantize_free (q);
  g_free (in);
  g_free (ref);
  g_free (out);
}

/* clvision-tune's result is found when a device is opened and reaches the
 * kernels; CLVISION_TUNE replaces it and CLVISION_AUTOTUNE=0 ignores it. */
static void
test_stored_tuning_used (void)
{
  char *dir = fresh_cache_dir ("tuning");
  ClvDevice *dev;
  GKeyFile *kf = g_key_file_new ();
  GError *error = NULL;
  ClvQuantize *q;
  char *path, *text = NULL;

  /* Whatever the caller's environment says (benchmark scripts set it). */
  g_unsetenv ("CLVISION_AUTOTUNE");
  dev = clv_device_open_unshared (NULL, NULL);
  g_assert_nonnull (dev);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_K", 77), ==, 77);
  g_key_file_set_integer (kf, "quantize", "SAR_Q_K", 2);
  g_key_file_set_integer (kf, "quantize", "SAR_Q_VEC", 4);
  g_assert_true (clv_tuning_save (dev, kf, &error));
  g_assert_no_error (error);
  /* The file names the device and driver for people. */
  path = clv_tuning_path (dev);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, dev->driver_version));
  clv_device_unref (dev);

  dev = clv_device_open_unshared (NULL, NULL);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_K", 77), ==, 2);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_VEC", 77), ==, 4);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_WG", 77), ==, 77);
  /* CLVISION_TUNE replaces the stored values as a whole. */
  g_setenv ("CLVISION_TUNE", "SAR_Q_K=4", TRUE);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_K", 77), ==, 4);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_VEC", 77), ==, 77);
  g_unsetenv ("CLVISION_TUNE");
  assert_quantize_equals_reference (dev);
  clv_device_unref (dev);

  /* A stored value the kernel refuses proves that the kernel reads it. */
  g_key_file_set_integer (kf, "quantize", "SAR_Q_VEC", 3);
  g_assert_true (clv_tuning_save (dev = clv_device_open_unshared (NULL,
              NULL), kf, &error));
  clv_device_unref (dev);
  dev = clv_device_open_unshared (NULL, NULL);
  q = clv_quantize_new (dev, 2, &error);
  g_assert_null (q);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "SAR_Q_VEC"));
  g_clear_error (&error);
  clv_device_unref (dev);

  g_setenv ("CLVISION_AUTOTUNE", "0", TRUE);
  dev = clv_device_open_unshared (NULL, NULL);
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_VEC", 77), ==, 77);
  clv_device_unref (dev);
  g_unsetenv ("CLVISION_AUTOTUNE");

  g_key_file_free (kf);
  g_free (text);
  g_free (path);
  remove_tree (dir);
  g_free (dir);
}

/* The device time of a copy of 1 MiB on `dev`'s queue. */
static double
copy_seconds (ClvDevice * dev)
{
  const gsize size = 1 << 20;
  cl_mem a = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, NULL);
  cl_mem b = clv_buffer_new (dev, CL_MEM_READ_WRITE, size, NULL);
  cl_event ev = NULL;
  double s;

  g_assert_true (a && b);
  g_assert_cmpint (clEnqueueCopyBuffer (dev->queue, a, b, 0, 0, size, 0,
          NULL, &ev), ==, CL_SUCCESS);
  g_assert_cmpint (clWaitForEvents (1, &ev), ==, CL_SUCCESS);
  s = clv_event_seconds (ev);
  clReleaseEvent (ev);
  clReleaseMemObject (a);
  clReleaseMemObject (b);
  return s;
}

/* A device's queue records kernel times only where CLVISION_PROFILE is set
 * (not to 0), or opened by clv_device_open_profiled(); without, times read
 * 0 rather than fail. */
static void
test_profiling_switch (void)
{
  static const struct
  {
    const char *value;
    gboolean profiles;
  } cases[] = { {NULL, FALSE}, {"0", FALSE}, {"", FALSE}, {"1", TRUE} };
  const char *saved = g_getenv ("CLVISION_PROFILE");
  char *keep = g_strdup (saved);
  ClvDevice *dev;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    if (cases[i].value)
      g_setenv ("CLVISION_PROFILE", cases[i].value, TRUE);
    else
      g_unsetenv ("CLVISION_PROFILE");
    dev = clv_device_open_unshared (NULL, NULL);
    g_assert_nonnull (dev);
    g_assert_cmpint (dev->profiling, ==, cases[i].profiles);
    if (cases[i].profiles)
      g_assert_cmpfloat (copy_seconds (dev), >, 0);
    else
      g_assert_cmpfloat (copy_seconds (dev), ==, 0);
    clv_device_unref (dev);
  }
  g_unsetenv ("CLVISION_PROFILE");
  dev = clv_device_open_profiled (NULL, NULL);
  g_assert_true (dev->profiling);
  g_assert_cmpfloat (copy_seconds (dev), >, 0);
  clv_device_unref (dev);
  if (keep)
    g_setenv ("CLVISION_PROFILE", keep, TRUE);
  g_free (keep);
}

/* A tuning file that cannot be used is reported and the defaults apply. */
static void
test_corrupt_tuning_file (gconstpointer contents)
{
  char *dir = fresh_cache_dir ("badtuning");
  ClvDevice *dev = clv_device_open_unshared (NULL, NULL);

  g_assert_nonnull (dev);
  write_tuning_file (dev, contents);
  clv_device_unref (dev);
  g_test_expect_message ("clvision", G_LOG_LEVEL_WARNING,
      "Ignoring the tuning file *");
  dev = clv_device_open_unshared (NULL, NULL);
  g_test_assert_expected_messages ();
  g_assert_nonnull (dev);
  /* Nothing of the file is used, not even its valid lines. */
  g_assert_cmpint (clv_device_tune_int (dev, "SAR_Q_K", 77), ==, 77);
  clv_device_unref (dev);
  remove_tree (dir);
  g_free (dir);
}

/* clv_upload puts every byte where a plain upload would, whatever its
 * flags: sizes that are no multiple of the staging chunks, at an offset,
 * through the stages of one stager in turn (grown as needed), with or
 * without an event back; nothing for size 0. */
static void
test_upload_flags (void)
{
  static const struct
  {
    ClvTransferFlags flags;
    gboolean done;
  } cases[] = {
    {0, FALSE}, {0, TRUE}, {CLV_TRANSFER_UNORDERED, FALSE},
    {CLV_TRANSFER_UNORDERED, TRUE}, {CLV_TRANSFER_PINNED, FALSE},
    {CLV_TRANSFER_PINNED | CLV_TRANSFER_UNORDERED, FALSE},
    {CLV_TRANSFER_PINNED | CLV_TRANSFER_UNORDERED, TRUE},
    {CLV_TRANSFER_STAGED, FALSE}, {CLV_TRANSFER_STAGED, TRUE},
    {CLV_TRANSFER_STAGED | CLV_TRANSFER_UNORDERED, FALSE},
    {CLV_TRANSFER_STAGED | CLV_TRANSFER_UNORDERED, TRUE},
    {CLV_TRANSFER_STAGED, FALSE},
  };
  ClvDevice *dev = clv_device_open ("first", NULL);
  const gsize big = (5 << 20) + 3, offset = 16;
  ClvStager *stager;
  cl_mem mem, pinned_mem;
  guint8 *pinned, *back = g_malloc (big + offset);
  GError *error = NULL;
  cl_event done = NULL;

  g_assert_nonnull (dev);
  stager = clv_stager_new (dev);
  mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, big + offset, &error);
  g_assert_no_error (error);
  pinned = clv_pinned_new (dev, big, &pinned_mem, &error);
  g_assert_no_error (error);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const gsize n = c % 2 ? 1000 + c : big - c;

    for (gsize i = 0; i < n; i++)
      pinned[i] = (guint8) ((i + c) * 2654435761u >> 13);
    g_assert_true (clv_upload (dev, mem, offset, pinned, n, cases[c].flags,
            stager, cases[c].done ? &done : NULL, &error));
    g_assert_no_error (error);
    if (cases[c].done) {
      g_assert_nonnull (done);
      g_assert_cmpint (clWaitForEvents (1, &done), ==, CL_SUCCESS);
      g_clear_pointer (&done, clReleaseEvent);
    }
    /* Unordered or not, the device's queue reads the new bytes. */
    g_assert_cmpint (clEnqueueReadBuffer (dev->queue, mem, CL_TRUE, offset, n,
            back, 0, NULL, NULL), ==, CL_SUCCESS);
    g_assert_cmpmem (back, n, pinned, n);
  }
  g_assert_true (clv_upload (dev, mem, 0, pinned, 0, CLV_TRANSFER_STAGED,
          stager, &done, &error));
  g_assert_no_error (error);
  g_assert_null (done);

  clv_stager_free (stager);
  clv_pinned_free (dev, pinned_mem, pinned);
  clReleaseMemObject (mem);
  g_free (back);
  clv_device_unref (dev);
}

/* A stager over given pinned memory stages through it and refuses more
 * than it holds. */
static void
test_stager_for_pinned (void)
{
  ClvDevice *dev = clv_device_open ("first", NULL);
  const gsize n = (3 << 20) + 5;
  guint8 *src = g_malloc (n), *back = g_malloc (n), *pinned;
  cl_mem mem, pinned_mem;
  ClvStager *stager;
  GError *error = NULL;

  g_assert_nonnull (dev);
  for (gsize i = 0; i < n; i++)
    src[i] = (guint8) (i * 40503u >> 7);
  mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, n, &error);
  pinned = clv_pinned_new (dev, n, &pinned_mem, &error);
  g_assert_no_error (error);
  stager = clv_stager_new_for_pinned (dev, pinned_mem, pinned, n);
  g_assert_true (clv_upload (dev, mem, 0, src, n, CLV_TRANSFER_STAGED,
          stager, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (clv_upload (dev, mem, 0, src, n + 1, CLV_TRANSFER_STAGED,
          stager, NULL, &error));
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_clear_error (&error);
  clv_stager_free (stager);
  /* The stage holds the bytes, and the device has them. */
  g_assert_cmpmem (pinned, n, src, n);
  g_assert_cmpint (clEnqueueReadBuffer (dev->queue, mem, CL_TRUE, 0, n, back,
          0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_cmpmem (back, n, src, n);
  clv_pinned_free (dev, pinned_mem, pinned);
  clReleaseMemObject (mem);
  g_free (back);
  g_free (src);
  clv_device_unref (dev);
}

static gint pinned_done;

static gpointer
pinned_new_thread (gpointer data)
{
  ClvDevice *dev = data;
  cl_mem buffer = NULL;
  void *p = clv_pinned_new (dev, 4096, &buffer, NULL);

  g_atomic_int_set (&pinned_done, 1);
  clv_pinned_free (dev, buffer, p);
  return GINT_TO_POINTER (p != NULL);
}

/* Pinned memory comes without waiting for the device's queue: with that
 * queue held behind a user event (as by other pipelines' kernels), a
 * stage is still allocated and mapped. */
static void
test_pinned_new_while_queue_held (void)
{
  ClvDevice *dev = clv_device_open ("first", NULL);
  const gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  gboolean while_held;
  cl_event hold;
  GThread *t;
  cl_int st;

  g_assert_nonnull (dev);
  hold = clCreateUserEvent (dev->context, &st);
  g_assert_cmpint (st, ==, CL_SUCCESS);
  g_assert_cmpint (clEnqueueMarkerWithWaitList (dev->queue, 1, &hold, NULL),
      ==, CL_SUCCESS);
  g_assert_cmpint (clFlush (dev->queue), ==, CL_SUCCESS);
  g_atomic_int_set (&pinned_done, 0);
  t = g_thread_new ("pinned", pinned_new_thread, dev);
  while (!g_atomic_int_get (&pinned_done) && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  while_held = g_atomic_int_get (&pinned_done);
  /* Let the queue go in any case: a map stuck behind it then ends, and the
   * test fails instead of hanging. */
  g_assert_cmpint (clSetUserEventStatus (hold, CL_COMPLETE), ==, CL_SUCCESS);
  clReleaseEvent (hold);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (t)));
  g_assert_true (while_held);
  g_assert_cmpint (clFinish (dev->queue), ==, CL_SUCCESS);
  clv_device_unref (dev);
}

/* Completes user event `ev` with `status` after 50 ms, `flag` set first. */
typedef struct
{
  cl_event ev;
  cl_int status;
  gint flag;
} LateEvent;

static gpointer
complete_late (gpointer data)
{
  LateEvent *late = data;

  g_usleep (50000);
  g_atomic_int_set (&late->flag, 1);
  clSetUserEventStatus (late->ev, late->status);
  return NULL;
}

/* Writes `size` bytes of `src` into `mem` through the device's queue,
 * held by late->ev until the returned thread completes it (the write's
 * event in *written if not NULL). */
static GThread *
write_held (ClvDevice * dev, cl_mem mem, const void *src, gsize size,
    LateEvent * late, cl_event * written)
{
  cl_int st;

  late->ev = clCreateUserEvent (dev->context, &st);
  g_assert_cmpint (st, ==, CL_SUCCESS);
  late->status = CL_COMPLETE;
  late->flag = 0;
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, mem, CL_FALSE, 0, size,
          src, 1, &late->ev, written), ==, CL_SUCCESS);
  return g_thread_new ("late", complete_late, late);
}

/* After a read behind write_held's write of `src`: the read returned only
 * once the thread had completed the event, with the written bytes; joins
 * the thread and releases the event. */
static void
check_read_held (LateEvent * late, GThread * t, const guint8 * back,
    const guint8 * src, gsize size)
{
  g_assert_cmpint (g_atomic_int_get (&late->flag), ==, 1);
  g_assert_cmpmem (back, size, src, size);
  g_thread_join (t);
  clReleaseEvent (late->ev);
}

static void
late_event_wait (ClvDevice * dev, LateEvent * late, cl_int status)
{
  GThread *t;
  cl_int st;

  late->ev = clCreateUserEvent (dev->context, &st);
  g_assert_cmpint (st, ==, CL_SUCCESS);
  late->status = status;
  late->flag = 0;
  t = g_thread_new ("late", complete_late, late);
  if (status == CL_COMPLETE) {
    g_assert_true (clv_event_wait (dev, late->ev, NULL));
  } else {
    GError *error = NULL;
    g_assert_false (clv_event_wait (dev, late->ev, &error));
    g_assert_nonnull (strstr (error->message, "the command the event stands "
            "for"));
    g_error_free (error);
  }
  g_assert_cmpint (g_atomic_int_get (&late->flag), ==, 1);
  g_thread_join (t);
  clReleaseEvent (late->ev);
}

/* clv_event_wait and clv_read_buffer, with `data` analysers on the device
 * (1: the driver waits; 2: the status is polled): a wait returns once the
 * event completes, a failed one as an error, and a read behind a write
 * held by a user event returns the written bytes. */
static void
test_event_wait (gconstpointer data)
{
  const gint analysers = GPOINTER_TO_INT (data);
  ClvDevice *dev = clv_device_open ("first", NULL);
  guint8 src[4096], back[4096];
  LateEvent late = { 0 };
  GError *error = NULL;
  GThread *t;
  cl_mem mem;

  g_assert_nonnull (dev);
  clv_device_analysers_add (dev, analysers);
  late_event_wait (dev, &late, CL_COMPLETE);
  late_event_wait (dev, &late, -5);

  mem = clv_buffer_new (dev, CL_MEM_READ_WRITE, sizeof (src), &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < sizeof (src); i++)
    src[i] = (guint8) (i * 7 + 3);
  memset (back, 0, sizeof (back));
  t = write_held (dev, mem, src, sizeof (src), &late, NULL);
  g_assert_true (clv_read_buffer (dev, mem, 0, sizeof (back), back,
          &error));
  g_assert_no_error (error);
  check_read_held (&late, t, back, src, sizeof (src));

  clv_device_analysers_add (dev, -analysers);
  clReleaseMemObject (mem);
  clv_device_unref (dev);
}

/* clv_read_buffer_after, with `data` analysers on the device: a read
 * through a second queue, after a write on the device's queue that a user
 * event holds, returns only once the write is done, with its bytes. */
static void
test_read_after (gconstpointer data)
{
  const gint analysers = GPOINTER_TO_INT (data);
  ClvDevice *dev = clv_device_open ("first", NULL);
  guint8 src[4096], back[4096];
  LateEvent late = { 0 };
  GError *error = NULL;
  cl_command_queue other;
  cl_event written = NULL;
  GThread *t;
  cl_mem mem;
  cl_int st;

  g_assert_nonnull (dev);
  clv_device_analysers_add (dev, analysers);
  other = clCreateCommandQueue (dev->context, dev->device, 0, &st);
  g_assert_cmpint (st, ==, CL_SUCCESS);
  memset (back, 0, sizeof (back));
  mem = clv_buffer_new_with_data (dev, CL_MEM_READ_WRITE, back,
      sizeof (back), &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < sizeof (src); i++)
    src[i] = (guint8) (i * 5 + 1);
  t = write_held (dev, mem, src, sizeof (src), &late, &written);
  g_assert_true (clv_read_buffer_after (dev, other, written, mem, 0,
          sizeof (back), back, &error));
  g_assert_no_error (error);
  check_read_held (&late, t, back, src, sizeof (src));
  clReleaseEvent (written);

  clv_device_analysers_add (dev, -analysers);
  clReleaseMemObject (mem);
  clReleaseCommandQueue (other);
  clv_device_unref (dev);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/opencl/error-names", test_error_names);
  g_test_add_func ("/opencl/device-selection", test_device_selection);
  g_test_add_func ("/opencl/device-no-match", test_device_no_match);
  g_test_add_func ("/opencl/device-env-override", test_device_env_override);
  g_test_add_func ("/opencl/tune-override", test_tune_override);
  g_test_add_func ("/opencl/build-failure-reports-log",
      test_build_failure_reports_log);
  g_test_add_func ("/opencl/binary-cache", test_binary_cache);
  g_test_add_func ("/opencl/extra-build-options", test_extra_build_options);
  g_test_add_data_func ("/opencl/corrupt-cache/garbage",
      "not a program binary", test_corrupt_cache_is_rebuilt);
  g_test_add_data_func ("/opencl/corrupt-cache/truncated", NULL,
      test_corrupt_cache_is_rebuilt);
  g_test_add_func ("/opencl/embedded-program-cached-in-process",
      test_embedded_program_cached_in_process);
  g_test_add_func ("/opencl/unwritable-cache-warns-and-runs",
      test_unwritable_cache_warns_and_runs);
  g_test_add_func ("/opencl/too-large-buffer-named",
      test_too_large_buffer_named);
  g_test_add_func ("/opencl/device-spec-parse", test_device_spec_parse);
  g_test_add_func ("/opencl/spans-busy-fraction", test_spans_busy_fraction);
  g_test_add_func ("/opencl/profiling-switch", test_profiling_switch);
  g_test_add_func ("/opencl/tune-lookup", test_tune_lookup);
  g_test_add_func ("/opencl/stored-tuning-used", test_stored_tuning_used);
  g_test_add_func ("/opencl/upload-flags", test_upload_flags);
  g_test_add_func ("/opencl/stager-for-pinned", test_stager_for_pinned);
  g_test_add_data_func ("/opencl/event-wait/alone", GINT_TO_POINTER (1),
      test_event_wait);
  g_test_add_data_func ("/opencl/event-wait/shared", GINT_TO_POINTER (2),
      test_event_wait);
  g_test_add_data_func ("/opencl/read-after/alone", GINT_TO_POINTER (1),
      test_read_after);
  g_test_add_data_func ("/opencl/read-after/shared", GINT_TO_POINTER (2),
      test_read_after);
  g_test_add_func ("/opencl/pinned-new-while-queue-held",
      test_pinned_new_while_queue_held);
  g_test_add_data_func ("/opencl/corrupt-tuning/garbage",
      "\x7f\x01 not a key file [[[", test_corrupt_tuning_file);
  g_test_add_data_func ("/opencl/corrupt-tuning/not-an-integer",
      "[quantize]\nSAR_Q_K=2\nSAR_Q_VEC=four\n", test_corrupt_tuning_file);
  g_test_add_data_func ("/opencl/corrupt-tuning/not-a-macro",
      "[quantize]\nSAR_Q_K=2\nsar q vec=4\n", test_corrupt_tuning_file);
  return g_test_run ();
}
