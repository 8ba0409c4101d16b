/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* inject-run: runs one pipeline to its end and says how it ended, for the
 * failure-injection sweep (tests/inject/sweep.py):
 *
 *   inject-run [--timeout SECONDS] 'PIPELINE DESCRIPTION'
 *
 * Every fakesink of the pipeline is watched: each buffer's bytes and its
 * region-of-interest metas (type, box and parameter structures) go into a
 * digest per sink, so that two runs that gave the same results print the
 * same digests.  Printed, one per line:
 *
 *   sink NAME BUFFERS DIGEST
 *   error SOURCE\tMESSAGE\tDEBUG     (each error posted, in order)
 *   warnings N
 *   result eos|error
 *
 * A run that does not end within the timeout (60 s by default) is killed
 * by SIGALRM, which the sweep counts as a hang. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/video/video.h>

typedef struct
{
  gchar *name;
  GChecksum *sum;
  guint buffers;
  GMutex lock;
} SinkDigest;

static void
add_rois (GChecksum * sum, GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    gchar *text = g_strdup_printf ("roi %s %u %u %u %u",
        g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h);

    g_checksum_update (sum, (const guchar *) text, -1);
    g_free (text);
    for (GList * l = roi->params; l != NULL; l = l->next) {
      text = gst_structure_to_string (l->data);
      g_checksum_update (sum, (const guchar *) text, -1);
      g_free (text);
    }
  }
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  SinkDigest *d = data;
  GstMapInfo map;

  g_mutex_lock (&d->lock);
  d->buffers++;
  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_checksum_update (d->sum, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  } else {
    g_checksum_update (d->sum, (const guchar *) "unmappable", -1);
  }
  add_rois (d->sum, buf);
  g_mutex_unlock (&d->lock);
}

static void
watch_sink (const GValue * item, gpointer data)
{
  GstElement *e = g_value_get_object (item);
  GPtrArray *sinks = data;
  SinkDigest *d;

  if (g_strcmp0 (G_OBJECT_TYPE_NAME (e), "GstFakeSink") != 0)
    return;
  d = g_new0 (SinkDigest, 1);
  d->name = gst_element_get_name (e);
  d->sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_mutex_init (&d->lock);
  g_object_set (e, "signal-handoffs", TRUE, NULL);
  g_signal_connect (e, "handoff", G_CALLBACK (on_handoff), d);
  g_ptr_array_add (sinks, d);
}

static gint
compare_sinks (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 ((*(SinkDigest **) a)->name, (*(SinkDigest **) b)->name);
}

static void
print_error (GstMessage * msg)
{
  GError *error = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &error, &debug);
  g_strdelimit (debug, "\t\n", ' ');
  g_strdelimit (error->message, "\t\n", ' ');
  g_print ("error %s\t%s\t%s\n", GST_MESSAGE_SRC_NAME (msg), error->message,
      debug ? debug : "");
  g_error_free (error);
  g_free (debug);
}

/* Counts a warning or prints an error; TRUE for EOS or an error. */
static gboolean
take (GstMessage * msg, guint * warnings, gboolean * eos)
{
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_EOS:
      *eos = TRUE;
      return TRUE;
    case GST_MESSAGE_ERROR:
      print_error (msg);
      return TRUE;
    case GST_MESSAGE_WARNING:
      (*warnings)++;
      return FALSE;
    default:
      return FALSE;
  }
}

/* Runs to EOS or the first error, then takes what else is posted in the
 * next 200 ms: the bus is flushed once the pipeline is in NULL. */
static gboolean
run (GstElement * pipeline, guint * warnings)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean eos = FALSE, done;
  GstClockTime wait = GST_CLOCK_TIME_NONE;
  GstMessage *msg;

  done = gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE;
  while ((msg = gst_bus_timed_pop (bus, done ? 200 * GST_MSECOND : wait))) {
    done |= take (msg, warnings, &eos);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return eos;
}

int
main (int argc, char **argv)
{
  guint timeout = 60, warnings = 0;
  GOptionEntry options[] = {
    {"timeout", 0, 0, G_OPTION_ARG_INT, &timeout,
        "Seconds before the run counts as a hang", "S"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("PIPELINE");
  GError *error = NULL;
  GstElement *pipeline;
  GPtrArray *sinks = g_ptr_array_new ();
  GstIterator *it;
  gboolean eos;

  g_option_context_add_main_entries (ctx, options, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2) {
    g_printerr ("usage: inject-run [--timeout S] 'PIPELINE'\n");
    return 2;
  }
  g_option_context_free (ctx);
  alarm (timeout);
  pipeline = gst_parse_launch (argv[1], &error);
  if (pipeline == NULL) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  gst_iterator_foreach (it, watch_sink, sinks);
  gst_iterator_free (it);
  g_ptr_array_sort (sinks, compare_sinks);

  eos = run (pipeline, &warnings);
  gst_object_unref (pipeline);
  for (guint i = 0; i < sinks->len; i++) {
    SinkDigest *d = g_ptr_array_index (sinks, i);

    g_print ("sink %s %u %s\n", d->name, d->buffers,
        g_checksum_get_string (d->sum));
    g_checksum_free (d->sum);
    g_mutex_clear (&d->lock);
    g_free (d->name);
    g_free (d);
  }
  g_ptr_array_free (sinks, TRUE);
  g_print ("warnings %u\nresult %s\n", warnings, eos ? "eos" : "error");
  gst_deinit ();
  return 0;
}
