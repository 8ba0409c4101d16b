/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SORT tracking; see the header. */
#include "clv-track.h"

#include <math.h>
#include <string.h>

/* Standard deviations as fractions of the box's height, per frame:
 * the process noise of positions and velocities, the measurement noise,
 * and a new track's velocity uncertainty (Wojke et al.'s weights). */
#define STD_POSITION (1.0 / 20.0)
#define STD_VELOCITY (1.0 / 160.0)
#define STD_NEW_VELOCITY (10.0 / 160.0)
/* The cost of a pair that may not match: more than all the real costs of
 * a frame together, so the assignment matches as many pairs as it can. */
#define NO_MATCH 1e9

/* The coordinates the filter follows. */
enum
{ CX, CY, W, H, N_COORDS };

/* A constant-velocity filter per coordinate: position, velocity and their
 * covariance (P00 position, P11 velocity, P01 between). */
typedef struct
{
  double pos[N_COORDS], vel[N_COORDS];
  double p00[N_COORDS], p01[N_COORDS], p11[N_COORDS];
} Filter;

struct _ClvTracker
{
  ClvTrackerParams params;
  guint64 next_id;
  GArray *tracks;               /* ClvTrack, oldest first */
  GArray *filters;              /* Filter, in the same order */
  GArray *ended;                /* ClvTrack */
  /* scratch */
  GArray *cost;                 /* double */
  GArray *assignment;           /* int */
  GArray *det_used;             /* gboolean */
};

double
clv_track_box_iou (const ClvTrackBox * a, const ClvTrackBox * b)
{
  const double ix = MIN (a->x + a->w, b->x + b->w) - MAX (a->x, b->x);
  const double iy = MIN (a->y + a->h, b->y + b->h) - MAX (a->y, b->y);
  double inter, uni;

  if (ix <= 0 || iy <= 0)
    return 0;
  inter = ix * iy;
  uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0 ? inter / uni : 0;
}

/* ---- Assignment ---------------------------------------------------------- */

/* The Hungarian method with potentials (Kuhn-Munkres in the O(n^2 m) form
 * of Jonker and Volgenant's shortest augmenting paths): rows are added one
 * at a time, each by a shortest path over the reduced costs. */
