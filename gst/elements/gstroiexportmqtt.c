/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roiexport's MQTT publisher; see the header.
 *
 * The worker thread alone touches the libmosquitto client.  Messages wait
 * in `pending` (shared with the streaming thread, bounded by max-queue),
 * then move to the worker's `inflight` list when handed to libmosquitto,
 * until it reports them sent (QoS 0) or acknowledged (QoS 1, 2).  When the
 * connection fails, the worker throws the client away (and with it
 * libmosquitto's own copies) and puts the in-flight messages back at the
 * head of `pending`, so that they are sent again, in order, on the next
 * connection: nothing leaves the queue unaccounted for.
 *
 * With a spool, the records beyond max-queue wait on the disk: the oldest
 * are in flight, then in `pending`, then in the spool.  A record is
 * spooled while the spool holds any (order) or `pending` is full; the
 * worker takes records from the spool once `pending` is empty.  When the
 * spool is full, the oldest record of all is dropped: the head of
 * `pending`, whose place the spool's head takes.  At stop, what is left
 * in memory goes back to the head of the spool. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include <mosquitto.h>

#include "gstroiexportmqtt.h"
#include "gstroiexportspool.h"

GST_DEBUG_CATEGORY_EXTERN (gst_roi_export_debug);
#define GST_CAT_DEFAULT gst_roi_export_debug

#define DEFAULT_PORT 1883
#define DEFAULT_TLS_PORT 8883
#define KEEPALIVE_S 30
/* Messages handed to libmosquitto at once; below its default in-flight
 * limit (20), so that it never queues behind our back. */
#define INFLIGHT_WINDOW 16
/* How long one pass of the worker waits on the socket: the latency of a
 * message queued while the worker waits. */
#define LOOP_TIMEOUT_MS 10
#define BACKOFF_MIN_US (100 * G_TIME_SPAN_MILLISECOND)
#define BACKOFF_MAX_US (5 * G_TIME_SPAN_SECOND)
#define CONNECT_TIMEOUT_US (10 * G_TIME_SPAN_SECOND)
#define DROP_WARNING_INTERVAL_US (5 * G_TIME_SPAN_SECOND)
#define STOP_WAIT_US G_TIME_SPAN_SECOND

typedef struct
{
  gchar *payload;
  gint mid;
} Message;

struct _RoiExportMqtt
{
  /* settings, immutable */
  gchar *host;
  gint port;
  gchar *topic;
  gint qos;
  gchar *client_id, *username, *password, *ca_file;
  guint max_queue;
  gboolean spooling;             /* a spool-dir is set */
  guint64 spool_max_bytes;
  gboolean on_loss_error;
  GstElement *element;

  GMutex lock;
  GCond cond;
  /* under the lock */
  GQueue pending;
  RoiExportSpool *spool;        /* NULL: none */
  GError *spool_error;          /* the last, not yet posted */
  guint inflight_count;
  guint64 dropped;
  gint64 last_drop_warning;
  gboolean loss_reported;
  gboolean stopping, finished;

  GThread *thread;

  /* the worker's own */
  struct mosquitto *client;
  GQueue inflight;
  gboolean connected, lost;
  gint refused;
  GArray *early_acks;
};

static void
message_free (Message * msg)
{
  g_free (msg->payload);
  g_free (msg);
}

static void
roi_export_mqtt_clear (RoiExportMqtt * m)
{
  g_queue_clear_full (&m->pending, (GDestroyNotify) message_free);
  g_queue_clear_full (&m->inflight, (GDestroyNotify) message_free);
  g_clear_pointer (&m->spool, roi_export_spool_close);
  g_clear_error (&m->spool_error);
  g_array_unref (m->early_acks);
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->cond);
  g_free (m->host);
  g_free (m->topic);
  g_free (m->client_id);
  g_free (m->username);
  g_free (m->password);
  g_free (m->ca_file);
  gst_object_unref (m->element);
}

static void
roi_export_mqtt_unref (RoiExportMqtt * m)
{
  g_atomic_rc_box_release_full (m, (GDestroyNotify) roi_export_mqtt_clear);
}

