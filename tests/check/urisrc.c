/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvurisrc against a real RTSP server (tests/rtsp/rtsp-server.c, the
 * program in CLV_RTSP_SERVER) serving franck.webm's VP8 as it is: the same
 * faces as the file; the server killed, or stopped, and started again
 * mid-stream: a message at the loss and at the return, frames again within
 * reconnect-interval + 2 s, timestamps going on, one segment, a normal
 * EOS; ten reconnections in a row (leaks: the sanitizer run); a file's end
 * ends the stream; a URI nothing reads is an error. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

/* 30 s of franck.webm (25 frames/s): its first packets. */
#define THIRTY_SECONDS 750
#define DETECT "vjfacedetect post-messages=false min-size=96x96"

typedef struct
{
  GPid pid;
  gint port;
  gchar *launch;
} Server;

static gchar *
franck (void)
{
  return g_build_filename (g_getenv ("CLV_DATA_CACHE"), "franck.webm", NULL);
}

/* Serves franck.webm's VP8 (the first `frames` frames, all if 0). */
static Server *
server_new (guint frames)
{
  Server *s = g_new0 (Server, 1);
  gchar *video = franck ();
  gchar *limit = frames ? g_strdup_printf ("identity eos-after=%u ! ",
      frames) : g_strdup ("");

  s->launch = g_strdup_printf ("( filesrc location=%s ! matroskademux ! "
      "%srtpvp8pay name=pay0 pt=96 )", video, limit);
  g_free (limit);
  g_free (video);
  return s;
}

/* Starts the server (on its port of before, if it had one). */
static void
server_start (Server * s)
{
  gchar *port = g_strdup_printf ("%d", s->port);
  const gchar *argv[] = { g_getenv ("CLV_RTSP_SERVER"), "--port", port,
    s->launch, NULL
  };
  GError *error = NULL;
  gint out;
  gchar line[32] = { 0 };
  gssize n;

  fail_unless (argv[0] != NULL, "CLV_RTSP_SERVER is not set");
  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &s->pid, NULL, &out, NULL,
          &error), "cannot start the RTSP server: %s",
      error ? error->message : "?");
  n = read (out, line, sizeof line - 1);
  close (out);
  fail_unless (n > 0, "the RTSP server did not start");
  s->port = atoi (line);
  fail_unless (s->port > 0);
  g_free (port);
}

static void
server_signal (Server * s, int sig)
{
  fail_unless (kill (s->pid, sig) == 0);
  if (sig == SIGKILL) {
    waitpid (s->pid, NULL, 0);
    g_spawn_close_pid (s->pid);
    s->pid = 0;
  }
}

static void
server_free (Server * s)
{
  if (s->pid)
    server_signal (s, SIGKILL);
  g_free (s->launch);
  g_free (s);
}

static gchar *
server_uri (Server * s)
{
  /* RTSP over TCP: no frame lost to a busy machine. */
  return g_strdup_printf ("rtspt://127.0.0.1:%d/test", s->port);
}

typedef struct
{
  GstElement *pipe, *sink;
  GstBus *bus;
  GstClockTime last_pts;
  GstSegment segment;
  guint frames;
} Client;

