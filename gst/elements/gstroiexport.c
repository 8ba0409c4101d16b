/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-roiexport
 * @title: roiexport
 *
 * Writes the results attached to each frame as one JSON object: the
 * frame's timestamps, stream and size, and every
 * #GstVideoRegionOfInterestMeta with its box (pixels and normalised), its
 * `detection` and `recognition` results and any other parameter structure.
 * Records go to a file as JSON Lines (#GstRoiExport:location, `-` for
 * stdout) and/or to an MQTT broker (#GstRoiExport:mqtt-broker), through a
 * bounded queue that a worker thread sends, so that a slow or absent broker
 * never holds the pipeline: the oldest records are dropped and counted in
 * #GstRoiExport:dropped, with a warning on the bus.  EOS waits for the
 * queue to drain, at most #GstRoiExport:flush-timeout.  The element is a
 * passthrough: buffers, caps and metas go downstream untouched, in system
 * memory or `memory:OpenCL`; nothing is mapped.
 *
 * A frame without any ROI still gives a record (`"rois": []`), so that a
 * consumer can tell "no face" from "no frame", unless #GstRoiExport:skip-empty
 * is set.  A file that cannot be opened, a malformed `mqtt-broker`, a topic
 * with wildcards or an unreadable CA file fail the start with a message
 * naming the property; so does setting neither `location` nor
 * `mqtt-broker`.  A record goes to the file in one write as soon as its
 * frame passes, so that a killed pipeline leaves only whole lines.
 *
 * ## The record (one line per frame)
 *
 * |[<!-- language="json" -->
 * {"frame":0,"seq":0,"pts":0,"duration":33333333,"running_time":0,
 *  "stream_id":"04772a5e…","source":"door","width":512,"height":512,
 *  "rois":[{"id":0,"parent_id":-1,"roi_type":"face",
 *    "box":{"x":153,"y":85,"w":229,"h":229},
 *    "box_normalized":{"x_min":0.2988,"y_min":0.1660,"x_max":0.7461,"y_max":0.6133},
 *    "detection":{"label":"face","label_id":0,"confidence":0.857,"neighbors":30},
 *    "recognition":{"label":"grace","label_id":1,"distance":1523.4,"confidence":0.41}}]}
 * ]|
 *
 * - `frame` (int): the frame's number since the element started, counting
 *   every frame (also those `skip-empty` leaves out), from 0.
 * - `seq` (int): the record's number since the element started, from 0,
 *   one more for each record; a consumer drops a record whose `source`
 *   and `seq` it has seen (MQTT delivers at least once).
 * - `pts`, `duration` (int or null): the buffer's timestamp and duration in
 *   nanoseconds; `running_time` (int or null): `pts` as running time, for
 *   matching streams; null without a TIME segment or timestamp.
 * - `stream_id` (string or null): the id of the last stream-start event;
 *   `source` (string): `source-name`, or the element's name.
 * - `width`, `height` (int): the frame size from the caps.
 * - `rois` (array): every #GstVideoRegionOfInterestMeta of the buffer, in
 *   the buffer's order: `id`, `parent_id`, `roi_type`; `box` (`x`, `y`,
 *   `w`, `h` in pixels, as in the meta); `box_normalized` (`x_min` =
 *   x/width, `y_min` = y/height, `x_max` = (x+w)/width, `y_max` =
 *   (y+h)/height, not clamped); `detection` and `recognition` when the ROI
 *   has those structures (fields as vjfacedetect and eigenrecognise give
 *   them; with vjfacedetect's output-reject-levels the detection also has
 *   `reject-level` and `level-weight`); `params`, one member per other
 *   parameter structure, holding its fields.  A ROI found inside another
 *   (cascadedetect's `parent`: eyes in faces) names it by `parent_id`; a
 *   ROI that is no child has `parent_id` -1 (GStreamer's default, 0, from
 *   other elements).
 *
 * Other structures map by type: booleans, integers (unsigned 64-bit values
 * past 2^63 as floating-point numbers), floats, strings, nested structures
 * as objects, lists and arrays as arrays, anything else (fractions, enums,
 * caps) as its GStreamer serialisation string.  JSON has no NaN or
 * infinity: such numbers are written as null.  Strings are UTF-8 (invalid
 * bytes become U+FFFD) with control characters escaped.
 *
 * ## MQTT
 *
 * Records go to the broker through libmosquitto.  The worker connects in
 * the background and, while the broker is away, reconnects with a backoff
 * from 0.1 s doubling up to 5 s; meanwhile records wait in memory, up to
 * #GstRoiExport:max-queue, then, with #GstRoiExport:spool-dir, in an
 * on-disk spool of #GstRoiExport:spool-max-bytes, and are sent in order
 * when the broker is back.  Beyond those the oldest records are dropped
 * and counted in #GstRoiExport:dropped.  The bus hears of it as warnings:
 * one per outage ("Cannot reach the MQTT broker HOST:PORT: REASON", "Lost
 * the connection …"), and "MQTT queue full" at the first drop, then at
 * most every 5 s; with `on-loss=error` a lost record is an error, and the
 * pipeline fails.  With QoS 1 (the default) or 2 a record leaves the queue
 * only when the broker acknowledges it, and records in flight when a
 * connection breaks are sent again on the next one: nothing is lost
 * uncounted, and a record may arrive twice (its `seq` tells).  With QoS 0
 * a record leaves the queue once written to the socket.  At EOS the
 * element waits until every record is delivered, at most `flush-timeout`;
 * then what is left stays in the spool for the next run (a warning says
 * how many), or without one is dropped and counted before EOS goes on.
 * Stopping without EOS does the same, and never waits more than a
 * second.  A crash loses the records in memory (at most max-queue and 16
 * in flight), not those in the spool.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc \
 *     location=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg ! \
 *     jpegdec ! videoconvert ! vjfacedetect ! roiexport location=- ! fakesink
 * gst-launch-1.0 videotestsrc num-buffers=100 ! vjfacedetect ! \
 *     roiexport mqtt-broker=localhost:1883 mqtt-topic=clvision/test ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

#include "gstroiexport.h"
#include "gstroiexportgva.h"
#include "gstroiexportjson.h"
#include "gstroiexportmqtt.h"

/* Shared with gstroiexportmqtt.c. */
GST_DEBUG_CATEGORY (gst_roi_export_debug);
#define GST_CAT_DEFAULT gst_roi_export_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_SOURCE_NAME NULL
#define DEFAULT_SKIP_EMPTY FALSE
#define DEFAULT_MQTT_BROKER NULL
#define DEFAULT_MQTT_TOPIC "clvision/roi"
#define DEFAULT_MQTT_QOS 1
#define DEFAULT_MQTT_CLIENT_ID NULL
#define DEFAULT_MQTT_USERNAME NULL
#define DEFAULT_MQTT_PASSWORD NULL
#define DEFAULT_MQTT_CA_FILE NULL
#define DEFAULT_MAX_QUEUE 1000
#define DEFAULT_FLUSH_TIMEOUT 5000
#define DEFAULT_SPOOL_DIR NULL
#define DEFAULT_SPOOL_MAX_BYTES (64 * 1024 * 1024)
#define MIN_SPOOL_MAX_BYTES 4096
#define DEFAULT_ON_LOSS GST_ROI_EXPORT_ON_LOSS_WARN
#define DEFAULT_SCHEMA GST_ROI_EXPORT_SCHEMA_CLVISION
#define DEFAULT_ADD_EMPTY_RESULTS FALSE
#define DEFAULT_TAGS NULL

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_SOURCE_NAME,
  PROP_SKIP_EMPTY,
  PROP_MQTT_BROKER,
  PROP_MQTT_TOPIC,
  PROP_MQTT_QOS,
  PROP_MQTT_CLIENT_ID,
  PROP_MQTT_USERNAME,
  PROP_MQTT_PASSWORD,
  PROP_MQTT_CA_FILE,
  PROP_MAX_QUEUE,
  PROP_FLUSH_TIMEOUT,
  PROP_SPOOL_DIR,
  PROP_SPOOL_MAX_BYTES,
  PROP_ON_LOSS,
  PROP_DROPPED,
  PROP_SCHEMA,
  PROP_ADD_EMPTY_RESULTS,
  PROP_TAGS,
};

struct _GstRoiExport
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *location;
  gchar *source_name;
  gboolean skip_empty;
  GstRoiExportSchema schema;
  gboolean add_empty_results;
  gchar *tags;
  gchar *mqtt_broker, *mqtt_topic, *mqtt_client_id, *mqtt_username,
      *mqtt_password, *mqtt_ca_file;
  gint mqtt_qos;
  guint max_queue;
  guint flush_timeout;
  gchar *spool_dir;
  guint64 spool_max_bytes;
  GstRoiExportOnLoss on_loss;
  /* MQTT records lost since start by publishers already stopped */
  guint64 dropped;
  RoiExportMqtt *mqtt;

  /* streaming */
  gint fd;                      /* -1: no file */
  gboolean fd_is_stdout;
  off_t file_size;              /* bytes of whole records in the file */
  gchar *stream_id;
  JsonNode *tags_node;          /* `tags` parsed at start */
  gint width, height;
  guint64 frame_number;
  guint64 seq;                  /* the next record's sequence number */
  gboolean mqtt_restart;        /* EOS stopped the publisher */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

G_DEFINE_TYPE_WITH_CODE (GstRoiExport, gst_roi_export,
    GST_TYPE_BASE_TRANSFORM, GST_DEBUG_CATEGORY_INIT (gst_roi_export_debug,
        "roiexport", 0, "ROI metas to JSON"));
GST_ELEMENT_REGISTER_DEFINE (roiexport, "roiexport", GST_RANK_NONE,
    GST_TYPE_ROI_EXPORT);

GType
gst_roi_export_schema_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROI_EXPORT_SCHEMA_CLVISION, "clvision's records (rois, box, seq)",
        "clvision"},
    {GST_ROI_EXPORT_SCHEMA_GVA, "DL Streamer gvametaconvert's records "
          "(objects, bounding_box)", "gva"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstRoiExportSchema", values));
  return type;
}