/* host, [host] or host:port, [v6]:port. */
static gboolean
parse_broker (const gchar * broker, gint default_port, gchar ** host,
    gint * port)
{
  const gchar *colon;
  guint64 p;

  *port = default_port;
  if (broker[0] == '[') {
    const gchar *end = strchr (broker, ']');
    if (end == NULL || end == broker + 1)
      return FALSE;
    *host = g_strndup (broker + 1, end - broker - 1);
    colon = end[1] == ':' ? end + 1 : NULL;
    if (colon == NULL && end[1] != '\0')
      goto bad;
  } else {
    colon = strrchr (broker, ':');
    if (colon != NULL && strchr (broker, ':') != colon)
      return FALSE;             /* a bare IPv6 address needs brackets */
    *host = colon ? g_strndup (broker, colon - broker) : g_strdup (broker);
  }
  if ((*host)[0] == '\0')
    goto bad;
  if (colon != NULL) {
    if (!g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &p, NULL))
      goto bad;
    *port = (gint) p;
  }
  return TRUE;

bad:
  g_clear_pointer (host, g_free);
  return FALSE;
}

/* Worker thread: libmosquitto callbacks, all from mosquitto_loop. */
static void
on_connect (struct mosquitto *client, void *data, int rc)
{
  RoiExportMqtt *m = data;

  if (rc == 0)
    m->connected = TRUE;
  else
    m->refused = rc;
}

static void
on_disconnect (struct mosquitto *client, void *data, int rc)
{
  ((RoiExportMqtt *) data)->lost = TRUE;
}

static void
on_publish (struct mosquitto *client, void *data, int mid)
{
  RoiExportMqtt *m = data;

  for (GList * l = m->inflight.head; l != NULL; l = l->next) {
    Message *msg = l->data;
    if (msg->mid == mid) {
      g_queue_delete_link (&m->inflight, l);
      message_free (msg);
      g_mutex_lock (&m->lock);
      m->inflight_count--;
      g_cond_broadcast (&m->cond);
      g_mutex_unlock (&m->lock);
      return;
    }
  }
  /* QoS 0 messages can be written before mosquitto_publish returns their
   * id. */
  g_array_append_val (m->early_acks, mid);
}

static struct mosquitto *
client_new (RoiExportMqtt * m, GError ** error)
{
  struct mosquitto *client = mosquitto_new (m->client_id, TRUE, m);
  int rc;

  if (client == NULL)
    goto no_client;
  mosquitto_connect_callback_set (client, on_connect);
  mosquitto_disconnect_callback_set (client, on_disconnect);
  mosquitto_publish_callback_set (client, on_publish);
  if (m->username != NULL
      && (rc = mosquitto_username_pw_set (client, m->username,
              m->password)) != MOSQ_ERR_SUCCESS)
    goto bad_setting;
  if (m->ca_file != NULL
      && (rc = mosquitto_tls_set (client, m->ca_file, NULL, NULL, NULL,
              NULL)) != MOSQ_ERR_SUCCESS)
    goto bad_ca;
  return client;

  /* ERRORS */
no_client:
  {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Cannot create an MQTT client: %s", g_strerror (errno));
    return NULL;
  }
bad_setting:
  {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "MQTT user name refused: %s", mosquitto_strerror (rc));
    mosquitto_destroy (client);
    return NULL;
  }
bad_ca:
  {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Cannot use mqtt-ca-file \"%s\": %s", m->ca_file,
        mosquitto_strerror (rc));
    mosquitto_destroy (client);
    return NULL;
  }
}

/* Counts `n` more records lost; under the lock.  Returns the total lost
 * when the bus should hear of it (report_lost posts it once the lock is
 * released, since a bus sync handler may read the count), else 0: at the
 * first loss, then at most every few seconds; with on-loss=error, at the
 * first loss only. */
static guint64
count_lost_locked (RoiExportMqtt * m, guint64 n)
{
  gint64 now = g_get_monotonic_time ();

  if (n == 0)
    return 0;
  m->dropped += n;
  if (m->loss_reported && (m->on_loss_error
          || now - m->last_drop_warning < DROP_WARNING_INTERVAL_US))
    return 0;
  m->loss_reported = TRUE;
  m->last_drop_warning = now;
  return m->dropped;
}

/* Drops the oldest pending messages beyond max-queue; under the lock.
 * With a spool, the records a broken connection gives back stay: memory
 * holds at most the in-flight window more. */
static guint64
trim_pending_locked (RoiExportMqtt * m)
{
  guint64 n = 0;

  while (!m->spooling && m->pending.length > m->max_queue) {
    message_free (g_queue_pop_head (&m->pending));
    n++;
  }
  return count_lost_locked (m, n);
}

/* `lost` records lost so far (0: nothing to say): a warning, or with
 * on-loss=error an error. */
