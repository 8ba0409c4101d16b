/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sardb
 * @title: sardb
 *
 * Converts SAR values to decibels on an OpenCL device, into Float32:
 * 10·log10 v for `input=intensity` (power: σ0, β0, |z|²), 20·log10 v for
 * `amplitude`.  Values at or below 0, and those whose dB value is below
 * `floor`, become `floor`; NaN stays NaN.  Where the input caps carry a
 * no-data value, those pixels become `nodata`, which the output caps carry
 * as theirs.  GRAY8 and GRAY16_LE input (digital numbers) is converted as
 * it is; the value is evaluated in double precision where the device has
 * it and rounded once.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=sigma0.tif ! sarspeckle filter=lee ! \
 *     sardb ! gdalsink location=sigma0-db.tif
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsardb.h"
#include "gstsarcaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_sar_db_debug);
#define GST_CAT_DEFAULT gst_sar_db_debug

#define DEFAULT_AMPLITUDE FALSE
#define DEFAULT_FLOOR -100.0
#define DEFAULT_NODATA -9999.0

enum
{
  PROP_0,
  PROP_INPUT,
  PROP_FLOOR,
  PROP_NODATA,
};

struct _GstSarDb
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gboolean amplitude;
  gdouble floor_db;
  gdouble nodata;

  /* streaming */
  ClvPointwise *op;
};

G_DEFINE_TYPE_WITH_CODE (GstSarDb, gst_sar_db, GST_TYPE_CLV_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_sar_db_debug, "sardb", 0,
        "SAR values to decibels on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sardb, "sardb", GST_RANK_NONE, GST_TYPE_SAR_DB);

GType
gst_sar_db_input_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FALSE, "Power: 10 log10", "intensity"},
    {TRUE, "Amplitude: 20 log10", "amplitude"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstSarDbInput",
            values));
  return type;
}

/* The rule of the properties, for frames of the current caps. */
static ClvDbParams
get_params (GstSarDb * self)
{
  const GstClvRasterInfo *in =
      gst_clv_filter_get_in_raster (GST_CLV_FILTER (self));
  ClvDbParams p;

  GST_OBJECT_LOCK (self);
  p.amplitude = self->amplitude;
  p.floor_db = (float) self->floor_db;
  p.nodata_out = (float) self->nodata;
  GST_OBJECT_UNLOCK (self);
  p.has_nodata = in->has_nodata;
  p.nodata_in = (float) in->nodata;
  return p;
}

static gboolean
map_nodata (GstBaseTransform * trans, gdouble in, gdouble * out)
{
  GstSarDb *self = GST_SAR_DB (trans);

  GST_OBJECT_LOCK (self);
  *out = (gdouble) (float) self->nodata;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static GstCaps *
gst_sar_db_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_sar_transform_caps_same_size (trans, direction, caps, filter,
      map_nodata);
}

static gboolean
gst_sar_db_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarDb *self = GST_SAR_DB (filter);
  const ClvDbParams params = get_params (self);
  ClvSample sample;
  GError *error = NULL;

  if (!gst_sar_sample_of (gst_clv_filter_get_in_raster (filter), &sample))
    g_return_val_if_reached (FALSE);
  g_clear_pointer (&self->op, clv_pointwise_free);
  self->op = clv_db_new (gst_clv_filter_get_device (filter), sample, &params,
      &error);
  if (self->op == NULL) {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_sar_db_process (GstClvFilter * filter, cl_mem in, const ClvImage * in_im,
    cl_mem out, const ClvImage * out_im, GError ** error)
{
  return clv_pointwise_enqueue (GST_SAR_DB (filter)->op, in, in_im, out,
      out_im, NULL, error);
}

static gboolean
gst_sar_db_stop (GstBaseTransform * trans)
{
  g_clear_pointer (&GST_SAR_DB (trans)->op, clv_pointwise_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_db_parent_class)->stop (trans);
}

static void
gst_sar_db_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarDb *self = GST_SAR_DB (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INPUT:
      self->amplitude = g_value_get_enum (value);
      break;
    case PROP_FLOOR:
      self->floor_db = g_value_get_double (value);
      break;
    case PROP_NODATA:
      self->nodata = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_db_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSarDb *self = GST_SAR_DB (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INPUT:
      g_value_set_enum (value, self->amplitude);
      break;
    case PROP_FLOOR:
      g_value_set_double (value, self->floor_db);
      break;
    case PROP_NODATA:
      g_value_set_double (value, self->nodata);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_db_class_init (GstSarDbClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_sar_db_set_property;
  gobject_class->get_property = gst_sar_db_get_property;

  g_object_class_install_property (gobject_class, PROP_INPUT,
      g_param_spec_enum ("input", "Input", "What the values are: intensity "
          "(10 log10) or amplitude (20 log10)", GST_TYPE_SAR_DB_INPUT,
          DEFAULT_AMPLITUDE, ready));
  g_object_class_install_property (gobject_class, PROP_FLOOR,
      g_param_spec_double ("floor", "Floor", "The lowest dB value: values "
          "<= 0 and those below it become it", -G_MAXFLOAT, G_MAXFLOAT,
          DEFAULT_FLOOR, ready));
  g_object_class_install_property (gobject_class, PROP_NODATA,
      g_param_spec_double ("nodata", "No-data value", "What the input's "
          "no-data pixels become (the output's no-data value)", -G_MAXFLOAT,
          G_MAXFLOAT, DEFAULT_NODATA, ready));

  gst_element_class_set_static_metadata (element_class, "SAR decibels",
      "Filter/Converter/Video", "SAR intensity or amplitude to dB on an "
      "OpenCL device", "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class,
      "{ GRAY8, GRAY16_LE }", "format = (string) Float32, bands = (int) 1",
      NULL, "format = (string) Float32, bands = (int) 1");

  trans_class->transform_caps = gst_sar_db_transform_caps;
  trans_class->transform_meta = gst_sar_same_geometry_transform_meta;
  trans_class->stop = gst_sar_db_stop;
  filter_class->set_info = gst_sar_db_set_info;
  filter_class->process = gst_sar_db_process;

  gst_type_mark_as_plugin_api (GST_TYPE_SAR_DB_INPUT, 0);
}

static void
gst_sar_db_init (GstSarDb * self)
{
  self->amplitude = DEFAULT_AMPLITUDE;
  self->floor_db = DEFAULT_FLOOR;
  self->nodata = DEFAULT_NODATA;
}
