/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Progress over the whole archive.  Bytes measure it: a file's share of its
 * bytes follows its stream position, so that one long video and many short
 * ones count alike, and the rate over this run's bytes gives the ETA. */
#include <string.h>

#include "batch.h"

char *
batch_format_duration (double seconds)
{
  guint64 s = seconds > 0 ? (guint64) (seconds + 0.5) : 0;

  if (s >= 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600,
        (guint) (s / 60 % 60), (guint) (s % 60));
  return g_strdup_printf ("%u:%02u", (guint) (s / 60), (guint) (s % 60));
}

/* g_format_size() with a plain blank for the non-breaking one, so that
 * logs stay ASCII. */
static char *
format_bytes (guint64 bytes)
{
  char *s = g_format_size (bytes);
  char *nbsp = strstr (s, "\u00a0");

  if (nbsp) {
    *nbsp = ' ';
    memmove (nbsp + 1, nbsp + 2, strlen (nbsp + 2) + 1);
  }
  return s;
}

static void
append_bar (GString * s, double fraction, guint width)
{
  guint full = (guint) (fraction * width);

  g_string_append_c (s, '[');
  for (guint i = 0; i < width; i++)
    g_string_append_c (s, i < full ? '#' : (i == full ? '>' : ' '));
  g_string_append (s, "] ");
}

char *
batch_progress_format (const BatchProgress * p, guint bar_width)
{
  GString *s = g_string_new (NULL);
  double fraction = p->bytes_total
      ? (double) p->bytes_finished / (double) p->bytes_total : 1.0;
  guint64 done_now = p->bytes_finished - MIN (p->bytes_finished,
      p->bytes_at_start);
  char *total = format_bytes (p->bytes_total);
  char *done = format_bytes (p->bytes_finished);

  fraction = CLAMP (fraction, 0.0, 1.0);
  /* What matters most first: a narrow terminal cuts the end. */
  if (bar_width)
    append_bar (s, fraction, bar_width);
  g_string_append_printf (s, "%.0f%%, %u/%u files", 100.0 * fraction,
      p->files_finished, p->files_total);
  if (p->files_failed)
    g_string_append_printf (s, " (%u failed)", p->files_failed);
  if (done_now > 0 && p->seconds > 0 && fraction < 1.0) {
    double rate = done_now / p->seconds;
    char *eta = batch_format_duration ((p->bytes_total -
            MIN (p->bytes_total, p->bytes_finished)) / rate);
    g_string_append_printf (s, ", ETA %s", eta);
    g_free (eta);
  }
  g_string_append_printf (s, ", %u running, %" G_GUINT64_FORMAT " frames",
      p->files_running, p->frames);
  if (p->seconds > 0)
    g_string_append_printf (s, " (%.0f/s)", p->frames / p->seconds);
  g_string_append_printf (s, ", %s of %s", done, total);
  g_free (total);
  g_free (done);
  return g_string_free (s, FALSE);
}