static void
report_lost (RoiExportMqtt * m, guint64 lost)
{
  GError *spool_error;
  gchar *text;

  if (lost == 0)
    return;
  g_mutex_lock (&m->lock);
  spool_error = g_steal_pointer (&m->spool_error);
  g_mutex_unlock (&m->lock);
  if (spool_error != NULL)
    text = g_strdup_printf ("MQTT spool failed (%s): %" G_GUINT64_FORMAT
        " result(s) dropped so far", spool_error->message, lost);
  else if (m->spooling)
    text = g_strdup_printf ("MQTT queue and spool full: %" G_GUINT64_FORMAT
        " result(s) dropped so far (max-queue=%u, spool-max-bytes=%"
        G_GUINT64_FORMAT ") while the broker %s:%d does not take them", lost,
        m->max_queue, m->spool_max_bytes, m->host, m->port);
  else
    text = g_strdup_printf ("MQTT queue full: %" G_GUINT64_FORMAT
        " result(s) dropped so far (max-queue=%u) while the broker %s:%d "
        "does not take them", lost, m->max_queue, m->host, m->port);
  if (m->on_loss_error)
    GST_ELEMENT_ERROR (m->element, RESOURCE, WRITE, ("%s", text),
        ("on-loss=error: a lost result fails the pipeline"));
  else
    GST_ELEMENT_WARNING (m->element, RESOURCE, WRITE, ("%s", text),
        ("Set spool-dir to keep results on the disk across an outage"));
  g_clear_error (&spool_error);
  g_free (text);
}

/* The oldest spooled record as a message; NULL when there is none.  A
 * spool that cannot be read loses its records.  Under the lock; `report`
 * gets what count_lost_locked returns. */
static Message *
spool_pop_locked (RoiExportMqtt * m, guint64 * report)
{
  GError *error = NULL;
  Message *msg;
  gchar *payload;
  guint64 n;

  if (m->spool == NULL || roi_export_spool_length (m->spool) == 0)
    return NULL;
  payload = roi_export_spool_pop_head (m->spool, &error);
  if (payload == NULL) {
    n = roi_export_spool_length (m->spool);
    roi_export_spool_clear (m->spool);
    g_clear_error (&m->spool_error);
    m->spool_error = error;
    n = count_lost_locked (m, n);
    *report = MAX (*report, n);
    return NULL;
  }
  msg = g_new0 (Message, 1);
  msg->payload = payload;
  return msg;
}

/* Spools `msg` (taking it) after making room: the oldest record of all
 * goes, the head of `pending`, whose place the spool's head takes, or the
 * spool's head.  Under the lock; returns what count_lost_locked does. */
static guint64
spool_append_locked (RoiExportMqtt * m, Message * msg)
{
  gsize len = strlen (msg->payload);
  guint64 lost = 0, report = 0;
  GError *error = NULL;

  if (!roi_export_spool_can_hold (m->spool, len)) {
    lost++;
  } else {
    while (!roi_export_spool_fits (m->spool, len)) {
      Message *old = g_queue_pop_head (&m->pending);
      Message *moved = spool_pop_locked (m, &report);

      if (old != NULL) {
        message_free (old);
        lost++;
        if (moved != NULL)
          g_queue_push_tail (&m->pending, moved);
      } else if (moved != NULL) {
        message_free (moved);
        lost++;
      }
    }
    if (!roi_export_spool_push_tail (m->spool, msg->payload, &error)) {
      g_clear_error (&m->spool_error);
      m->spool_error = error;
      lost++;
    }
  }
  message_free (msg);
  lost = count_lost_locked (m, lost);
  return MAX (report, lost);
}

static void
report_down (RoiExportMqtt * m, gboolean was_connected, const gchar * reason,
    const gchar * hint)
{
  gboolean stopping;

  g_mutex_lock (&m->lock);
  stopping = m->stopping;
  g_mutex_unlock (&m->lock);
  if (stopping)
    return;
  if (was_connected)
    GST_ELEMENT_WARNING (m->element, RESOURCE, WRITE,
        ("Lost the connection to the MQTT broker %s:%d: %s", m->host,
            m->port, reason), ("Reconnecting with backoff; results wait "
            "in a queue of max-queue=%u", m->max_queue));
  else
    GST_ELEMENT_WARNING (m->element, RESOURCE, OPEN_WRITE,
        ("Cannot reach the MQTT broker %s:%d: %s", m->host, m->port,
            reason), ("Check %s; retrying with backoff, results wait in a "
            "queue of max-queue=%u", hint, m->max_queue));
}

