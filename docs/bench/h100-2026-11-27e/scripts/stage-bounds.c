/* Counts, with the C reference, how many of a stage's trees a window would
 * need if the stage stopped as soon as the bounds of its remaining leaves
 * decide it (partial sum + their largest sum < threshold: rejected; +
 * their smallest >= threshold: passed), checking every N trees (argv[3]).
 * Includes common/clv-vj-ref.c for its static feature_value.  Built on
 * the development machine like vjstats.c, with -Icommon and
 * libclv-common.a:
 *   ./a.out haarcascade_frontalface_default.xml /tmp/faces/faces-16.pgm 1 */
#include "clv-vj-ref.c"
#include <stdio.h>
int main (int argc, char **argv) {
  GError *err = NULL;
  ClvCascade *c = clv_cascade_load (argv[1], &err);
  int w, h, maxv; FILE *f = fopen (argv[2], "rb");
  if (fscanf (f, "P5 %d %d %d", &w, &h, &maxv) != 3) return 1;
  fgetc (f);
  guint8 *img = malloc ((size_t) w * h); if (fread (img, 1, (size_t) w * h, f) != (size_t) w*h) return 1;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  ClvVjScale *sc; int ns = clv_vj_scales (w, h, c->window_w, c->window_h, &p, &sc);
  ClvVjIntegrals *in = clv_vj_integrals_new (w, h, c->has_tilted);
  guint8 *lvl = malloc ((size_t) w * h);
  /* per stage: max/min of remaining leaves suffix */
  double *maxrest = g_new0 (double, c->n_trees + c->n_stages), *minrest = g_new0 (double, c->n_trees + c->n_stages);
  long long full[64] = {0}, early[64] = {0}, earlyrej[64]={0};
  int ck = argc > 3 ? atoi (argv[3]) : 1; /* check every ck trees */
  for (int si = 0; si < c->n_stages; si++) {
    const ClvCascadeStage *st = &c->stages[si];
    double mx = 0, mn = 0;
    for (int t = st->first_tree + st->n_trees - 1; t >= st->first_tree; t--) {
      maxrest[t + 1] = mx; minrest[t + 1] = mn;  /* after tree t */
      const ClvCascadeTree *tr = &c->trees[t];
      double a = c->leaves[tr->first_leaf], b = c->leaves[tr->first_leaf + 1];
      mx += MAX (a, b); mn += MIN (a, b);
    }
  }
  for (int s = 0; s < ns; s++) {
    clv_vj_resize (img, w, h, w, lvl, sc[s].width, sc[s].height, sc[s].width);
    clv_vj_integrals_compute (in, lvl, sc[s].width, sc[s].height, sc[s].width);
    for (int y = 0; y < sc[s].y_end; y += sc[s].step)
      for (int x = 0; x < sc[s].x_end; x += sc[s].step) {
        float vnf;
        if (!clv_vj_window_norm (c, in, x, y, &vnf)) continue;
        for (int si = 0; si < c->n_stages; si++) {
          const ClvCascadeStage *st = &c->stages[si];
          double sum = 0; int decided = -1;
          for (int k = 0; k < st->n_trees; k++) {
            int t = st->first_tree + k;
            const ClvCascadeTree *tree = &c->trees[t];
            int idx = 0;
            do { const ClvCascadeNode *node = &c->nodes[tree->first_node + idx];
              float v = feature_value (&c->features[node->feature], in, x, y, vnf);
              idx = v < node->threshold ? node->left : node->right; } while (idx > 0);
            sum += c->leaves[tree->first_leaf - idx];
            if (decided < 0 && (k + 1) % ck == 0 && k + 1 < st->n_trees) {
              if (sum + maxrest[t + 1] < st->threshold) { decided = k + 1; earlyrej[si]++; }
              else if (sum + minrest[t + 1] >= st->threshold) decided = k + 1;
            }
          }
          full[si] += st->n_trees; early[si] += decided < 0 ? st->n_trees : decided;
          if (sum < st->threshold) break;
        }
      }
  }
  long long F = 0, E = 0;
  for (int si = 0; si < c->n_stages; si++) { F += full[si]; E += early[si];
    printf ("stage %2d trees %10lld early %10lld (%.0f%%) early rejects %lld\n", si, full[si], early[si], 100.0 * early[si] / MAX (full[si], 1), earlyrej[si]); }
  printf ("total %lld early %lld (%.1f%%)\n", F, E, 100.0 * E / F);
  return 0;
}
