/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sarmultilook
 * @title: sarmultilook
 *
 * Multilooks a SAR image on an OpenCL device: every output pixel is the mean
 * of a block of `range-looks` columns by `azimuth-looks` rows, so the output
 * is ⌊W/range-looks⌋ × ⌊H/azimuth-looks⌋ (partial blocks are dropped).
 * `input-domain=intensity` averages the values (the rule of Li, Liang,
 * Zhang and Li, "Parallel Optimization Strategy of Airborne SAR Imaging
 * Algorithm Based on ARM GPU");
 * `amplitude` averages their squares and takes the root, the power-domain
 * mean ESA SNAP uses.  GRAY8 and GRAY16_LE results are rounded to nearest
 * (halves up), in the input format.  Float32 is averaged in double
 * precision and rounded once (equal to `gdal_translate -r average`),
 * pixels equal to the caps' no-data value left out as GDAL does; complex
 * samples (CInt16, CFloat32) are detected first: the output is the Float32
 * mean of |z|², the intensity (with `input-domain=amplitude`, its root).
 * A frame smaller than one block fails negotiation with a message that says
 * so.  ROI metas are scaled with the image; the georeferencing meta
 * (GstClvGeoMeta) gets the looks' pixel size, from the same origin, and its
 * ground control points' pixel and line are divided by the looks.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=examples/data/ERSBefore.png ! pngdec ! \
 *     videoconvert ! video/x-raw,format=GRAY8 ! sarmultilook looks=2 ! \
 *     videoconvert ! pngenc ! filesink location=multilooked.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsarmultilook.h"
#include "gstsarcaps.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_sar_multilook_debug);
#define GST_CAT_DEFAULT gst_sar_multilook_debug

#define DEFAULT_LOOKS 4
#define MAX_LOOKS 64
#define DEFAULT_DOMAIN CLV_MULTILOOK_INTENSITY

enum
{
  PROP_0,
  PROP_RANGE_LOOKS,
  PROP_AZIMUTH_LOOKS,
  PROP_LOOKS,
  PROP_INPUT_DOMAIN,
};

struct _GstSarMultilook
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gint range_looks;
  gint azimuth_looks;
  ClvMultilookDomain domain;

  /* streaming */
  ClvMultilook *op;
  gint cur_rl, cur_al;          /* the looks the current caps were made with */
  guint64 small_said;           /* the frame size last said too small */
};

G_DEFINE_TYPE_WITH_CODE (GstSarMultilook, gst_sar_multilook,
    GST_TYPE_CLV_FILTER, GST_DEBUG_CATEGORY_INIT (gst_sar_multilook_debug,
        "sarmultilook", 0, "SAR multilook on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sarmultilook, "sarmultilook", GST_RANK_NONE,
    GST_TYPE_SAR_MULTILOOK);

GType
gst_sar_multilook_domain_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CLV_MULTILOOK_INTENSITY, "Mean of the values", "intensity"},
    {CLV_MULTILOOK_AMPLITUDE, "Root of the mean of the squares", "amplitude"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstSarMultilookDomain", values));
  return type;
}

static ClvMultilookDomain
get_domain (GstSarMultilook * self)
{
  ClvMultilookDomain domain;

  GST_OBJECT_LOCK (self);
  domain = self->domain;
  GST_OBJECT_UNLOCK (self);
  return domain;
}

static void
get_looks (GstSarMultilook * self, gint * rl, gint * al)
{
  GST_OBJECT_LOCK (self);
  *rl = self->range_looks;
  *al = self->azimuth_looks;
  GST_OBJECT_UNLOCK (self);
}