static const gchar *
error_text (int rc, int saved_errno)
{
  switch (rc) {
    case MOSQ_ERR_ERRNO:
      return g_strerror (saved_errno);
    case MOSQ_ERR_EAI:
      return "cannot resolve the host name";
    default:
      return mosquitto_strerror (rc);
  }
}

/* Ends the current connection attempt or connection: its in-flight
 * messages go back to the head of the queue, in order. */
static void
drop_connection (RoiExportMqtt * m)
{
  Message *msg;
  guint64 warn;

  g_mutex_lock (&m->lock);
  while ((msg = g_queue_pop_tail (&m->inflight)) != NULL)
    g_queue_push_head (&m->pending, msg);
  m->inflight_count = 0;
  warn = trim_pending_locked (m);
  g_mutex_unlock (&m->lock);
  report_lost (m, warn);
  g_clear_pointer (&m->client, mosquitto_destroy);
  g_array_set_size (m->early_acks, 0);
  m->connected = m->lost = FALSE;
  m->refused = 0;
}

/* Hands pending messages to libmosquitto, up to the window. */
static gboolean
hand_over (RoiExportMqtt * m, int *rc)
{
  while (m->inflight.length < INFLIGHT_WINDOW) {
    Message *msg;
    guint i;
    int mid = -1;
    guint64 report = 0;

    g_mutex_lock (&m->lock);
    msg = g_queue_pop_head (&m->pending);
    if (msg == NULL)
      msg = spool_pop_locked (m, &report);
    if (msg != NULL) {
      m->inflight_count++;
      g_queue_push_tail (&m->inflight, msg);
    }
    g_mutex_unlock (&m->lock);
    report_lost (m, report);
    if (msg == NULL)
      return TRUE;
    /* Not &msg->mid: on_publish must not find (and free) the message
     * while mosquitto_publish still runs. */
    msg->mid = -1;
    *rc = mosquitto_publish (m->client, &mid, m->topic,
        (int) strlen (msg->payload), msg->payload, m->qos, false);
    if (*rc != MOSQ_ERR_SUCCESS)
      return FALSE;
    msg->mid = mid;
    for (i = 0; i < m->early_acks->len; i++)
      if (g_array_index (m->early_acks, int, i) == mid)
          break;
    if (i < m->early_acks->len) {
      g_array_remove_index_fast (m->early_acks, i);
      on_publish (m->client, m, mid);
    }
  }
  return TRUE;
}

static gpointer
worker (gpointer data)
{
  RoiExportMqtt *m = data;
  gint64 backoff = BACKOFF_MIN_US, next_attempt = 0, attempt_started = 0;
  gboolean reported = FALSE, was_connected = FALSE;

  g_mutex_lock (&m->lock);
  while (!m->stopping) {
    int rc = MOSQ_ERR_SUCCESS, saved_errno = 0;
    const gchar *failure = NULL, *hint = "mqtt-broker (host:port)";

    if (m->client == NULL) {
      /* Down: wait for the next attempt. */
      if (g_get_monotonic_time () < next_attempt) {
        g_cond_wait_until (&m->cond, &m->lock, next_attempt);
        continue;
      }
      g_mutex_unlock (&m->lock);
      m->client = client_new (m, NULL);
      if (m->client == NULL) {
        failure = "cannot create a client";
      } else {
        /* The name lookup blocks; the TCP connection does not. */
        rc = mosquitto_connect_async (m->client, m->host, m->port,
            KEEPALIVE_S);
        saved_errno = errno;
        if (rc != MOSQ_ERR_SUCCESS)
          failure = error_text (rc, saved_errno);
        attempt_started = g_get_monotonic_time ();
      }
    } else {
      g_mutex_unlock (&m->lock);
      if (m->connected && !hand_over (m, &rc)) {
        failure = error_text (rc, errno);
      } else {
        rc = mosquitto_loop (m->client, LOOP_TIMEOUT_MS, 1);
        saved_errno = errno;
        if (m->refused != 0) {
          failure = mosquitto_connack_string (m->refused);
          hint = "mqtt-username, mqtt-password and the broker's access rules";
        } else if (rc != MOSQ_ERR_SUCCESS)
          failure = error_text (rc, saved_errno);
        else if (m->lost)
          failure = "disconnected";
        else if (!m->connected
            && g_get_monotonic_time () - attempt_started > CONNECT_TIMEOUT_US)
          failure = "no answer";
        else if (m->connected && !was_connected) {
          GST_INFO_OBJECT (m->element, "connected to %s:%d", m->host,
              m->port);
          was_connected = TRUE;
          reported = FALSE;
          backoff = BACKOFF_MIN_US;
        }
      }
    }
    if (failure != NULL) {
      /* The handshake fails in mosquitto_connect_async or later. */
      if (rc == MOSQ_ERR_TLS)
        hint = "mqtt-ca-file: it must hold the CA that signed the broker's "
            "certificate, and the certificate must name the host";
      GST_DEBUG_OBJECT (m->element, "MQTT %s:%d: %s", m->host, m->port,
          failure);
      /* Once per outage. */
      if (!reported)
        report_down (m, was_connected, failure, hint);
      reported = TRUE;
      was_connected = FALSE;
      drop_connection (m);
      next_attempt = g_get_monotonic_time () + backoff;
      backoff = MIN (backoff * 2, BACKOFF_MAX_US);
    }
    g_mutex_lock (&m->lock);
  }
  g_mutex_unlock (&m->lock);

  if (m->client != NULL && m->connected) {
    mosquitto_disconnect (m->client);
    mosquitto_loop (m->client, LOOP_TIMEOUT_MS, 1);
  }
  g_clear_pointer (&m->client, mosquitto_destroy);
  g_mutex_lock (&m->lock);
  m->finished = TRUE;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
  roi_export_mqtt_unref (m);
  return NULL;
}

