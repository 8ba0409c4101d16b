/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames in flight of a GstClvFilter: with more than one, the streaming
 * thread hands each frame over and goes on to the next one; the element's
 * analysis threads work on several frames at once, each with a slot of
 * device copies of its own; one task on the source pad pushes them in the
 * order they came, each as soon as it and the ones before it are done.
 * Serialized events and queries go after the frames before them; a flush
 * drops the frames no thread has taken and waits for the others; an error
 * (of an analysis or a push) is the flow of the next frame that comes.
 * With one frame in flight the frame goes through GstBaseTransform as
 * usual, in the streaming thread, once those before it have left. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvfilter-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_clv_filter_debug);
#define GST_CAT_DEFAULT gst_clv_filter_debug

#define PRIV(f) gst_clv_filter_priv (GST_CLV_FILTER (f))

/* The pads' functions that GstBaseTransform set, which ours call. */
static GstPadEventFunction base_sink_event;
static GstPadQueryFunction base_sink_query;
static GstPadActivateModeFunction base_src_activate_mode;

static void
frame_free (GstClvFilter * filter, GstClvFilterFrame * f)
{
  GDestroyNotify free_data = GST_CLV_FILTER_GET_CLASS (filter)->
      free_frame_data;

  gst_clear_buffer (&f->in);
  gst_clear_buffer (&f->out);
  if (f->data && free_data)
    free_data (f->data);
  g_free (f);
}

/* Each frame in flight beyond the first counts as an analyser of the
 * device (clv_device_analysers): like other streams' frames, they go up
 * through pinned stages and wait for the device outside the driver, so
 * that one's upload and waits do not hold up the other's kernels (the
 * driver's do).  Only for elements that count as analysers. */
static void
set_extra_analysers (GstClvFilter * filter, guint n)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  if (!priv->counted || n == priv->extra_analysers)
    return;
  clv_device_analysers_add (priv->runtime,
      (gint) n - (gint) priv->extra_analysers);
  priv->extra_analysers = n;
}

gint
gst_clv_filter_other_analysers (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  return clv_device_analysers (priv->runtime) - (priv->counted ? 1 : 0)
      - (gint) priv->extra_analysers;
}

/* ---- The pushing task ---------------------------------------------------- */

/* Pushes the oldest frame once it is done; frames from one that failed on,
 * and while flushing, are dropped. */
static void
push_loop (gpointer data)
{
  GstClvFilter *filter = data;
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  GstClvFilterPrivate *priv = PRIV (filter);
  GstClvFilterFrame *f;
  GstFlowReturn ret;

  g_mutex_lock (&priv->lock);
  while (!priv->stopping && ((f = g_queue_peek_head (&priv->frames)) == NULL
          || !f->done))
    g_cond_wait (&priv->cond, &priv->lock);
  if (priv->stopping) {
    g_mutex_unlock (&priv->lock);
    gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (filter));
    return;
  }
  g_queue_pop_head (&priv->frames);
  priv->failed |= f->ret != GST_FLOW_OK;
  if (!priv->failed && !priv->flushing) {
    priv->pushing = TRUE;
    g_mutex_unlock (&priv->lock);
    if (klass->finish_frame)
      klass->finish_frame (filter, f->out, f->data);
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (filter),
        g_steal_pointer (&f->out));
    g_mutex_lock (&priv->lock);
    priv->pushing = FALSE;
    priv->failed |= ret != GST_FLOW_OK;
    if (ret != GST_FLOW_OK && priv->flow == GST_FLOW_OK && !priv->flushing)
      priv->flow = ret;
  }
  frame_free (filter, f);
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
}

/* ---- The analysis threads ------------------------------------------------ */

/* Set in the analysis threads. */
static GPrivate in_analysis_thread;

void
gst_clv_filter_flight_error_posted (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  /* The frame that failed is the flow of the next push from now on, not
   * only once its analysis returns: whoever saw the error may push at
   * once. */
  if (!g_private_get (&in_analysis_thread))
    return;
  g_mutex_lock (&priv->lock);
  if (priv->flow == GST_FLOW_OK && !priv->flushing)
    priv->flow = GST_FLOW_ERROR;
  g_mutex_unlock (&priv->lock);
}

typedef struct
{
  GstClvFilter *filter;
  guint slot;
} ThreadArgs;

