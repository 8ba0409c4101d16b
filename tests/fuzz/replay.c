/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replays fuzz inputs through a target's LLVMFuzzerTestOneInput, for the
 * normal test suite (any compiler, no libFuzzer): every file named, and
 * every file in every directory named.  Prints TAP. */
#include "fuzz-target.h"

#include <stdio.h>

static int count;

static void
replay_file (const char *path)
{
  char *data;
  gsize length;
  GError *error = NULL;

  if (!g_file_get_contents (path, &data, &length, &error)) {
    printf ("not ok %d - %s: %s\n", ++count, path, error->message);
    exit (1);
  }
  /* A copy of exactly `length` bytes, so that a read past the end shows
   * up under a sanitizer or valgrind as it would under libFuzzer. */
  {
    guint8 *copy = g_memdup2 (data, length);
    LLVMFuzzerTestOneInput (copy, length);
    g_free (copy);
  }
  g_free (data);
  printf ("ok %d - %s\n", ++count, path);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++) {
    if (g_file_test (argv[i], G_FILE_TEST_IS_DIR)) {
      GDir *dir = g_dir_open (argv[i], 0, NULL);
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)))
        g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
      if (dir)
        g_dir_close (dir);
      for (guint k = 0; k < names->len; k++)
        replay_file (names->pdata[k]);
      g_ptr_array_unref (names);
    } else {
      replay_file (argv[i]);
    }
  }
  if (count == 0) {
    printf ("not ok 1 - no input to replay\n1..1\n");
    return 1;
  }
  printf ("1..%d\n", count);
  return 0;
}