/* Divides (direction sink->src) or multiplies an int, int range or list. */
static gboolean
scale_dimension (GValue * out, const GValue * in, gint looks, gboolean down)
{
  gint64 lo, hi;

  if (GST_VALUE_HOLDS_LIST (in)) {
    g_value_init (out, GST_TYPE_LIST);
    for (guint i = 0; i < gst_value_list_get_size (in); i++) {
      GValue v = G_VALUE_INIT;
      if (scale_dimension (&v, gst_value_list_get_value (in, i), looks, down))
        gst_value_list_append_and_take_value (out, &v);
    }
    if (gst_value_list_get_size (out) > 0)
      return TRUE;
    g_value_unset (out);
    return FALSE;
  }
  if (G_VALUE_HOLDS_INT (in)) {
    lo = hi = g_value_get_int (in);
  } else if (GST_VALUE_HOLDS_INT_RANGE (in)) {
    lo = gst_value_get_int_range_min (in);
    hi = gst_value_get_int_range_max (in);
  } else {
    return FALSE;
  }
  if (down) {
    lo = MAX (lo / looks, 1);
    hi = MAX (hi / looks, 1);
  } else {
    /* Every input size that multilooks to [lo, hi]. */
    if (lo * looks > G_MAXINT)
      return FALSE;
    lo = lo * looks;
    hi = MIN (hi * looks + looks - 1, G_MAXINT);
  }
  /* A single value is an int: a range needs two different ends. */
  if (lo == hi) {
    g_value_init (out, G_TYPE_INT);
    g_value_set_int (out, (gint) lo);
  } else {
    g_value_init (out, GST_TYPE_INT_RANGE);
    gst_value_set_int_range (out, (gint) lo, (gint) hi);
  }
  return TRUE;
}

static gboolean
gst_sar_multilook_transform_structure (GstClvFilter * filter,
    GstPadDirection direction, GstStructure * s)
{
  const GValue *w = gst_structure_get_value (s, "width");
  const GValue *h = gst_structure_get_value (s, "height");
  const gboolean down = direction == GST_PAD_SINK;
  GValue nw = G_VALUE_INIT, nh = G_VALUE_INIT;
  gint rl, al;

  get_looks (GST_SAR_MULTILOOK (filter), &rl, &al);
  if (!w || !h || !scale_dimension (&nw, w, rl, down)
      || !scale_dimension (&nh, h, al, down)) {
    if (G_IS_VALUE (&nw))
      g_value_unset (&nw);
    return FALSE;
  }
  gst_structure_take_value (s, "width", &nw);
  gst_structure_take_value (s, "height", &nh);
  /* Float32 comes out of Float32 and of complex samples, whose no-data
   * value z becomes |z|^2 (or |z|). */
  if (gst_structure_has_name (s, GST_CLV_RASTER_MEDIA_TYPE)) {
    const gchar *format = gst_structure_get_string (s, "format");
    gdouble nodata;

    if (down && format && strcmp (format, "Float32") != 0
        && gst_structure_get_double (s, "nodata", &nodata))
      gst_structure_set (s, "nodata", G_TYPE_DOUBLE, (gdouble) (float)
          (get_domain (GST_SAR_MULTILOOK (filter)) ==
              CLV_MULTILOOK_AMPLITUDE ? fabs (nodata) : nodata * nodata),
          NULL);
    if (down) {
      gst_structure_set (s, "format", G_TYPE_STRING, "Float32", NULL);
    } else {
      GValue formats = G_VALUE_INIT;

      g_value_init (&formats, GST_TYPE_LIST);
      gst_value_deserialize (&formats, "{ Float32, CInt16, CFloat32 }");
      gst_structure_take_value (s, "format", &formats);
      gst_structure_remove_field (s, "nodata");
    }
  }
  /* Looks change the pixel shape; leave its ratio to the peers. */
  gst_structure_remove_field (s, "pixel-aspect-ratio");
  return TRUE;
}

static void
post_too_small (GstSarMultilook * self, gint w, gint h, gint rl, gint al)
{
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("The %dx%d frame is smaller "
          "than one %dx%d look block; lower range-looks/azimuth-looks or "
          "feed larger frames", w, h, rl, al), (NULL));
}

/* A caps query from upstream that asks only for frames smaller than one
 * look block is a negotiation that would fail with no other word than
 * "not-negotiated" (the source and transform_caps need a block): say why
 * and what to change, once per size. */
static void
say_frame_too_small (GstSarMultilook * self, GstQuery * query)
{
  GstCaps *filter = NULL;
  gint rl, al, w = 0, h = 0;

  get_looks (self, &rl, &al);
  gst_query_parse_caps (query, &filter);
  if (filter == NULL || gst_caps_is_empty (filter)
      || gst_caps_is_any (filter))
    return;
  for (guint i = 0; i < gst_caps_get_size (filter); i++) {
    const GstStructure *st = gst_caps_get_structure (filter, i);

    if (!gst_structure_get_int (st, "width", &w)
        || !gst_structure_get_int (st, "height", &h)
        || (w >= rl && h >= al))
      return;
  }
  if (self->small_said == ((guint64) w << 32 | (guint) h))
    return;
  self->small_said = (guint64) w << 32 | (guint) h;
  post_too_small (self, w, h, rl, al);
}