static gpointer
analysis_loop (gpointer data)
{
  ThreadArgs *args = data;
  GstClvFilter *filter = args->filter;
  GstClvFilterPrivate *priv = PRIV (filter);
  GstClvFilterFrame *f;

  g_private_set (&in_analysis_thread, GINT_TO_POINTER (TRUE));
  g_mutex_lock (&priv->lock);
  for (;;) {
    while (!priv->stopping && g_queue_is_empty (&priv->todo))
      g_cond_wait (&priv->cond, &priv->lock);
    if (priv->stopping)
      break;
    f = g_queue_pop_head (&priv->todo);
    g_mutex_unlock (&priv->lock);
    f->ret = gst_clv_filter_run_frame (filter, f, args->slot);
    g_mutex_lock (&priv->lock);
    f->done = TRUE;
    /* The streaming thread says so at once; the frames before still go. */
    if (f->ret != GST_FLOW_OK && priv->flow == GST_FLOW_OK && !priv->flushing)
      priv->flow = f->ret;
    g_cond_broadcast (&priv->cond);
  }
  g_mutex_unlock (&priv->lock);
  g_free (args);
  return NULL;
}

/* Threads for `n` frames in flight, each with its slot.  Called with the
 * lock. */
static void
ensure_threads (GstClvFilter * filter, guint n)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  for (guint i = priv->n_threads; i < MIN (n, GST_CLV_FILTER_MAX_IN_FLIGHT);
      i++) {
    ThreadArgs *args = g_new (ThreadArgs, 1);
    gchar *name = g_strdup_printf ("%s:%u", GST_OBJECT_NAME (filter), i);

    *args = (ThreadArgs) { filter, i };
    priv->threads[i] = g_thread_new (name, analysis_loop, args);
    priv->n_threads = i + 1;
    g_free (name);
  }
}

void
gst_clv_filter_flight_stop (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);
  GstClvFilterFrame *f;

  g_mutex_lock (&priv->lock);
  priv->stopping = TRUE;
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
  if (priv->task_started)
    gst_pad_stop_task (GST_BASE_TRANSFORM_SRC_PAD (filter));
  for (guint i = 0; i < priv->n_threads; i++)
    g_thread_join (priv->threads[i]);
  set_extra_analysers (filter, 0);
  priv->n_threads = 0;
  priv->task_started = FALSE;
  g_queue_clear (&priv->todo);
  while ((f = g_queue_pop_head (&priv->frames)) != NULL)
    frame_free (filter, f);
}

void
gst_clv_filter_flight_start (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  g_mutex_lock (&priv->lock);
  priv->flow = GST_FLOW_OK;
  priv->flushing = priv->stopping = priv->pushing = priv->failed = FALSE;
  g_mutex_unlock (&priv->lock);
}

/* ---- Draining and flushing ----------------------------------------------- */

GstFlowReturn
gst_clv_filter_flight_drain (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);
  GstFlowReturn ret;

  g_mutex_lock (&priv->lock);
  while (!priv->stopping && (!g_queue_is_empty (&priv->frames)
          || priv->pushing))
    g_cond_wait (&priv->cond, &priv->lock);
  ret = priv->stopping ? GST_FLOW_FLUSHING : priv->flow;
  g_mutex_unlock (&priv->lock);
  return ret;
}

/* Frames no thread has taken are dropped at once; the others finish (the
 * device is reading them) and are dropped when their turn comes. */
static void
flush_start (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);
  GstClvFilterFrame *f;

  g_mutex_lock (&priv->lock);
  priv->flushing = TRUE;
  while ((f = g_queue_pop_head (&priv->todo)) != NULL) {
    g_queue_remove (&priv->frames, f);
    frame_free (filter, f);
  }
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
}

static void
flush_stop (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  g_mutex_lock (&priv->lock);
  while (!priv->stopping && (!g_queue_is_empty (&priv->frames)
          || priv->pushing))
    g_cond_wait (&priv->cond, &priv->lock);
  priv->flushing = priv->failed = FALSE;
  priv->flow = GST_FLOW_OK;
  g_mutex_unlock (&priv->lock);
}

static gboolean
sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstClvFilter *filter = GST_CLV_FILTER (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START)
    flush_start (filter);
  else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    flush_stop (filter);
  else if (GST_EVENT_IS_SERIALIZED (event))
    gst_clv_filter_flight_drain (filter);
  return base_sink_event (pad, parent, event);
}

/* Serialized queries (allocation, drain) come after the frames in flight. */
static gboolean
sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_IS_SERIALIZED (query))
    gst_clv_filter_flight_drain (GST_CLV_FILTER (parent));
  return base_sink_query (pad, parent, query);
}

/* The task holds the source pad's stream lock, which its deactivation
 * takes: stop it first. */
static gboolean
src_activate_mode (GstPad * pad, GstObject * parent, GstPadMode mode,
    gboolean active)
{
  if (!active)
    gst_clv_filter_flight_stop (GST_CLV_FILTER (parent));
  return base_src_activate_mode (pad, parent, mode, active);
}

