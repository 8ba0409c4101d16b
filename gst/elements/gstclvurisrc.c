/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clvurisrc
 * @title: clvurisrc
 *
 * A video source for cameras that come and go: a bin around uridecodebin
 * that, when its source fails (an error), ends while live (EOS from an
 * RTSP camera is a camera gone, not the end of the video) or delivers no
 * frame for #GstClvUriSrc:timeout seconds, tears the source down and
 * builds it again every #GstClvUriSrc:reconnect-interval seconds until
 * frames come again.  Downstream keeps running throughout: it sees one
 * stream, one segment, and timestamps that go on increasing (a live
 * source's keep their running time, so the gap shows; a file's continue
 * after the last frame).
 *
 * Each loss posts an element message "source-lost" (`uri`, `reason`) and
 * each return "source-reconnected" (`uri`, `attempts`, and `downtime` in
 * nanoseconds); a failed attempt is retried without a message.  An EOS
 * sent to the pipeline (gst-launch-1.0 -e, Ctrl-C) ends the stream at
 * once, reconnecting or not; a non-live source's end (a file) ends it too.
 * A URI whose protocol no installed element handles is an error when the
 * element starts.
 *
 * Only the first video stream of the URI is exposed, decoded (whatever
 * memory the decoder gives).  #GstClvUriSrc:latency is passed to sources
 * that have a `latency` property (rtspsrc's jitter buffer).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -e clvurisrc uri=rtsp://camera.local/stream ! \
 *     videoconvert ! vjfacedetect ! roioverlay ! videoconvert ! \
 *     autovideosink
 * ]| Faces from an RTSP camera; the window stays open while the camera
 * reboots.
 * |[
 * gst-launch-1.0 -e -m clvurisrc uri=rtspt://127.0.0.1:8554/test \
 *     reconnect-interval=1 timeout=5 ! fakesink
 * ]| Prints a message at each loss and each reconnection (RTSP over TCP).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvurisrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_uri_src_debug);
#define GST_CAT_DEFAULT gst_clv_uri_src_debug

#define DEFAULT_URI NULL
#define DEFAULT_RECONNECT_INTERVAL 5
#define DEFAULT_TIMEOUT 10
#define DEFAULT_LATENCY 200
/* How often the watchdog looks when nothing wakes it. */
#define WATCH_PERIOD (100 * G_TIME_SPAN_MILLISECOND)

enum
{
  PROP_0,
  PROP_URI,
  PROP_RECONNECT_INTERVAL,
  PROP_TIMEOUT,
  PROP_LATENCY,
};

typedef enum
{
  SOURCE_CONNECTING,            /* built, no frame yet */
  SOURCE_CONNECTED,
  SOURCE_WAITING,               /* torn down, waiting to retry */
  SOURCE_ENDED,                 /* EOS sent downstream */
} SourceState;

struct _GstClvUriSrc
{
  GstBin parent;

  /* properties, under the object lock */
  gchar *uri;
  guint reconnect_interval, timeout, latency;

  GstElement *queue;
  GstPad *queue_sink;

  /* under lock */
  GMutex lock;
  GCond cond;
  GThread *watchdog;
  gboolean running;
  GstElement *source;           /* the uridecodebin of now */
  SourceState state;
  gchar *loss;                  /* why the source is to be torn down */
  gboolean stopping;            /* EOS asked for */
  gint64 last_data, attempt_start, retry_at, lost_at;   /* monotonic, us */
  guint attempts;               /* since the last loss */
  gboolean lost;                /* lost and not back yet */

