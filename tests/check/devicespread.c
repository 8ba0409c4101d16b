/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* device=auto spreads pipelines over the devices of the best kind; "first",
 * an index or a name pick one device whatever the load.  Runs with PoCL
 * alone (an OCL_ICD_VENDORS folder of its own holding PoCL's .icd file)
 * exposing two devices (POCL_DEVICES="pthread pthread"), so that it asserts
 * the same on any machine, with or without GPUs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/clvision/clvision.h>

#include "clv-opencl.h"

/* Starts (PAUSED, prerolled) a pipeline of `elements` fed one GRAY8 frame
 * and returns it; `device_index` gets the index of the device of the one
 * context its elements made, `contexts` how many they made. */
static GstElement *
start_pipeline (const gchar * elements, guint * device_index, guint * contexts)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=64 ! %s ! fakesink", elements);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "cannot build %s", desc);
  g_free (desc);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  bus = gst_element_get_bus (pipe);
  *contexts = 0;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT))) {
    GstContext *context;
    GstClvDevice *dev;

    gst_message_parse_have_context (msg, &context);
    dev = gst_clv_context_get_device (context);
    fail_unless (dev != NULL, "a have-context without a clvision device");
    *device_index = gst_clv_device_get_device_index (dev);
    (*contexts)++;
    gst_object_unref (dev);
    gst_context_unref (context);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  fail_unless_equals_int (*contexts, 1);
  return pipe;
}

static void
stop_pipeline (GstElement * pipe)
{
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

/* The device a one-element pipeline with `device` set gets. */
static guint
device_of (GstElement ** pipe, const gchar * device)
{
  gchar *el = device ? g_strdup_printf ("sarquantize device=%s", device)
      : g_strdup ("sarquantize");
  guint index = G_MAXUINT, contexts;

  *pipe = start_pipeline (el, &index, &contexts);
  g_free (el);
  return index;
}

GST_START_TEST (test_two_devices_present)
{
  gchar *list = clv_device_list_all ();

  /* Without two devices every other test here would prove nothing. */
  fail_unless (g_str_has_prefix (list, "0:0 ")
      && strstr (list, "; 0:1 ") != NULL, "not two PoCL devices: %s", list);
  g_free (list);
}

GST_END_TEST;

GST_START_TEST (test_auto_alternates)
{
  GstElement *p[4];
  const guint want[4] = { 0, 1, 0, 1 };

  for (guint i = 0; i < 4; i++)
    fail_unless_equals_int (device_of (&p[i], NULL), want[i]);
  for (guint i = 0; i < 4; i++)
    stop_pipeline (p[i]);
}

GST_END_TEST;

GST_START_TEST (test_auto_goes_to_least_used)
{
  GstElement *a, *b, *c, *d;

  fail_unless_equals_int (device_of (&a, NULL), 0);
  fail_unless_equals_int (device_of (&b, "0:0"), 0);
  /* Device 0 holds two pipelines, device 1 none. */
  fail_unless_equals_int (device_of (&c, NULL), 1);
  stop_pipeline (a);
  stop_pipeline (b);
  /* Device 0 is free again, device 1 holds one. */
  fail_unless_equals_int (device_of (&d, NULL), 0);
  stop_pipeline (c);
  stop_pipeline (d);
}

GST_END_TEST;

GST_START_TEST (test_explicit_and_first_win)
{
  GstElement *a, *b, *c, *d;

  fail_unless_equals_int (device_of (&a, NULL), 0);
  /* auto would take device 1 now. */
  fail_unless_equals_int (device_of (&b, "first"), 0);
  fail_unless_equals_int (device_of (&c, "0:0"), 0);
  /* A name matching both devices (their platform's) takes the first. */
  fail_unless_equals_int (device_of (&d, "portable"), 0);
  stop_pipeline (a);
  stop_pipeline (b);
  stop_pipeline (c);
  stop_pipeline (d);
}

GST_END_TEST;

GST_START_TEST (test_one_pipeline_one_device)
{
  GstElement *a, *b;
  guint index = G_MAXUINT, contexts;

  fail_unless_equals_int (device_of (&a, NULL), 0);
  /* Both elements of the second pipeline use the one context its first
   * element made (start_pipeline asserts a single have-context), on the
   * device the load chose.  (sarquantize only: PoCL 3.1 with two pthread
   * devices crashes in LLVM now and then compiling sarmultilook's kernel
   * for the second device.) */
  b = start_pipeline ("sarquantize ! sarquantize coef=10", &index, &contexts);
  fail_unless_equals_int (index, 1);
  stop_pipeline (a);
  stop_pipeline (b);
}

GST_END_TEST;

/* The device index of the filter `name` of `pipe`, asked with a context
 * query as a peer would. */
static guint
element_device (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstQuery *query = gst_query_new_context (GST_CLV_CONTEXT_TYPE);
  GstContext *context;
  GstClvDevice *dev;
  guint index;

  fail_unless (gst_pad_query (pad, query), "%s answers no context", name);
  gst_query_parse_context (query, &context);
  dev = gst_clv_context_get_device (context);
  fail_unless (dev != NULL);
  index = gst_clv_device_get_device_index (dev);
  gst_object_unref (dev);
  gst_query_unref (query);
  gst_object_unref (pad);
  gst_object_unref (e);
  return index;
}

/* Starts one pipeline of the branches `desc` (each fed one GRAY8 frame by
 * its own source), PAUSED; returns it and, in *devices, how many devices
 * the last context its elements announced holds. */
static GstElement *
start_branches (const gchar * desc, guint * devices)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;

  fail_unless (pipe != NULL, "cannot build %s", desc);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  *devices = 0;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT))) {
    GstContext *context;
    const GValue *array;

    gst_message_parse_have_context (msg, &context);
    array = gst_structure_get_value (gst_context_get_structure (context),
        "devices");
    fail_unless (array != NULL, "a context without its devices");
    *devices = gst_value_array_get_size (array);
    gst_context_unref (context);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return pipe;
}

