/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames in flight, for every element that works on frames (GstClvFilter's
 * `in-flight`): vjfacedetect, eigenrecognise, sarmultilook, sarrotscale
 * and sarquantize.  With 2 and 4 frames in flight, frames leave in the
 * order they came with what each gets one at a time (bytes, ROI metas,
 * element messages in order), and the streaming thread hands them over
 * while downstream holds the first; with 1, 2 and 4, serialized events leave
 * after the frames before them, a flush drops the frames before it, and a
 * frame that fails is the flow of a later push once the frames before it
 * have left. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "clv-test-eigen.h"
#include "clv-test-util.h"
#include "vj-check-frame.h"

/* Frame `index` of a stream (no timestamps), a new buffer. */
typedef GstBuffer *(*FrameFunc) (guint index);

typedef struct
{
  const gchar *launch;          /* the element and its settings */
  const gchar *caps;            /* of the frames */
  FrameFunc frame;
} InflightCase;

/* ---- The elements' frames ----------------------------------------------- */

#define VJ_SIZE 160
#define EIGEN_W 64
#define EIGEN_H 48
#define SAR_W 96
#define SAR_H 72

static Gray vj_face, vj_blank;
static guint8 *test_faces;
static int n_test_faces, face_w, face_h;
static gchar *model_path, *eigen_launch;

/* A face, a blank frame, and the face again, in turn. */
static GstBuffer *
vj_frame (guint index)
{
  return vj_check_frame_buffer (index % 3 == 1 ? &vj_blank : &vj_face,
      "GRAY8", NULL);
}

/* Noise with an LFW test face (a different one each frame) and its face
 * ROI, as vjfacedetect leaves it. */
static GstBuffer *
eigen_frame (guint index)
{
  ClvImage im;
  guint8 *data = clv_test_random_image (&im, EIGEN_W, EIGEN_H, 1, index);
  const guint8 *face = test_faces + (gsize) (index % n_test_faces) * face_w
      * face_h;
  GstBuffer *buf;
  GstVideoRegionOfInterestMeta *roi;

  for (int y = 0; y < face_h; y++)
    memcpy (data + (4 + y) * im.stride + 4, face + y * face_w, face_w);
  buf = gst_buffer_new_memdup (data, im.stride * im.height);
  g_free (data);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "face", 4, 4,
      face_w, face_h);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "face",
          "neighbors", G_TYPE_INT, 5, NULL));
  return buf;
}

static GstBuffer *
sar_frame (guint index)
{
  ClvImage im;
  guint8 *data = clv_test_random_image (&im, SAR_W, SAR_H, 2, 100 + index);
  GstBuffer *buf = gst_buffer_new_memdup (data, im.stride * im.height);

  g_free (data);
  return buf;
}

#define VJ_CAPS "video/x-raw,format=GRAY8,width=160,height=160,framerate=30/1"
#define EIGEN_CAPS "video/x-raw,format=GRAY8,width=64,height=48," \
    "framerate=30/1"
#define SAR_CAPS "video/x-raw,format=GRAY16_LE,width=96,height=72," \
    "framerate=30/1"

/* device=first: the elements of these tests on one device, whatever the
 * machine. */
static InflightCase cases[] = {
  {"vjfacedetect device=first min-size=30x30", VJ_CAPS, vj_frame},
  {NULL, EIGEN_CAPS, eigen_frame},      /* set up: the model's path */
  {"sarmultilook device=first looks=3", SAR_CAPS, sar_frame},
  {"sarrotscale device=first angle=30 scale=0.8", SAR_CAPS, sar_frame},
  {"sarquantize device=first", SAR_CAPS, sar_frame},
};

static void
setup (void)
{
  Gray full = load_gray ("grace_hopper");
  vj_face = scaled (&full, VJ_SIZE, VJ_SIZE);
  g_free (full.pixels);
  vj_blank.pixels = g_malloc ((gsize) VJ_SIZE * VJ_SIZE);
  memset (vj_blank.pixels, 128, (gsize) VJ_SIZE * VJ_SIZE);
  vj_blank.width = vj_blank.height = VJ_SIZE;
  test_faces = clv_test_lfw_load ("test.txt", &n_test_faces, &face_w,
      &face_h, NULL, NULL);
  fail_unless (face_w + 4 <= EIGEN_W && face_h + 4 <= EIGEN_H);
  model_path = clv_test_eigen_model_file ();
  eigen_launch = g_strdup_printf ("eigenrecognise device=first model=%s",
      model_path);
  cases[1].launch = eigen_launch;
}

static void
teardown (void)
{
  clv_test_eigen_model_file_remove (model_path);
  g_free (eigen_launch);
  g_free (test_faces);
  g_free (vj_face.pixels);
  g_free (vj_blank.pixels);
}

