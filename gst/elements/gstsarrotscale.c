/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sarrotscale
 * @title: sarrotscale
 *
 * Rotates a SAR image by `angle` degrees counter-clockwise (as seen on
 * screen) and scales it by `scale` about the image centre, on an OpenCL
 * device.  Output pixel (xo, yo) samples the input at
 * u = (xo - cxo) / s, v = (yo - cyo) / s,
 * xs = u cos a - v sin a + cxi, ys = u sin a + v cos a + cyi,
 * with centres c = (size - 1) / 2, by `nearest` or `bilinear`
 * interpolation; what falls outside the input takes the `background`
 * value.  Because image y grows downwards, a positive angle turns the
 * picture counter-clockwise on screen: at 90° the input's right edge
 * becomes the output's top edge.  Multiples of 90° (with a square or
 * transposed output) are exact pixel permutations, and the defaults (0°,
 * scale 1) reproduce the input exactly.  Bilinear weighs the four pixels
 * around the sample; a neighbour outside the input counts as `background`,
 * so the image blends into the background over one pixel at its border.
 * GRAY8 and GRAY16_LE results are rounded to nearest; Float32 is stored
 * as interpolated, and takes the caps' no-data value, where it has one, as
 * its background.  The output is `width` x `height` (0: the input's size),
 * in the input's format; every property can change while
 * playing (`width` and `height` renegotiate the output caps).  ROI metas are mapped through the transform: the bounding
 * box of the four mapped corners, clipped to the frame; ROIs that end up
 * outside are dropped.  The georeferencing meta (GstClvGeoMeta) is
 * composed with the same transform: rotation, pixel size and origin; its
 * ground control points move with their pixels.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=examples/data/ERSBefore.png ! pngdec ! \
 *     videoconvert ! video/x-raw,format=GRAY8 ! \
 *     sarrotscale angle=30 scale=1.5 ! videoconvert ! pngenc ! \
 *     filesink location=rotated.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstsarrotscale.h"
#include "gstsarcaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_sar_rotscale_debug);
#define GST_CAT_DEFAULT gst_sar_rotscale_debug

#define DEFAULT_ANGLE 0.0
#define DEFAULT_SCALE 1.0
#define MIN_SCALE 1e-6
#define MAX_SCALE 1e6
#define DEFAULT_WIDTH 0
#define DEFAULT_HEIGHT 0
#define DEFAULT_INTERPOLATION CLV_INTERP_BILINEAR
#define DEFAULT_BACKGROUND 0

enum
{
  PROP_0,
  PROP_ANGLE,
  PROP_SCALE,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_INTERPOLATION,
  PROP_BACKGROUND,
};

struct _GstSarRotscale
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gdouble angle;
  gdouble scale;
  gint width;
  gint height;
  ClvInterpolation interpolation;
  guint background;

  /* streaming */
  ClvRotscale *op;
  ClvSample op_sample;
  ClvInterpolation op_interpolation;
  ClvRotscaleGeometry geometry; /* of the frame being processed */
  guint64 size_said;            /* the output size last refused */
};

G_DEFINE_TYPE_WITH_CODE (GstSarRotscale, gst_sar_rotscale,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_sar_rotscale_debug,
        "sarrotscale", 0, "SAR rotation and scaling on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sarrotscale, "sarrotscale", GST_RANK_NONE,
    GST_TYPE_SAR_ROTSCALE);

GType
gst_sar_rotscale_interpolation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CLV_INTERP_NEAREST, "Nearest input pixel", "nearest"},
    {CLV_INTERP_BILINEAR, "Bilinear between the 4 nearest pixels",
        "bilinear"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstSarRotscaleInterpolation", values));
  return type;
}

/* Sets `field` to `size` if it is non-zero (the output size property going
 * downstream), or to any size going upstream. */
static void
set_dimension (GstStructure * s, const gchar * field, gint size,
    gboolean down)
{
  if (size == 0)
    return;
  if (down)
    gst_structure_set (s, field, G_TYPE_INT, size, NULL);
  else
    gst_structure_set (s, field, GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
}

static gboolean
gst_sar_rotscale_transform_structure (GstClvFilter * filter,
    GstPadDirection direction, GstStructure * s)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (filter);
  gint width, height;

  gint out_w, out_h;

  GST_OBJECT_LOCK (self);
  width = self->width;
  height = self->height;
  GST_OBJECT_UNLOCK (self);
  set_dimension (s, "width", width, direction == GST_PAD_SINK);
  set_dimension (s, "height", height, direction == GST_PAD_SINK);
  /* An output too large to hold fails here, saying so, rather than as a
   * bare not-negotiated. */
  return direction != GST_PAD_SINK
      || !gst_structure_get_int (s, "width", &out_w)
      || !gst_structure_get_int (s, "height", &out_h)
      || gst_sar_check_output_size (filter, s, out_w, out_h, "lower "
      "sarrotscale's width and height", &self->size_said);
}