  /* the streaming thread's (one source at a time feeds the queue) */
  gboolean stream_started, segment_sent;
  GstSegment in_segment;
  gboolean have_offset, live;
  gint64 offset;                /* added to the source's running times */
  GstClockTime next_ts;         /* end of the last frame out */
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

G_DEFINE_TYPE_WITH_CODE (GstClvUriSrc, gst_clv_uri_src, GST_TYPE_BIN,
    GST_DEBUG_CATEGORY_INIT (gst_clv_uri_src_debug, "clvurisrc", 0,
        "Reconnecting URI source"));
GST_ELEMENT_REGISTER_DEFINE (clvurisrc, "clvurisrc", GST_RANK_NONE,
    GST_TYPE_CLV_URI_SRC);

static void
post_structure (GstClvUriSrc * self, GstStructure * s)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static gchar *
get_uri (GstClvUriSrc * self)
{
  gchar *uri;

  GST_OBJECT_LOCK (self);
  uri = g_strdup (self->uri);
  GST_OBJECT_UNLOCK (self);
  return uri;
}

/* Marks the source lost for `reason` (taken) and wakes the watchdog;
 * with the lock. */
static void
source_lost_locked (GstClvUriSrc * self, gchar * reason)
{
  if (self->loss == NULL && self->state != SOURCE_ENDED) {
    GST_INFO_OBJECT (self, "source lost: %s", reason);
    self->loss = reason;
    g_cond_broadcast (&self->cond);
  } else {
    g_free (reason);
  }
}

/* ---- Data from the source ------------------------------------------------ */

/* The first frame of a source: its liveness, the offset that makes its
 * timestamps continue ours, and the end of a loss. */
static void
first_frame (GstClvUriSrc * self, GstPad * pad, GstClockTime rt)
{
  GstQuery *query = gst_query_new_latency ();
  GstStructure *back = NULL;

  self->live = FALSE;
  if (gst_pad_peer_query (pad, query))
    gst_query_parse_latency (query, &self->live, NULL, NULL);
  gst_query_unref (query);
  /* A live source's running time goes on with the clock: kept, unless it
   * would go back.  A file starts again at 0: put after the last frame. */
  self->offset = 0;
  if (GST_CLOCK_TIME_IS_VALID (self->next_ts) && (!self->live
          || rt < self->next_ts))
    self->offset = (gint64) self->next_ts - (gint64) rt;
  self->have_offset = TRUE;

  g_mutex_lock (&self->lock);
  if (self->lost && self->state != SOURCE_ENDED) {
    gchar *uri = get_uri (self);

    back = gst_structure_new ("source-reconnected", "uri", G_TYPE_STRING,
        uri, "attempts", G_TYPE_UINT, self->attempts, "downtime",
        G_TYPE_UINT64, (guint64) (g_get_monotonic_time () - self->lost_at)
        * GST_USECOND, NULL);
    g_free (uri);
    self->lost = FALSE;
  }
  self->state = SOURCE_CONNECTED;
  g_mutex_unlock (&self->lock);
  if (back) {
    GST_INFO_OBJECT (self, "source back: %" GST_PTR_FORMAT, back);
    post_structure (self, back);
  }
}

static GstPadProbeReturn
on_buffer (GstClvUriSrc * self, GstPad * pad, GstPadProbeInfo * info)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime rt = gst_segment_to_running_time (&self->in_segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  gboolean discont = !self->have_offset;

  g_mutex_lock (&self->lock);
  self->last_data = g_get_monotonic_time ();
  g_mutex_unlock (&self->lock);
  if (!self->have_offset)
    first_frame (self, pad, GST_CLOCK_TIME_IS_VALID (rt) ? rt : 0);
  if (!GST_CLOCK_TIME_IS_VALID (rt) && !discont && self->offset == 0)
    return GST_PAD_PROBE_OK;
  buf = gst_buffer_make_writable (buf);
  if (GST_CLOCK_TIME_IS_VALID (rt))
    GST_BUFFER_PTS (buf) = rt + self->offset;
  if (GST_BUFFER_DTS_IS_VALID (buf))
    GST_BUFFER_DTS (buf) = gst_segment_to_running_time (&self->in_segment,
        GST_FORMAT_TIME, GST_BUFFER_DTS (buf)) + self->offset;
  if (discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  if (GST_BUFFER_PTS_IS_VALID (buf))
    self->next_ts = GST_BUFFER_PTS (buf) + (GST_BUFFER_DURATION_IS_VALID (buf)
        ? GST_BUFFER_DURATION (buf) : 1);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* Downstream sees one stream-start, one segment of its own, and EOS only
 * at the real end. */
static GstPadProbeReturn
on_event (GstClvUriSrc * self, GstPadProbeInfo * info)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  gboolean pass;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:
      pass = !self->stream_started;
      self->stream_started = TRUE;
      return pass ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
    case GST_EVENT_SEGMENT:{
      GstSegment ours;

      gst_event_copy_segment (event, &self->in_segment);
      self->have_offset = FALSE;
      if (self->segment_sent)
        return GST_PAD_PROBE_DROP;
      self->segment_sent = TRUE;
      gst_segment_init (&ours, GST_FORMAT_TIME);
      gst_event_unref (event);
      GST_PAD_PROBE_INFO_DATA (info) = gst_event_new_segment (&ours);
      return GST_PAD_PROBE_OK;
    }
    case GST_EVENT_EOS:
      g_mutex_lock (&self->lock);
      /* A source that gave frames and is not live has reached its end. */
      pass = self->stopping || (self->have_offset && !self->live);
      if (pass)
        self->state = SOURCE_ENDED;
      else
        source_lost_locked (self, g_strdup ("end of stream"));
      g_mutex_unlock (&self->lock);
      return pass ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
    default:
      return GST_PAD_PROBE_OK;
  }
}

static GstPadProbeReturn
input_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstClvUriSrc *self = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    return on_buffer (self, pad, info);
  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)
    return on_event (self, info);
  return GST_PAD_PROBE_OK;
}