#define FRAMES 12

typedef struct
{
  GstHarness *h;
  GstBus *bus;
} Run;

static void
run_start (Run * r, const InflightCase * c, guint in_flight)
{
  gchar *desc = g_strdup_printf ("%s in-flight=%u", c->launch, in_flight);

  r->h = gst_harness_new_parse (desc);
  g_free (desc);
  r->bus = gst_bus_new ();
  gst_element_set_bus (r->h->element, r->bus);
  gst_harness_set_src_caps_str (r->h, c->caps);
}

/* The element holds its bus and the messages on the bus hold the element:
 * flushing the bus first breaks that cycle. */
static void
run_stop (Run * r)
{
  gst_bus_set_flushing (r->bus, TRUE);
  gst_harness_teardown (r->h);
  gst_object_unref (r->bus);
}

static GstFlowReturn
push_frame (Run * r, const InflightCase * c, guint index, GstClockTime pts)
{
  GstBuffer *buf = c->frame (index);

  GST_BUFFER_PTS (buf) = pts;
  return gst_harness_push (r->h, buf);
}

/* Frames 0 .. n - 1 with PTS 0, 1, ... ms, each taken. */
static void
push_frames (Run * r, const InflightCase * c, guint n)
{
  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (push_frame (r, c, i, i * GST_MSECOND),
        GST_FLOW_OK);
}

/* What a frame leaves with: a digest of its bytes and every ROI meta with
 * its parameter structures. */
static gchar *
describe (GstBuffer * buf)
{
  GString *s = g_string_new (NULL);
  gpointer state = NULL;
  GstMapInfo map;
  GstMeta *meta;
  gchar *digest;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  digest = g_compute_checksum_for_data (G_CHECKSUM_SHA1, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_string_append (s, digest);
  g_free (digest);
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    g_string_append_printf (s, "\n%d %s %u,%u %ux%u", roi->id,
        g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h);
    for (GList * l = roi->params; l; l = l->next) {
      gchar *str = gst_structure_to_string (l->data);

      g_string_append_printf (s, " %s", str);
      g_free (str);
    }
  }
  return g_string_free (s, FALSE);
}

/* Pushes FRAMES frames (PTS i ms) without pulling, then pulls as many: their
 * descriptions in order; asserts that they leave in order and that the
 * element messages about them (if any) came in order too. */
static GPtrArray *
run_frames (const InflightCase * c, guint in_flight, guint * n_messages)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GstClockTime last = 0;
  GstMessage *msg;
  Run r;

  run_start (&r, c, in_flight);
  push_frames (&r, c, FRAMES);
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *buf = gst_harness_pull (r.h);

    fail_unless (buf != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * GST_MSECOND);
    g_ptr_array_add (out, describe (buf));
    gst_buffer_unref (buf);
  }
  *n_messages = 0;
  while ((msg = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT))) {
    GstClockTime ts = GST_CLOCK_TIME_NONE;

    if (gst_structure_get_uint64 (gst_message_get_structure (msg),
            "timestamp", &ts)) {
      fail_unless (*n_messages == 0 || ts > last,
          "message about %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
          GST_TIME_ARGS (ts), GST_TIME_ARGS (last));
      last = ts;
      (*n_messages)++;
    }
    gst_message_unref (msg);
  }
  run_stop (&r);
  return out;
}

static void
check_order (const InflightCase * c, guint in_flight)
{
  guint ref_messages, n_messages;
  GPtrArray *ref = run_frames (c, 1, &ref_messages);
  GPtrArray *got = run_frames (c, in_flight, &n_messages);

  for (guint i = 0; i < FRAMES; i++)
    fail_unless_equals_string (g_ptr_array_index (got, i),
        g_ptr_array_index (ref, i));
  fail_unless_equals_int (n_messages, ref_messages);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
}

static void
check_events (const InflightCase * c, guint in_flight)
{
  gboolean eos = FALSE;
  GstEvent *ev;
  Run r;

  run_start (&r, c, in_flight);
  push_frames (&r, c, 5);
  fail_unless (gst_harness_push_event (r.h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (r.h), 5);
  while ((ev = gst_harness_try_pull_event (r.h))) {
    eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (eos, "the EOS did not come out");
  run_stop (&r);
}

static void
check_flush (const InflightCase * c, guint in_flight)
{
  GstSegment segment;
  GstBuffer *buf;
  Run r;

  run_start (&r, c, in_flight);
  push_frames (&r, c, 6);
  fail_unless (gst_harness_push_event (r.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (r.h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&segment)));
  while ((buf = gst_harness_try_pull (r.h)) != NULL) {
    fail_unless (GST_BUFFER_PTS (buf) < 6 * GST_MSECOND);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (push_frame (&r, c, 0, GST_SECOND), GST_FLOW_OK);
  buf = gst_harness_pull (r.h);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), GST_SECOND);
  gst_buffer_unref (buf);
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  run_stop (&r);
}

static GstPadProbeReturn
hold_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  Run *r;
  const InflightCase *c;
  guint n;
  gint pushed;
} Pushes;

