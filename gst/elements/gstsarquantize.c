/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sarquantize
 * @title: sarquantize
 *
 * Quantizes a SAR image to GRAY8 display levels on an OpenCL device,
 * normalising each pixel by the means of its row and column:
 * F(x,y) = clamp(round(I(x,y) coef M / (Rmean(y) Cmean(x))), 0, 255),
 * where M is the mean of the whole frame.  A pixel whose row or column
 * is all zero becomes 0; a flat image maps every pixel to `coef`.  For
 * GRAY8 and GRAY16_LE the arithmetic is exact integer sums, then single
 * precision with correctly rounded reciprocals, so every device gives the
 * same bytes.  Float32 is summed in double precision (where the device has
 * it); its pixels that are not finite or equal to the caps' no-data value
 * count as 0 and become 0.  The output has the input's size; ROI metas and
 * the georeferencing meta pass unchanged.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=examples/data/ERSBefore.png ! pngdec ! \
 *     videoconvert ! video/x-raw,format=GRAY16_LE ! sarquantize coef=35 ! \
 *     videoconvert ! pngenc ! filesink location=quantized.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstsarquantize.h"
#include "gstsarcaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_sar_quantize_debug);
#define GST_CAT_DEFAULT gst_sar_quantize_debug

#define DEFAULT_COEF 35.0
#define MAX_COEF 1e6

enum
{
  PROP_0,
  PROP_COEF,
};

struct _GstSarQuantize
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gdouble coef;

  /* streaming */
  ClvQuantize *op;              /* integers */
  ClvQuantizeFloat *float_op;   /* Float32 */
};

G_DEFINE_TYPE_WITH_CODE (GstSarQuantize, gst_sar_quantize,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_sar_quantize_debug,
        "sarquantize", 0, "SAR quantization on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sarquantize, "sarquantize", GST_RANK_NONE,
    GST_TYPE_SAR_QUANTIZE);

static GstCaps *
gst_sar_quantize_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_sar_transform_caps_same_size (trans, direction, caps, filter,
      NULL);
}

static gboolean
gst_sar_quantize_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarQuantize *self = GST_SAR_QUANTIZE (filter);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  ClvDevice *dev = gst_clv_filter_get_device (filter);
  const ClvNodata nodata = { in->nodata };
  GError *error = NULL;

  if (in->width != out->width || in->height != out->height
      || out->format != GST_CLV_RASTER_FORMAT_BYTE)
    goto wrong_output;
  g_clear_pointer (&self->op, clv_quantize_free);
  g_clear_pointer (&self->float_op, clv_quantize_float_free);
  if (in->format == GST_CLV_RASTER_FORMAT_FLOAT32)
    self->float_op = clv_quantize_float_new (dev, in->has_nodata ? &nodata :
        NULL, &error);
  else
    self->op = clv_quantize_new (dev, in->format ==
        GST_CLV_RASTER_FORMAT_BYTE ? 1 : 2, &error);
  if (self->op == NULL && self->float_op == NULL)
    goto no_kernel;
  return TRUE;

  /* ERRORS */
wrong_output:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " are not GRAY8 of the input's "
            "%dx%d size", outcaps, in->width, in->height), (NULL));
    return FALSE;
  }
no_kernel:
  {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
}

static gboolean
gst_sar_quantize_process (GstClvFilter * filter, cl_mem in,
    const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
    GError ** error)
{
  GstSarQuantize *self = GST_SAR_QUANTIZE (filter);
  gdouble coef;

  GST_OBJECT_LOCK (self);
  coef = self->coef;
  GST_OBJECT_UNLOCK (self);
  if (self->float_op)
    return clv_quantize_float_enqueue (self->float_op, in, in_im, out, out_im,
        coef, error);
  return clv_quantize_enqueue (self->op, in, in_im, out, out_im, coef, NULL,
      error);
}

static gboolean
gst_sar_quantize_stop (GstBaseTransform * trans)
{
  GstSarQuantize *self = GST_SAR_QUANTIZE (trans);

  g_clear_pointer (&self->op, clv_quantize_free);
  g_clear_pointer (&self->float_op, clv_quantize_float_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_quantize_parent_class)->stop
      (trans);
}

static void
gst_sar_quantize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarQuantize *self = GST_SAR_QUANTIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COEF:
      /* NaN passes GParamSpec validation and would reach the pixels. */
      if (!isnan (g_value_get_double (value)))
        self->coef = g_value_get_double (value);
      else
        GST_WARNING_OBJECT (self, "ignoring coef NaN");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_quantize_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSarQuantize *self = GST_SAR_QUANTIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COEF:
      g_value_set_double (value, self->coef);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Quantization keeps the geometry: the georeferencing meta is copied. */
static void
gst_sar_quantize_class_init (GstSarQuantizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  gobject_class->set_property = gst_sar_quantize_set_property;
  gobject_class->get_property = gst_sar_quantize_get_property;

  /**
   * GstSarQuantize:coef:
   *
   * The output level of a pixel equal to its row and column means when
   * those equal the frame mean (a flat image maps to coef).  Used in
   * single precision.
   */
  g_object_class_install_property (gobject_class, PROP_COEF,
      g_param_spec_double ("coef", "Coefficient",
          "Output level of an average pixel", 0, MAX_COEF, DEFAULT_COEF,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "SAR quantization",
      "Filter/Effect/Video",
      "Quantizes a SAR image to 8-bit levels normalised by its row and "
      "column means, on an OpenCL device", "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class,
      "{ GRAY8, GRAY16_LE }", "format = (string) Float32, bands = (int) 1",
      "GRAY8", NULL);

  trans_class->transform_caps = gst_sar_quantize_transform_caps;
  trans_class->stop = gst_sar_quantize_stop;
  trans_class->transform_meta = gst_sar_same_geometry_transform_meta;
  filter_class->set_info = gst_sar_quantize_set_info;
  filter_class->process = gst_sar_quantize_process;
}

static void
gst_sar_quantize_init (GstSarQuantize * self)
{
  self->coef = DEFAULT_COEF;
}
