/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SORT tracking: the assignment against every permutation, the filter on
 * moving boxes, identifiers, the life of tracks. */
#include "clv-track.h"

#include <math.h>

static const ClvTrackerParams params = { 0.3, 3 };

#define W 640
#define H 480

static ClvTrackDetection
det (double x, double y, double size)
{
  return (ClvTrackDetection) { {x, y, size, size}, 0};
}

static void
test_iou (void)
{
  const ClvTrackBox a = { 0, 0, 10, 10 }, b = { 5, 0, 10, 10 };
  const ClvTrackBox far = { 20, 20, 5, 5 }, empty = { 0, 0, 0, 10 };

  g_assert_cmpfloat_with_epsilon (clv_track_box_iou (&a, &a), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (clv_track_box_iou (&a, &b), 50.0 / 150.0,
      1e-12);
  g_assert_cmpfloat (clv_track_box_iou (&a, &far), ==, 0);
  g_assert_cmpfloat (clv_track_box_iou (&a, &empty), ==, 0);
}

/* The least sum over every injective map of rows to columns. */
static double
brute_force (const double *cost, guint rows, guint cols, guint row,
    guint used)
{
  double best = INFINITY;

  if (row == rows)
    return 0;
  for (guint c = 0; c < cols; c++)
    if (!(used & (1u << c)))
      best = MIN (best, cost[row * cols + c] + brute_force (cost, rows, cols,
              row + 1, used | (1u << c)));
  return best;
}

static void
test_assign_optimal (void)
{
  GRand *rand = g_rand_new_with_seed (36);

  for (int trial = 0; trial < 300; trial++) {
    const guint rows = g_rand_int_range (rand, 1, 7);
    const guint cols = g_rand_int_range (rand, rows, 8);
    double cost[7 * 8], sum = 0;
    int col_of_row[7];
    guint used = 0;

    for (guint i = 0; i < rows * cols; i++)
      /* Some ties and some forbidden pairs, as the tracker makes them. */
      cost[i] = g_rand_int_range (rand, 0, 5) == 0 ? 1e9 :
          g_rand_int_range (rand, 0, 20) / 10.0;
    clv_track_assign (cost, rows, cols, col_of_row);
    for (guint r = 0; r < rows; r++) {
      g_assert_cmpint (col_of_row[r], >=, 0);
      g_assert_cmpint (col_of_row[r], <, cols);
      g_assert_false (used & (1u << col_of_row[r]));
      used |= 1u << col_of_row[r];
      sum += cost[r * cols + col_of_row[r]];
    }
    g_assert_cmpfloat_with_epsilon (sum, brute_force (cost, rows, cols, 0, 0),
        1e-6);
  }
  g_rand_free (rand);
}

/* One box moving 4 pixels a frame keeps its identifier, and after a few
 * frames the filter predicts where it will be. */
static void
test_moving_box (void)
{
  ClvTracker *t = clv_tracker_new (&params);
  const ClvTrack *tracks;
  guint n;

  for (int f = 0; f < 20; f++) {
    const ClvTrackDetection d = det (100 + 4 * f, 100, 60);

    clv_tracker_update (t, &d, 1, f * 1000, W, H);
    tracks = clv_tracker_tracks (t, &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpuint (tracks[0].id, ==, 1);
    g_assert_cmpint (tracks[0].detection, ==, 0);
    g_assert_cmpuint (tracks[0].age, ==, f + 1);
    g_assert_cmpuint (tracks[0].first_seen, ==, 0);
    g_assert_cmpuint (tracks[0].last_seen, ==, f * 1000);
  }
  /* Two skipped frames: the box goes on moving. */
  clv_tracker_predict (t, W, H);
  clv_tracker_predict (t, W, H);
  tracks = clv_tracker_tracks (t, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (tracks[0].detection, ==, -1);
  g_assert_cmpfloat (fabs (tracks[0].box.x - (100 + 4 * 21)), <, 2);
  g_assert_cmpfloat (fabs (tracks[0].box.y - 100), <, 1);
  g_assert_cmpfloat (fabs (tracks[0].box.w - 60), <, 1);
  clv_tracker_free (t);
}

/* Two boxes crossing each other horizontally, overlapping for several
 * frames, come out with the identifiers they went in with. */
static void
test_crossing (void)
{
  ClvTracker *t = clv_tracker_new (&params);
  const ClvTrack *tracks;
  guint n;

  for (int f = 0; f < 40; f++) {
    const ClvTrackDetection d[2] = {
      det (100 + 10 * f, 200, 60), det (500 - 10 * f, 215, 60)
    };

    clv_tracker_update (t, d, 2, f, W, H);
    tracks = clv_tracker_tracks (t, &n);
    g_assert_cmpuint (n, ==, 2);
    for (guint i = 0; i < n; i++)
      g_assert_cmpint (tracks[i].detection, ==, (int) tracks[i].id - 1);
  }
  clv_tracker_free (t);
}

/* A missed track survives max-lost frames after its last match, analysed
 * or skipped, then ends; a tentative one ends at its first miss; one
 * matched on the last analysed frame survives any number of skipped ones;
 * identifiers are never given twice, not even after a reset. */
static void
test_lifecycle (void)
{
  ClvTracker *t = clv_tracker_new (&params);
  const ClvTrackDetection d = det (100, 100, 50), other = det (400, 300, 50);
  const ClvTrack *tracks, *ended;
  guint n, n_ended;

  clv_tracker_update (t, &d, 1, 0, W, H);
  clv_tracker_update (t, &d, 1, 1, W, H);
  /* A false detection for one frame. */
  clv_tracker_update (t, (ClvTrackDetection[]) { d, other }, 2, 2, W, H);
  tracks = clv_tracker_tracks (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (tracks[1].id, ==, 2);
  /* Matched on the last analysed frame: skipped frames end nothing. */
  for (guint i = 0; i < 3 * params.max_lost; i++)
    clv_tracker_predict (t, W, H);
  clv_tracker_tracks (t, &n);
  g_assert_cmpuint (n, ==, 2);

  clv_tracker_update (t, &d, 1, 3, W, H);
  ended = clv_tracker_ended (t, &n_ended);
  g_assert_cmpuint (n_ended, ==, 1);
  g_assert_cmpuint (ended[0].id, ==, 2);
  clv_tracker_update (t, NULL, 0, 4, W, H);
  for (guint lost = 2; lost <= params.max_lost; lost++) {
    if (lost % 2)
      clv_tracker_predict (t, W, H);
    else
      clv_tracker_update (t, NULL, 0, 3 + lost, W, H);
    tracks = clv_tracker_tracks (t, &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpuint (tracks[0].id, ==, 1);
    g_assert_cmpuint (tracks[0].lost, ==, lost);
    g_assert_cmpuint (tracks[0].last_seen, ==, 3);
  }
  clv_tracker_predict (t, W, H);
  clv_tracker_tracks (t, &n);
  g_assert_cmpuint (n, ==, 0);
  ended = clv_tracker_ended (t, &n_ended);
  g_assert_cmpuint (n_ended, ==, 1);
  g_assert_cmpuint (ended[0].id, ==, 1);

  clv_tracker_update (t, &d, 1, 11, W, H);
  clv_tracker_reset (t);
  clv_tracker_tracks (t, &n);
  ended = clv_tracker_ended (t, &n_ended);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (n_ended, ==, 1);
  g_assert_cmpuint (ended[0].id, ==, 3);
  clv_tracker_update (t, &d, 1, 12, W, H);
  tracks = clv_tracker_tracks (t, &n);
  g_assert_cmpuint (tracks[0].id, ==, 4);
  clv_tracker_free (t);
}

/* A box leaving the frame ends as soon as its prediction is outside. */
static void
test_exit (void)
{
  ClvTracker *t = clv_tracker_new (&params);
  const ClvTrack *ended;
  guint n, n_ended;
  int f = 0;

  for (; 100 + 20 * f + 40 <= W; f++) {
    const ClvTrackDetection d = det (100 + 20 * f, 100, 40);

    clv_tracker_update (t, &d, 1, f, W, H);
  }
  /* Out of sight: predicted at about x = 640, outside, within two frames. */
  clv_tracker_update (t, NULL, 0, f, W, H);
  clv_tracker_update (t, NULL, 0, f + 1, W, H);
  clv_tracker_tracks (t, &n);
  ended = clv_tracker_ended (t, &n_ended);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (n_ended, ==, 1);
  g_assert_cmpuint (ended[0].lost, <, params.max_lost);
  clv_tracker_free (t);
}

/* Tracks only match detections of their own class. */
static void
test_labels (void)
{
  ClvTracker *t = clv_tracker_new (&params);
  ClvTrackDetection d = det (100, 100, 50);
  const ClvTrack *tracks;
  guint n;

  clv_tracker_update (t, &d, 1, 0, W, H);
  d.label = 1;
  clv_tracker_update (t, &d, 1, 1, W, H);
  tracks = clv_tracker_tracks (t, &n);
  /* The first was tentative and ended; the second is new. */
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (tracks[0].id, ==, 2);
  g_assert_cmpuint (tracks[0].label, ==, 1);
  clv_tracker_free (t);
}

/* Recognitions are due on a track's first frames and then every interval
 * frames of age; the name is the label recognised most often, kept on a
 * tie; tracks unseen for long are forgotten. */
static void
test_votes (void)
{
  ClvTrackVotes *v = clv_track_votes_new ();
  ClvTrackVote vote;
  guint due = 0;

  g_assert_false (clv_track_votes_result (v, 5, &vote));
  for (guint age = 1; age <= 20; age++)
    if (clv_track_votes_due (v, 5, age, age, 3, 5)) {
      /* Alice, Bob, Alice, then Bob, Bob, Carol; the names after each. */
      static const int labels[] = { 1, 2, 1, 2, 2, 3 };
      static const int names[] = { 1, 1, 1, 1, 2, 2 };
      clv_track_votes_add (v, 5, age, labels[due], 100.0 + due, 0.5);
      due++;
      g_assert_true (clv_track_votes_result (v, 5, &vote));
      g_assert_cmpint (vote.total, ==, due);
      g_assert_cmpint (vote.label, ==, names[due - 1]);
    }
  /* Ages 1, 2, 3, then 8, 13, 18. */
  g_assert_cmpuint (due, ==, 6);
  g_assert_true (clv_track_votes_result (v, 5, &vote));
  g_assert_cmpint (vote.label, ==, 2);
  g_assert_cmpuint (vote.votes, ==, 3);
  g_assert_cmpfloat (vote.distance, ==, 104.0);
  /* Interval 0: never again after the first ones. */
  g_assert_false (clv_track_votes_due (v, 5, 21, 100, 3, 0));
  g_assert_true (clv_track_votes_due (v, 6, 21, 1, 3, 0));
  clv_track_votes_forget (v, 30, 5);
  g_assert_false (clv_track_votes_result (v, 5, &vote));
  clv_track_votes_free (v);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/track/iou", test_iou);
  g_test_add_func ("/track/assign-optimal", test_assign_optimal);
  g_test_add_func ("/track/moving-box", test_moving_box);
  g_test_add_func ("/track/crossing", test_crossing);
  g_test_add_func ("/track/lifecycle", test_lifecycle);
  g_test_add_func ("/track/exit", test_exit);
  g_test_add_func ("/track/labels", test_labels);
  g_test_add_func ("/track/votes", test_votes);
  return g_test_run ();
}