GType
gst_roi_export_on_loss_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROI_EXPORT_ON_LOSS_WARN, "A warning on the bus", "warn"},
    {GST_ROI_EXPORT_ON_LOSS_ERROR, "An error: the pipeline fails", "error"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstRoiExportOnLoss", values));
  return type;
}

/* JSON has no NaN or infinity: those become null. */
static void
add_double (JsonBuilder * b, const gchar * member, gdouble v)
{
  json_builder_set_member_name (b, member);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_clock_time (JsonBuilder * b, const gchar * member, GstClockTime t)
{
  json_builder_set_member_name (b, member);
  if (GST_CLOCK_TIME_IS_VALID (t))
    json_builder_add_int_value (b, (gint64) t);
  else
    json_builder_add_null_value (b);
}

static void add_structure (JsonBuilder * b, const GstStructure * s);

/* Any GValue: the JSON type of the common fundamental types, nested
 * structures as objects, GstValueList/Array as arrays, anything else as its
 * GStreamer string serialisation. */
static void
add_value (JsonBuilder * b, const GValue * v)
{
  GType type = G_VALUE_TYPE (v);

  switch (G_TYPE_FUNDAMENTAL (type)) {
    case G_TYPE_BOOLEAN:
      json_builder_add_boolean_value (b, g_value_get_boolean (v));
      return;
    case G_TYPE_CHAR:
      json_builder_add_int_value (b, g_value_get_schar (v));
      return;
    case G_TYPE_UCHAR:
      json_builder_add_int_value (b, g_value_get_uchar (v));
      return;
    case G_TYPE_INT:
      json_builder_add_int_value (b, g_value_get_int (v));
      return;
    case G_TYPE_UINT:
      json_builder_add_int_value (b, g_value_get_uint (v));
      return;
    case G_TYPE_LONG:
      json_builder_add_int_value (b, g_value_get_long (v));
      return;
    case G_TYPE_INT64:
      json_builder_add_int_value (b, g_value_get_int64 (v));
      return;
    case G_TYPE_ULONG:
    case G_TYPE_UINT64:{
      guint64 u = type == G_TYPE_ULONG ? g_value_get_ulong (v) :
          g_value_get_uint64 (v);
      /* JSON numbers beyond gint64 lose precision, but stay numbers. */
      if (u <= G_MAXINT64)
        json_builder_add_int_value (b, (gint64) u);
      else
        json_builder_add_double_value (b, (gdouble) u);
      return;
    }
    case G_TYPE_FLOAT:
    case G_TYPE_DOUBLE:{
      gdouble d = G_VALUE_HOLDS_FLOAT (v) ? g_value_get_float (v) :
          g_value_get_double (v);
      if (isfinite (d))
        json_builder_add_double_value (b, d);
      else
        json_builder_add_null_value (b);
      return;
    }
    case G_TYPE_STRING:
      roi_export_json_add_string (b, g_value_get_string (v));
      return;
    default:
      break;
  }
  if (type == GST_TYPE_STRUCTURE) {
    const GstStructure *s = gst_value_get_structure (v);
    if (s != NULL)
      add_structure (b, s);
    else
      json_builder_add_null_value (b);
  } else if (type == GST_TYPE_LIST || type == GST_TYPE_ARRAY) {
    gboolean list = type == GST_TYPE_LIST;
    guint n = list ? gst_value_list_get_size (v) : gst_value_array_get_size (v);

    json_builder_begin_array (b);
    for (guint i = 0; i < n; i++)
      add_value (b, list ? gst_value_list_get_value (v, i) :
          gst_value_array_get_value (v, i));
    json_builder_end_array (b);
  } else {
    gchar *str = gst_value_serialize (v);
    roi_export_json_add_string (b, str);
    g_free (str);
  }
}

static gboolean
add_field (GQuark field, const GValue * value, gpointer builder)
{
  json_builder_set_member_name (builder, g_quark_to_string (field));
  add_value (builder, value);
  return TRUE;
}

static void
add_structure (JsonBuilder * b, const GstStructure * s)
{
  json_builder_begin_object (b);
  gst_structure_foreach (s, add_field, b);
  json_builder_end_object (b);
}

/* The detection's contract fields, and the cascade detector's scores
 * (reject-level, level-weight) where `s` has them. */
static void
add_detection (JsonBuilder * b, const GstClvDetection * det,
    const GstStructure * s)
{
  gint level;
  gdouble weight;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  roi_export_json_add_string (b, det->label);
  json_builder_set_member_name (b, "label_id");
  json_builder_add_int_value (b, det->label_id);
  add_double (b, "confidence", det->confidence);
  json_builder_set_member_name (b, "neighbors");
  json_builder_add_int_value (b, det->neighbors);
  if (gst_structure_get_int (s, "reject-level", &level)
      && gst_structure_get_double (s, "level-weight", &weight)) {
    json_builder_set_member_name (b, "reject-level");
    json_builder_add_int_value (b, level);
    add_double (b, "level-weight", weight);
  }
  json_builder_end_object (b);
}

static void
add_recognition (JsonBuilder * b, const GstClvRecognition * rec)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  roi_export_json_add_string (b, rec->label);
  json_builder_set_member_name (b, "label_id");
  json_builder_add_int_value (b, rec->label_id);
  add_double (b, "distance", rec->distance);
  add_double (b, "confidence", rec->confidence);
  json_builder_end_object (b);
}