static Client *
client_start (const gchar * uri, const gchar * props, const gchar * middle)
{
  Client *c = g_new0 (Client, 1);
  gchar *desc = g_strdup_printf ("clvurisrc uri=%s %s ! %s appsink "
      "name=sink sync=false", uri, props, middle);

  c->pipe = gst_parse_launch (desc, NULL);
  fail_unless (c->pipe != NULL, "cannot build %s", desc);
  g_free (desc);
  c->sink = gst_bin_get_by_name (GST_BIN (c->pipe), "sink");
  c->bus = gst_element_get_bus (c->pipe);
  c->last_pts = GST_CLOCK_TIME_NONE;
  fail_if (gst_element_set_state (c->pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  return c;
}

/* The next frame within `timeout`, or NULL; checks that timestamps go on
 * increasing in one segment. */
static GstSample *
client_pull (Client * c, GstClockTime timeout)
{
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (c->sink),
      timeout);
  GstBuffer *buf;

  if (sample == NULL)
    return NULL;
  buf = gst_sample_get_buffer (sample);
  fail_unless (GST_BUFFER_PTS_IS_VALID (buf));
  if (c->frames++ == 0)
    gst_segment_copy_into (gst_sample_get_segment (sample), &c->segment);
  fail_unless (gst_segment_is_equal (&c->segment,
          gst_sample_get_segment (sample)), "a second segment");
  if (GST_CLOCK_TIME_IS_VALID (c->last_pts))
    fail_unless (GST_BUFFER_PTS (buf) > c->last_pts, "timestamp %"
        GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_TIME_ARGS (c->last_pts));
  c->last_pts = GST_BUFFER_PTS (buf);
  return sample;
}

/* Pulls `n` frames, each within 20 s. */
static void
client_pull_n (Client * c, guint n)
{
  for (guint i = 0; i < n; i++) {
    GstSample *sample = client_pull (c, 20 * GST_SECOND);

    fail_unless (sample != NULL, "no frame %u", i);
    gst_sample_unref (sample);
  }
}

/* Pulls what has arrived already. */
static void
client_drain (Client * c)
{
  GstSample *sample;

  while ((sample = client_pull (c, 200 * GST_MSECOND)))
    gst_sample_unref (sample);
}

/* The next element message of clvurisrc named `name` within `timeout`
 * seconds (an error fails the test); NULL if none. */
static GstStructure *
client_wait_message (Client * c, const gchar * name, guint timeout)
{
  const gint64 end = g_get_monotonic_time () + timeout * G_TIME_SPAN_SECOND;
  GstMessage *msg;

  while (g_get_monotonic_time () < end) {
    GstStructure *s;

    msg = gst_bus_timed_pop_filtered (c->bus, 100 * GST_MSECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
    if (msg == NULL)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error;

      gst_message_parse_error (msg, &error, NULL);
      fail ("error from %s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          error->message);
    }
    s = gst_structure_copy (gst_message_get_structure (msg));
    gst_message_unref (msg);
    if (gst_structure_has_name (s, name))
      return s;
    gst_structure_free (s);
  }
  return NULL;
}

/* Sends EOS to the pipeline, as gst-launch-1.0 -e does, and waits for it
 * to reach the sink with no error on the way. */
static void
client_stop (Client * c)
{
  GstMessage *msg;

  fail_unless (gst_element_send_event (c->pipe, gst_event_new_eos ()));
  client_drain (c);
  msg = gst_bus_timed_pop_filtered (c->bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (c->pipe, GST_STATE_NULL);
  gst_object_unref (c->sink);
  gst_object_unref (c->bus);
  gst_object_unref (c->pipe);
  g_free (c);
}

/* "x,y,w,h " for every face of the sample's buffer. */
static gchar *
faces_of (GstSample * sample)
{
  GString *s = g_string_new (NULL);
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (gst_sample_get_buffer
              (sample), &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    g_string_append_printf (s, "%u,%u,%u,%u ", roi->x, roi->y, roi->w,
        roi->h);
  }
  return g_string_free (s, FALSE);
}

/* The faces of the first 30 s of franck.webm read from the file. */
static GPtrArray *
file_faces (void)
{
  gchar *video = franck ();
  gchar *desc = g_strdup_printf ("filesrc location=%s ! matroskademux ! "
      "identity eos-after=%u ! vp8dec ! videoconvert ! "
      "video/x-raw,format=GRAY8 ! " DETECT " ! appsink name=sink sync=false",
      video, THIRTY_SECONDS);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GPtrArray *faces = g_ptr_array_new_with_free_func (g_free);
  GstSample *sample;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (faces, faces_of (sample));
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (video);
  return faces;
}

GST_START_TEST (test_same_faces_as_file)
{
  GPtrArray *want = file_faces ();
  Server *server = server_new (THIRTY_SECONDS);
  Client *c;
  gchar *uri;
  guint with_face = 0;

  /* VP8's hidden frames are packets without a picture. */
  fail_unless (want->len > THIRTY_SECONDS * 99 / 100, "%u frames", want->len);
  server_start (server);
  uri = server_uri (server);
  c = client_start (uri, "", "videoconvert ! video/x-raw,format=GRAY8 ! "
      DETECT " !");
  for (guint i = 0; i < want->len; i++) {
    GstSample *sample = client_pull (c, 20 * GST_SECOND);
    gchar *got;

    fail_unless (sample != NULL, "frame %u did not come", i);
    got = faces_of (sample);
    fail_unless_equals_string (got, g_ptr_array_index (want, i));
    with_face += got[0] != '\0';
    g_free (got);
    gst_sample_unref (sample);
  }
  /* A test that would pass on a faceless video proves nothing. */
  fail_unless (with_face > THIRTY_SECONDS * 9 / 10);
  client_stop (c);
  server_free (server);
  g_free (uri);
  g_ptr_array_unref (want);
}

GST_END_TEST;

/* The server goes (killed, or stopped), a "source-lost" comes; it is back
 * after `down` ms, a "source-reconnected" comes and frames flow again
 * within reconnect-interval + 2 s of its return. */
static void
lose_and_return (Client * c, Server * server, int sig, guint down,
    guint interval, const gchar * reason)
{
  GstStructure *s;
  GstSample *sample;
  gint64 back;
  guint64 downtime;

  server_signal (server, sig);
  s = client_wait_message (c, "source-lost", 15);
  fail_unless (s != NULL, "no source-lost");
  fail_unless (strstr (gst_structure_get_string (s, "reason"), reason),
      "lost for \"%s\"", gst_structure_get_string (s, "reason"));
  gst_structure_free (s);
  client_drain (c);
  g_usleep (down * 1000);
  if (sig == SIGKILL)
    server_start (server);
  else
    server_signal (server, SIGCONT);
  back = g_get_monotonic_time ();
  sample = client_pull (c, (interval + 2) * GST_SECOND);
  fail_unless (sample != NULL, "no frame within %u s of the server's return",
      interval + 2);
  GST_INFO ("frames again %.2f s after the server's return",
      (g_get_monotonic_time () - back) / 1e6);
  gst_sample_unref (sample);
  s = client_wait_message (c, "source-reconnected", 5);
  fail_unless (s != NULL, "no source-reconnected");
  fail_unless (gst_structure_get_uint64 (s, "downtime", &downtime));
  fail_unless (downtime >= down * GST_MSECOND);
  gst_structure_free (s);
}

/* `times` outages of the server (see lose_and_return) while a client with
 * `props` reads it, then a normal EOS. */
static void
outages (const gchar * props, int sig, guint down, guint interval,
    const gchar * reason, guint times)
{
  Server *server = server_new (0);
  Client *c;
  gchar *uri;

  server_start (server);
  uri = server_uri (server);
  c = client_start (uri, props, "");
  for (guint i = 0; i < times; i++) {
    client_pull_n (c, 25);
    lose_and_return (c, server, sig, down, interval, reason);
  }
  client_pull_n (c, 25);
  client_stop (c);
  server_free (server);
  g_free (uri);
}

GST_START_TEST (test_server_killed_and_restarted)
{
  outages ("reconnect-interval=2 timeout=5", SIGKILL, 3000, 2, "", 1);
}

GST_END_TEST;

/* A server that stops answering (SIGSTOP: the connection stays open, no
 * frame comes) is lost after `timeout`, then found again. */
GST_START_TEST (test_silent_server)
{
  outages ("reconnect-interval=1 timeout=2", SIGSTOP, 3000, 1,
      "no frame for 2 s", 1);
}

GST_END_TEST;

GST_START_TEST (test_ten_reconnections)
{
  outages ("reconnect-interval=1 timeout=5", SIGKILL, 200, 1, "", 10);
}

GST_END_TEST;

/* A file is not live: its end is the stream's. */
GST_START_TEST (test_file_ends)
{
  gchar *path = g_build_filename (g_getenv ("CLV_DATA_CACHE"),
      "cap13_edit2.webm", NULL);
  gchar *uri = gst_filename_to_uri (path, NULL);
  Client *c = client_start (uri, "", "");
  GstMessage *msg;
  GstSample *sample;

  while ((sample = client_pull (c, 20 * GST_SECOND)))
    gst_sample_unref (sample);
  fail_unless (c->frames > 10);
  msg = gst_bus_timed_pop_filtered (c->bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (c->pipe, GST_STATE_NULL);
  gst_object_unref (c->sink);
  gst_object_unref (c->bus);
  gst_object_unref (c->pipe);
  g_free (c);
  g_free (uri);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_unreadable_uri)
{
  GstElement *pipe = gst_parse_launch ("clvurisrc uri=nothing://here ! "
      "fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *error;

  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "nothing://") != NULL, "%s",
      error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
urisrc_suite (void)
{
  Suite *s = suite_create ("clvurisrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_unreadable_uri);
  tcase_add_test (tc, test_file_ends);
  tcase_add_test (tc, test_server_killed_and_restarted);
  tcase_add_test (tc, test_silent_server);
  tcase_add_test (tc, test_ten_reconnections);
  tcase_add_test (tc, test_same_faces_as_file);
  return s;
}

GST_CHECK_MAIN (urisrc);