/* Opens the spool of `dir`; records a resize could not keep are lost. */
static gboolean
open_spool (RoiExportMqtt * m, const gchar * dir, GError ** error)
{
  GError *err = NULL;
  guint64 resize_lost, report;

  m->spool = roi_export_spool_open (dir, m->spool_max_bytes, &resize_lost,
      &err);
  if (m->spool == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        "spool-dir: %s", err->message);
    g_error_free (err);
    return FALSE;
  }
  GST_INFO_OBJECT (m->element, "spool %s holds %" G_GUINT64_FORMAT
      " record(s) of an earlier run", roi_export_spool_get_path (m->spool),
      roi_export_spool_length (m->spool));
  g_mutex_lock (&m->lock);
  report = count_lost_locked (m, resize_lost);
  g_mutex_unlock (&m->lock);
  report_lost (m, report);
  return TRUE;
}

RoiExportMqtt *
roi_export_mqtt_start (const RoiExportMqttSettings * s, GstElement * element,
    GError ** error)
{
  static gsize lib_initialised = 0;
  RoiExportMqtt *m;
  struct mosquitto *probe;
  gchar *host;
  gint port;

  if (g_once_init_enter (&lib_initialised)) {
    mosquitto_lib_init ();
    g_once_init_leave (&lib_initialised, 1);
  }
  if (!parse_broker (s->broker, s->ca_file ? DEFAULT_TLS_PORT : DEFAULT_PORT,
          &host, &port))
    goto bad_broker;
  if (s->topic == NULL
      || mosquitto_pub_topic_check (s->topic) != MOSQ_ERR_SUCCESS)
    goto bad_topic;

  m = g_atomic_rc_box_new0 (RoiExportMqtt);
  m->host = host;
  m->port = port;
  m->topic = g_strdup (s->topic);
  m->qos = s->qos;
  m->client_id = g_strdup (s->client_id);
  m->username = g_strdup (s->username);
  m->password = g_strdup (s->password);
  m->ca_file = g_strdup (s->ca_file);
  m->max_queue = s->max_queue;
  m->spooling = s->spool_dir != NULL;
  m->spool_max_bytes = s->spool_max_bytes;
  m->on_loss_error = s->on_loss_error;
  m->element = gst_object_ref (element);
  g_mutex_init (&m->lock);
  g_cond_init (&m->cond);
  g_queue_init (&m->pending);
  g_queue_init (&m->inflight);
  m->early_acks = g_array_new (FALSE, FALSE, sizeof (int));

  /* Settings libmosquitto refuses (a CA file it cannot read) are errors
   * now rather than warnings from the worker later. */
  probe = client_new (m, error);
  if (probe == NULL)
    goto failed;
  mosquitto_destroy (probe);
  if (m->spooling && !open_spool (m, s->spool_dir, error))
    goto failed;

  m->thread = g_thread_new ("roiexport-mqtt", worker,
      g_atomic_rc_box_acquire (m));
  return m;

  /* ERRORS */
failed:
  {
    roi_export_mqtt_unref (m);
    return NULL;
  }
bad_broker:
  {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "mqtt-broker \"%s\" is not host, host:port or [IPv6]:port",
        s->broker);
    return NULL;
  }
