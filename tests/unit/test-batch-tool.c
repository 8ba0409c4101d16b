/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-batch's parts without pipelines: template expansion and quoting,
 * the archive's inputs (folders, list files, rules, collisions), the shares
 * of a Slurm submission, progress lines and summaries. */
#include <string.h>

#include <glib/gstdio.h>

#include "batch.h"
#include "batch-plan.h"

static void
test_template_quotes (void)
{
  BatchFields f = { "/a b/it's \"x\"\\.webm", "/o/x.jsonl", "x", "0:1" };
  char *s = batch_template_expand ("filesrc location={input} ! "
      "roiexport location=\"{output}\" source-name={stem} ! "
      "vjfacedetect device={device}", &f);

  g_assert_cmpstr (s, ==, "filesrc location=\"/a b/it's \\\"x\\\"\\\\.webm\" "
      "! roiexport location=\"/o/x.jsonl\" source-name=\"x\" ! "
      "vjfacedetect device=\"0:1\"");
  g_free (s);
}

static void
test_template_keeps_braces (void)
{
  BatchFields f = { "/in.webm", "/out", "in", "0:0" };
  char *s = batch_template_expand ("video/x-raw,format={ I420, NV12 } ! "
      "x prop={nosuch} uri={uri} text=\"\\\"{stem}\"", &f);

  g_assert_cmpstr (s, ==, "video/x-raw,format={ I420, NV12 } ! x "
      "prop={nosuch} uri=\"file:///in.webm\" text=\"\\\"in\"");
  g_free (s);
}

static void
test_template_check (void)
{
  GError *error = NULL;

  g_assert_true (batch_template_check ("a={input} b={output}", NULL));
  g_assert_false (batch_template_check ("filesrc location={input} ! "
          "fakesink", &error));
  g_assert_nonnull (strstr (error->message, "{output}"));
  g_error_free (error);
}

static void
touch (const char *dir, const char *rel, gsize size)
{
  char *path = g_build_filename (dir, rel, NULL);
  char *parent = g_path_get_dirname (path);
  char *data = g_malloc0 (size);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0777), ==, 0);
  g_assert_true (g_file_set_contents (path, data, size, NULL));
  g_free (data);
  g_free (parent);
  g_free (path);
}

static GPtrArray *
two_rules (void)
{
  GPtrArray *rules = g_ptr_array_new_with_free_func (batch_rule_free);

  g_ptr_array_add (rules, batch_rule_new ("*.webm", "v {input} {output}",
          ".jsonl"));
  g_ptr_array_add (rules, batch_rule_new ("*.tif", "s {input} {output}",
          ".tif"));
  return rules;
}

static void
test_inputs_folders_and_lists (void)
{
  char *dir = g_dir_make_tmp ("batch-XXXXXX", NULL);
  char *in = g_build_filename (dir, "in", NULL);
  char *out = g_build_filename (in, "out", NULL);
  char *list = g_build_filename (dir, "list.txt", NULL);
  char *paths[] = { in, NULL }, *lists[] = { list, NULL };
  GPtrArray *rules = two_rules ();
  BatchInputSpec spec = { paths, lists, NULL, rules, out };
  GPtrArray *entries;
  BatchEntry *e;

  touch (dir, "in/cam2/b.webm", 20);
  touch (dir, "in/cam1/a.webm", 10);
  touch (dir, "in/scene.tif", 30);
  touch (dir, "in/notes.txt", 1);       /* no rule: left out */
  touch (dir, "in/.hidden.webm", 1);
  touch (dir, "in/out/old.webm", 1);    /* the output folder */
  touch (dir, "other/c.v1.webm", 5);
  g_assert_true (g_file_set_contents (list, "# a comment\n\n"
          "other/c.v1.webm\n", -1, NULL));

  entries = batch_inputs_resolve (&spec, NULL);
  g_assert_nonnull (entries);
  g_assert_cmpuint (entries->len, ==, 4);
  e = entries->pdata[0];
  g_assert_true (g_str_has_suffix (e->input, "/other/c.v1.webm"));
  g_assert_cmpstr (e->output, ==, "c.v1.jsonl");
  g_assert_cmpuint (e->bytes, ==, 5);
  e = entries->pdata[1];
  g_assert_cmpstr (e->output, ==, "cam1/a.jsonl");
  g_assert_cmpuint (e->rule, ==, 0);
  g_assert_cmpstr (((BatchEntry *) entries->pdata[2])->output, ==,
      "cam2/b.jsonl");
  e = entries->pdata[3];
  g_assert_cmpstr (e->output, ==, "scene.tif");
  g_assert_cmpuint (e->rule, ==, 1);
  g_ptr_array_unref (entries);

  g_ptr_array_unref (rules);
  g_free (list);
  g_free (out);
  g_free (in);
  g_free (dir);
}

static void
test_inputs_refused (void)
{
  char *dir = g_dir_make_tmp ("batch-XXXXXX", NULL);
  char *a = g_build_filename (dir, "a/x.webm", NULL);
  char *b = g_build_filename (dir, "b/x.webm", NULL);
  char *txt = g_build_filename (dir, "a/x.txt", NULL);
  char *same[] = { a, b, NULL }, *norule[] = { txt, NULL };
  GPtrArray *rules = two_rules ();
  BatchInputSpec spec = { same, NULL, NULL, rules, dir };
  GError *error = NULL;

  touch (dir, "a/x.webm", 1);
  touch (dir, "b/x.webm", 1);
  touch (dir, "a/x.txt", 1);
  g_assert_null (batch_inputs_resolve (&spec, &error));
  g_assert_nonnull (strstr (error->message, "would both write 'x.jsonl'"));
  g_clear_error (&error);
  spec.paths = norule;
  g_assert_null (batch_inputs_resolve (&spec, &error));
  g_assert_nonnull (strstr (error->message, "No pipeline is for"));
  g_clear_error (&error);

  g_ptr_array_unref (rules);
  g_free (txt);
  g_free (a);
  g_free (b);
  g_free (dir);
}