/* ---- The source ---------------------------------------------------------- */

static void
on_pad_added (GstElement * source, GstPad * pad, GstClvUriSrc * self)
{
  GstPadLinkReturn ret;

  if (gst_pad_is_linked (self->queue_sink)) {
    GST_DEBUG_OBJECT (self, "a second video stream, %s:%s, left aside",
        GST_DEBUG_PAD_NAME (pad));
    return;
  }
  ret = gst_pad_link (pad, self->queue_sink);
  if (ret != GST_PAD_LINK_OK) {
    g_mutex_lock (&self->lock);
    source_lost_locked (self, g_strdup_printf ("cannot link its stream: %s",
            gst_pad_link_get_name (ret)));
    g_mutex_unlock (&self->lock);
  }
}

static void
on_source_setup (GstElement * uridecodebin, GstElement * source,
    GstClvUriSrc * self)
{
  guint latency;

  GST_OBJECT_LOCK (self);
  latency = self->latency;
  GST_OBJECT_UNLOCK (self);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (source), "latency"))
    g_object_set (source, "latency", latency, NULL);
}

/* Builds a source for the URI and brings it to our state. */
static gboolean
add_source (GstClvUriSrc * self)
{
  GstElement *source = gst_element_factory_make ("uridecodebin", NULL);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(ANY)");
  gchar *uri = get_uri (self);
  gboolean ok;

  if (source == NULL)
    goto no_uridecodebin;
  g_object_set (source, "uri", uri, "caps", caps, "expose-all-streams",
      FALSE, NULL);
  g_signal_connect (source, "pad-added", G_CALLBACK (on_pad_added), self);
  g_signal_connect (source, "source-setup", G_CALLBACK (on_source_setup),
      self);
  g_mutex_lock (&self->lock);
  self->source = gst_object_ref (source);
  self->state = SOURCE_CONNECTING;
  self->attempt_start = g_get_monotonic_time ();
  g_mutex_unlock (&self->lock);
  gst_bin_add (GST_BIN (self), source);
  ok = gst_element_sync_state_with_parent (source);
  if (!ok) {
    g_mutex_lock (&self->lock);
    source_lost_locked (self, g_strdup ("its state change failed"));
    g_mutex_unlock (&self->lock);
  }
  gst_caps_unref (caps);
  g_free (uri);
  return TRUE;

  /* ERRORS */
no_uridecodebin:
  {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("No uridecodebin: install gstreamer1.0-plugins-base"), (NULL));
    gst_caps_unref (caps);
    g_free (uri);
    return FALSE;
  }
}

/* Unlinks, stops and removes the source, if any; called and returns with
 * the lock, which it drops meanwhile. */
static void
remove_source_locked (GstClvUriSrc * self)
{
  GstElement *source = g_steal_pointer (&self->source);
  GstPad *peer;

  if (source == NULL)
    return;
  g_mutex_unlock (&self->lock);
  peer = gst_pad_get_peer (self->queue_sink);
  if (peer) {
    gst_pad_unlink (peer, self->queue_sink);
    gst_object_unref (peer);
  }
  gst_element_set_locked_state (source, TRUE);
  gst_element_set_state (source, GST_STATE_NULL);
  gst_bin_remove (GST_BIN (self), source);
  gst_object_unref (source);
  g_mutex_lock (&self->lock);
}

/* The end of the stream downstream, whatever came before; from the
 * watchdog, with no source feeding the queue. */
static void
push_eos (GstClvUriSrc * self)
{
  if (!self->stream_started)
    gst_pad_send_event (self->queue_sink,
        gst_event_new_stream_start ("clvurisrc"));
  if (!self->segment_sent) {
    GstSegment segment;

    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_pad_send_event (self->queue_sink, gst_event_new_segment (&segment));
  }
  gst_pad_send_event (self->queue_sink, gst_event_new_eos ());
}

/* ---- The watchdog -------------------------------------------------------- */

/* One look at the source: tears it down when lost or silent, builds the
 * next when it is time.  Returns when to look again; with the lock. */
