/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-sarspeckle
 * @title: sarspeckle
 *
 * Reduces the speckle of a SAR intensity image on an OpenCL device, into
 * Float32 (GRAY8 and GRAY16_LE input is taken as it is).  Every filter
 * looks at a square window of side 2·`radius` + 1 around each pixel, edge
 * pixels repeated beyond the image:
 *
 * - `lee`, `frost`, `gammamap`, `kuan` equal Orfeo ToolBox 8.1's
 *   `otbcli_Despeckle` with the same `radius` and `looks` (`nblooks`), and
 *   `deramp` for Frost, borders included: the window's mean E and unbiased
 *   variance V, Cu² = 1/`looks`, Ci² = V/E²; Lee gives E + w(I − E) with
 *   w = 1 − Cu²/Ci²; Kuan w = (1 − Cu²/Ci²)/(1 + Cu²); Gamma-MAP the
 *   maximum a posteriori estimate under a Gamma prior, or I where
 *   Ci ≥ √2·Cu; all give E where Ci² < Cu².  Frost weighs each pixel by
 *   exp(−`deramp`·Ci²·d), d its distance to the centre.
 * - `refined-lee`: J.-S. Lee's refined filter (1981) in the edge-aligned
 *   windows of ESA SNAP: in a 7 × 7 window (whatever `radius`), the means
 *   of nine 3 × 3 sub-windows find the strongest edge; the 28-pixel
 *   half-window on the centre's side of it gives the MMSE estimate with
 *   noise variance 1/`looks`.
 * - `boxcar`: the window's mean; `median`: its median.
 *
 * Where the device has double precision, the outputs are OTB's: the
 * statistics are in double, or in float with the windows near a rule's
 * threshold recomputed in double (on GPUs for every filter whose window
 * is a box sum: Lee, Frost, Gamma-MAP, Kuan and boxcar;
 * `SAR_SPECKLE_FP64`, docs/tuning.md).  Without it they are in
 * float, and a few pixels near a threshold may differ.  The kernel reads
 * each tile of the image into local memory once, with its halo, and sums
 * windows separably.  The georeferencing and the no-data value go through
 * unchanged (like OTB, the filters do not skip no-data pixels).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=sigma0.tif ! sarspeckle filter=lee \
 *     radius=2 looks=4 ! gdalsink location=despeckled.tif
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsarspeckle.h"
#include "gstsarcaps.h"

GST_DEBUG_CATEGORY_STATIC (gst_sar_speckle_debug);
#define GST_CAT_DEFAULT gst_sar_speckle_debug

#define DEFAULT_FILTER CLV_SPECKLE_LEE
#define DEFAULT_RADIUS 1
#define DEFAULT_LOOKS 1.0
#define DEFAULT_DERAMP 0.1

enum
{
  PROP_0,
  PROP_FILTER,
  PROP_RADIUS,
  PROP_LOOKS,
  PROP_DERAMP,
};

struct _GstSarSpeckle
{
  GstClvFilter parent;

  /* properties, under the object lock */
  ClvSpeckleParams params;

  /* streaming */
  ClvSpeckle *op;
};

G_DEFINE_TYPE_WITH_CODE (GstSarSpeckle, gst_sar_speckle, GST_TYPE_CLV_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_sar_speckle_debug, "sarspeckle", 0,
        "SAR speckle filters on OpenCL"));
GST_ELEMENT_REGISTER_DEFINE (sarspeckle, "sarspeckle", GST_RANK_NONE,
    GST_TYPE_SAR_SPECKLE);

GType
gst_sar_speckle_filter_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CLV_SPECKLE_LEE, "Lee (OTB)", "lee"},
    {CLV_SPECKLE_FROST, "Frost (OTB)", "frost"},
    {CLV_SPECKLE_GAMMA_MAP, "Gamma-MAP (OTB)", "gammamap"},
    {CLV_SPECKLE_KUAN, "Kuan (OTB)", "kuan"},
    {CLV_SPECKLE_REFINED_LEE, "Refined Lee, 7x7 edge-aligned windows",
        "refined-lee"},
    {CLV_SPECKLE_BOXCAR, "Mean of the window", "boxcar"},
    {CLV_SPECKLE_MEDIAN, "Median of the window", "median"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstSarSpeckleFilter", values));
  return type;
}

