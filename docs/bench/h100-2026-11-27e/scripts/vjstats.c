/* Counts, with the C reference (common/), how far every window of every
 * level gets through the cascade: the tree evaluations of each stage as the
 * tiled kernel does them (every window past the variance test runs stage
 * 0; no skip rule).  Built against a build directory on this machine:
 *   gcc -O2 vjstats.c -Icommon -Ibuild/common $(pkg-config --cflags glib-2.0) \
 *     build/common/libclv-vj-ref.a build/common/libclv-common.a \
 *     -Lbuild/common -lclvision-opencl-1.0 $(pkg-config --libs glib-2.0 gio-2.0) -lm
 *   ./a.out haarcascade_frontalface_default.xml /tmp/faces/faces-16.pgm */
#include "clv-vj-ref.h"
#include "clv-cascade.h"
#include <stdio.h>
#include <stdlib.h>
int main (int argc, char **argv) {
  GError *err = NULL;
  ClvCascade *c = clv_cascade_load (argv[1], &err);
  if (!c) { fprintf (stderr, "%s\n", err->message); return 1; }
  int w, h; guint8 *img;
  /* load pgm P5 */
  FILE *f = fopen (argv[2], "rb"); int maxv;
  if (fscanf (f, "P5 %d %d %d", &w, &h, &maxv) != 3) return 1;
  fgetc (f);
  img = malloc ((size_t) w * h); if (fread (img, 1, (size_t) w * h, f) != (size_t) w*h) return 1;
  ClvVjParams p = CLV_VJ_PARAMS_DEFAULT;
  ClvVjScale *sc; int ns = clv_vj_scales (w, h, c->window_w, c->window_h, &p, &sc);
  ClvVjIntegrals *in = clv_vj_integrals_new (w, h, c->has_tilted);
  guint8 *lvl = malloc ((size_t) w * h);
  long long windows = 0, normok = 0, trees = 0, trees_by_stage[64] = {0}, reach[64] = {0};
  long long coop_trees = 0; int coop = 4;
  for (int s = 0; s < ns; s++) {
    clv_vj_resize (img, w, h, w, lvl, sc[s].width, sc[s].height, sc[s].width);
    clv_vj_integrals_compute (in, lvl, sc[s].width, sc[s].height, sc[s].width);
    for (int y = 0; y < sc[s].y_end; y += sc[s].step)
      for (int x = 0; x < sc[s].x_end; x += sc[s].step) {
        float vnf; windows++;
        if (!clv_vj_window_norm (c, in, x, y, &vnf)) continue;
        normok++;
        int r = clv_vj_eval_stages (c, in, x, y, vnf);
        int last = r == 1 ? c->n_stages - 1 : (r == 0 ? 0 : -r);
        for (int k = 0; k <= last; k++) { reach[k]++; trees_by_stage[k] += c->stages[k].n_trees; trees += c->stages[k].n_trees; if (k >= coop) coop_trees += c->stages[k].n_trees; }
      }
  }
  printf ("scales %d windows %lld normok %lld trees %lld coop_trees %lld\n", ns, windows, normok, trees, coop_trees);
  for (int k = 0; k < c->n_stages; k++) printf ("stage %d ntrees %d reach %lld trees %lld\n", k, c->stages[k].n_trees, reach[k], trees_by_stage[k]);
  return 0;
}
