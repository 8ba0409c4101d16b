/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roitrack: identifiers and the tracking structure on detected boxes,
 * predicted boxes on skipped frames and for missed objects, the end of
 * tracks, classes kept apart, state reset by flush / stream-start / EOS,
 * track messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

#define W 320
#define H 240
#define FRAME_NS (GST_SECOND / 30)

typedef struct
{
  const gchar *type;
  guint x, y, size;
  gint label_id;
} Box;

static GstHarness *
new_harness (const gchar * props)
{
  gchar *desc = g_strdup_printf ("roitrack %s", props ? props : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=320,"
      "height=240,framerate=30/1");
  return h;
}

/* Pushes frame `n` with `boxes` (as a detector attaches them; reused ones
 * on a skipped frame) and returns what comes out. */
static GstBuffer *
push_frame (GstHarness * h, guint n, const Box * boxes, guint n_boxes,
    gboolean skipped)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL);

  GST_BUFFER_PTS (buf) = n * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  for (guint i = 0; i < n_boxes; i++) {
    const Box *b = &boxes[i];
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buf, b->type, b->x,
        b->y, b->size, b->size);
    const GstClvDetection det = {.label = b->type,.label_id = b->label_id,
      .confidence = 0.9,.neighbors = 20,.x_min = (gdouble) b->x / W,
      .y_min = (gdouble) b->y / H,.x_max = (gdouble) (b->x + b->size) / W,
      .y_max = (gdouble) (b->y + b->size) / H
    };

    roi->id = i;
    gst_clv_roi_meta_set_detection (roi, &det);
    if (skipped)
      gst_clv_roi_meta_set_reused (roi);
  }
  if (skipped)
    gst_clv_buffer_set_skipped (buf);
  return gst_harness_push_and_pull (h, buf);
}

/* The ROIs of `buf`, in meta order, with their tracking structures. */
static guint
get_rois (GstBuffer * buf, GstVideoRegionOfInterestMeta ** rois,
    GstClvTracking * tracking, guint max)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    fail_unless (n < max);
    rois[n] = (GstVideoRegionOfInterestMeta *) meta;
    fail_unless (gst_clv_roi_meta_get_tracking (rois[n], &tracking[n]),
        "a ROI without tracking");
    n++;
  }
  return n;
}

/* Two faces moving apart get identifiers 1 and 2 that stay; age counts
 * frames, first-seen and last-seen are the frames' timestamps; the
 * detector's boxes are left as they are. */