static gint64
watch_once_locked (GstClvUriSrc * self, gint64 now)
{
  gint64 interval, timeout;

  GST_OBJECT_LOCK (self);
  interval = (gint64) self->reconnect_interval * G_TIME_SPAN_SECOND;
  timeout = (gint64) self->timeout * G_TIME_SPAN_SECOND;
  GST_OBJECT_UNLOCK (self);

  if (self->stopping && self->state != SOURCE_ENDED) {
    remove_source_locked (self);
    self->state = SOURCE_ENDED;
    g_mutex_unlock (&self->lock);
    push_eos (self);
    g_mutex_lock (&self->lock);
    return now;
  }
  if (timeout > 0 && self->loss == NULL
      && ((self->state == SOURCE_CONNECTED && now - self->last_data > timeout)
          || (self->state == SOURCE_CONNECTING
              && now - self->attempt_start > timeout)))
    source_lost_locked (self, g_strdup_printf ("no frame for %u s",
            (guint) (timeout / G_TIME_SPAN_SECOND)));
  if (self->loss != NULL) {
    gchar *reason = g_steal_pointer (&self->loss);
    const gboolean was_connected = self->state == SOURCE_CONNECTED;

    remove_source_locked (self);
    self->state = SOURCE_WAITING;
    self->retry_at = now + interval;
    if (was_connected || !self->lost) {
      gchar *uri = get_uri (self);

      self->lost = TRUE;
      self->lost_at = now;
      self->attempts = 0;
      g_mutex_unlock (&self->lock);
      post_structure (self, gst_structure_new ("source-lost", "uri",
              G_TYPE_STRING, uri, "reason", G_TYPE_STRING, reason, NULL));
      g_mutex_lock (&self->lock);
      g_free (uri);
    }
    g_free (reason);
    return now;
  }
  if (self->state == SOURCE_WAITING && now >= self->retry_at) {
    self->attempts++;
    g_mutex_unlock (&self->lock);
    add_source (self);
    g_mutex_lock (&self->lock);
    return now;
  }
  return MIN (now + WATCH_PERIOD, self->state == SOURCE_WAITING ?
      self->retry_at : G_MAXINT64);
}

static gpointer
watchdog (gpointer data)
{
  GstClvUriSrc *self = data;

  g_mutex_lock (&self->lock);
  while (self->running) {
    const gint64 now = g_get_monotonic_time ();
    const gint64 next = watch_once_locked (self, now);

    if (next > now && self->running && self->loss == NULL)
      g_cond_wait_until (&self->cond, &self->lock, next);
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* ---- Element ------------------------------------------------------------- */

/* Errors of the source are losses, not the pipeline's end; those of a
 * source already removed are dropped. */
static void
gst_clv_uri_src_handle_message (GstBin * bin, GstMessage * msg)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (bin);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR
      && GST_MESSAGE_SRC (msg) != GST_OBJECT (self->queue)) {
    GError *error = NULL;
    gboolean ours;

    gst_message_parse_error (msg, &error, NULL);
    g_mutex_lock (&self->lock);
    ours = self->source != NULL && (GST_MESSAGE_SRC (msg) ==
        GST_OBJECT (self->source) || gst_object_has_as_ancestor
        (GST_MESSAGE_SRC (msg), GST_OBJECT (self->source)));
    if (ours)
      source_lost_locked (self, g_strdup (error->message));
    g_mutex_unlock (&self->lock);
    GST_DEBUG_OBJECT (self, "error of %s source: %s", ours ? "the" : "an old",
        error->message);
    g_error_free (error);
    gst_message_unref (msg);
    return;
  }
  GST_BIN_CLASS (gst_clv_uri_src_parent_class)->handle_message (bin, msg);
}

/* An EOS for the pipeline ends the stream now, connected or not. */
static gboolean
gst_clv_uri_src_send_event (GstElement * element, GstEvent * event)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (element);

  if (GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    return GST_ELEMENT_CLASS (gst_clv_uri_src_parent_class)->send_event
        (element, event);
  gst_event_unref (event);
  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
check_uri (GstClvUriSrc * self)
{
  gchar *uri = get_uri (self), *protocol;
  gboolean ok;

  if (uri == NULL || !gst_uri_is_valid (uri)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("\"%s\" is not a URI: set uri to e.g. rtsp://HOST/PATH or "
            "file:///PATH", uri ? uri : "(none)"), (NULL));
    g_free (uri);
    return FALSE;
  }
  protocol = gst_uri_get_protocol (uri);
  ok = gst_uri_protocol_is_supported (GST_URI_SRC, protocol);
  if (!ok)
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("No installed element reads %s:// URIs (%s)", protocol, uri),
        (NULL));
  g_free (protocol);
  g_free (uri);
  return ok;
}

