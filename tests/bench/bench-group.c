/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-group: groupRectangles on this CPU, the sweep over x
 * (clv_vj_group_rectangles) against cv::partition's all pairs
 * (clv_vj_group_rectangles_pairwise): on raw windows in 25 clusters laid
 * out in 5 columns and 5 rows, as on a crowded frame, and on the raw windows
 * the C reference detector finds on each FRAME (default cascade, scale 1.1,
 * 3 neighbours).  Each time is the fastest of five groupings.
 *
 *   bench-group [FRAME.pgm...]    (one line per window set and method) */
#include <glib.h>
#include "clv-cascade.h"
#include "clv-pgm.h"
#include "clv-vj-ref.h"

static void
time_grouping (const char *what, const ClvRect * r, int n)
{
  for (int sweep = 0; sweep < 2; sweep++) {
    double best = G_MAXDOUBLE;
    int k = 0;

    for (int run = 0; run < 5; run++) {
      ClvRect *a = g_memdup2 (r, sizeof (ClvRect) * MAX (n, 1));
      gint64 t0 = g_get_monotonic_time ();

      k = sweep ? clv_vj_group_rectangles (a, n, 3, 0.2, NULL)
          : clv_vj_group_rectangles_pairwise (a, n, 3, 0.2, NULL);
      best = MIN (best, (g_get_monotonic_time () - t0) / 1000.0);
      g_free (a);
    }
    g_print ("%5d raw windows, %s: %s %9.3f ms (%d groups)\n", n, what,
        sweep ? "sweep   " : "pairwise", best, k);
  }
}

int
main (int argc, char **argv)
{
  const ClvVjParams params = CLV_VJ_PARAMS_DEFAULT;
  char *path = clv_cascade_default_path (NULL);
  GError *error = NULL;
  ClvCascade *cascade = NULL;

  for (int n = 500; n <= 32000; n *= 4) {
    GRand *rand = g_rand_new_with_seed (7);
    ClvRect *r = g_new (ClvRect, n);

    for (int i = 0; i < n; i++) {
      int c = g_rand_int_range (rand, 0, 25);
      int cx = (c % 5) * 380 + 40, cy = (c / 5) * 300 + 40;
      int w = g_rand_int_range (rand, 40, 60);

      r[i] = (ClvRect) {
      cx + g_rand_int_range (rand, -8, 9), cy + g_rand_int_range (rand, -8,
            9), w, w};
    }
    time_grouping ("25 clusters", r, n);
    g_free (r);
    g_rand_free (rand);
  }
  if (argc > 1 && !(cascade = clv_cascade_load (path, &error)))
    g_error ("bench-group: %s", error->message);
  for (int f = 1; f < argc; f++) {
    int w, h;
    guint8 *gray = clv_pgm_read (argv[f], &w, &h, &error);
    GArray *raw;
    char *name;

    if (gray == NULL)
      g_error ("bench-group: %s", error->message);
    raw = clv_vj_detect_raw (cascade, gray, w, h, w, &params);
    name = g_path_get_basename (argv[f]);
    time_grouping (name, (ClvRect *) raw->data, raw->len);
    g_free (name);
    g_array_free (raw, TRUE);
    g_free (gray);
  }
  if (cascade)
    clv_cascade_free (cascade);
  g_free (path);
  return 0;
}