static gpointer
push_in_thread (gpointer data)
{
  Pushes *p = data;

  for (guint i = 0; i < p->n; i++) {
    fail_unless_equals_int (push_frame (p->r, p->c, i, i * GST_MSECOND),
        GST_FLOW_OK);
    g_atomic_int_inc (&p->pushed);
  }
  return NULL;
}

/* While downstream holds the first frame, the streaming thread goes on:
 * it hands over as many frames as may be in flight without waiting, and
 * they all leave, in order, once downstream takes them. */
static void
check_handed_over (const InflightCase * c, guint in_flight)
{
  const gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  Run r;
  Pushes p = { &r, c, in_flight, 0 };
  GThread *thread;
  gulong probe;

  run_start (&r, c, in_flight);
  probe = gst_pad_add_probe (r.h->sinkpad, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, hold_buffers, NULL, NULL);
  thread = g_thread_new ("push", push_in_thread, &p);
  while (g_atomic_int_get (&p.pushed) < (gint) in_flight
      && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  fail_unless_equals_int (g_atomic_int_get (&p.pushed), in_flight);
  fail_unless_equals_int (gst_harness_buffers_received (r.h), 0);
  gst_pad_remove_probe (r.h->sinkpad, probe);
  g_thread_join (thread);
  for (guint i = 0; i < in_flight; i++) {
    GstBuffer *buf = gst_harness_pull (r.h);

    fail_unless (buf != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * GST_MSECOND);
    gst_buffer_unref (buf);
  }
  run_stop (&r);
}

/* Three frames, one too short for its caps, then frames until a push
 * returns the error: the three leave first, in order, and nothing after
 * the short one; the element posts an error. */
static void
check_error (const InflightCase * c, guint in_flight)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstMessage *msg;
  GstBuffer *buf;
  guint pushed = 0;
  Run r;

  run_start (&r, c, in_flight);
  push_frames (&r, c, 3);
  /* The frame cut short, its metas kept (eigenrecognise looks at frames
   * with faces only). */
  buf = c->frame (3);
  gst_buffer_resize (buf, 0, 1);
  GST_BUFFER_PTS (buf) = 3 * GST_MSECOND;
  ret = gst_harness_push (r.h, buf);
  while (ret == GST_FLOW_OK && pushed++ < 200) {
    ret = push_frame (&r, c, 4, (4 + pushed) * GST_MSECOND);
    g_usleep (1000);
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  for (guint i = 0; i < 3; i++) {
    buf = gst_harness_pull (r.h);
    fail_unless (buf != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * GST_MSECOND);
    gst_buffer_unref (buf);
  }
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  msg = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  run_stop (&r);
}

/* ---- The tests: __i__ picks the element and the frames in flight -------- */

static const guint in_flight[] = { 1, 2, 4 };

#define CASE(i) (&cases[(i) / G_N_ELEMENTS (in_flight)])
#define IN_FLIGHT(i) (in_flight[(i) % G_N_ELEMENTS (in_flight)])
#define N_RUNS (G_N_ELEMENTS (cases) * G_N_ELEMENTS (in_flight))

/* With 2 and 4 in flight against 1. */
GST_START_TEST (test_order)
{
  check_order (&cases[__i__ / 2], 2 << (__i__ % 2));
}

GST_END_TEST;

GST_START_TEST (test_handed_over)
{
  check_handed_over (&cases[__i__ / 2], 2 << (__i__ % 2));
}

GST_END_TEST;

GST_START_TEST (test_events_wait)
{
  check_events (CASE (__i__), IN_FLIGHT (__i__));
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  check_flush (CASE (__i__), IN_FLIGHT (__i__));
}

GST_END_TEST;

GST_START_TEST (test_error)
{
  check_error (CASE (__i__), IN_FLIGHT (__i__));
}

GST_END_TEST;

static Suite *
inflight_suite (void)
{
  Suite *s = suite_create ("inflight");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_unchecked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_order, 0, G_N_ELEMENTS (cases) * 2);
  tcase_add_loop_test (tc, test_handed_over, 0, G_N_ELEMENTS (cases) * 2);
  tcase_add_loop_test (tc, test_events_wait, 0, N_RUNS);
  tcase_add_loop_test (tc, test_flush, 0, N_RUNS);
  tcase_add_loop_test (tc, test_error, 0, N_RUNS);
  return s;
}

GST_CHECK_MAIN (inflight);