/* Largest first, each to the task with the fewest bytes; shares in input
 * order; never more tasks than files. */
static void
test_shares (void)
{
  static const guint64 sizes[] = { 10, 50, 20, 40, 30 };
  static const guint expected[3][2] = { {1, G_MAXUINT}, {3, 0}, {2, 4} };
  BatchPlan plan = { 0 };
  GArray *todo = g_array_new (FALSE, FALSE, sizeof (guint));

  plan.entries = g_ptr_array_new_with_free_func (batch_entry_free);
  plan.submissions = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    g_ptr_array_add (plan.entries, batch_entry_new ("i", "o", sizes[i], 0));
    g_array_append_val (todo, i);
  }
  plan.max_tasks = 3;
  g_assert_cmpuint (batch_plan_add_submission (&plan, todo), ==, 0);
  {
    BatchSubmission *s = plan.submissions->pdata[0];
    g_assert_cmpuint (s->tasks->len, ==, 3);
    for (guint t = 0; t < 3; t++) {
      GArray *share = s->tasks->pdata[t];
      guint n = expected[t][1] == G_MAXUINT ? 1 : 2;
      g_assert_cmpuint (share->len, ==, n);
      /* Task 1 got 40 then 10: sorted back to input order. */
      if (t == 1) {
        g_assert_cmpuint (g_array_index (share, guint, 0), ==, 0);
        g_assert_cmpuint (g_array_index (share, guint, 1), ==, 3);
      } else {
        g_assert_cmpuint (g_array_index (share, guint, 0), ==,
            expected[t][0]);
      }
    }
  }
  plan.max_tasks = 100;
  g_array_set_size (todo, 2);
  g_assert_cmpuint (batch_plan_add_submission (&plan, todo), ==, 1);
  g_assert_cmpuint (((BatchSubmission *) plan.submissions->pdata[1])->tasks->
      len, ==, 2);
  g_array_unref (todo);
  for (guint k = 0; k < plan.submissions->len; k++) {
    BatchSubmission *s = plan.submissions->pdata[k];
    g_ptr_array_unref (s->tasks);
    g_free (s);
  }
  g_ptr_array_unref (plan.entries);
  g_ptr_array_unref (plan.submissions);
}

static void
test_progress_line (void)
{
  BatchProgress p = { 20, 12, 1, 3, 24000000, 12000000, 2000000, 1234,
    10.0
  };
  char *line = batch_progress_format (&p, 10);

  /* 10 MB in 10 s; 12 MB left: 12 s. */
  g_assert_cmpstr (line, ==, "[#####>    ] 50%, 12/20 files (1 failed), "
      "ETA 0:12, 3 running, 1234 frames (123/s), 12.0 MB of 24.0 MB");
  g_free (line);
  line = batch_format_duration (3725);
  g_assert_cmpstr (line, ==, "1:02:05");
  g_free (line);
}

static void
test_summary_round_trip (void)
{
  char *dir = g_dir_make_tmp ("batch-XXXXXX", NULL);
  char *path = g_build_filename (dir, "s.json", NULL);
  GPtrArray *rules = two_rules ();
  BatchEntry a = { (char *) "/in/a.webm", (char *) "a.jsonl", 1, 0 };
  BatchEntry b = { (char *) "/in/b.webm", (char *) "b.jsonl", 1, 0 };
  BatchResult results[2] = {
    {&a, BATCH_DONE, 1, (char *) "0:0", 8, 9, 7, 800, 0.5, NULL},
    {&b, BATCH_FAILED, 2, (char *) "0:1", 0, 0, 0, 0, 0.1,
        (char *) "typefind: Could not determine type of stream."},
  };
  GHashTable *read = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      batch_result_free);
  BatchResult *r;

  g_assert_true (batch_summary_write (path, rules, "/out", results, 2, 1.0,
          FALSE, NULL));
  g_assert_true (batch_summary_read (path, read, NULL));
  r = g_hash_table_lookup (read, "/in/a.webm");
  g_assert_cmpint (r->status, ==, BATCH_DONE);
  g_assert_cmpuint (r->frames, ==, 8);
  g_assert_cmpuint (r->regions, ==, 9);
  g_assert_cmpuint (r->faces, ==, 7);
  g_assert_cmpuint (r->pixels, ==, 800);
  r = g_hash_table_lookup (read, "/in/b.webm");
  g_assert_cmpint (r->status, ==, BATCH_FAILED);
  g_assert_cmpuint (r->attempts, ==, 2);
  g_assert_cmpstr (r->error, ==, results[1].error);
  g_hash_table_unref (read);
  g_ptr_array_unref (rules);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/batch-tool/template-quotes", test_template_quotes);
  g_test_add_func ("/batch-tool/template-keeps-braces",
      test_template_keeps_braces);
  g_test_add_func ("/batch-tool/template-check", test_template_check);
  g_test_add_func ("/batch-tool/inputs-folders-and-lists",
      test_inputs_folders_and_lists);
  g_test_add_func ("/batch-tool/inputs-refused", test_inputs_refused);
  g_test_add_func ("/batch-tool/shares", test_shares);
  g_test_add_func ("/batch-tool/progress-line", test_progress_line);
  g_test_add_func ("/batch-tool/summary-round-trip",
      test_summary_round_trip);
  return g_test_run ();
}