static gboolean
gst_sar_multilook_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && direction == GST_PAD_SINK
      && GST_STATE (trans) >= GST_STATE_READY)
    say_frame_too_small (GST_SAR_MULTILOOK (trans), query);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_multilook_parent_class)->query
      (trans, direction, query);
}

/* The kernel for these looks and the current frames. */
static gboolean
prepare_op (GstSarMultilook * self, gint rl, gint al, GError ** error)
{
  GstClvFilter *filter = GST_CLV_FILTER (self);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  const ClvNodata nodata = { in->nodata };
  ClvSample sample;

  if (!gst_sar_sample_of (in, &sample))
    g_return_val_if_reached (FALSE);
  g_clear_pointer (&self->op, clv_multilook_free);
  self->op = clv_multilook_new (gst_clv_filter_get_device (filter), sample,
      rl, al, get_domain (self), in->has_nodata ? &nodata : NULL, out->width,
      out->height, error);
  self->cur_rl = rl;
  self->cur_al = al;
  return self->op != NULL;
}

static gboolean
gst_sar_multilook_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (filter);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  /* Integers keep their format; the others give Float32. */
  const GstClvRasterFormat out_format = in->format <=
      GST_CLV_RASTER_FORMAT_UINT16 ? in->format :
      GST_CLV_RASTER_FORMAT_FLOAT32;
  gint rl, al, ow, oh;
  GError *error = NULL;

  get_looks (self, &rl, &al);
  if (in->width < rl || in->height < al)
    goto too_small;
  clv_multilook_out_size (in->width, in->height, rl, al, &ow, &oh);
  if (ow != out->width || oh != out->height || out->format != out_format)
    goto wrong_output;
  if (!prepare_op (self, rl, al, &error))
    goto no_kernel;
  return TRUE;

  /* ERRORS */
too_small:
  {
    post_too_small (self, in->width, in->height, rl, al);
    return FALSE;
  }
wrong_output:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output caps %" GST_PTR_FORMAT " do not match %dx%d input with "
            "%dx%d looks", outcaps, in->width, in->height, rl, al), (NULL));
    return FALSE;
  }
no_kernel:
  {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
}

/* The looks of the next frame: new looks that keep the output size
 * renegotiate nothing and apply at once; others wait for the renegotiation
 * they trigger (set_info). */
static void
get_frame_looks (GstSarMultilook * self, gint * rl, gint * al)
{
  GstClvFilter *filter = GST_CLV_FILTER (self);
  const GstClvRasterInfo *in = gst_clv_filter_get_in_raster (filter);
  const GstClvRasterInfo *out = gst_clv_filter_get_out_raster (filter);
  gint ow, oh;

  get_looks (self, rl, al);
  clv_multilook_out_size (in->width, in->height, *rl, *al, &ow, &oh);
  if (ow != out->width || oh != out->height) {
    *rl = self->cur_rl;
    *al = self->cur_al;
  }
}

static gboolean
gst_sar_multilook_process (GstClvFilter * filter, cl_mem in,
    const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
    GError ** error)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (filter);
  gint rl, al;

  get_frame_looks (self, &rl, &al);
  if ((rl != self->cur_rl || al != self->cur_al)
      && !prepare_op (self, rl, al, error))
    return FALSE;
  return clv_multilook_enqueue (self->op, in, in_im, out, out_im, NULL, error);
}

/* Georeferencing: output pixel (c, r) starts at input pixel
 * (c range-looks, r azimuth-looks), so the pixel size grows by the looks
 * and the origin stays. */