static void
add_tracking (JsonBuilder * b, const GstClvTracking * t)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, (gint64) t->id);
  json_builder_set_member_name (b, "age");
  json_builder_add_int_value (b, t->age);
  json_builder_set_member_name (b, "predicted");
  json_builder_add_boolean_value (b, t->predicted);
  add_clock_time (b, "first_seen", t->first_seen);
  add_clock_time (b, "last_seen", t->last_seen);
  json_builder_end_object (b);
}

/* Whether `s` is one of the structures written typed. */
static gboolean
is_contract_structure (const GstStructure * s)
{
  return gst_structure_has_name (s, GST_CLV_DETECTION_NAME)
      || gst_structure_has_name (s, GST_CLV_RECOGNITION_NAME)
      || gst_structure_has_name (s, GST_CLV_TRACKING_NAME);
}

/* The params of `roi`: "detection", "recognition" and "tracking" typed
 * when they have every field of the contract, serialised generically
 * otherwise; any other structure goes under "params". */
static void
add_roi_params (JsonBuilder * b, GstVideoRegionOfInterestMeta * roi)
{
  GstClvDetection det;
  GstClvRecognition rec;
  GstClvTracking tracking;
  gboolean params_open = FALSE;

  for (GList * l = roi->params; l != NULL; l = l->next) {
    const GstStructure *s = l->data;

    if (gst_structure_has_name (s, GST_CLV_DETECTION_NAME)) {
      json_builder_set_member_name (b, GST_CLV_DETECTION_NAME);
      if (gst_clv_roi_meta_get_detection (roi, &det))
        add_detection (b, &det, s);
      else
        add_structure (b, s);
    } else if (gst_structure_has_name (s, GST_CLV_RECOGNITION_NAME)) {
      json_builder_set_member_name (b, GST_CLV_RECOGNITION_NAME);
      if (gst_clv_roi_meta_get_recognition (roi, &rec))
        add_recognition (b, &rec);
      else
        add_structure (b, s);
    } else if (gst_structure_has_name (s, GST_CLV_TRACKING_NAME)) {
      json_builder_set_member_name (b, GST_CLV_TRACKING_NAME);
      if (gst_clv_roi_meta_get_tracking (roi, &tracking))
        add_tracking (b, &tracking);
      else
        add_structure (b, s);
    }
  }
  for (GList * l = roi->params; l != NULL; l = l->next) {
    const GstStructure *s = l->data;

    if (is_contract_structure (s))
      continue;
    if (!params_open) {
      json_builder_set_member_name (b, "params");
      json_builder_begin_object (b);
      params_open = TRUE;
    }
    json_builder_set_member_name (b, gst_structure_get_name (s));
    add_structure (b, s);
  }
  if (params_open)
    json_builder_end_object (b);
}

