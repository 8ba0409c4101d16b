/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One file through one pipeline: the template expanded for it, its sinks
 * counted (frames, ROI metas, pixels), its bus and debug log written to the
 * file's log, and its output renamed from the partial name to the final one
 * only once the pipeline reached EOS with frames at a sink. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "batch-job.h"

/* What reached one sink element; written by its streaming thread, read by
 * the main loop. */
typedef struct
{
  gsize frames, regions, faces, pixels;
  guint64 frame_pixels;         /* of the current caps, streaming thread */
} SinkCounter;

struct _BatchJob
{
  BatchResult *result;
  BatchJobDone done;
  gpointer user_data;
  GstElement *pipeline;
  guint watch;
  guint failed_to_start;        /* the idle source that reports it */
  char *partial, *final, *log_path;
  FILE *log;
  GPtrArray *counters;          /* SinkCounter, one per sink pad */
  gint64 started;
};

static GQuark job_quark;

static void
log_printf (BatchJob * job, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
log_printf (BatchJob * job, const char *format, ...)
{
  va_list args;
  char *when;
  GDateTime *now;

  if (job->log == NULL)
    return;
  now = g_date_time_new_now_local ();
  when = g_date_time_format (now, "%F %T");
  fprintf (job->log, "%s ", when);
  va_start (args, format);
  vfprintf (job->log, format, args);
  va_end (args);
  fputc ('\n', job->log);
  fflush (job->log);
  g_free (when);
  g_date_time_unref (now);
}

/* ---- Counting at the sinks ------------------------------------------ */

static void
count_buffer (SinkCounter * c, GstBuffer * buf)
{
  static GQuark face;
  gpointer state = NULL;
  GstMeta *meta;
  gsize regions = 0, faces = 0;

  if (face == 0)
    face = g_quark_from_static_string ("face");
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    regions++;
    faces += ((GstVideoRegionOfInterestMeta *) meta)->roi_type == face;
  }
  g_atomic_pointer_add (&c->frames, 1);
  g_atomic_pointer_add (&c->regions, regions);
  g_atomic_pointer_add (&c->faces, faces);
  g_atomic_pointer_add (&c->pixels, c->frame_pixels);
}

static gboolean
count_list_item (GstBuffer ** buf, guint idx, gpointer user_data)
{
  count_buffer (user_data, *buf);
  return TRUE;
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkCounter *c = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    count_buffer (c, GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        count_list_item, c);
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_CAPS) {
    GstCaps *caps;
    GstVideoInfo vinfo;

    gst_event_parse_caps (GST_PAD_PROBE_INFO_EVENT (info), &caps);
    c->frame_pixels = gst_video_info_from_caps (&vinfo, caps)
        ? (guint64) vinfo.width * vinfo.height : 0;
  }
  return GST_PAD_PROBE_OK;
}

static void
watch_sink_pad (const GValue * item, gpointer user_data)
{
  BatchJob *job = user_data;
  SinkCounter *c = g_new0 (SinkCounter, 1);

  g_ptr_array_add (job->counters, c);
  gst_pad_add_probe (g_value_get_object (item), GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      count_probe, c, NULL);
}

/* Every sink of `bin`, in nested bins too: counted, and not synchronised to
 * the clock (an archive is analysed as fast as it can be, not played). */
static void
watch_sinks (BatchJob * job, GstBin * bin)
{
  GstIterator *it = gst_bin_iterate_sinks (bin);
  GValue item = G_VALUE_INIT;

  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);

    if (GST_IS_BIN (e)) {
      watch_sinks (job, GST_BIN (e));
    } else {
      GstIterator *pads = gst_element_iterate_sink_pads (e);

      if (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "sync"))
        g_object_set (e, "sync", FALSE, NULL);
      gst_iterator_foreach (pads, watch_sink_pad, job);
      gst_iterator_free (pads);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