/* (Re)builds the kernel if the format or the interpolation changed. */
static gboolean
ensure_kernel (GstSarRotscale * self, ClvInterpolation interp,
    GError ** error)
{
  ClvSample sample;

  if (!gst_sar_sample_of (gst_clv_filter_get_in_raster (GST_CLV_FILTER
              (self)), &sample))
    g_return_val_if_reached (FALSE);
  if (self->op && self->op_sample == sample
      && self->op_interpolation == interp)
    return TRUE;
  g_clear_pointer (&self->op, clv_rotscale_free);
  self->op = clv_rotscale_new (gst_clv_filter_get_device (GST_CLV_FILTER
          (self)), sample, interp, error);
  self->op_sample = sample;
  self->op_interpolation = interp;
  return self->op != NULL;
}

static gboolean
gst_sar_rotscale_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (filter);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  gint width, height;
  ClvInterpolation interp;
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  width = self->width ? self->width : in->width;
  height = self->height ? self->height : in->height;
  interp = self->interpolation;
  GST_OBJECT_UNLOCK (self);

  if (width != out->width || height != out->height
      || in->format != out->format)
    goto wrong_output;
  if (!ensure_kernel (self, interp, &error))
    goto no_kernel;
  return TRUE;

  /* ERRORS */
wrong_output:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " are not %dx%d in the input's "
            "format; the width and height properties fix the output size",
            outcaps, width, height), (NULL));
    return FALSE;
  }
no_kernel:
  {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
}

/* The geometry of the next frame, from the current angle and scale. */
static void
frame_geometry (GstSarRotscale * self, ClvRotscaleGeometry * g)
{
  GstClvFilter *filter = GST_CLV_FILTER (self);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  gdouble angle, scale;

  GST_OBJECT_LOCK (self);
  angle = self->angle;
  scale = self->scale;
  GST_OBJECT_UNLOCK (self);
  clv_rotscale_geometry_init (g, angle, scale, in->width, in->height,
      out->width, out->height);
}

static gboolean
gst_sar_rotscale_process (GstClvFilter * filter, cl_mem in,
    const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
    GError ** error)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (filter);
  const GstClvRasterInfo *raster = gst_clv_filter_get_in_raster (filter);
  ClvInterpolation interp;
  gdouble background;

  GST_OBJECT_LOCK (self);
  interp = self->interpolation;
  background = self->background;
  GST_OBJECT_UNLOCK (self);
  /* Float32's background is its no-data value where it has one. */
  if (raster->format == GST_CLV_RASTER_FORMAT_FLOAT32 && raster->has_nodata)
    background = raster->nodata;

  if (!ensure_kernel (self, interp, error))
    return FALSE;
  /* Kept for map_point, which maps this frame's ROI metas. */
  frame_geometry (self, &self->geometry);
  return clv_rotscale_enqueue (self->op, in, in_im, out, out_im,
      &self->geometry, background, NULL, error);
}

/* Georeferencing: composed with the sampling map, so that a ground point
 * keeps its coordinates wherever the rotation puts its pixel. */
static gboolean
gst_sar_rotscale_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  ClvRotscaleGeometry g;
  gdouble m[6];

  if (meta->info->api != GST_CLV_GEO_META_API_TYPE)
    return GST_BASE_TRANSFORM_CLASS (gst_sar_rotscale_parent_class)->
        transform_meta (trans, outbuf, meta, inbuf);
  frame_geometry (GST_SAR_ROTSCALE (trans), &g);
  clv_rotscale_inverse_affine (&g, m);
  gst_clv_geo_meta_add_mapped (outbuf, (GstClvGeoMeta *) meta, m);
  /* Added here: the base class must not copy it as well. */
  return FALSE;
}

static void
gst_sar_rotscale_map_point (GstClvFilter * filter, gdouble * x, gdouble * y)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (filter);

  clv_rotscale_map_point (&self->geometry, x, y);
}

static gboolean
gst_sar_rotscale_stop (GstBaseTransform * trans)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (trans);

  g_clear_pointer (&self->op, clv_rotscale_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_rotscale_parent_class)->stop
      (trans);
}