static gboolean
gst_sar_multilook_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  gint rl, al;

  if (meta->info->api != GST_CLV_GEO_META_API_TYPE)
    return GST_BASE_TRANSFORM_CLASS (gst_sar_multilook_parent_class)->
        transform_meta (trans, outbuf, meta, inbuf);
  get_frame_looks (GST_SAR_MULTILOOK (trans), &rl, &al);
  {
    const gdouble m[6] = { 0, rl, 0, 0, 0, al };
    gst_clv_geo_meta_add_mapped (outbuf, (GstClvGeoMeta *) meta, m);
  }
  /* Added here: the base class must not copy it as well. */
  return FALSE;
}

static void
gst_sar_multilook_map_point (GstClvFilter * filter, gdouble * x, gdouble * y)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (filter);

  *x /= self->cur_rl;
  *y /= self->cur_al;
}

static gboolean
gst_sar_multilook_stop (GstBaseTransform * trans)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (trans);

  g_clear_pointer (&self->op, clv_multilook_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_multilook_parent_class)->stop
      (trans);
}

static void
gst_sar_multilook_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RANGE_LOOKS:
      self->range_looks = g_value_get_int (value);
      break;
    case PROP_AZIMUTH_LOOKS:
      self->azimuth_looks = g_value_get_int (value);
      break;
    case PROP_LOOKS:
      self->range_looks = self->azimuth_looks = g_value_get_int (value);
      break;
    case PROP_INPUT_DOMAIN:
      self->domain = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* New looks mean new output caps. */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_sar_multilook_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSarMultilook *self = GST_SAR_MULTILOOK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RANGE_LOOKS:
      g_value_set_int (value, self->range_looks);
      break;
    case PROP_AZIMUTH_LOOKS:
      g_value_set_int (value, self->azimuth_looks);
      break;
    case PROP_LOOKS:
      g_value_set_int (value, self->range_looks);
      break;
    case PROP_INPUT_DOMAIN:
      g_value_set_enum (value, self->domain);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_multilook_class_init (GstSarMultilookClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  gobject_class->set_property = gst_sar_multilook_set_property;
  gobject_class->get_property = gst_sar_multilook_get_property;

  g_object_class_install_property (gobject_class, PROP_RANGE_LOOKS,
      g_param_spec_int ("range-looks", "Range looks",
          "Columns averaged into one output pixel", 1, MAX_LOOKS,
          DEFAULT_LOOKS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_AZIMUTH_LOOKS,
      g_param_spec_int ("azimuth-looks", "Azimuth looks",
          "Rows averaged into one output pixel", 1, MAX_LOOKS,
          DEFAULT_LOOKS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstSarMultilook:looks:
   *
   * Sets range-looks and azimuth-looks together; reads as range-looks.
   */
  g_object_class_install_property (gobject_class, PROP_LOOKS,
      g_param_spec_int ("looks", "Looks",
          "Range and azimuth looks together (reads as range-looks)",
          1, MAX_LOOKS, DEFAULT_LOOKS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_INPUT_DOMAIN,
      g_param_spec_enum ("input-domain", "Input domain",
          "What the pixels hold: intensity (plain mean) or amplitude "
          "(root of the mean of squares)", GST_TYPE_SAR_MULTILOOK_DOMAIN,
          DEFAULT_DOMAIN, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class, "SAR multilook",
      "Filter/Effect/Video/Scaler",
      "Averages range x azimuth looks of a SAR image on an OpenCL device",
      "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class,
      "{ GRAY8, GRAY16_LE }", "format = (string) { Float32, CInt16, "
      "CFloat32 }, bands = (int) 1", "{ GRAY8, GRAY16_LE }",
      "format = (string) Float32, bands = (int) 1");

  trans_class->stop = gst_sar_multilook_stop;
  trans_class->query = gst_sar_multilook_query;
  trans_class->transform_meta = gst_sar_multilook_transform_meta;
  filter_class->set_info = gst_sar_multilook_set_info;
  filter_class->transform_structure = gst_sar_multilook_transform_structure;
  filter_class->process = gst_sar_multilook_process;
  filter_class->map_point = gst_sar_multilook_map_point;

  gst_type_mark_as_plugin_api (GST_TYPE_SAR_MULTILOOK_DOMAIN, 0);
}

static void
gst_sar_multilook_init (GstSarMultilook * self)
{
  self->range_looks = self->azimuth_looks = DEFAULT_LOOKS;
  self->domain = DEFAULT_DOMAIN;
}