#define BRANCH(name, props) "videotestsrc num-buffers=1 ! " \
  "video/x-raw,format=GRAY8,width=64,height=64 ! sarquantize name=" name \
  " " props " ! fakesink "

/* device=auto: the branches of one pipeline (no peer of ours between
 * them) take the two devices in turn, and the pipeline's context holds
 * both. */
GST_START_TEST (test_branches_spread)
{
  guint on[2] = { 0, 0 }, devices;
  GstElement *pipe = start_branches (BRANCH ("a", "") BRANCH ("b", "")
      BRANCH ("c", "") BRANCH ("d", ""), &devices);

  for (const gchar * n = "abcd"; *n; n++)
    on[element_device (pipe, (gchar[]) { *n, '\0' })]++;
  fail_unless_equals_int (on[0], 2);
  fail_unless_equals_int (on[1], 2);
  fail_unless_equals_int (devices, 2);
  stop_pipeline (pipe);
}

GST_END_TEST;

/* The elements of one branch, a memory:OpenCL chain, share one device; the
 * next branch takes the other; device=first and an explicit device keep
 * to theirs. */
GST_START_TEST (test_chain_and_explicit_in_branches)
{
  GstElement *pipe;
  guint devices, chain;

  pipe = start_branches ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=64 ! clupload name=up ! "
      "sarquantize name=q1 ! sarquantize name=q2 coef=10 ! "
      "cldownload name=down ! fakesink " BRANCH ("other", ""), &devices);
  chain = element_device (pipe, "q1");
  fail_unless_equals_int (element_device (pipe, "up"), chain);
  fail_unless_equals_int (element_device (pipe, "q2"), chain);
  fail_unless_equals_int (element_device (pipe, "down"), chain);
  fail_unless_equals_int (element_device (pipe, "other"), 1 - chain);
  stop_pipeline (pipe);

  pipe = start_branches (BRANCH ("a", "device=first")
      BRANCH ("b", "device=first") BRANCH ("c", "device=0:1")
      BRANCH ("d", "device=0:1"), &devices);
  fail_unless_equals_int (element_device (pipe, "a"), 0);
  fail_unless_equals_int (element_device (pipe, "b"), 0);
  fail_unless_equals_int (element_device (pipe, "c"), 1);
  fail_unless_equals_int (element_device (pipe, "d"), 1);
  fail_unless_equals_int (devices, 2);
  stop_pipeline (pipe);
}