static void
reset_stream (GstClvUriSrc * self)
{
  self->state = SOURCE_CONNECTING;
  self->stopping = self->lost = FALSE;
  self->attempts = 0;
  g_clear_pointer (&self->loss, g_free);
  self->stream_started = self->segment_sent = FALSE;
  self->have_offset = self->live = FALSE;
  self->next_ts = GST_CLOCK_TIME_NONE;
  gst_segment_init (&self->in_segment, GST_FORMAT_TIME);
}

static GstStateChangeReturn
gst_clv_uri_src_change_state (GstElement * element, GstStateChange transition)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!check_uri (self))
        return GST_STATE_CHANGE_FAILURE;
      reset_stream (self);
      if (!add_source (self))
        return GST_STATE_CHANGE_FAILURE;
      self->running = TRUE;
      self->watchdog = g_thread_new ("clvurisrc", watchdog, self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      g_mutex_lock (&self->lock);
      self->running = FALSE;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      g_clear_pointer (&self->watchdog, g_thread_join);
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (gst_clv_uri_src_parent_class)->change_state
      (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_mutex_lock (&self->lock);
    remove_source_locked (self);
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

static void
gst_clv_uri_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_URI:
      g_free (self->uri);
      self->uri = g_value_dup_string (value);
      break;
    case PROP_RECONNECT_INTERVAL:
      self->reconnect_interval = g_value_get_uint (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint (value);
      break;
    case PROP_LATENCY:
      self->latency = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_clv_uri_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_URI:
      g_value_set_string (value, self->uri);
      break;
    case PROP_RECONNECT_INTERVAL:
      g_value_set_uint (value, self->reconnect_interval);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint (value, self->timeout);
      break;
    case PROP_LATENCY:
      g_value_set_uint (value, self->latency);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_clv_uri_src_finalize (GObject * object)
{
  GstClvUriSrc *self = GST_CLV_URI_SRC (object);

  g_free (self->uri);
  g_free (self->loss);
  gst_object_unref (self->queue_sink);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (gst_clv_uri_src_parent_class)->finalize (object);
}

static void
gst_clv_uri_src_class_init (GstClvUriSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBinClass *bin_class = GST_BIN_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_clv_uri_src_set_property;
  gobject_class->get_property = gst_clv_uri_src_get_property;
  gobject_class->finalize = gst_clv_uri_src_finalize;

  g_object_class_install_property (gobject_class, PROP_URI,
      g_param_spec_string ("uri", "URI",
          "What to read: rtsp://, rtspt:// (RTSP over TCP), file://, http:// "
          "...; used at the next (re)connection", DEFAULT_URI, flags));
  g_object_class_install_property (gobject_class, PROP_RECONNECT_INTERVAL,
      g_param_spec_uint ("reconnect-interval", "Reconnect interval",
          "Seconds between a loss and the next attempt, and between "
          "attempts", 0, 3600, DEFAULT_RECONNECT_INTERVAL, flags));
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_uint ("timeout", "Timeout",
          "Seconds without a frame after which the source counts as lost "
          "(also the longest wait for a new source's first frame; 0: "
          "never)", 0, 3600, DEFAULT_TIMEOUT, flags));
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_uint ("latency", "Latency",
          "Jitter buffer of network sources that have one (rtspsrc), in "
          "milliseconds", 0, 60000, DEFAULT_LATENCY, flags));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Reconnecting URI source", "Source/Video/Network",
      "Decodes the video of a URI (an RTSP camera) and reconnects when the "
      "source fails, ends while live or goes silent, downstream running on",
      "clvision developers");
  element_class->change_state = gst_clv_uri_src_change_state;
  element_class->send_event = gst_clv_uri_src_send_event;
  bin_class->handle_message = gst_clv_uri_src_handle_message;
}

static void
gst_clv_uri_src_init (GstClvUriSrc * self)
{
  GstPad *queue_src, *ghost;

  self->reconnect_interval = DEFAULT_RECONNECT_INTERVAL;
  self->timeout = DEFAULT_TIMEOUT;
  self->latency = DEFAULT_LATENCY;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  /* The queue keeps the ghost pad's target while sources come and go,
   * and pushes from a thread of its own. */
  self->queue = gst_element_factory_make ("queue", "frames");
  gst_bin_add (GST_BIN (self), self->queue);
  self->queue_sink = gst_element_get_static_pad (self->queue, "sink");
  gst_pad_add_probe (self->queue_sink, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, input_probe, self, NULL);
  queue_src = gst_element_get_static_pad (self->queue, "src");
  ghost = gst_ghost_pad_new_from_template ("src", queue_src,
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
          "src"));
  gst_element_add_pad (GST_ELEMENT (self), ghost);
  gst_object_unref (queue_src);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SOURCE);
}