void
gst_clv_filter_flight_install_pad_functions (GstClvFilter * filter)
{
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (filter);
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (filter);

  /* GstBaseTransform's, the same for every instance. */
  base_sink_event = GST_PAD_EVENTFUNC (sinkpad);
  base_sink_query = GST_PAD_QUERYFUNC (sinkpad);
  base_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC (srcpad);
  gst_pad_set_event_function (sinkpad, sink_event);
  gst_pad_set_query_function (sinkpad, sink_query);
  gst_pad_set_activatemode_function (srcpad, src_activate_mode);
}

/* ---- The streaming thread ------------------------------------------------ */

/* How many frames may be in flight, with `buf` next. */
static guint
limit_for (GstClvFilter * filter, GstBuffer * buf)
{
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  GstClvFilterPrivate *priv = PRIV (filter);
  guint requested;

  if (buf == NULL || gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (filter)))
    return 1;
  GST_OBJECT_LOCK (filter);
  requested = priv->in_flight;
  GST_OBJECT_UNLOCK (filter);
  if (klass->frames_in_flight)
    requested = klass->frames_in_flight (filter, requested,
        gst_buffer_get_size (buf));
  return CLAMP (requested, 1, GST_CLV_FILTER_MAX_IN_FLIGHT);
}

/* A frame for `inbuf` (taken) with its output buffer, or NULL and why. */
static GstClvFilterFrame *
frame_new (GstClvFilter * filter, GstBuffer * inbuf, GstFlowReturn * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  GstClvFilterFrame *f = g_new0 (GstClvFilterFrame, 1);

  /* In place: a writable buffer for the metas, as for transform_ip. */
  *ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &f->out);
  if (f->out != inbuf)
    f->in = inbuf;
  if (*ret != GST_FLOW_OK || f->out == NULL) {
    if (*ret == GST_FLOW_OK)
      *ret = GST_FLOW_ERROR;
    frame_free (filter, f);
    return NULL;
  }
  f->analyse = klass->prepare_frame == NULL
      || klass->prepare_frame (filter, f->out, &f->data);
  f->done = !f->analyse;
  return f;
}

/* Queues `f` once fewer than `limit` frames are in flight, unless an error
 * or a flush came first. */
static GstFlowReturn
queue_frame (GstClvFilter * filter, GstClvFilterFrame * f, guint limit)
{
  GstClvFilterPrivate *priv = PRIV (filter);
  GstFlowReturn ret;

  g_mutex_lock (&priv->lock);
  while (priv->frames.length >= limit && !priv->flushing && !priv->stopping)
    g_cond_wait (&priv->cond, &priv->lock);
  ret = priv->flushing || priv->stopping ? GST_FLOW_FLUSHING : priv->flow;
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&priv->lock);
    frame_free (filter, f);
    return ret;
  }
  ensure_threads (filter, limit);
  /* A second analyser only while another frame is in flight: frames that
   * come no faster than the element takes them (a camera's) meet none,
   * and alone the driver's upload and waits are the fastest (1920x1280
   * at 30 frames/s on an H100: 1.38-1.47 ms from entering the element to
   * leaving it, against 1.62-1.75 counted as two analysers throughout). */
  set_extra_analysers (filter, g_queue_is_empty (&priv->frames) ? 0 :
      limit - 1);
  g_queue_push_tail (&priv->frames, f);
  if (f->analyse)
    g_queue_push_tail (&priv->todo, f);
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
  if (!priv->task_started) {
    priv->task_started = gst_pad_start_task (GST_BASE_TRANSFORM_SRC_PAD
        (filter), push_loop, filter, NULL);
    if (!priv->task_started)
      return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

gboolean
gst_clv_filter_flight_take (GstClvFilter * filter, GstFlowReturn * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstBuffer *inbuf = trans->queued_buf;
  const guint limit = limit_for (filter, inbuf);
  GstClvFilterFrame *f;

  if (limit == 1) {
    set_extra_analysers (filter, 0);
    *ret = gst_clv_filter_flight_drain (filter);
    if (*ret == GST_FLOW_OK)
      return FALSE;
    gst_buffer_replace (&trans->queued_buf, NULL);
    return TRUE;
  }
  trans->queued_buf = NULL;
  *ret = GST_FLOW_OK;
  f = inbuf ? frame_new (filter, inbuf, ret) : NULL;
  if (f)
    *ret = queue_frame (filter, f, limit);
  return TRUE;
}

void
gst_clv_filter_flight_init (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  g_mutex_init (&priv->lock);
  g_cond_init (&priv->cond);
  g_queue_init (&priv->frames);
  g_queue_init (&priv->todo);
  priv->flow = GST_FLOW_OK;
}

void
gst_clv_filter_flight_clear (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  g_mutex_clear (&priv->lock);
  g_cond_clear (&priv->cond);
}