GST_START_TEST (test_identifiers)
{
  GstHarness *h = new_harness (NULL);

  for (guint f = 0; f < 10; f++) {
    const Box boxes[2] = { {"face", 20 + 3 * f, 50, 40}, {"face", 200 - 3 * f,
      100, 44}
    };
    GstBuffer *out = push_frame (h, f, boxes, 2, FALSE);
    GstVideoRegionOfInterestMeta *rois[4];
    GstClvTracking t[4];
    guint n = get_rois (out, rois, t, 4);

    fail_unless_equals_int (n, 2);
    for (guint i = 0; i < 2; i++) {
      fail_unless_equals_uint64 (t[i].id, i + 1);
      fail_unless_equals_int (t[i].age, f + 1);
      fail_if (t[i].predicted);
      fail_unless_equals_uint64 (t[i].first_seen, 0);
      fail_unless_equals_uint64 (t[i].last_seen, f * FRAME_NS);
      fail_unless_equals_int (rois[i]->x, boxes[i].x);
      fail_unless_equals_int (rois[i]->w, boxes[i].size);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* On frames the detector skipped, the reused boxes give way to the
 * tracks' predictions, which go on moving; with no box at all the tracks
 * are not lost. */
GST_START_TEST (test_skipped_frames)
{
  GstHarness *h = new_harness ("max-lost=2");
  GstBuffer *out;
  GstVideoRegionOfInterestMeta *rois[4];
  GstClvTracking t[4];
  GstStructure *det;
  gdouble x_min;
  guint f = 0, n;
  Box box = { "face", 20, 60, 50 };

  for (; f < 12; f++, box.x += 5)
    gst_buffer_unref (push_frame (h, f, &box, 1, FALSE));
  /* The detector reuses its last box (at x = 75) on the next frame. */
  box.x -= 5;
  out = push_frame (h, f++, &box, 1, TRUE);
  n = get_rois (out, rois, t, 4);
  fail_unless_equals_int (n, 1);
  fail_unless (t[0].predicted);
  fail_unless_equals_uint64 (t[0].id, 1);
  fail_unless_equals_uint64 (t[0].last_seen, 11 * FRAME_NS);
  fail_unless (rois[0]->x >= 77 && rois[0]->x <= 83, "predicted x %u",
      rois[0]->x);
  fail_unless_equals_int (rois[0]->y, 60);
  /* The detection structure moved with the box, its reused mark gone. */
  det = gst_video_region_of_interest_meta_get_param (rois[0], "detection");
  fail_unless (gst_structure_get_double (det, "x_min", &x_min));
  fail_unless_equals_float (x_min, (gdouble) rois[0]->x / W);
  fail_if (gst_structure_has_field (det, "reused"));
  fail_if (gst_clv_roi_meta_is_reused (rois[0]));
  gst_buffer_unref (out);

  /* Skipped frames without any box: more than max-lost, still there. */
  for (guint i = 0; i < 6; i++) {
    out = push_frame (h, f++, NULL, 0, TRUE);
    n = get_rois (out, rois, t, 4);
    fail_unless_equals_int (n, 1);
    fail_unless (t[0].predicted);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A face the detector stops finding keeps a predicted box for max-lost
 * frames, then has none; a box found on one frame only has none. */
GST_START_TEST (test_missed)
{
  GstHarness *h = new_harness ("max-lost=3");
  const Box face = { "face", 100, 100, 40 }, once = { "face", 250, 20, 30 };
  GstVideoRegionOfInterestMeta *rois[4];
  GstClvTracking t[4];
  GstBuffer *out;
  guint f = 0, n;

  for (; f < 5; f++)
    gst_buffer_unref (push_frame (h, f, &face, 1, FALSE));
  gst_buffer_unref (push_frame (h, f++, (Box[]) { face, once }, 2, FALSE));
  for (guint lost = 1; lost <= 3; lost++) {
    out = push_frame (h, f++, NULL, 0, FALSE);
    n = get_rois (out, rois, t, 4);
    fail_unless_equals_int (n, 1);
    fail_unless_equals_uint64 (t[0].id, 1);
    fail_unless (t[0].predicted);
    fail_unless_equals_int (rois[0]->x, 100);
    gst_buffer_unref (out);
  }
  out = push_frame (h, f++, NULL, 0, FALSE);
  fail_unless_equals_int (get_rois (out, rois, t, 4), 0);
  gst_buffer_unref (out);
  /* Back: a new track, a new identifier. */
  out = push_frame (h, f++, &face, 1, FALSE);
  fail_unless_equals_int (get_rois (out, rois, t, 4), 1);
  fail_unless_equals_uint64 (t[0].id, 3);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A box of another type or label at the same place is another object. */
GST_START_TEST (test_classes)
{
  GstHarness *h = new_harness (NULL);

  for (guint f = 0; f < 4; f++) {
    const Box boxes[3] = { {"face", 50, 50, 60}, {"person", 50, 50, 60},
    {"face", 52, 50, 60, 1}
    };
    GstBuffer *out = push_frame (h, f, boxes, 3, FALSE);
    GstVideoRegionOfInterestMeta *rois[4];
    GstClvTracking t[4];

    fail_unless_equals_int (get_rois (out, rois, t, 4), 3);
    for (guint i = 0; i < 3; i++)
      fail_unless_equals_uint64 (t[i].id, i + 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The "track-started" and "track-ended" messages of `bus`, counted. */
static void
count_messages (GstBus * bus, guint * started, guint * ended,
    guint64 * last_id)
{
  GstMessage *msg;

  *started = *ended = 0;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    const gchar *type = gst_structure_get_string (s, "roi-type");
    guint64 first_seen;

    fail_unless (gst_structure_get_uint64 (s, "id", last_id));
    fail_unless (gst_structure_get_uint64 (s, "first-seen", &first_seen));
    fail_unless_equals_string (type, "face");
    if (gst_structure_has_name (s, "track-started"))
      (*started)++;
    else if (gst_structure_has_name (s, "track-ended"))
      (*ended)++;
    gst_message_unref (msg);
  }
}

static GstEvent *
flush_stop (void)
{
  return gst_event_new_flush_stop (TRUE);
}

static GstEvent *
stream_start (void)
{
  return gst_event_new_stream_start ("another");
}

static GstEvent *
eos (void)
{
  return gst_event_new_eos ();
}

/* Caps of another frame size (new caps of the same size: see
 * test_same_size_caps_keep). */
static GstEvent *
resize (void)
{
  return gst_event_new_caps (gst_caps_from_string ("video/x-raw,"
          "format=GRAY8,width=640,height=480,framerate=30/1"));
}

/* Messages only when asked; a flush, a new stream, EOS and a new frame
 * size end every track and identifiers go on counting. */
static void
check_reset_by (GstEvent * (*make_event) (void), gboolean post)
{
  GstHarness *h = new_harness (post ? "post-messages=true" : NULL);
  GstBus *bus = gst_bus_new ();
  const Box face = { "face", 100, 100, 40 };
  GstVideoRegionOfInterestMeta *rois[4];
  GstClvTracking t[4];
  GstBuffer *out;
  GstSegment segment;
  guint started, ended;
  guint64 id = 0;

  gst_element_set_bus (h->element, bus);
  for (guint f = 0; f < 3; f++)
    gst_buffer_unref (push_frame (h, f, &face, 1, FALSE));
  count_messages (bus, &started, &ended, &id);
  fail_unless_equals_int (started, post ? 1 : 0);
  fail_unless_equals_int (ended, 0);

  fail_unless (gst_harness_push_event (h, make_event ()));
  count_messages (bus, &started, &ended, &id);
  fail_unless_equals_int (ended, post ? 1 : 0);
  if (post)
    fail_unless_equals_uint64 (id, 1);
  if (make_event == eos)
    goto done;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  out = push_frame (h, 3, &face, 1, FALSE);
  fail_unless_equals_int (get_rois (out, rois, t, 4), 1);
  fail_unless_equals_uint64 (t[0].id, 2);
  fail_unless_equals_int (t[0].age, 1);
  gst_buffer_unref (out);
done:
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_flush_resets)
{
  check_reset_by (flush_stop, TRUE);
  check_reset_by (flush_stop, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_stream_start_resets)
{
  check_reset_by (stream_start, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_eos_ends_tracks)
{
  check_reset_by (eos, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_resize_ends_tracks)
{
  check_reset_by (resize, TRUE);
}

GST_END_TEST;

/* New caps of the same frame size (another frame rate) keep the tracks. */
GST_START_TEST (test_same_size_caps_keep)
{
  GstHarness *h = new_harness (NULL);
  const Box face = { "face", 100, 100, 40 };
  GstVideoRegionOfInterestMeta *rois[4];
  GstClvTracking t[4];
  GstBuffer *out;

  for (guint f = 0; f < 3; f++)
    gst_buffer_unref (push_frame (h, f, &face, 1, FALSE));
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=320,"
      "height=240,framerate=15/1");
  out = push_frame (h, 3, &face, 1, FALSE);
  fail_unless_equals_int (get_rois (out, rois, t, 4), 1);
  fail_unless_equals_uint64 (t[0].id, 1);
  fail_unless_equals_int (t[0].age, 4);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* With vjfacedetect interval=3 on a real photograph, the frames between
 * analyses carry the track's box, predicted, and one identifier. */
GST_START_TEST (test_after_vjfacedetect)
{
  gchar *photo = g_build_filename (g_getenv ("CLV_DATA_CACHE"),
      "grace_hopper_512x512.jpg", NULL);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! jpegdec ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! imagefreeze num-buffers=7 ! "
      "vjfacedetect interval=3 post-messages=false ! roitrack ! "
      "appsink name=sink sync=false", photo);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstSample *sample;
  guint frame = 0;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoRegionOfInterestMeta *rois[4];
    GstClvTracking t[4];
    guint n = get_rois (gst_sample_get_buffer (sample), rois, t, 4);

    fail_unless_equals_int (n, 1);
    fail_unless_equals_uint64 (t[0].id, 1);
    fail_unless_equals_int (t[0].predicted, frame % 3 != 0);
    fail_unless_equals_int (t[0].age, frame + 1);
    gst_sample_unref (sample);
    frame++;
  }
  fail_unless_equals_int (frame, 7);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (photo);
}

GST_END_TEST;

static Suite *
roitrack_suite (void)
{
  Suite *s = suite_create ("roitrack");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_identifiers);
  tcase_add_test (tc, test_skipped_frames);
  tcase_add_test (tc, test_missed);
  tcase_add_test (tc, test_classes);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_stream_start_resets);
  tcase_add_test (tc, test_eos_ends_tracks);
  tcase_add_test (tc, test_resize_ends_tracks);
  tcase_add_test (tc, test_same_size_caps_keep);
  tcase_add_test (tc, test_after_vjfacedetect);
  return s;
}

GST_CHECK_MAIN (roitrack);