static void
add_roi (JsonBuilder * b, GstVideoRegionOfInterestMeta * roi, gint width,
    gint height)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, roi->id);
  json_builder_set_member_name (b, "parent_id");
  json_builder_add_int_value (b, roi->parent_id);
  json_builder_set_member_name (b, "roi_type");
  roi_export_json_add_string (b, g_quark_to_string (roi->roi_type));

  json_builder_set_member_name (b, "box");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "x");
  json_builder_add_int_value (b, roi->x);
  json_builder_set_member_name (b, "y");
  json_builder_add_int_value (b, roi->y);
  json_builder_set_member_name (b, "w");
  json_builder_add_int_value (b, roi->w);
  json_builder_set_member_name (b, "h");
  json_builder_add_int_value (b, roi->h);
  json_builder_end_object (b);

  /* Divided by the frame size; a box outside the frame gives values
   * outside 0..1, as it is.  Without caps there is no size: null. */
  json_builder_set_member_name (b, "box_normalized");
  json_builder_begin_object (b);
  add_double (b, "x_min", width > 0 ? (gdouble) roi->x / width : NAN);
  add_double (b, "y_min", height > 0 ? (gdouble) roi->y / height : NAN);
  add_double (b, "x_max", width > 0 ?
      (gdouble) (roi->x + roi->w) / width : NAN);
  add_double (b, "y_max", height > 0 ?
      (gdouble) (roi->y + roi->h) / height : NAN);
  json_builder_end_object (b);

  add_roi_params (b, roi);
  json_builder_end_object (b);
}

/* One frame's record, one line of JSON without the newline. */
static gchar *
gst_roi_export_build_record (GstRoiExport * self, GstBuffer * buf,
    const gchar * source)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  JsonBuilder *b = json_builder_new ();
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstMeta *meta;
  gpointer state = NULL;
  gchar *line;

  if (trans->segment.format == GST_FORMAT_TIME)
    running_time = gst_segment_to_running_time (&trans->segment,
        GST_FORMAT_TIME, GST_BUFFER_PTS (buf));

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "frame");
  json_builder_add_int_value (b, (gint64) self->frame_number);
  json_builder_set_member_name (b, "seq");
  json_builder_add_int_value (b, (gint64) self->seq);
  add_clock_time (b, "pts", GST_BUFFER_PTS (buf));
  add_clock_time (b, "duration", GST_BUFFER_DURATION (buf));
  add_clock_time (b, "running_time", running_time);
  json_builder_set_member_name (b, "stream_id");
  roi_export_json_add_string (b, self->stream_id);
  json_builder_set_member_name (b, "source");
  roi_export_json_add_string (b, source);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, self->width);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, self->height);
  json_builder_set_member_name (b, "rois");
  json_builder_begin_array (b);
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL)
    add_roi (b, (GstVideoRegionOfInterestMeta *) meta, self->width,
        self->height);
  json_builder_end_array (b);
  json_builder_end_object (b);

  line = roi_export_json_line (b);
  g_object_unref (b);
  return line;
}

/* Starts the MQTT publisher when a broker is set (self->mqtt stays NULL
 * otherwise); FALSE with `error` set. */
static gboolean
gst_roi_export_start_mqtt (GstRoiExport * self, GError ** error)
{
  RoiExportMqttSettings settings;
  RoiExportMqtt *mqtt;
  gchar *broker, *topic, *client_id, *username, *password, *ca_file, *spool;

  GST_OBJECT_LOCK (self);
  broker = g_strdup (self->mqtt_broker);
  topic = g_strdup (self->mqtt_topic);
  client_id = g_strdup (self->mqtt_client_id);
  username = g_strdup (self->mqtt_username);
  password = g_strdup (self->mqtt_password);
  ca_file = g_strdup (self->mqtt_ca_file);
  spool = g_strdup (self->spool_dir);
  settings = (RoiExportMqttSettings) {
  broker, topic, self->mqtt_qos, client_id, username, password, ca_file,
        self->max_queue, spool != NULL && spool[0] != '\0' ? spool : NULL,
        self->spool_max_bytes, self->on_loss == GST_ROI_EXPORT_ON_LOSS_ERROR};
  GST_OBJECT_UNLOCK (self);

  /* Unlocked: the start may post on the bus. */
  mqtt = broker != NULL && broker[0] != '\0' ?
      roi_export_mqtt_start (&settings, GST_ELEMENT (self), error) : NULL;
  GST_OBJECT_LOCK (self);
  self->mqtt = mqtt;
  GST_OBJECT_UNLOCK (self);
  g_free (broker);
  g_free (topic);
  g_free (client_id);
  g_free (username);
  g_free (password);
  g_free (ca_file);
  g_free (spool);
  return mqtt != NULL || error == NULL || *error == NULL;
}

/* Stops the MQTT publisher, if any, and says what it could not deliver:
 * lost records give a warning, or an error with on-loss=error; records
 * kept in the spool, a warning.  `when` says when it happens. */
