/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DL Streamer's gvametaconvert records; see the header.
 *
 * A record (its members in name order, as DL Streamer's JSON library
 * writes them):
 *   objects      the ROIs, when there are any: x, y, w, h (pixels),
 *                region_id (the meta's id), parent_id (when >= 0), id (the
 *                tracking identifier, when tracked), roi_type, detection
 *                (bounding_box x_min/x_max/y_min/y_max normalised, then
 *                confidence and label_id when the structure has them, label
 *                = roi_type) when the "detection" structure has the four
 *                box fields, and one member per other structure with a
 *                string `label` and `model_name` (a classification): named
 *                by its `attribute_name` or the structure's name, holding
 *                label, model {name}, confidence and label_id;
 *   resolution   {height, width};
 *   source       when set;
 *   tags         when set;
 *   timestamp    the frame's stream time in nanoseconds, when it has one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

#include "gstroiexportgva.h"
#include "gstroiexportjson.h"

/* Writes `node` with every object's members in name order, as DL
 * Streamer's JSON library (its objects are sorted maps) does. */
static void
add_sorted (JsonBuilder * b, JsonNode * node)
{
  if (JSON_NODE_HOLDS_OBJECT (node)) {
    JsonObject *o = json_node_get_object (node);
    GList *names = g_list_sort (json_object_get_members (o),
        (GCompareFunc) g_strcmp0);

    json_builder_begin_object (b);
    for (GList * l = names; l != NULL; l = l->next) {
      json_builder_set_member_name (b, l->data);
      add_sorted (b, json_object_get_member (o, l->data));
    }
    json_builder_end_object (b);
    g_list_free (names);
  } else if (JSON_NODE_HOLDS_ARRAY (node)) {
    JsonArray *a = json_node_get_array (node);

    json_builder_begin_array (b);
    for (guint i = 0; i < json_array_get_length (a); i++)
      add_sorted (b, json_array_get_element (a, i));
    json_builder_end_array (b);
  } else {
    json_builder_add_value (b, json_node_copy (node));
  }
}

/* Strings as roi_export_json_add_string makes them. */
static void
set_string (JsonObject * o, const gchar * member, const gchar * v)
{
  gchar *valid = g_utf8_make_valid (v, -1);

  json_object_set_string_member (o, member, valid);
  g_free (valid);
}

/* The confidence and label_id of `s`, those it has. */
static void
set_confidence_and_label_id (JsonObject * o, const GstStructure * s)
{
  gdouble confidence;
  gint label_id;

  if (gst_structure_get_double (s, "confidence", &confidence))
    json_object_set_double_member (o, "confidence", confidence);
  if (gst_structure_get_int (s, "label_id", &label_id))
    json_object_set_int_member (o, "label_id", label_id);
}

/* DL Streamer's detection: only with the normalised box. */
static void
set_detection (JsonObject * object, const GstStructure * s,
    const gchar * label)
{
  gdouble x_min, x_max, y_min, y_max;
  JsonObject *det, *box;

  if (!gst_structure_get (s, "x_min", G_TYPE_DOUBLE, &x_min, "x_max",
          G_TYPE_DOUBLE, &x_max, "y_min", G_TYPE_DOUBLE, &y_min, "y_max",
          G_TYPE_DOUBLE, &y_max, NULL))
    return;
  det = json_object_new ();
  box = json_object_new ();
  json_object_set_double_member (box, "x_min", x_min);
  json_object_set_double_member (box, "x_max", x_max);
  json_object_set_double_member (box, "y_min", y_min);
  json_object_set_double_member (box, "y_max", y_max);
  json_object_set_object_member (det, "bounding_box", box);
  set_confidence_and_label_id (det, s);
  if (label != NULL)
    set_string (det, "label", label);
  json_object_set_object_member (object, "detection", det);
}

/* A classification: a structure with a string label and model_name, named
 * by its attribute_name or its own name. */
static void
set_classification (JsonObject * object, const GstStructure * s)
{
  const gchar *label = gst_structure_get_string (s, "label");
  const gchar *model = gst_structure_get_string (s, "model_name");
  const gchar *attribute = gst_structure_get_string (s, "attribute_name");
  JsonObject *cls, *model_object;

  if (label == NULL || model == NULL)
    return;
  cls = json_object_new ();
  model_object = json_object_new ();
  set_string (cls, "label", label);
  set_string (model_object, "name", model);
  json_object_set_object_member (cls, "model", model_object);
  set_confidence_and_label_id (cls, s);
  json_object_set_object_member (object, attribute ? attribute :
      gst_structure_get_name (s), cls);
}

static JsonObject *
roi_object (GstVideoRegionOfInterestMeta * roi)
{
  JsonObject *o = json_object_new ();
  const gchar *roi_type = g_quark_to_string (roi->roi_type);
  GstClvTracking tracking;

  json_object_set_int_member (o, "x", roi->x);
  json_object_set_int_member (o, "y", roi->y);
  json_object_set_int_member (o, "w", roi->w);
  json_object_set_int_member (o, "h", roi->h);
  json_object_set_int_member (o, "region_id", roi->id);
  if (roi->parent_id >= 0)
    json_object_set_int_member (o, "parent_id", roi->parent_id);
  if (gst_clv_roi_meta_get_tracking (roi, &tracking))
    json_object_set_int_member (o, "id", (gint64) tracking.id);
  if (roi_type != NULL)
    set_string (o, "roi_type", roi_type);
  for (GList * l = roi->params; l != NULL; l = l->next) {
    if (gst_structure_has_name (l->data, GST_CLV_DETECTION_NAME))
      set_detection (o, l->data, roi_type);
    else
      set_classification (o, l->data);
  }
  return o;
}

gchar *
roi_export_gva_record (GstBuffer * buf, const GstSegment * segment,
    gint width, gint height, const gchar * source, JsonNode * tags,
    gboolean add_empty)
{
  JsonObject *record, *resolution;
  JsonArray *objects = json_array_new ();
  JsonBuilder *b;
  JsonNode *root;
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  gpointer state = NULL;
  GstMeta *meta;
  gchar *line;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL)
    json_array_add_object_element (objects,
        roi_object ((GstVideoRegionOfInterestMeta *) meta));
  if (json_array_get_length (objects) == 0 && !add_empty) {
    json_array_unref (objects);
    return NULL;
  }
  record = json_object_new ();
  resolution = json_object_new ();
  json_object_set_int_member (resolution, "width", width);
  json_object_set_int_member (resolution, "height", height);
  json_object_set_object_member (record, "resolution", resolution);
  if (source != NULL)
    set_string (record, "source", source);
  if (segment->format == GST_FORMAT_TIME)
    ts = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
  if (GST_CLOCK_TIME_IS_VALID (ts))
    json_object_set_int_member (record, "timestamp", (gint64) ts);
  if (tags != NULL)
    json_object_set_member (record, "tags", json_node_copy (tags));
  if (json_array_get_length (objects) > 0)
    json_object_set_array_member (record, "objects", objects);
  else
    json_array_unref (objects);

  root = json_node_init_object (json_node_alloc (), record);
  b = json_builder_new ();
  add_sorted (b, root);
  line = roi_export_json_line (b);
  g_object_unref (b);
  json_node_unref (root);
  json_object_unref (record);
  return line;
}
