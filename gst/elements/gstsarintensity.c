/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sarintensity
 * @title: sarintensity
 *
 * Detects complex SAR samples (a single-look complex product: CInt16 or
 * CFloat32) on an OpenCL device, into Float32: `output=intensity` gives
 * |z|² (the power, σ0's domain), `amplitude` |z|, `phase` arg z in radians,
 * in (−π, π].  It equals Orfeo ToolBox's `otbcli_ComputeModulusAndPhase`
 * (amplitude and phase) and `otbcli_BandMath -exp
 * "im1b1*im1b1+im1b2*im1b2"` (intensity): the value is evaluated in double
 * precision where the device has it and rounded once.  A no-data value z
 * in the caps becomes |z|² or |z| (the phase has none).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=slc.tif ! sarintensity ! \
 *     sarmultilook looks=4 ! gdalsink location=intensity.tif
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstsarintensity.h"
#include "gstsarcaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_sar_intensity_debug);
#define GST_CAT_DEFAULT gst_sar_intensity_debug

#define DEFAULT_OUTPUT CLV_DETECT_INTENSITY

enum
{
  PROP_0,
  PROP_OUTPUT,
};

struct _GstSarIntensity
{
  GstClvFilter parent;

  /* properties, under the object lock */
  ClvDetect output;

  /* streaming */
  ClvPointwise *op;
};

G_DEFINE_TYPE_WITH_CODE (GstSarIntensity, gst_sar_intensity,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_sar_intensity_debug,
        "sarintensity", 0, "SAR detection of complex samples on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sarintensity, "sarintensity", GST_RANK_NONE,
    GST_TYPE_SAR_INTENSITY);

GType
gst_sar_intensity_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CLV_DETECT_INTENSITY, "|z| squared", "intensity"},
    {CLV_DETECT_AMPLITUDE, "|z|", "amplitude"},
    {CLV_DETECT_PHASE, "arg z, radians", "phase"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstSarIntensityOutput", values));
  return type;
}

static ClvDetect
get_output (GstSarIntensity * self)
{
  ClvDetect output;

  GST_OBJECT_LOCK (self);
  output = self->output;
  GST_OBJECT_UNLOCK (self);
  return output;
}

/* A complex no-data value is its real part (GDAL's rule). */
static gboolean
map_nodata (GstBaseTransform * trans, gdouble in, gdouble * out)
{
  switch (get_output (GST_SAR_INTENSITY (trans))) {
    case CLV_DETECT_INTENSITY:
      *out = (gdouble) (float) (in * in);
      return TRUE;
    case CLV_DETECT_AMPLITUDE:
      *out = (gdouble) (float) fabs (in);
      return TRUE;
    default:
      return FALSE;
  }
}

static GstCaps *
gst_sar_intensity_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_sar_transform_caps_same_size (trans, direction, caps, filter,
      map_nodata);
}

static gboolean
gst_sar_intensity_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarIntensity *self = GST_SAR_INTENSITY (filter);
  ClvSample sample;
  GError *error = NULL;

  if (!gst_sar_sample_of (gst_clv_filter_get_in_raster (filter), &sample))
    g_return_val_if_reached (FALSE);
  g_clear_pointer (&self->op, clv_pointwise_free);
  self->op = clv_detect_new (gst_clv_filter_get_device (filter), sample,
      get_output (self), &error);
  if (self->op == NULL) {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_sar_intensity_process (GstClvFilter * filter, cl_mem in,
    const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
    GError ** error)
{
  return clv_pointwise_enqueue (GST_SAR_INTENSITY (filter)->op, in, in_im,
      out, out_im, NULL, error);
}

static gboolean
gst_sar_intensity_stop (GstBaseTransform * trans)
{
  g_clear_pointer (&GST_SAR_INTENSITY (trans)->op, clv_pointwise_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_intensity_parent_class)->stop
      (trans);
}

static void
gst_sar_intensity_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarIntensity *self = GST_SAR_INTENSITY (object);

  switch (prop_id) {
    case PROP_OUTPUT:
      GST_OBJECT_LOCK (self);
      self->output = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_sar_intensity_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  switch (prop_id) {
    case PROP_OUTPUT:
      g_value_set_enum (value, get_output (GST_SAR_INTENSITY (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_sar_intensity_class_init (GstSarIntensityClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  gobject_class->set_property = gst_sar_intensity_set_property;
  gobject_class->get_property = gst_sar_intensity_get_property;

  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What of the complex samples: intensity |z|^2, amplitude |z| or "
          "phase arg z", GST_TYPE_SAR_INTENSITY_OUTPUT, DEFAULT_OUTPUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class, "SAR detection",
      "Filter/Converter/Video",
      "Intensity, amplitude or phase of complex SAR samples on an OpenCL "
      "device", "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class, NULL,
      "format = (string) { CInt16, CFloat32 }, bands = (int) 1", NULL,
      "format = (string) Float32, bands = (int) 1");

  trans_class->transform_caps = gst_sar_intensity_transform_caps;
  trans_class->transform_meta = gst_sar_same_geometry_transform_meta;
  trans_class->stop = gst_sar_intensity_stop;
  filter_class->set_info = gst_sar_intensity_set_info;
  filter_class->process = gst_sar_intensity_process;

  gst_type_mark_as_plugin_api (GST_TYPE_SAR_INTENSITY_OUTPUT, 0);
}

static void
gst_sar_intensity_init (GstSarIntensity * self)
{
  self->output = DEFAULT_OUTPUT;
}