GST_END_TEST;

/* A device the application gives the pipeline is where every auto branch
 * runs. */
GST_START_TEST (test_application_context_wins)
{
  GstElement *pipe = gst_parse_launch (BRANCH ("a", "") BRANCH ("b", ""),
      NULL);
  GstClvDevice *dev = gst_clv_device_new ("0:1", NULL);
  GstContext *context = gst_clv_context_new (dev);

  gst_element_set_context (pipe, context);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (element_device (pipe, "a"), 1);
  fail_unless_equals_int (element_device (pipe, "b"), 1);
  stop_pipeline (pipe);
  gst_context_unref (context);
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
devicespread_suite (void)
{
  Suite *s = suite_create ("devicespread");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_two_devices_present);
  tcase_add_test (tc, test_auto_alternates);
  tcase_add_test (tc, test_auto_goes_to_least_used);
  tcase_add_test (tc, test_explicit_and_first_win);
  tcase_add_test (tc, test_one_pipeline_one_device);
  tcase_add_test (tc, test_branches_spread);
  tcase_add_test (tc, test_chain_and_explicit_in_branches);
  tcase_add_test (tc, test_application_context_wins);
  return s;
}

/* Points the ICD loader at PoCL alone, with two devices, before anything
 * loads OpenCL: a folder `tmp` holding a copy of PoCL's .icd file. */
static gboolean
use_two_pocl_devices (const gchar * tmp)
{
  const gchar *vendors = g_getenv ("OCL_ICD_VENDORS");
  const gchar *from = vendors ? vendors : "/etc/OpenCL/vendors";
  GDir *dir = g_dir_open (from, 0, NULL);
  const gchar *name;
  gboolean found = FALSE;

  while (dir && !found && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (from, name, NULL);
    gchar *text = NULL;

    if (g_str_has_suffix (name, ".icd")
        && g_file_get_contents (path, &text, NULL, NULL)
        && strstr (text, "pocl") != NULL) {
      gchar *copy = g_build_filename (tmp, "pocl.icd", NULL);
      found = g_file_set_contents (copy, text, -1, NULL);
      g_free (copy);
    }
    g_free (text);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  if (!found) {
    g_printerr ("devicespread: no PoCL .icd file in %s (install Debian's "
        "pocl-opencl-icd)\n", from);
    return FALSE;
  }
  g_setenv ("OCL_ICD_VENDORS", tmp, TRUE);
  g_setenv ("POCL_DEVICES", "pthread pthread", TRUE);
  g_unsetenv ("CLVISION_DEVICE");
  return TRUE;
}

int
main (int argc, char **argv)
{
  gchar *tmp = g_dir_make_tmp ("clv-spread-XXXXXX", NULL);
  gchar *icd;
  int ret = 1;

  if (tmp && use_two_pocl_devices (tmp)) {
    gst_check_init (&argc, &argv);
    ret = gst_check_run_suite (devicespread_suite (), "devicespread",
        __FILE__);
  }
  if (tmp) {
    icd = g_build_filename (tmp, "pocl.icd", NULL);
    g_unlink (icd);
    g_rmdir (tmp);
    g_free (icd);
  }
  g_free (tmp);
  return ret;
}
