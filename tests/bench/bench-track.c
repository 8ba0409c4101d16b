/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cost of tracking per box, on the CPU: the SORT tracker of
 * common/clv-track.h alone, and the roitrack element (metas read and
 * written) against an identity element in its place.
 *
 * Objects move at constant velocities over a 1920x1080 frame with a pixel
 * of jitter on every detection; they enter and leave, so that tracks start
 * and end throughout.  Writes JSON (stdout or --out):
 *   {"cpu", "command", "cases": [{"boxes", "frames", "tracker_us_per_box",
 *    "element_us_per_box", "ids"}]}
 *
 *   bench-track [--frames N] [--boxes 1,4,16,64] [--out FILE]
 */
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

#include "clv-track.h"

#define WIDTH 1920
#define HEIGHT 1080
#define SIZE 80

typedef struct
{
  double x, y, vx, vy;
} Object;

/* A new object at a random place and velocity. */
static void
object_spawn (Object * o, GRand * rand)
{
  o->x = g_rand_double_range (rand, 0, WIDTH - SIZE);
  o->y = g_rand_double_range (rand, 0, HEIGHT - SIZE);
  o->vx = g_rand_double_range (rand, -6, 6);
  o->vy = g_rand_double_range (rand, -4, 4);
}

/* The detections of `frames` frames of `n` objects: an object that leaves
 * the frame is replaced by a new one. */
static ClvTrackDetection *
make_detections (guint n, guint frames)
{
  ClvTrackDetection *dets = g_new (ClvTrackDetection, (gsize) n * frames);
  Object *objects = g_new (Object, n);
  GRand *rand = g_rand_new_with_seed (36);

  for (guint i = 0; i < n; i++)
    object_spawn (&objects[i], rand);
  for (guint f = 0; f < frames; f++)
    for (guint i = 0; i < n; i++) {
      Object *o = &objects[i];
      ClvTrackDetection *d = &dets[(gsize) f * n + i];

      o->x += o->vx;
      o->y += o->vy;
      if (o->x < 0 || o->y < 0 || o->x > WIDTH - SIZE || o->y > HEIGHT - SIZE)
        object_spawn (o, rand);
      d->box = (ClvTrackBox) {
      o->x + g_rand_double_range (rand, -1, 1),
            o->y + g_rand_double_range (rand, -1, 1), SIZE, SIZE};
      d->label = 0;
    }
  g_rand_free (rand);
  g_free (objects);
  return dets;
}

/* Microseconds per box of clv_tracker_update; *ids gets the identifiers
 * given. */
static double
tracker_us_per_box (const ClvTrackDetection * dets, guint n, guint frames,
    guint64 * ids)
{
  const ClvTrackerParams params = { 0.3, 10 };
  ClvTracker *t = clv_tracker_new (&params);
  const ClvTrack *tracks;
  gint64 start;
  double us;
  guint live;

  start = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    clv_tracker_update (t, dets + (gsize) f * n, n, f, WIDTH, HEIGHT);
  us = (double) (g_get_monotonic_time () - start) / ((double) n * frames);
  tracks = clv_tracker_tracks (t, &live);
  *ids = live ? tracks[live - 1].id : 0;
  clv_tracker_free (t);
  return us;
}

/* Frames carrying the detections as vjfacedetect attaches them. */
static GstBuffer **
make_buffers (const ClvTrackDetection * dets, guint n, guint frames)
{
  GstBuffer **bufs = g_new (GstBuffer *, frames);

  for (guint f = 0; f < frames; f++) {
    bufs[f] = gst_buffer_new ();
    GST_BUFFER_PTS (bufs[f]) = f * GST_SECOND / 30;
    for (guint i = 0; i < n; i++) {
      const ClvTrackBox *b = &dets[(gsize) f * n + i].box;
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_add_video_region_of_interest_meta (bufs[f], "face",
          (guint) MAX (b->x, 0), (guint) MAX (b->y, 0), SIZE, SIZE);
      const GstClvDetection det = {.label = "face",.confidence = 0.9,
        .neighbors = 20,.x_min = b->x / WIDTH,.y_min = b->y / HEIGHT,
        .x_max = (b->x + SIZE) / WIDTH,.y_max = (b->y + SIZE) / HEIGHT
      };

      roi->id = i;
      gst_clv_roi_meta_set_detection (roi, &det);
    }
  }
  return bufs;
}