bad_topic:
  {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "mqtt-topic \"%s\" is not a topic one can publish to (no + or #, "
        "not empty, valid UTF-8)", GST_STR_NULL (s->topic));
    g_free (host);
    return NULL;
  }
}

guint64
roi_export_mqtt_get_next_seq (RoiExportMqtt * m)
{
  guint64 seq;

  g_mutex_lock (&m->lock);
  seq = m->spool != NULL ? roi_export_spool_get_next_seq (m->spool) : 0;
  g_mutex_unlock (&m->lock);
  return seq;
}

void
roi_export_mqtt_publish (RoiExportMqtt * m, gchar * payload, guint64 seq)
{
  Message *msg = g_new0 (Message, 1);
  guint64 report;

  msg->payload = payload;
  g_mutex_lock (&m->lock);
  if (m->spool != NULL && (roi_export_spool_length (m->spool) > 0
          || m->pending.length >= m->max_queue)) {
    report = spool_append_locked (m, msg);
  } else {
    g_queue_push_tail (&m->pending, msg);
    report = trim_pending_locked (m);
  }
  /* A failure here shows in the next write of a record. */
  if (m->spool != NULL)
    roi_export_spool_set_next_seq (m->spool, seq + 1, NULL);
  g_mutex_unlock (&m->lock);
  report_lost (m, report);
}

/* Records not delivered yet; under the lock. */
static guint64
left_locked (RoiExportMqtt * m)
{
  return m->pending.length + m->inflight_count +
      (m->spool != NULL ? roi_export_spool_length (m->spool) : 0);
}

guint64
roi_export_mqtt_flush (RoiExportMqtt * m, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () +
      (gint64) timeout_ms * G_TIME_SPAN_MILLISECOND;
  guint64 left;

  g_mutex_lock (&m->lock);
  while (left_locked (m) > 0
      && g_cond_wait_until (&m->cond, &m->lock, deadline));
  left = left_locked (m);
  g_mutex_unlock (&m->lock);
  return left;
}

guint64
roi_export_mqtt_get_dropped (RoiExportMqtt * m)
{
  guint64 dropped;

  g_mutex_lock (&m->lock);
  dropped = m->dropped;
  g_mutex_unlock (&m->lock);
  return dropped;
}

/* Puts the records in memory back at the head of the spool, newest
 * first, so that the oldest are the ones left out when it is full (and
 * counted); closes the spool.  Under the lock, the worker finished. */
static void
spool_back_locked (RoiExportMqtt * m)
{
  Message *msg;

  while ((msg = g_queue_pop_tail (&m->inflight)) != NULL)
    g_queue_push_head (&m->pending, msg);
  m->inflight_count = 0;
  while ((msg = g_queue_pop_tail (&m->pending)) != NULL) {
    if (!roi_export_spool_fits (m->spool, strlen (msg->payload))
        || !roi_export_spool_push_head (m->spool, msg->payload, NULL))
      m->dropped++;
    message_free (msg);
  }
}

guint64
roi_export_mqtt_stop (RoiExportMqtt * m, guint64 * lost, guint64 * kept)
{
  gint64 deadline = g_get_monotonic_time () + STOP_WAIT_US;
  gboolean finished;
  guint64 dropped, before;

  g_mutex_lock (&m->lock);
  m->stopping = TRUE;
  g_cond_broadcast (&m->cond);
  while (!m->finished && g_cond_wait_until (&m->cond, &m->lock, deadline));
  finished = m->finished;
  before = m->dropped;
  *kept = 0;
  /* A worker still busy has nothing in flight (it is connecting). */
  if (m->spool != NULL && finished)
    spool_back_locked (m);
  if (m->spool != NULL) {
    *kept = roi_export_spool_length (m->spool);
    g_clear_pointer (&m->spool, roi_export_spool_close);
  }
  /* Whatever else the worker has not delivered is lost. */
  m->dropped += m->pending.length + m->inflight_count;
  g_queue_clear_full (&m->pending, (GDestroyNotify) message_free);
  m->inflight_count = 0;
  dropped = m->dropped;
  *lost = dropped - before;
  g_mutex_unlock (&m->lock);

  if (finished)
    g_thread_join (m->thread);
  else {
    GST_WARNING_OBJECT (m->element, "MQTT worker still busy (name lookup?), "
        "leaving it to finish on its own");
    g_thread_unref (m->thread);
  }
  roi_export_mqtt_unref (m);
  return dropped;
}