void
clv_track_assign (const double *cost, guint rows, guint cols, int *col_of_row)
{
  /* 1-based, column 0 being the virtual start of each path. */
  double *u = g_new0 (double, rows + 1), *v = g_new0 (double, cols + 1);
  double *minv = g_new (double, cols + 1);
  guint *row_of_col = g_new0 (guint, cols + 1), *way = g_new0 (guint,
      cols + 1);
  gboolean *used = g_new (gboolean, cols + 1);

  g_return_if_fail (rows <= cols);
  for (guint i = 1; i <= rows; i++) {
    guint j0 = 0;

    row_of_col[0] = i;
    for (guint j = 0; j <= cols; j++) {
      minv[j] = INFINITY;
      used[j] = FALSE;
    }
    do {
      const guint i0 = row_of_col[j0];
      double delta = INFINITY;
      guint j1 = 0;

      used[j0] = TRUE;
      for (guint j = 1; j <= cols; j++) {
        double cur;

        if (used[j])
          continue;
        cur = cost[(i0 - 1) * cols + (j - 1)] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (guint j = 0; j <= cols; j++) {
        if (used[j]) {
          u[row_of_col[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of_col[j0] != 0);
    /* Flip the path. */
    do {
      const guint j1 = way[j0];

      row_of_col[j0] = row_of_col[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  for (guint j = 1; j <= cols; j++)
    if (row_of_col[j] != 0)
      col_of_row[row_of_col[j] - 1] = (int) j - 1;
  g_free (u);
  g_free (v);
  g_free (minv);
  g_free (row_of_col);
  g_free (way);
  g_free (used);
}

/* ---- Kalman filter ------------------------------------------------------- */

/* Noise follows the box's size; never below a pixel. */
static double
filter_scale (const Filter * f)
{
  return MAX (f->pos[H], 1.0);
}

static void
filter_init (Filter * f, const ClvTrackBox * b)
{
  const double s = MAX (b->h, 1.0);

  f->pos[CX] = b->x + b->w / 2;
  f->pos[CY] = b->y + b->h / 2;
  f->pos[W] = b->w;
  f->pos[H] = b->h;
  for (int c = 0; c < N_COORDS; c++) {
    f->vel[c] = 0;
    f->p00[c] = (2 * STD_POSITION * s) * (2 * STD_POSITION * s);
    f->p01[c] = 0;
    f->p11[c] = (STD_NEW_VELOCITY * s) * (STD_NEW_VELOCITY * s);
  }
}

/* x' = F x, P' = F P F^T + Q with F = [1 1; 0 1]. */
static void
filter_predict (Filter * f)
{
  const double s = filter_scale (f);
  const double qp = (STD_POSITION * s) * (STD_POSITION * s);
  const double qv = (STD_VELOCITY * s) * (STD_VELOCITY * s);

  for (int c = 0; c < N_COORDS; c++) {
    f->pos[c] += f->vel[c];
    f->p00[c] += 2 * f->p01[c] + f->p11[c] + qp;
    f->p01[c] += f->p11[c];
    f->p11[c] += qv;
  }
  /* A box never shrinks below a pixel. */
  for (int c = W; c <= H; c++)
    if (f->pos[c] < 1) {
      f->pos[c] = 1;
      f->vel[c] = 0;
    }
}

/* The measurement is the position: H = [1 0]. */
static void
filter_correct (Filter * f, const ClvTrackBox * b)
{
  const double z[N_COORDS] = { b->x + b->w / 2, b->y + b->h / 2, b->w, b->h };
  const double s = filter_scale (f);
  const double r = (STD_POSITION * s) * (STD_POSITION * s);

  for (int c = 0; c < N_COORDS; c++) {
    const double innovation = z[c] - f->pos[c];
    const double k0 = f->p00[c] / (f->p00[c] + r);
    const double k1 = f->p01[c] / (f->p00[c] + r);

    f->pos[c] += k0 * innovation;
    f->vel[c] += k1 * innovation;
    f->p11[c] -= k1 * f->p01[c];
    f->p01[c] *= 1 - k0;
    f->p00[c] *= 1 - k0;
  }
}

static ClvTrackBox
filter_box (const Filter * f)
{
  return (ClvTrackBox) {
  f->pos[CX] - f->pos[W] / 2, f->pos[CY] - f->pos[H] / 2, f->pos[W],
        f->pos[H]};
}

/* ---- Tracks -------------------------------------------------------------- */

ClvTracker *
clv_tracker_new (const ClvTrackerParams * params)
{
  ClvTracker *t = g_new0 (ClvTracker, 1);

  t->params = *params;
  t->next_id = 1;
  t->tracks = g_array_new (FALSE, FALSE, sizeof (ClvTrack));
  t->filters = g_array_new (FALSE, FALSE, sizeof (Filter));
  t->ended = g_array_new (FALSE, FALSE, sizeof (ClvTrack));
  t->cost = g_array_new (FALSE, FALSE, sizeof (double));
  t->assignment = g_array_new (FALSE, FALSE, sizeof (int));
  t->det_used = g_array_new (FALSE, FALSE, sizeof (gboolean));
  return t;
}

void
clv_tracker_free (ClvTracker * t)
{
  if (t == NULL)
    return;
  g_array_unref (t->tracks);
  g_array_unref (t->filters);
  g_array_unref (t->ended);
  g_array_unref (t->cost);
  g_array_unref (t->assignment);
  g_array_unref (t->det_used);
  g_free (t);
}

void
clv_tracker_set_params (ClvTracker * t, const ClvTrackerParams * params)
{
  t->params = *params;
}

const ClvTrack *
clv_tracker_tracks (const ClvTracker * t, guint * n)
{
  *n = t->tracks->len;
  return (const ClvTrack *) t->tracks->data;
}

const ClvTrack *
clv_tracker_ended (const ClvTracker * t, guint * n)
{
  *n = t->ended->len;
  return (const ClvTrack *) t->ended->data;
}

static void
end_track (ClvTracker * t, guint i)
{
  g_array_append_val (t->ended, g_array_index (t->tracks, ClvTrack, i));
  g_array_remove_index (t->tracks, i);
  g_array_remove_index (t->filters, i);
}

void
clv_tracker_reset (ClvTracker * t)
{
  g_array_set_size (t->ended, 0);
  while (t->tracks->len > 0)
    end_track (t, 0);
}

/* Whether at least half of `b` is inside the frame: a detector sees no
 * object that far out, and half a box shows little. */
static gboolean
inside_frame (const ClvTrackBox * b, int width, int height)
{
  const double iw = MIN (b->x + b->w, width) - MAX (b->x, 0);
  const double ih = MIN (b->y + b->h, height) - MAX (b->y, 0);

  return iw > 0 && ih > 0 && 2 * iw * ih >= b->w * b->h;
}

/* Predicts every track one frame on; ends those that left the frame and,
 * on a skipped frame (`skipped`), those missed too long ago (an analysed
 * frame may still match them). */
static void
predict_all (ClvTracker * t, int width, int height, gboolean skipped)
{
  for (guint i = 0; i < t->tracks->len;) {
    ClvTrack *track = &g_array_index (t->tracks, ClvTrack, i);
    Filter *f = &g_array_index (t->filters, Filter, i);

    filter_predict (f);
    track->box = filter_box (f);
    track->age++;
    track->lost++;
    track->detection = -1;
    if (!inside_frame (&track->box, width, height)
        || (skipped && track->missed && track->lost > t->params.max_lost))
      end_track (t, i);
    else
      i++;
  }
}

void
clv_tracker_predict (ClvTracker * t, int width, int height)
{
  g_array_set_size (t->ended, 0);
  predict_all (t, width, height, TRUE);
}

/* Fills t->assignment with the detection matched by each track (-1 for
 * none): the assignment of least total 1 - IoU among the pairs of one class
 * overlapping by iou_threshold or more. */
static void
match (ClvTracker * t, const ClvTrackDetection * dets, guint n)
{
  const guint nt = t->tracks->len;
  /* The assignment wants no more rows than columns. */
  const gboolean by_track = nt <= n;
  const guint rows = by_track ? nt : n, cols = by_track ? n : nt;
  int *col_of_row;

  g_array_set_size (t->assignment, nt + n);
  col_of_row = &g_array_index (t->assignment, int, nt);
  for (guint i = 0; i < nt; i++)
    g_array_index (t->assignment, int, i) = -1;
  if (nt == 0 || n == 0)
    return;
  g_array_set_size (t->cost, (gsize) nt * n);
  for (guint i = 0; i < nt; i++) {
    const ClvTrack *track = &g_array_index (t->tracks, ClvTrack, i);

    for (guint j = 0; j < n; j++) {
      const double iou = track->label == dets[j].label ?
          clv_track_box_iou (&track->box, &dets[j].box) : 0;
      const gsize at = by_track ? (gsize) i * n + j : (gsize) j * nt + i;

      g_array_index (t->cost, double, at) =
          iou >= t->params.iou_threshold && iou > 0 ? 1 - iou : NO_MATCH;
    }
  }
  clv_track_assign ((const double *) t->cost->data, rows, cols, col_of_row);
  for (guint r = 0; r < rows; r++) {
    const guint c = col_of_row[r];

    if (g_array_index (t->cost, double, (gsize) r * cols + c) >= NO_MATCH)
      continue;
    if (by_track)
      g_array_index (t->assignment, int, r) = c;
    else
      g_array_index (t->assignment, int, c) = r;
  }
}

static void
start_track (ClvTracker * t, const ClvTrackDetection * det, int index,
    guint64 time)
{
  ClvTrack track = { 0 };
  Filter f;

  filter_init (&f, &det->box);
  track.id = t->next_id++;
  track.label = det->label;
  track.box = det->box;
  track.detection = index;
  track.age = 1;
  track.hits = 1;
  track.first_seen = track.last_seen = time;
  g_array_append_val (t->tracks, track);
  g_array_append_val (t->filters, f);
}

void
clv_tracker_update (ClvTracker * t, const ClvTrackDetection * dets, guint n,
    guint64 time, int width, int height)
{
  gboolean *det_used;
  guint nt;

  g_array_set_size (t->ended, 0);
  predict_all (t, width, height, FALSE);
  match (t, dets, n);
  g_array_set_size (t->det_used, n);
  det_used = (gboolean *) t->det_used->data;
  /* No detections: the array has no data, and memset of NULL is undefined
   * even for 0 bytes. */
  if (n > 0)
    memset (det_used, 0, n * sizeof (gboolean));
  nt = t->tracks->len;
  for (guint i = 0, k = 0; k < nt; k++) {
    ClvTrack *track = &g_array_index (t->tracks, ClvTrack, i);
    Filter *f = &g_array_index (t->filters, Filter, i);
    const int j = g_array_index (t->assignment, int, k);

    if (j >= 0) {
      filter_correct (f, &dets[j].box);
      track->box = filter_box (f);
      track->detection = j;
      track->lost = 0;
      track->missed = FALSE;
      track->hits++;
      track->last_seen = time;
      det_used[j] = TRUE;
      i++;
      continue;
    }
    track->missed = TRUE;
    /* A lost box keeps its size (Wojke et al. and ByteTrack do the same). */
    f->vel[W] = f->vel[H] = 0;
    if (track->hits == 1 || track->lost > t->params.max_lost)
      end_track (t, i);
    else
      i++;
  }
  for (guint j = 0; j < n; j++)
    if (!det_used[j])
      start_track (t, &dets[j], j, time);
}

/* ---- Names by vote ------------------------------------------------------- */

typedef struct
{
  int label;
  guint count;
  double distance, confidence;  /* of its latest recognition */
} LabelVotes;

typedef struct
{
  guint64 seen;
  guint last_age;
  guint total;
  guint winner;                 /* index in labels */
  GArray *labels;               /* LabelVotes */
} TrackVotes;

struct _ClvTrackVotes
{
  GHashTable *tracks;           /* guint64 id -> TrackVotes */
};

static void
track_votes_free (TrackVotes * tv)
{
  g_array_unref (tv->labels);
  g_free (tv);
}

ClvTrackVotes *
clv_track_votes_new (void)
{
  ClvTrackVotes *v = g_new0 (ClvTrackVotes, 1);

  v->tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      (GDestroyNotify) track_votes_free);
  return v;
}

void
clv_track_votes_free (ClvTrackVotes * v)
{
  if (v == NULL)
    return;
  g_hash_table_unref (v->tracks);
  g_free (v);
}

void
clv_track_votes_clear (ClvTrackVotes * v)
{
  g_hash_table_remove_all (v->tracks);
}

gboolean
clv_track_votes_due (ClvTrackVotes * v, guint64 id, guint64 now, guint age,
    guint first, guint interval)
{
  TrackVotes *tv = g_hash_table_lookup (v->tracks, &id);

  if (tv == NULL) {
    tv = g_new0 (TrackVotes, 1);
    tv->labels = g_array_new (FALSE, FALSE, sizeof (LabelVotes));
    g_hash_table_insert (v->tracks, g_memdup2 (&id, sizeof id), tv);
  }
  tv->seen = now;
  return tv->total < first || (interval > 0 && age >= tv->last_age + interval);
}

void
clv_track_votes_add (ClvTrackVotes * v, guint64 id, guint age, int label,
    double distance, double confidence)
{
  TrackVotes *tv = g_hash_table_lookup (v->tracks, &id);
  LabelVotes *lv;
  guint i = 0;

  g_return_if_fail (tv != NULL);
  while (i < tv->labels->len
      && g_array_index (tv->labels, LabelVotes, i).label != label)
    i++;
  if (i == tv->labels->len) {
    g_array_set_size (tv->labels, i + 1);
    g_array_index (tv->labels, LabelVotes, i).label = label;
    g_array_index (tv->labels, LabelVotes, i).count = 0;
  }
  lv = &g_array_index (tv->labels, LabelVotes, i);
  lv->count++;
  lv->distance = distance;
  lv->confidence = confidence;
  tv->total++;
  tv->last_age = age;
  /* The name changes only to a label with more votes. */
  if (lv->count > g_array_index (tv->labels, LabelVotes, tv->winner).count)
    tv->winner = i;
}

gboolean
clv_track_votes_result (ClvTrackVotes * v, guint64 id, ClvTrackVote * vote)
{
  TrackVotes *tv = g_hash_table_lookup (v->tracks, &id);
  const LabelVotes *best;

  if (tv == NULL || tv->total == 0)
    return FALSE;
  best = &g_array_index (tv->labels, LabelVotes, tv->winner);
  vote->label = best->label;
  vote->distance = best->distance;
  vote->confidence = best->confidence;
  vote->votes = best->count;
  vote->total = tv->total;
  return TRUE;
}

static gboolean
unseen (gpointer key, gpointer value, gpointer since)
{
  return ((TrackVotes *) value)->seen < *(guint64 *) since;
}

void
clv_track_votes_forget (ClvTrackVotes * v, guint64 now, guint64 frames)
{
  guint64 since = now > frames ? now - frames : 0;

  g_hash_table_foreach_remove (v->tracks, unseen, &since);
}