static GstCaps *
gst_sar_speckle_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_sar_transform_caps_same_size (trans, direction, caps, filter,
      NULL);
}

static gboolean
gst_sar_speckle_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstSarSpeckle *self = GST_SAR_SPECKLE (filter);
  ClvSpeckleParams params;
  ClvSample sample;
  GError *error = NULL;

  if (!gst_sar_sample_of (gst_clv_filter_get_in_raster (filter), &sample))
    g_return_val_if_reached (FALSE);
  GST_OBJECT_LOCK (self);
  params = self->params;
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->op, clv_speckle_free);
  self->op = clv_speckle_new (gst_clv_filter_get_device (filter), sample,
      &params, &error);
  if (self->op == NULL) {
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, INIT, error);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_sar_speckle_process (GstClvFilter * filter, cl_mem in,
    const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
    GError ** error)
{
  return clv_speckle_enqueue (GST_SAR_SPECKLE (filter)->op, in, in_im, out,
      out_im, NULL, error);
}

static gboolean
gst_sar_speckle_stop (GstBaseTransform * trans)
{
  g_clear_pointer (&GST_SAR_SPECKLE (trans)->op, clv_speckle_free);
  return GST_BASE_TRANSFORM_CLASS (gst_sar_speckle_parent_class)->stop
      (trans);
}

static void
gst_sar_speckle_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSarSpeckle *self = GST_SAR_SPECKLE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FILTER:
      self->params.filter = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      self->params.radius = g_value_get_int (value);
      break;
    case PROP_LOOKS:
      self->params.looks = g_value_get_double (value);
      break;
    case PROP_DERAMP:
      self->params.deramp = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_speckle_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSarSpeckle *self = GST_SAR_SPECKLE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FILTER:
      g_value_set_enum (value, self->params.filter);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->params.radius);
      break;
    case PROP_LOOKS:
      g_value_set_double (value, self->params.looks);
      break;
    case PROP_DERAMP:
      g_value_set_double (value, self->params.deramp);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sar_speckle_class_init (GstSarSpeckleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_sar_speckle_set_property;
  gobject_class->get_property = gst_sar_speckle_get_property;

  g_object_class_install_property (gobject_class, PROP_FILTER,
      g_param_spec_enum ("filter", "Filter", "The speckle filter",
          GST_TYPE_SAR_SPECKLE_FILTER, DEFAULT_FILTER, ready));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius", "The window is 2 radius + 1 "
          "pixels a side (refined-lee: always 7)", 1, CLV_SPECKLE_MAX_RADIUS,
          DEFAULT_RADIUS, ready));
  g_object_class_install_property (gobject_class, PROP_LOOKS,
      g_param_spec_double ("looks", "Looks", "The image's equivalent number "
          "of looks (lee, gammamap, kuan, refined-lee)", 0.01, 1000,
          DEFAULT_LOOKS, ready));
  g_object_class_install_property (gobject_class, PROP_DERAMP,
      g_param_spec_double ("deramp", "Deramp", "Frost's damping of the "
          "weights with distance", 0, 1000, DEFAULT_DERAMP, ready));

  gst_element_class_set_static_metadata (element_class,
      "SAR speckle filter", "Filter/Effect/Video",
      "Lee, Frost, Gamma-MAP, Kuan (equal to Orfeo ToolBox), refined Lee, "
      "boxcar and median speckle filters on an OpenCL device",
      "clvision developers");
  gst_clv_filter_class_add_raster_pad_templates (filter_class,
      "{ GRAY8, GRAY16_LE }", "format = (string) Float32, bands = (int) 1",
      NULL, "format = (string) Float32, bands = (int) 1");

  trans_class->transform_caps = gst_sar_speckle_transform_caps;
  trans_class->transform_meta = gst_sar_same_geometry_transform_meta;
  trans_class->stop = gst_sar_speckle_stop;
  filter_class->set_info = gst_sar_speckle_set_info;
  filter_class->process = gst_sar_speckle_process;

  gst_type_mark_as_plugin_api (GST_TYPE_SAR_SPECKLE_FILTER, 0);
}

static void
gst_sar_speckle_init (GstSarSpeckle * self)
{
  self->params.filter = DEFAULT_FILTER;
  self->params.radius = DEFAULT_RADIUS;
  self->params.looks = DEFAULT_LOOKS;
  self->params.deramp = DEFAULT_DERAMP;
}