/* Seconds to push copies of `bufs` through `appsrc ! ELEMENT !
 * fakesink` up to EOS. */
static double
pipeline_seconds (const char *element, GstBuffer ** bufs, guint frames)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=video/x-raw,"
      "format=GRAY8,width=%d,height=%d,framerate=30/1 format=time "
      "max-bytes=0 block=true ! %s ! fakesink sync=false", WIDTH, HEIGHT,
      element);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstBuffer **copies = g_new (GstBuffer *, frames);
  GstMessage *msg;
  gint64 start;
  double s;

  g_assert (pipe != NULL);
  /* Copies made first: the metas are the upstream detector's, not the
   * cost measured. */
  for (guint f = 0; f < frames; f++)
    copies[f] = gst_buffer_copy (bufs[f]);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  start = g_get_monotonic_time ();
  for (guint f = 0; f < frames; f++)
    gst_app_src_push_buffer (GST_APP_SRC (src), copies[f]);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  s = (g_get_monotonic_time () - start) / 1e6;
  g_assert (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (copies);
  g_free (desc);
  return s;
}

static gchar *
cpu_name (void)
{
  gchar *info = NULL, *name = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &info, NULL, NULL)) {
    const gchar *line = strstr (info, "model name");
    const gchar *colon = line ? strchr (line, ':') : NULL;

    if (colon)
      name = g_strndup (colon + 2, strcspn (colon + 2, "\n"));
  }
  g_free (info);
  return name ? name : g_strdup ("unknown");
}

static void
run_case (GString * json, guint n, guint frames)
{
  ClvTrackDetection *dets = make_detections (n, frames);
  GstBuffer **bufs = make_buffers (dets, n, frames);
  double tracker = G_MAXDOUBLE, element = G_MAXDOUBLE;
  guint64 ids = 0;

  /* The best of three runs of each: the machine is shared. */
  for (int run = 0; run < 3; run++) {
    tracker = MIN (tracker, tracker_us_per_box (dets, n, frames, &ids));
    element = MIN (element, (pipeline_seconds ("roitrack", bufs, frames)
            - pipeline_seconds ("identity", bufs, frames)) * 1e6 /
        ((double) n * frames));
  }
  g_string_append_printf (json, "%s\n    {\"boxes\": %u, \"frames\": %u, "
      "\"tracker_us_per_box\": %.3f, \"element_us_per_box\": %.3f, "
      "\"ids\": %" G_GUINT64_FORMAT "}", json->str[json->len - 1] == '[' ?
      "" : ",", n, frames, tracker, element, ids);
  fprintf (stderr, "%u boxes a frame: tracker %.3f us a box, element %.3f\n",
      n, tracker, element);
  for (guint f = 0; f < frames; f++)
    gst_buffer_unref (bufs[f]);
  g_free (bufs);
  g_free (dets);
}

int
main (int argc, char **argv)
{
  gchar *command = g_strjoinv (" ", argv), *boxes = NULL, *out = NULL;
  gint frames = 3000;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames per case", "N"},
    {"boxes", 0, 0, G_OPTION_ARG_STRING, &boxes,
        "Boxes a frame, comma-separated (1,4,16,64)", "LIST"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- tracking cost per box");
  GError *error = NULL;
  GString *json = g_string_new (NULL);
  gchar **list, *cpu;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  cpu = cpu_name ();
  g_string_append_printf (json, "{\"cpu\": \"%s\", \"command\": \"%s\", "
      "\"cases\": [", cpu, command);
  list = g_strsplit (boxes ? boxes : "1,4,16,64", ",", -1);
  for (gchar ** b = list; *b; b++)
    run_case (json, (guint) g_ascii_strtoull (*b, NULL, 10), frames);
  g_string_append (json, "\n  ]}\n");
  if (out == NULL)
    fputs (json->str, stdout);
  else if (!g_file_set_contents (out, json->str, -1, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 1;
  }
  g_strfreev (list);
  g_string_free (json, TRUE);
  g_option_context_free (ctx);
  g_free (cpu);
  g_free (command);
  g_free (boxes);
  g_free (out);
  return 0;
}