static void
gst_sar_rotscale_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (object);
  gboolean resize = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ANGLE:
      /* NaN passes GParamSpec validation; it has no meaning here. */
      if (isfinite (g_value_get_double (value)))
        self->angle = g_value_get_double (value);
      else
        GST_WARNING_OBJECT (self, "ignoring a non-finite angle");
      break;
    case PROP_SCALE:
      if (isfinite (g_value_get_double (value)))
        self->scale = g_value_get_double (value);
      else
        GST_WARNING_OBJECT (self, "ignoring a non-finite scale");
      break;
    case PROP_WIDTH:
      self->width = g_value_get_int (value);
      resize = TRUE;
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_int (value);
      resize = TRUE;
      break;
    case PROP_INTERPOLATION:
      self->interpolation = g_value_get_enum (value);
      break;
    case PROP_BACKGROUND:
      self->background = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (resize)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_sar_rotscale_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSarRotscale *self = GST_SAR_ROTSCALE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ANGLE:
      g_value_set_double (value, self->angle);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_WIDTH:
      g_value_set_int (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, self->height);
      break;
    case PROP_INTERPOLATION:
      g_value_set_enum (value, self->interpolation);
      break;
    case PROP_BACKGROUND:
      g_value_set_uint (value, self->background);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_rotscale_class_init (GstSarRotscaleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_sar_rotscale_set_property;
  gobject_class->get_property = gst_sar_rotscale_get_property;

  /**
   * GstSarRotscale:angle:
   *
   * Rotation in degrees, counter-clockwise as seen on screen (image y
   * grows downwards); any finite value.  Multiples of 90 are exact pixel
   * permutations.
   */
  g_object_class_install_property (gobject_class, PROP_ANGLE,
      g_param_spec_double ("angle", "Angle",
          "Rotation in degrees, counter-clockwise on screen", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_ANGLE, flags));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "Magnification about the centre (2: twice as large)", MIN_SCALE,
          MAX_SCALE, DEFAULT_SCALE, flags));
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width",
          "Output width (0: the input width)", 0, G_MAXINT, DEFAULT_WIDTH,
          flags));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height",
          "Output height (0: the input height)", 0, G_MAXINT, DEFAULT_HEIGHT,
          flags));
  g_object_class_install_property (gobject_class, PROP_INTERPOLATION,
      g_param_spec_enum ("interpolation", "Interpolation",
          "How a sample between pixels is computed",
          GST_TYPE_SAR_ROTSCALE_INTERPOLATION, DEFAULT_INTERPOLATION, flags));
  /**
   * GstSarRotscale:background:
   *
   * The value of output pixels that sample outside the input.  Bilinear
   * samples near the edge count each outside neighbour as this value.
   * GRAY8 clamps it to 255.
   */
  g_object_class_install_property (gobject_class, PROP_BACKGROUND,
      g_param_spec_uint ("background", "Background",
          "Value outside the input (GRAY8: 0-255, larger is 255; GRAY16: "
          "0-65535; Float32: this, or the no-data value)", 0, 65535,
          DEFAULT_BACKGROUND, flags));

  gst_element_class_set_static_metadata (element_class,
      "SAR rotation and scaling", "Filter/Effect/Video",
      "Rotates and scales a SAR image on an OpenCL device",
      "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class,
      "{ GRAY8, GRAY16_LE }", "format = (string) Float32, bands = (int) 1",
      "{ GRAY8, GRAY16_LE }", "format = (string) Float32, bands = (int) 1");

  trans_class->stop = gst_sar_rotscale_stop;
  filter_class->set_info = gst_sar_rotscale_set_info;
  filter_class->transform_structure = gst_sar_rotscale_transform_structure;
  filter_class->process = gst_sar_rotscale_process;
  filter_class->map_point = gst_sar_rotscale_map_point;
  trans_class->transform_meta = gst_sar_rotscale_transform_meta;

  gst_type_mark_as_plugin_api (GST_TYPE_SAR_ROTSCALE_INTERPOLATION, 0);
}

static void
gst_sar_rotscale_init (GstSarRotscale * self)
{
  self->angle = DEFAULT_ANGLE;
  self->scale = DEFAULT_SCALE;
  self->width = DEFAULT_WIDTH;
  self->height = DEFAULT_HEIGHT;
  self->interpolation = DEFAULT_INTERPOLATION;
  self->background = DEFAULT_BACKGROUND;
}