static void
gst_roi_export_stop_mqtt (GstRoiExport * self, const gchar * when)
{
  RoiExportMqtt *mqtt;
  guint64 dropped, lost, kept;
  GstRoiExportOnLoss on_loss;
  gchar *spool_dir;

  GST_OBJECT_LOCK (self);
  mqtt = g_steal_pointer (&self->mqtt);
  GST_OBJECT_UNLOCK (self);
  if (mqtt == NULL)
    return;
  dropped = roi_export_mqtt_stop (mqtt, &lost, &kept);
  GST_OBJECT_LOCK (self);
  self->dropped += dropped;
  on_loss = self->on_loss;
  spool_dir = g_strdup (self->spool_dir);
  GST_OBJECT_UNLOCK (self);
  if (lost > 0 && on_loss == GST_ROI_EXPORT_ON_LOSS_ERROR)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("%" G_GUINT64_FORMAT " result(s) lost: not delivered to the MQTT "
            "broker %s", lost, when), ("on-loss=error: a lost result fails "
            "the pipeline; spool-dir keeps results across an outage"));
  else if (lost > 0)
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("%" G_GUINT64_FORMAT " result(s) lost: not delivered to the MQTT "
            "broker %s", lost, when), ("spool-dir keeps results across an "
            "outage"));
  if (kept > 0)
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("%" G_GUINT64_FORMAT " result(s) not delivered to the MQTT broker "
            "%s wait in the spool of %s, to go first when roiexport next "
            "starts with that spool-dir", kept, when, spool_dir), (NULL));
  g_free (spool_dir);
}

/* `tags`, a JSON object or unset, into self->tags_node. */
static gboolean
parse_tags (GstRoiExport * self)
{
  JsonParser *parser;
  GError *error = NULL;
  gchar *tags;
  gboolean ok;

  g_clear_pointer (&self->tags_node, json_node_unref);
  GST_OBJECT_LOCK (self);
  tags = g_strdup (self->tags);
  GST_OBJECT_UNLOCK (self);
  if (tags == NULL || tags[0] == '\0') {
    g_free (tags);
    return TRUE;
  }
  parser = json_parser_new ();
  ok = json_parser_load_from_data (parser, tags, -1, &error)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser));
  if (ok)
    self->tags_node = json_node_copy (json_parser_get_root (parser));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("tags must be a JSON object, e.g. {\"camera\":\"door\"}, not %s%s%s",
            tags, error ? ": " : "", error ? error->message : ""), (NULL));
  g_clear_error (&error);
  g_object_unref (parser);
  g_free (tags);
  return ok;
}

static gboolean
gst_roi_export_start (GstBaseTransform * trans)
{
  GstRoiExport *self = GST_ROI_EXPORT (trans);
  gchar *location;
  GError *error = NULL;

  self->frame_number = 0;
  self->seq = 0;
  self->width = self->height = 0;
  g_clear_pointer (&self->stream_id, g_free);

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  self->dropped = 0;
  GST_OBJECT_UNLOCK (self);
  if (!parse_tags (self))
    goto bad_tags;
  self->mqtt_restart = FALSE;
  if (!gst_roi_export_start_mqtt (self, &error))
    goto bad_mqtt;
  /* A spool continues the numbers of its earlier runs. */
  if (self->mqtt != NULL)
    self->seq = roi_export_mqtt_get_next_seq (self->mqtt);

  self->file_size = 0;
  if (location != NULL && location[0] != '\0') {
    if (g_strcmp0 (location, "-") == 0) {
      self->fd = STDOUT_FILENO;
      self->fd_is_stdout = TRUE;
    } else {
      self->fd_is_stdout = FALSE;
      self->fd = g_open (location, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
          0666);
      if (self->fd < 0)
        goto open_failed;
    }
  } else if (self->mqtt == NULL) {
    goto no_destination;
  }
  g_free (location);
  return TRUE;

  /* ERRORS */
bad_tags:
  {
    g_free (location);
    return FALSE;
  }
bad_mqtt:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", error->message),
        (NULL));
    g_error_free (error);
    g_free (location);
    return FALSE;
  }
no_destination:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No destination for the results: set location (a file, or - for "
            "stdout) or mqtt-broker (host:port)"), (NULL));
    g_free (location);
    return FALSE;
  }
open_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot open \"%s\" for writing: %s", location, g_strerror (errno)),
        (NULL));
    g_free (location);
    gst_roi_export_stop_mqtt (self, "before the start failed");
    return FALSE;
  }
}

static gboolean
gst_roi_export_stop (GstBaseTransform * trans)
{
  GstRoiExport *self = GST_ROI_EXPORT (trans);

  /* Records reached the kernel one by one; this puts them on the disk. */
  if (self->fd >= 0 && !self->fd_is_stdout) {
    fsync (self->fd);
    close (self->fd);
  }
  self->fd = -1;
  g_clear_pointer (&self->stream_id, g_free);
  gst_roi_export_stop_mqtt (self, "before the element stopped");
  return TRUE;
}

static gboolean
gst_roi_export_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstRoiExport *self = GST_ROI_EXPORT (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);

  if (!gst_structure_get_int (s, "width", &self->width)
      || !gst_structure_get_int (s, "height", &self->height))
    goto no_size;
  return TRUE;

  /* ERRORS */
no_size:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Caps %" GST_PTR_FORMAT " give no frame width and height", incaps),
        (NULL));
    return FALSE;
  }
}

static gboolean
gst_roi_export_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstRoiExport *self = GST_ROI_EXPORT (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) {
    const gchar *stream_id = NULL;

    gst_event_parse_stream_start (event, &stream_id);
    g_free (self->stream_id);
    self->stream_id = g_strdup (stream_id);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->mqtt != NULL) {
    guint timeout;
    gchar *when;

    GST_OBJECT_LOCK (self);
    timeout = self->flush_timeout;
    GST_OBJECT_UNLOCK (self);
    /* EOS means every result has gone out: wait for the queue, but not
     * forever when the broker is away.  What is left then is settled now
     * (lost or spooled), so that `dropped` is right at EOS; a later frame
     * starts a new publisher. */
    if (roi_export_mqtt_flush (self->mqtt, timeout) > 0) {
      when = g_strdup_printf ("within flush-timeout=%u ms at end of stream",
          timeout);
      gst_roi_export_stop_mqtt (self, when);
      self->mqtt_restart = TRUE;
      g_free (when);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_roi_export_parent_class)->sink_event
      (trans, event);
}

/* One record and its newline in one write(), as soon as it is made: a
 * reader following the file (tail -f) sees each frame as it passes, and a
 * killed process leaves whole lines only.  A failed write (disk full) is
 * cut back to the last whole record. */