/* The busiest sink's counts (a tee's branches see the same frames). */
static SinkCounter
busiest_sink (BatchJob * job)
{
  SinkCounter best = { 0 };

  for (guint i = 0; i < job->counters->len; i++) {
    SinkCounter *c = job->counters->pdata[i];
    gsize frames = g_atomic_pointer_get (&c->frames);

    if (frames > best.frames || (i == 0 && frames == 0)) {
      best.frames = frames;
      best.regions = g_atomic_pointer_get (&c->regions);
      best.faces = g_atomic_pointer_get (&c->faces);
      best.pixels = g_atomic_pointer_get (&c->pixels);
    }
  }
  return best;
}

/* ---- Ending --------------------------------------------------------- */

/* Stops the pipeline and fills the result; returns whether the output is
 * under its final name.  `error` NULL: the pipeline reached EOS. */
static gboolean
job_end (BatchJob * job, const char *error)
{
  BatchResult *r = job->result;
  SinkCounter counts;
  gboolean ok = error == NULL;
  char *why = NULL;

  if (job->watch)
    g_source_remove (job->watch);
  job->watch = 0;
  if (job->pipeline)
    gst_element_set_state (job->pipeline, GST_STATE_NULL);
  counts = busiest_sink (job);
  r->frames = counts.frames;
  r->regions = counts.regions;
  r->faces = counts.faces;
  r->pixels = counts.pixels;
  r->seconds = (g_get_monotonic_time () - job->started) / 1e6;

  if (ok && counts.frames == 0) {
    why = g_strdup ("no frame reached a sink of the pipeline");
  } else if (ok && !g_file_test (job->partial, G_FILE_TEST_EXISTS)) {
    why = g_strdup ("the pipeline ended without writing {output}");
  } else if (ok) {
    char *dir = g_path_get_dirname (job->final);

    if (g_mkdir_with_parents (dir, 0777) != 0
        || g_rename (job->partial, job->final) != 0)
      why = g_strdup_printf ("cannot move the output to '%s': %s",
          job->final, g_strerror (errno));
    g_free (dir);
  } else {
    why = g_strdup (error);
  }
  ok = why == NULL;
  if (!ok)
    g_unlink (job->partial);
  g_free (r->error);
  r->error = why;
  return ok;
}

/* Ends the job and logs how; returns whether the output is in place. */
static gboolean
job_end_logged (BatchJob * job, const char *error)
{
  gboolean ok = job_end (job, error);
  BatchResult *r = job->result;

  if (ok)
    log_printf (job, "done: %" G_GSIZE_FORMAT " frames, %" G_GSIZE_FORMAT
        " regions (%" G_GSIZE_FORMAT " faces), %" G_GSIZE_FORMAT
        " pixels in %.3f s -> %s", (gsize) r->frames, (gsize) r->regions,
        (gsize) r->faces, (gsize) r->pixels, r->seconds, job->final);
  else
    log_printf (job, "failed after %.3f s (%" G_GSIZE_FORMAT " frames): %s",
        r->seconds, (gsize) r->frames, r->error);
  return ok;
}

static void
job_finish (BatchJob * job, const char *error)
{
  gboolean ok = job_end_logged (job, error);

  job->done (job, ok, job->user_data);
}

static gboolean
report_start_failure (gpointer user_data)
{
  BatchJob *job = user_data;

  job->failed_to_start = 0;
  job->done (job, FALSE, job->user_data);
  return G_SOURCE_REMOVE;
}

/* A job that could not start ends at once; its caller hears it from the
 * main loop, as for every other job. */
static void
job_fail_to_start (BatchJob * job, const char *error)
{
  job_end_logged (job, error);
  job->failed_to_start = g_idle_add (report_start_failure, job);
}

static char *
error_text (GstMessage * msg)
{
  GError *err = NULL;
  char *debug = NULL, *text;

  gst_message_parse_error (msg, &err, &debug);
  text = g_strdup_printf ("%s: %s", GST_MESSAGE_SRC_NAME (msg), err->message);
  g_error_free (err);
  g_free (debug);
  return text;
}

