/* bench-group: groupRectangles on this CPU, the sweep over x
 * (clv_vj_group_rectangles) against cv::partition's all pairs
 * (clv_vj_group_rectangles_pairwise), on raw windows in 25 clusters laid out
 * in 5 columns and 5 rows, as on a crowded frame.
 *
 *   bench-group        (prints one line per window count and method) */
#include <glib.h>
#include "clv-vj-ref.h"

int
main (void)
{
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
    for (int sweep = 0; sweep < 2; sweep++) {
      ClvRect *a = g_memdup2 (r, sizeof (ClvRect) * n);
      gint64 t0 = g_get_monotonic_time ();
      int k = sweep ? clv_vj_group_rectangles (a, n, 3, 0.2, NULL)
          : clv_vj_group_rectangles_pairwise (a, n, 3, 0.2, NULL);

      g_print ("%5d raw windows, 25 faces: %s %9.3f ms (%d groups)\n", n,
          sweep ? "sweep   " : "pairwise",
          (g_get_monotonic_time () - t0) / 1000.0, k);
      g_free (a);
    }
    g_free (r);
    g_rand_free (rand);
  }
  return 0;
}