static gboolean
write_record (GstRoiExport * self, const gchar * line)
{
  gchar *text = g_strconcat (line, "\n", NULL);
  gsize len = strlen (text), done = 0;
  gint saved = 0;

  if (self->fd_is_stdout)
    fflush (stdout);            /* gst-launch's own lines come first */
  while (done < len) {
    gssize n = write (self->fd, text + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      saved = n < 0 ? errno : ENOSPC;
      break;
    }
    done += n;
  }
  g_free (text);
  if (done == len) {
    self->file_size += len;
    return TRUE;
  }
  if (done > 0 && !self->fd_is_stdout && ftruncate (self->fd, self->file_size) == 0)
    lseek (self->fd, self->file_size, SEEK_SET);
  errno = saved;
  return FALSE;
}

static GstFlowReturn
gst_roi_export_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstRoiExport *self = GST_ROI_EXPORT (trans);
  gboolean skip_empty, add_empty, gva;
  gchar *source, *line;
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  skip_empty = self->skip_empty;
  add_empty = self->add_empty_results;
  gva = self->schema == GST_ROI_EXPORT_SCHEMA_GVA;
  /* DL Streamer writes a source only when one is given. */
  source = g_strdup (self->source_name != NULL || gva ? self->source_name :
      GST_OBJECT_NAME (self));
  GST_OBJECT_UNLOCK (self);

  if ((gva ? !add_empty : skip_empty) && gst_buffer_get_meta (buf,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) == NULL) {
    self->frame_number++;
    g_free (source);
    return GST_FLOW_OK;
  }
  /* A frame after the EOS that stopped the publisher. */
  if (self->mqtt_restart) {
    self->mqtt_restart = FALSE;
    if (!gst_roi_export_start_mqtt (self, &error))
      goto bad_mqtt;
  }
  line = gva ? roi_export_gva_record (buf, &trans->segment, self->width,
      self->height, source, self->tags_node, add_empty) :
      gst_roi_export_build_record (self, buf, source);
  self->frame_number++;
  g_free (source);

  if (self->fd >= 0 && !write_record (self, line))
    goto write_failed;
  if (self->mqtt != NULL)
    roi_export_mqtt_publish (self->mqtt, line, self->seq);
  else
    g_free (line);
  self->seq++;
  return GST_FLOW_OK;

  /* ERRORS */
bad_mqtt:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", error->message),
        (NULL));
    g_error_free (error);
    g_free (source);
    return GST_FLOW_ERROR;
  }
write_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Cannot write the results: %s", g_strerror (errno)), (NULL));
    g_free (line);
    return GST_FLOW_ERROR;
  }
}

static void
gst_roi_export_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRoiExport *self = GST_ROI_EXPORT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_SOURCE_NAME:
      g_free (self->source_name);
      self->source_name = g_value_dup_string (value);
      break;
    case PROP_SKIP_EMPTY:
      self->skip_empty = g_value_get_boolean (value);
      break;
    case PROP_MQTT_BROKER:
      g_free (self->mqtt_broker);
      self->mqtt_broker = g_value_dup_string (value);
      break;
    case PROP_MQTT_TOPIC:
      g_free (self->mqtt_topic);
      self->mqtt_topic = g_value_dup_string (value);
      break;
    case PROP_MQTT_QOS:
      self->mqtt_qos = g_value_get_int (value);
      break;
    case PROP_MQTT_CLIENT_ID:
      g_free (self->mqtt_client_id);
      self->mqtt_client_id = g_value_dup_string (value);
      break;
    case PROP_MQTT_USERNAME:
      g_free (self->mqtt_username);
      self->mqtt_username = g_value_dup_string (value);
      break;
    case PROP_MQTT_PASSWORD:
      g_free (self->mqtt_password);
      self->mqtt_password = g_value_dup_string (value);
      break;
    case PROP_MQTT_CA_FILE:
      g_free (self->mqtt_ca_file);
      self->mqtt_ca_file = g_value_dup_string (value);
      break;
    case PROP_MAX_QUEUE:
      self->max_queue = g_value_get_uint (value);
      break;
    case PROP_FLUSH_TIMEOUT:
      self->flush_timeout = g_value_get_uint (value);
      break;
    case PROP_SPOOL_DIR:
      g_free (self->spool_dir);
      self->spool_dir = g_value_dup_string (value);
      break;
    case PROP_SPOOL_MAX_BYTES:
      self->spool_max_bytes = g_value_get_uint64 (value);
      break;
    case PROP_ON_LOSS:
      self->on_loss = g_value_get_enum (value);
      break;
    case PROP_SCHEMA:
      self->schema = g_value_get_enum (value);
      break;
    case PROP_ADD_EMPTY_RESULTS:
      self->add_empty_results = g_value_get_boolean (value);
      break;
    case PROP_TAGS:
      g_free (self->tags);
      self->tags = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_export_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRoiExport *self = GST_ROI_EXPORT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_SOURCE_NAME:
      g_value_set_string (value, self->source_name);
      break;
    case PROP_SKIP_EMPTY:
      g_value_set_boolean (value, self->skip_empty);
      break;
    case PROP_MQTT_BROKER:
      g_value_set_string (value, self->mqtt_broker);
      break;
    case PROP_MQTT_TOPIC:
      g_value_set_string (value, self->mqtt_topic);
      break;
    case PROP_MQTT_QOS:
      g_value_set_int (value, self->mqtt_qos);
      break;
    case PROP_MQTT_CLIENT_ID:
      g_value_set_string (value, self->mqtt_client_id);
      break;
    case PROP_MQTT_USERNAME:
      g_value_set_string (value, self->mqtt_username);
      break;
    case PROP_MQTT_CA_FILE:
      g_value_set_string (value, self->mqtt_ca_file);
      break;
    case PROP_MAX_QUEUE:
      g_value_set_uint (value, self->max_queue);
      break;
    case PROP_FLUSH_TIMEOUT:
      g_value_set_uint (value, self->flush_timeout);
      break;
    case PROP_SPOOL_DIR:
      g_value_set_string (value, self->spool_dir);
      break;
    case PROP_SPOOL_MAX_BYTES:
      g_value_set_uint64 (value, self->spool_max_bytes);
      break;
    case PROP_ON_LOSS:
      g_value_set_enum (value, self->on_loss);
      break;
    case PROP_SCHEMA:
      g_value_set_enum (value, self->schema);
      break;
    case PROP_ADD_EMPTY_RESULTS:
      g_value_set_boolean (value, self->add_empty_results);
      break;
    case PROP_TAGS:
      g_value_set_string (value, self->tags);
      break;
    case PROP_DROPPED:
      g_value_set_uint64 (value, self->dropped + (self->mqtt != NULL ?
              roi_export_mqtt_get_dropped (self->mqtt) : 0));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_export_finalize (GObject * object)
{
  GstRoiExport *self = GST_ROI_EXPORT (object);

  g_free (self->location);
  g_free (self->source_name);
  g_free (self->tags);
  g_clear_pointer (&self->tags_node, json_node_unref);
  g_free (self->stream_id);
  g_free (self->mqtt_broker);
  g_free (self->mqtt_topic);
  g_free (self->mqtt_client_id);
  g_free (self->mqtt_username);
  g_free (self->mqtt_password);
  g_free (self->mqtt_ca_file);
  g_free (self->spool_dir);
  G_OBJECT_CLASS (gst_roi_export_parent_class)->finalize (object);
}