static void
log_message (BatchJob * job, GstMessage * msg, const char *kind)
{
  GError *err = NULL;
  char *debug = NULL;

  if (kind[0] == 'e')
    gst_message_parse_error (msg, &err, &debug);
  else
    gst_message_parse_warning (msg, &err, &debug);
  log_printf (job, "%s from %s: %s%s%s", kind, GST_MESSAGE_SRC_NAME (msg),
      err->message, debug ? "\n  " : "", debug ? debug : "");
  g_error_free (err);
  g_free (debug);
}

static gboolean
bus_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  BatchJob *job = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      char *text = error_text (msg);
      log_message (job, msg, "error");
      job_finish (job, text);
      g_free (text);
      return G_SOURCE_REMOVE;
    }
    case GST_MESSAGE_WARNING:
      log_message (job, msg, "warning");
      break;
    case GST_MESSAGE_EOS:
      job_finish (job, NULL);
      return G_SOURCE_REMOVE;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* ---- Starting ------------------------------------------------------- */

/* Elements that name their records' source (roiexport) and were not told a
 * name get the file's stem: a default name ("roiexport7") would depend on
 * how many pipelines the process made before, and the stem says which file
 * the records come from. */
static void
name_sources (GstBin * bin, const char *stem)
{
  GstIterator *it = gst_bin_iterate_recurse (bin);
  GValue item = G_VALUE_INIT;

  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GObject *e = g_value_get_object (&item);
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "source-name");
    char *name = NULL;

    if (spec && spec->value_type == G_TYPE_STRING) {
      g_object_get (e, "source-name", &name, NULL);
      if (name == NULL || *name == '\0')
        g_object_set (e, "source-name", stem, NULL);
      g_free (name);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

static GstElement *
make_pipeline (const char *description, GError ** error)
{
  GstElement *e = gst_parse_launch (description, error);
  GstElement *pipeline;

  if (e == NULL || *error) {
    gst_clear_object (&e);
    return NULL;
  }
  if (GST_IS_PIPELINE (e))
    return e;
  pipeline = gst_pipeline_new (NULL);
  gst_bin_add (GST_BIN (pipeline), e);
  return pipeline;
}

static char *
stem_of (const char *input)
{
  char *base = g_path_get_basename (input);
  char *dot = strrchr (base, '.');

  if (dot && dot != base)
    *dot = '\0';
  return base;
}

/* A pipeline that will not go to PLAYING: its error from the bus. */
static char *
start_failure (BatchJob * job)
{
  GstBus *bus = gst_element_get_bus (job->pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  char *text;

  if (msg) {
    log_message (job, msg, "error");
    text = error_text (msg);
    gst_message_unref (msg);
  } else {
    text = g_strdup ("the pipeline failed to start");
  }
  gst_object_unref (bus);
  return text;
}

static gboolean
open_log (BatchJob * job)
{
  char *dir = g_path_get_dirname (job->log_path);

  g_mkdir_with_parents (dir, 0777);
  g_free (dir);
  job->log = g_fopen (job->log_path, "a");
  return job->log != NULL;
}

static void
job_launch (BatchJob * job, const BatchJobPaths * paths)
{
  GstBus *bus;
  GError *err = NULL;
  char *stem = stem_of (job->result->entry->input);
  BatchFields fields = { job->result->entry->input, job->partial, stem,
    paths->device
  };
  char *description = batch_template_expand (paths->template, &fields);

  log_printf (job, "%s, attempt %u on %s, device %s\n  pipeline: %s",
      job->result->entry->input, job->result->attempts, g_get_host_name (),
      paths->device, description);
  job->pipeline = make_pipeline (description, &err);
  g_free (description);
  if (job->pipeline)
    name_sources (GST_BIN (job->pipeline), stem);
  g_free (stem);
  if (job->pipeline == NULL) {
    char *text = g_strdup_printf ("the pipeline does not parse: %s",
        err->message);
    g_error_free (err);
    job_fail_to_start (job, text);
    g_free (text);
    return;
  }
  g_object_set_qdata (G_OBJECT (job->pipeline), job_quark, job);
  watch_sinks (job, GST_BIN (job->pipeline));
  bus = gst_element_get_bus (job->pipeline);
  job->watch = gst_bus_add_watch (bus, bus_message, job);
  gst_object_unref (bus);
  if (gst_element_set_state (job->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    char *text = start_failure (job);
    job_fail_to_start (job, text);
    g_free (text);
  }
}

BatchJob *
batch_job_start (const BatchJobPaths * paths, BatchResult * r,
    BatchJobDone done, gpointer user_data)
{
  BatchJob *job = g_new0 (BatchJob, 1);
  char *dir = g_path_get_dirname (paths->partial);

  if (job_quark == 0)
    job_quark = g_quark_from_static_string ("clvision-batch-job");
  job->result = r;
  job->done = done;
  job->user_data = user_data;
  job->partial = g_strdup (paths->partial);
  job->final = g_strdup (paths->final);
  job->log_path = g_strdup (paths->log);
  job->counters = g_ptr_array_new_with_free_func (g_free);
  job->started = g_get_monotonic_time ();
  g_free (r->device);
  r->device = g_strdup (paths->device);
  if (!open_log (job))
    g_printerr ("clvision-batch: cannot write the log '%s': %s\n",
        job->log_path, g_strerror (errno));
  g_mkdir_with_parents (dir, 0777);
  g_free (dir);
  g_unlink (job->partial);
  job_launch (job, paths);
  return job;
}

void
batch_job_stop (BatchJob * job)
{
  job_end (job, "stopped by a signal");
  log_printf (job, "stopped by a signal after %.3f s; no output kept",
      job->result->seconds);
}

BatchResult *
batch_job_result (BatchJob * job)
{
  return job->result;
}

const char *
batch_job_log_path (BatchJob * job)
{
  return job->log_path;
}

void
batch_job_poll (BatchJob * job, double *fraction, guint64 * frames)
{
  gint64 pos = -1, dur = -1;

  *fraction = 0;
  if (gst_element_query_position (job->pipeline, GST_FORMAT_TIME, &pos)
      && gst_element_query_duration (job->pipeline, GST_FORMAT_TIME, &dur)
      && pos > 0 && dur > 0)
    *fraction = CLAMP ((double) pos / (double) dur, 0.0, 1.0);
  *frames = busiest_sink (job).frames;
}

void
batch_job_free (BatchJob * job)
{
  if (job->watch)
    g_source_remove (job->watch);
  if (job->failed_to_start)
    g_source_remove (job->failed_to_start);
  if (job->pipeline) {
    gst_element_set_state (job->pipeline, GST_STATE_NULL);
    g_object_set_qdata (G_OBJECT (job->pipeline), job_quark, NULL);
    gst_object_unref (job->pipeline);
  }
  if (job->log)
    fclose (job->log);
  g_ptr_array_unref (job->counters);
  g_free (job->partial);
  g_free (job->final);
  g_free (job->log_path);
  g_free (job);
}

/* ---- Debug log ------------------------------------------------------ */

static void
route_debug_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  BatchJob *job = NULL;

  /* Parents read without their locks, as GStreamer's own log does. */
  if (object && GST_IS_OBJECT (object)) {
    GstObject *top = GST_OBJECT (object);
    while (GST_OBJECT_PARENT (top))
      top = GST_OBJECT_PARENT (top);
    job = g_object_get_qdata (G_OBJECT (top), job_quark);
  }
  if (job && job->log) {
    char *text = gst_debug_log_get_line (category, level, file, function,
        line, object, message);
    fputs (text, job->log);
    g_free (text);
  } else {
    gst_debug_log_default (category, level, file, function, line, object,
        message, NULL);
  }
}

void
batch_job_route_debug_log (gboolean install)
{
  if (job_quark == 0)
    job_quark = g_quark_from_static_string ("clvision-batch-job");
  if (install) {
    gst_debug_add_log_function (route_debug_log, NULL, NULL);
    gst_debug_remove_log_function (gst_debug_log_default);
  } else {
    gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
    gst_debug_remove_log_function (route_debug_log);
  }
}
