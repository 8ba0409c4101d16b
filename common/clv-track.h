/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Multi-object tracking by detection, after "Simple Online and Realtime
 * Tracking" (Bewley, Ge, Ott, Ramos, Upcroft): each track follows its box
 * with a constant-velocity Kalman filter, and on every analysed frame the
 * tracks' predicted boxes are matched to the detections by the Hungarian
 * method on their overlap (IoU).  No GStreamer here.
 *
 * The filter's state is the box's centre, width and height and their
 * velocities, in pixels and pixels per frame.  Its matrices are block
 * diagonal (each coordinate moves independently), so it runs as four
 * two-state filters, which is the same filter at a fraction of the cost.
 * Noise scales with the box's size (as in "Simple Online and Realtime
 * Tracking with a Deep Association Metric", Wojke, Bewley, Paulus): a
 * detector's boxes jitter by a fraction of their size.
 *
 * Life of a track:
 *  - an unmatched detection starts one, with a new identifier (64-bit,
 *    counting up from 1, never reused, not even after a reset);
 *  - a track matched only on its first frame is tentative: unmatched on the
 *    next analysed frame, it ends at once (an isolated false detection
 *    leaves no lingering box);
 *  - otherwise, once unmatched on an analysed frame, it ends on the first
 *    frame more than `max_lost` frames after its last match (its box
 *    predicted until then).  Frames count whether analysed or skipped, so
 *    that a box lingers as long whatever the detector's interval; a track
 *    matched on the last analysed frame never ends on a skipped one;
 *  - a track whose predicted box is more than half outside the frame ends
 *    at once.
 * Frames the detector skipped only move the tracks along their velocity. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double x, y, w, h;            /* top-left corner and size, pixels */
} ClvTrackBox;

typedef struct
{
  ClvTrackBox box;
  guint64 label;                /* its class: only a track of the same class
                                 * matches */
} ClvTrackDetection;

typedef struct
{
  double iou_threshold;         /* a match needs at least this overlap */
  guint max_lost;               /* frames survived without a match */
} ClvTrackerParams;

typedef struct
{
  guint64 id;
  guint64 label;
  ClvTrackBox box;              /* the filter's box on this frame */
  int detection;                /* the detection it matched, -1 if none */
  guint age;                    /* frames since it started, this one is 1 */
  guint lost;                   /* frames since its last match */
  gboolean missed;              /* unmatched on the last analysed frame */
  guint hits;                   /* analysed frames matched */
  guint64 first_seen, last_seen;        /* the times of its first and last
                                         * matches, as the caller gave them */
} ClvTrack;

typedef struct _ClvTracker ClvTracker;

ClvTracker *clv_tracker_new (const ClvTrackerParams * params);
void clv_tracker_free (ClvTracker * tracker);
void clv_tracker_set_params (ClvTracker * tracker,
    const ClvTrackerParams * params);

/* A frame the detector analysed, of width x height pixels, at `time`:
 * predicts every track, matches the `n` detections, corrects the matched
 * tracks, starts tracks for the unmatched detections and ends tracks as
 * described above. */
void clv_tracker_update (ClvTracker * tracker,
    const ClvTrackDetection * detections, guint n, guint64 time, int width,
    int height);

/* A frame the detector skipped: predicts every track. */
void clv_tracker_predict (ClvTracker * tracker, int width, int height);

/* The live tracks after the last step, oldest first. */
const ClvTrack *clv_tracker_tracks (const ClvTracker * tracker, guint * n);

/* The tracks the last step ended (as they were when they ended). */
const ClvTrack *clv_tracker_ended (const ClvTracker * tracker, guint * n);

/* Ends every track (they become the ended ones); identifiers go on
 * counting. */
void clv_tracker_reset (ClvTracker * tracker);

/* Intersection over union of two boxes, 0 when either is empty. */
double clv_track_box_iou (const ClvTrackBox * a, const ClvTrackBox * b);

/* ---- Names by vote -------------------------------------------------------
 * A track's name is the vote over the recognitions of its boxes: the label
 * recognised most often, with the distance and confidence of its latest
 * recognition.  The name changes only to a label with more votes (never
 * on a tie), so that it does not flicker.  One recogniser keeps
 * the votes of every track it sees, by identifier. */
typedef struct _ClvTrackVotes ClvTrackVotes;

typedef struct
{
  int label;
  double distance, confidence;
  guint votes;                  /* recognitions that gave `label` */
  guint total;                  /* recognitions of the track */
} ClvTrackVote;

ClvTrackVotes *clv_track_votes_new (void);
void clv_track_votes_free (ClvTrackVotes * votes);
void clv_track_votes_clear (ClvTrackVotes * votes);

/* Notes track `id` seen on the caller's frame `now`, at `age` (its frames
 * so far), and says whether to recognise it now: fewer than `first`
 * recognitions so far, or `interval` > 0 frames of age or more since its
 * latest. */
gboolean clv_track_votes_due (ClvTrackVotes * votes, guint64 id, guint64 now,
    guint age, guint first, guint interval);

/* Counts a recognition of track `id` at `age`. */
void clv_track_votes_add (ClvTrackVotes * votes, guint64 id, guint age,
    int label, double distance, double confidence);

/* The vote of track `id`; FALSE while it has no recognition. */
gboolean clv_track_votes_result (ClvTrackVotes * votes, guint64 id,
    ClvTrackVote * vote);

/* Forgets the tracks not seen since frame `now` - `frames`. */
void clv_track_votes_forget (ClvTrackVotes * votes, guint64 now,
    guint64 frames);

/* Solves the rectangular assignment problem: for `rows` <= `cols`, the
 * column assigned to each row (col_of_row[r]) minimising the sum of
 * cost[r * cols + c].  Exposed for the tests. */
void clv_track_assign (const double *cost, guint rows, guint cols,
    int *col_of_row);

G_END_DECLS