/* The properties of the MQTT output. */
static void
install_mqtt_properties (GObjectClass * gobject_class)
{
  /**
   * GstRoiExport:mqtt-broker:
   *
   * The MQTT broker to publish each record to, as `host`, `host:port` or
   * `[IPv6 address]:port` (port 1883, or 8883 with #GstRoiExport:mqtt-ca-file).
   * The element connects in the background and reconnects with backoff
   * (0.1 s doubling to 5 s); an unreachable broker gives a warning on the
   * bus, never a stalled pipeline.
   */
  g_object_class_install_property (gobject_class, PROP_MQTT_BROKER,
      g_param_spec_string ("mqtt-broker", "MQTT broker",
          "MQTT broker to publish the records to, host:port (unset: none)",
          DEFAULT_MQTT_BROKER, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MQTT_TOPIC,
      g_param_spec_string ("mqtt-topic", "MQTT topic",
          "Topic the records are published to", DEFAULT_MQTT_TOPIC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:mqtt-qos:
   *
   * MQTT quality of service.  With 1 (the default) or 2 a record leaves
   * the queue when the broker acknowledges it, so a broken connection
   * loses nothing that is not counted in #GstRoiExport:dropped (a record
   * may arrive twice); with 0 a record leaves the queue once written to
   * the socket, and those written to a connection that then breaks are
   * lost uncounted.
   */
  g_object_class_install_property (gobject_class, PROP_MQTT_QOS,
      g_param_spec_int ("mqtt-qos", "MQTT QoS",
          "MQTT quality of service (0, 1 or 2)", 0, 2, DEFAULT_MQTT_QOS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MQTT_CLIENT_ID,
      g_param_spec_string ("mqtt-client-id", "MQTT client id",
          "MQTT client identifier (unset: a random one)",
          DEFAULT_MQTT_CLIENT_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MQTT_USERNAME,
      g_param_spec_string ("mqtt-username", "MQTT user name",
          "User name for the broker (unset: none)", DEFAULT_MQTT_USERNAME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* Write-only, so that it does not show in gst-launch -v or dumps. */
  g_object_class_install_property (gobject_class, PROP_MQTT_PASSWORD,
      g_param_spec_string ("mqtt-password", "MQTT password",
          "Password for the broker (write-only)", DEFAULT_MQTT_PASSWORD,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MQTT_CA_FILE,
      g_param_spec_string ("mqtt-ca-file", "MQTT CA file",
          "PEM file of the certificate authorities that sign the broker's "
          "certificate; set, the connection uses TLS (unset: plain TCP)",
          DEFAULT_MQTT_CA_FILE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:max-queue:
   *
   * Records waiting for the broker, at most; beyond, the oldest are
   * dropped and counted in #GstRoiExport:dropped.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE,
      g_param_spec_uint ("max-queue", "Maximum queue",
          "Records waiting for the MQTT broker, at most (the oldest are "
          "dropped beyond)", 1, G_MAXINT, DEFAULT_MAX_QUEUE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:flush-timeout:
   *
   * At EOS the element waits until the broker has every queued record,
   * at most this long, before it passes EOS on.  What is left then is
   * settled before EOS goes on: with #GstRoiExport:spool-dir it waits in
   * the spool for the next run (a warning says so); without, it is
   * dropped and counted in #GstRoiExport:dropped, with a warning (an
   * error with `on-loss=error`).
   */
  g_object_class_install_property (gobject_class, PROP_FLUSH_TIMEOUT,
      g_param_spec_uint ("flush-timeout", "Flush timeout",
          "Longest wait at EOS for queued MQTT records, in milliseconds", 0,
          G_MAXUINT, DEFAULT_FLUSH_TIMEOUT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiExport:spool-dir:
   *
   * A folder for the MQTT records beyond #GstRoiExport:max-queue: they
   * wait there, on the disk (`roiexport.spool`, one file of
   * #GstRoiExport:spool-max-bytes), while the broker is away, and go out
   * in order when it is back.  Records still undelivered when the
   * element stops stay in the spool and go first when an element next
   * starts with the same folder; record numbers (`seq`) then continue
   * those of the earlier run.  One element at a time may use a folder.
   * Unset: no spool.
   */
  g_object_class_install_property (gobject_class, PROP_SPOOL_DIR,
      g_param_spec_string ("spool-dir", "Spool folder",
          "Folder of the on-disk spool of MQTT records waiting for the "
          "broker (unset: none)", DEFAULT_SPOOL_DIR, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:spool-max-bytes:
   *
   * The size of the spool's file, reserved on the disk when it is made
   * (so that a full disk shows at start); each record takes its JSON and
   * 4 bytes.  When the spool is full, the oldest records are dropped and
   * counted in #GstRoiExport:dropped.  A spool made with another size is
   * rewritten to this one at start (the oldest records dropped if they do
   * not fit).
   */
  g_object_class_install_property (gobject_class, PROP_SPOOL_MAX_BYTES,
      g_param_spec_uint64 ("spool-max-bytes", "Spool size",
          "Size of the spool's file in bytes", MIN_SPOOL_MAX_BYTES,
          G_MAXUINT64, DEFAULT_SPOOL_MAX_BYTES, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:on-loss:
   *
   * What a lost MQTT record does: `warn` posts a warning (at the first
   * loss, then at most every 5 s), `error` posts an error, so that the
   * pipeline fails (gst-launch-1.0 exits non-zero).
   */
  g_object_class_install_property (gobject_class, PROP_ON_LOSS,
      g_param_spec_enum ("on-loss", "On loss",
          "What a lost MQTT record does: warn, or fail the pipeline",
          GST_TYPE_ROI_EXPORT_ON_LOSS, DEFAULT_ON_LOSS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:dropped:
   *
   * MQTT records lost since the element started: dropped from a full
   * queue or spool, or left undelivered at EOS (after
   * #GstRoiExport:flush-timeout) or at stop without a spool.  Right at
   * every moment: a record counts as soon as it is lost.
   */
  g_object_class_install_property (gobject_class, PROP_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped",
          "MQTT records lost (queue or spool full, undelivered at EOS or "
          "stop)", 0, G_MAXUINT64, 0, G_PARAM_READABLE |
          G_PARAM_STATIC_STRINGS));
}

static void
gst_roi_export_class_init (GstRoiExportClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_roi_export_set_property;
  gobject_class->get_property = gst_roi_export_get_property;
  gobject_class->finalize = gst_roi_export_finalize;

  /**
   * GstRoiExport:location:
   *
   * The JSON Lines file the records are written to (truncated at start),
   * or `-` for stdout.  Each record goes to the file in one write as soon
   * as it is made, so that a killed pipeline leaves only whole lines; the
   * file is synced to the disk when the element stops.
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "JSON Lines file to write the records to, - for stdout",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:source-name:
   *
   * The `source` field of every record, to tell streams apart at the
   * consumer; unset, the element's name.
   */
  g_object_class_install_property (gobject_class, PROP_SOURCE_NAME,
      g_param_spec_string ("source-name", "Source name",
          "The records' source field (unset: this element's name)",
          DEFAULT_SOURCE_NAME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiExport:schema:
   *
   * `clvision`, the records described above, or `gva`, those of Intel DL
   * Streamer's gvametaconvert (json format), so that its consumers read
   * ours unchanged: `objects` (each with `x`, `y`, `w`, `h`, `region_id`,
   * `parent_id`, `id` the tracking identifier, `roi_type`, `detection`
   * with the normalised `bounding_box`, `confidence`, `label_id`, `label`,
   * and every classification, such as eigenrecognise's `recognition`, as
   * `label`, `label_id`, `confidence`, `model`), `resolution`, `source`
   * (only when #GstRoiExport:source-name is set), `tags` and `timestamp`
   * (the stream time in nanoseconds), members in name order as DL Streamer
   * writes them.  Frames without objects give no record unless
   * #GstRoiExport:add-empty-results is set (skip-empty is for the
   * clvision schema).
   */
  g_object_class_install_property (gobject_class, PROP_SCHEMA,
      g_param_spec_enum ("schema", "Schema",
          "The records' format: clvision, or gva (DL Streamer "
          "gvametaconvert's)", GST_TYPE_ROI_EXPORT_SCHEMA, DEFAULT_SCHEMA,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ADD_EMPTY_RESULTS,
      g_param_spec_boolean ("add-empty-results", "Add empty results",
          "schema=gva: also give a record for frames without objects",
          DEFAULT_ADD_EMPTY_RESULTS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TAGS,
      g_param_spec_string ("tags", "Tags",
          "schema=gva: a JSON object every record carries as its tags",
          DEFAULT_TAGS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstRoiExport:skip-empty:
   *
   * Gives no record for frames without any ROI meta.
   */
  g_object_class_install_property (gobject_class, PROP_SKIP_EMPTY,
      g_param_spec_boolean ("skip-empty", "Skip empty frames",
          "Write no record for frames without any ROI", DEFAULT_SKIP_EMPTY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  install_mqtt_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "ROI export",
      "Filter/Metadata/Video",
      "Writes each frame's regions of interest and their detection and "
      "recognition results as JSON", "clvision developers");

  gst_type_mark_as_plugin_api (GST_TYPE_ROI_EXPORT_ON_LOSS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ROI_EXPORT_SCHEMA, 0);
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->start = gst_roi_export_start;
  trans_class->stop = gst_roi_export_stop;
  trans_class->set_caps = gst_roi_export_set_caps;
  trans_class->sink_event = gst_roi_export_sink_event;
  trans_class->transform_ip = gst_roi_export_transform_ip;
}

static void
gst_roi_export_init (GstRoiExport * self)
{
  self->location = g_strdup (DEFAULT_LOCATION);
  self->skip_empty = DEFAULT_SKIP_EMPTY;
  self->mqtt_topic = g_strdup (DEFAULT_MQTT_TOPIC);
  self->mqtt_qos = DEFAULT_MQTT_QOS;
  self->max_queue = DEFAULT_MAX_QUEUE;
  self->flush_timeout = DEFAULT_FLUSH_TIMEOUT;
  self->spool_max_bytes = DEFAULT_SPOOL_MAX_BYTES;
  self->on_loss = DEFAULT_ON_LOSS;
  self->schema = DEFAULT_SCHEMA;
  self->add_empty_results = DEFAULT_ADD_EMPTY_RESULTS;
  self->fd = -1;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
