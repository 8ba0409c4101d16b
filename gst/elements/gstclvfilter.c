/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClvFilter: base class of the clvision OpenCL elements; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclvfilter-private.h"

GST_DEBUG_CATEGORY (gst_clv_filter_debug);
#define GST_CAT_DEFAULT gst_clv_filter_debug

#define DEFAULT_DEVICE "auto"
#define DEFAULT_IN_FLIGHT 0
#define DEFAULT_UPLOAD GST_CLV_FILTER_UPLOAD_AUTO

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_IN_FLIGHT,
  PROP_UPLOAD,
};

/* Frames in pageable memory go up through pinned memory of our own,
 * copied there by several threads (CLV_TRANSFER_STAGED), or straight from
 * where they are.  By default filters stage frames of at least this size
 * on devices with memory of their own, since the driver's upload from
 * pageable memory copies one chunk at a time on one thread; analysers
 * stage while other analysers use the device, since the driver's pageable
 * uploads run one after the other while the copies into our own run in
 * every stream's thread at once (on an H200 16 and 64 streams of 1920x1280
 * ran 18-22% faster that way and one stream 5-10% slower). */
#define STAGED_UPLOAD_MIN ((gsize) 1 << 20)

GType
gst_clv_filter_upload_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CLV_FILTER_UPLOAD_AUTO, "Staged where it was measured faster: "
          "filters for frames of 1 MiB or more on devices with memory of "
          "their own, analysers while other analysers use the device",
        "auto"},
    {GST_CLV_FILTER_UPLOAD_STAGED, "Copied by several threads into pinned "
          "memory, a DMA per chunk", "staged"},
    {GST_CLV_FILTER_UPLOAD_DIRECT, "By the OpenCL driver from where the "
          "frame is", "direct"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClvFilterUpload", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstClvFilter, gst_clv_filter,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstClvFilter)
    GST_DEBUG_CATEGORY_INIT (gst_clv_filter_debug, "clvfilter", 0,
        "clvision OpenCL filter base class"));

#define PRIV(f) gst_clv_filter_priv (GST_CLV_FILTER (f))

GstClvFilterPrivate *
gst_clv_filter_priv (GstClvFilter * filter)
{
  return gst_clv_filter_get_instance_private (filter);
}

/* The slot of an analysis thread, plus one; 0 in other threads. */
static GPrivate current_slot;

guint
gst_clv_filter_current_slot (void)
{
  const guint s = GPOINTER_TO_UINT (g_private_get (&current_slot));

  return s ? s - 1 : 0;
}

ClvDevice *
gst_clv_filter_get_device (GstClvFilter * filter)
{
  return PRIV (filter)->runtime;
}

GstClvDevice *
gst_clv_filter_get_gst_device (GstClvFilter * filter)
{
  return PRIV (filter)->device;
}

gboolean
gst_clv_filter_buffer_on_device (GstClvFilter * filter, GstBuffer * buf)
{
  return gst_clv_buffer_peek_memory (buf, PRIV (filter)->device) != NULL;
}

const GstVideoInfo *
gst_clv_filter_get_in_info (GstClvFilter * filter)
{
  return &PRIV (filter)->in_info;
}

const GstVideoInfo *
gst_clv_filter_get_out_info (GstClvFilter * filter)
{
  return &PRIV (filter)->out_info;
}

const GstClvRasterInfo *
gst_clv_filter_get_in_raster (GstClvFilter * filter)
{
  return &PRIV (filter)->in_raster;
}

const GstClvRasterInfo *
gst_clv_filter_get_out_raster (GstClvFilter * filter)
{
  return &PRIV (filter)->out_raster;
}

GstStructure *
gst_clv_filter_new_frame_message (GstClvFilter * filter, const gchar * name,
    GstBuffer * buf)
{
  const GstSegment *segment = &GST_BASE_TRANSFORM (filter)->segment;
  const GstClockTime ts = GST_BUFFER_PTS (buf);

  return gst_structure_new (name,
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf), NULL);
}

gchar *
gst_clv_filter_map_failure (GstBuffer * buf, const gchar * what)
{
  GError *error = NULL;
  gchar *text;

  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GError *e = gst_clv_memory_take_map_error (gst_buffer_peek_memory (buf,
            i));
    if (error == NULL)
      error = e;
    else if (e != NULL)
      g_error_free (e);
  }
  text = error ? g_strdup_printf ("%s: %s", what, error->message) :
      g_strdup (what);
  g_clear_error (&error);
  return text;
}

ClvLumaImage
gst_clv_filter_luma_image (const GstVideoInfo * info)
{
  const guint plane = GST_VIDEO_INFO_COMP_PLANE (info, 0);
  ClvLumaImage l = clv_luma_image_gray (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_PLANE_OFFSET (info, plane),
      GST_VIDEO_INFO_PLANE_STRIDE (info, plane));

  if (GST_VIDEO_INFO_IS_RGB (info)) {
    l.image.bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    l.r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    l.g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    l.b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
  } else {
    l.image.offset += GST_VIDEO_INFO_COMP_POFFSET (info, 0);
  }
  return l;
}

void
gst_clv_filter_class_add_pad_templates (GstClvFilterClass * klass,
    const gchar * sink_formats, const gchar * src_formats)
{
  gst_clv_filter_class_add_raster_pad_templates (klass, sink_formats, NULL,
      src_formats, NULL);
}

void
gst_clv_filter_class_set_max_side (GstClvFilterClass * klass, gint max_side)
{
  klass->max_side = max_side;
}

static gint
class_max_side (GstClvFilterClass * klass)
{
  return klass->max_side > 0 ? klass->max_side : G_MAXINT;
}

/* Caps of video `formats` (frames up to `max_side` a side) and rasters of
 * `raster_fields` (each nullable), in one memory. */
static GString *
append_pad_caps (GString * str, const gchar * features,
    const gchar * formats, gint max_side, const gchar * raster_fields)
{
  if (formats)
    g_string_append_printf (str, "video/x-raw%s, format = (string) %s, "
        "width = (int) [ 1, %d ], height = (int) [ 1, %d ], "
        "framerate = (fraction) [ 0/1, MAX ]; ", features, formats, max_side,
        max_side);
  if (raster_fields)
    g_string_append_printf (str, GST_CLV_RASTER_MEDIA_TYPE "%s, %s, "
        "width = (int) [ 1, MAX ], height = (int) [ 1, MAX ]; ", features,
        raster_fields);
  return str;
}

void
gst_clv_filter_class_add_raster_pad_templates (GstClvFilterClass * klass,
    const gchar * sink_formats, const gchar * sink_raster_fields,
    const gchar * src_formats, const gchar * src_raster_fields)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const gchar *formats[2] = { sink_formats, src_formats };
  const gchar *raster_fields[2] = { sink_raster_fields, src_raster_fields };
  const gchar *names[2] = { "sink", "src" };

  for (int i = 0; i < 2; i++) {
    GString *str = g_string_new (NULL);
    GstCaps *caps;

    /* Device memory first: preferred when both peers can. */
    append_pad_caps (str, "(" GST_CAPS_FEATURE_MEMORY_OPENCL ")", formats[i],
        class_max_side (klass), raster_fields[i]);
    append_pad_caps (str, "", formats[i], class_max_side (klass),
        raster_fields[i]);
    caps = gst_caps_from_string (str->str);

    gst_element_class_add_pad_template (element_class,
        gst_pad_template_new (names[i], i ? GST_PAD_SRC : GST_PAD_SINK,
            GST_PAD_ALWAYS, caps));
    gst_caps_unref (caps);
    g_string_free (str, TRUE);
  }
}

static void
gst_clv_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClvFilterPrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_free (priv->device_spec);
      priv->device_spec = g_value_dup_string (value);
      if (priv->device_spec == NULL)
        priv->device_spec = g_strdup (DEFAULT_DEVICE);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_IN_FLIGHT:
      GST_OBJECT_LOCK (object);
      priv->in_flight = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_UPLOAD:
      GST_OBJECT_LOCK (object);
      priv->upload = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_clv_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClvFilterPrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, priv->device_spec);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_IN_FLIGHT:
      GST_OBJECT_LOCK (object);
      g_value_set_uint (value, priv->in_flight);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_UPLOAD:
      GST_OBJECT_LOCK (object);
      g_value_set_enum (value, priv->upload);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static gchar *
device_spec_dup (GstClvFilter * filter)
{
  gchar *spec;

  GST_OBJECT_LOCK (filter);
  spec = g_strdup (PRIV (filter)->device_spec);
  GST_OBJECT_UNLOCK (filter);
  return spec;
}

static void
gst_clv_filter_set_context (GstElement * element, GstContext * context)
{
  GstClvFilterPrivate *priv = PRIV (element);
  gchar *spec = device_spec_dup (GST_CLV_FILTER (element));

  /* Applications may set contexts from any thread. */
  GST_OBJECT_LOCK (element);
  gst_clv_handle_set_context (element, context, spec, &priv->device);
  GST_OBJECT_UNLOCK (element);
  g_free (spec);
  GST_ELEMENT_CLASS (gst_clv_filter_parent_class)->set_context (element,
      context);
}

/* A caps query from upstream whose filter asks only for frames wider or
 * taller than the templates allow is a negotiation that will fail with no
 * other word than "not-negotiated": say why and what to change, once per
 * size. */
static void
say_frame_too_large (GstBaseTransform * trans, GstQuery * query)
{
  GstClvFilterPrivate *priv = PRIV (trans);
  const gint max_side = class_max_side (GST_CLV_FILTER_GET_CLASS (trans));
  GstCaps *filter = NULL;
  gint w = 0, h = 0;

  gst_query_parse_caps (query, &filter);
  if (filter == NULL || gst_caps_is_empty (filter)
      || gst_caps_is_any (filter))
    return;
  for (guint i = 0; i < gst_caps_get_size (filter); i++) {
    const GstStructure *s = gst_caps_get_structure (filter, i);

    if (!gst_structure_get_int (s, "width", &w)
        || !gst_structure_get_int (s, "height", &h)
        || (w <= max_side && h <= max_side))
      return;
  }
  if (w == priv->too_large_w && h == priv->too_large_h)
    return;
  priv->too_large_w = w;
  priv->too_large_h = h;
  GST_ELEMENT_ERROR (trans, STREAM, FORMAT, ("A %dx%d frame is larger than "
          "%s takes (%d pixels a side at most): scale it down (videoscale) "
          "or crop it", w, h, GST_ELEMENT_NAME (gst_element_get_factory
              (GST_ELEMENT (trans))), max_side), ("caps %" GST_PTR_FORMAT,
          filter));
}

static gboolean
gst_clv_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCaps *caps;

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && direction == GST_PAD_SINK
      && GST_CLV_FILTER_GET_CLASS (trans)->max_side > 0)
    say_frame_too_large (trans, query);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* Peers ask from their threads: hold the device while answering. */
    GstClvDevice *dev;
    gboolean answered;

    GST_OBJECT_LOCK (trans);
    dev = PRIV (trans)->device ? gst_object_ref (PRIV (trans)->device) : NULL;
    GST_OBJECT_UNLOCK (trans);
    answered = gst_clv_handle_context_query (GST_ELEMENT (trans), query, dev);
    gst_clear_object (&dev);
    if (answered)
      return TRUE;
  }
  if (!GST_BASE_TRANSFORM_CLASS (gst_clv_filter_parent_class)->query (trans,
          direction, query))
    return FALSE;
  /* GstBaseTransform lists the caps that allow passthrough first; we list
   * device memory first, so that peers that can keep frames on the device
   * do. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_query_parse_caps_result (query, &caps);
    caps = gst_clv_caps_prefer_opencl (gst_caps_ref (caps));
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
  }
  return TRUE;
}

static gboolean
gst_clv_filter_start (GstBaseTransform * trans)
{
  GstClvFilterPrivate *priv = PRIV (trans);
  gchar *spec = device_spec_dup (GST_CLV_FILTER (trans));
  GError *error = NULL;
  gboolean ok;

  ok = gst_clv_ensure_device (GST_ELEMENT (trans), spec, &priv->device,
      &error);
  g_free (spec);
  if (!ok)
    goto no_device;
  /* A reference of its own: the device's load ("auto") counts the
   * elements using it, also those sharing one handle. */
  priv->runtime = clv_device_ref (gst_clv_device_get_runtime (priv->device));
  GST_OBJECT_LOCK (trans);
  priv->upload_mode = priv->upload;
  GST_OBJECT_UNLOCK (trans);
  priv->counted = GST_CLV_FILTER_GET_CLASS (trans)->analyse != NULL;
  if (priv->counted)
    clv_device_analysers_add (priv->runtime, 1);
  gst_clv_filter_flight_start (GST_CLV_FILTER (trans));
  return TRUE;

  /* ERRORS */
no_device:
  {
    GST_CLV_FILTER_POST_ERROR (trans, RESOURCE, NOT_FOUND, error);
    return FALSE;
  }
}

static void
release_slots (GstClvFilterPrivate * priv)
{
  for (guint i = 0; i < G_N_ELEMENTS (priv->slots); i++) {
    GstClvFilterSlot *slot = &priv->slots[i];

    g_clear_pointer (&slot->copy, clReleaseMemObject);
    g_clear_pointer (&slot->out, clReleaseMemObject);
    slot->copy_size = slot->out_size = 0;
    g_clear_pointer (&slot->stager, clv_stager_free);
  }
}

static gboolean
gst_clv_filter_stop (GstBaseTransform * trans)
{
  GstClvFilterPrivate *priv = PRIV (trans);
  GstClvDevice *dev;

  gst_clv_filter_flight_stop (GST_CLV_FILTER (trans));
  release_slots (priv);
  if (priv->counted)
    clv_device_analysers_add (priv->runtime, -1);
  priv->counted = FALSE;
  gst_caps_replace (&priv->refused, NULL);
  g_clear_pointer (&priv->runtime, clv_device_unref);
  GST_OBJECT_LOCK (trans);
  dev = g_steal_pointer (&priv->device);
  GST_OBJECT_UNLOCK (trans);
  gst_clear_object (&dev);
  return TRUE;
}

static GstCaps *
gst_clv_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (trans);
  GstCaps *ret;

  if (klass->transform_structure == NULL)
    return GST_BASE_TRANSFORM_CLASS (gst_clv_filter_parent_class)->
        transform_caps (trans, direction, caps, filter);
  ret = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

    if (klass->transform_structure (GST_CLV_FILTER (trans), direction, s))
      ret = gst_caps_merge_structure_full (ret, s,
          gst_caps_features_copy (gst_caps_get_features (caps, i)));
    else
      gst_structure_free (s);
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink->src" : "src->sink", caps, ret);
  return ret;
}

/* Frames go to device buffers whole: refuse at negotiation, with the sizes,
 * those that the device cannot hold. */
static gboolean
check_frame_fits (GstBaseTransform * trans, const GstVideoInfo * info,
    const GstClvRasterInfo * raster, GstCaps * caps)
{
  GError *error = NULL;
  gchar *what = gst_clv_caps_is_raster (caps) ?
      g_strdup_printf ("A %dx%d %s frame", raster->width, raster->height,
      gst_clv_raster_format_to_string (raster->format)) :
      g_strdup_printf ("A %dx%d %s frame", GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info));
  gboolean ok = clv_device_check_buffer_size (PRIV (trans)->runtime,
      GST_VIDEO_INFO_SIZE (info), what, &error);

  g_free (what);
  if (!ok)
    GST_CLV_FILTER_POST_ERROR (trans, RESOURCE, NO_SPACE_LEFT, error);
  return ok;
}

static gboolean
gst_clv_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (trans);
  GstClvFilterPrivate *priv = PRIV (trans);

  if (!gst_clv_frame_layout_from_caps (&priv->in_info, incaps)
      || !gst_clv_frame_layout_from_caps (&priv->out_info, outcaps))
    goto invalid_caps;
  /* Video formats other than GRAY8 and GRAY16_LE are no rasters. */
  if (!gst_clv_raster_info_from_caps (&priv->in_raster, incaps))
    gst_clv_raster_info_init (&priv->in_raster, GST_CLV_RASTER_FORMAT_UNKNOWN,
        GST_VIDEO_INFO_WIDTH (&priv->in_info),
        GST_VIDEO_INFO_HEIGHT (&priv->in_info), 0);
  if (!gst_clv_raster_info_from_caps (&priv->out_raster, outcaps))
    gst_clv_raster_info_init (&priv->out_raster,
        GST_CLV_RASTER_FORMAT_UNKNOWN, GST_VIDEO_INFO_WIDTH (&priv->out_info),
        GST_VIDEO_INFO_HEIGHT (&priv->out_info), 0);
  if (priv->device == NULL)
    goto no_device;
  if (priv->refused != NULL && gst_caps_is_equal (incaps, priv->refused))
    goto refused_again;
  if (!check_frame_fits (trans, &priv->in_info, &priv->in_raster, incaps)
      || !check_frame_fits (trans, &priv->out_info, &priv->out_raster,
          outcaps)
      || (klass->set_info && !klass->set_info (GST_CLV_FILTER (trans), incaps,
              &priv->in_info, outcaps, &priv->out_info))) {
    gst_caps_replace (&priv->refused, incaps);
    return FALSE;
  }
  gst_caps_replace (&priv->refused, NULL);
  return TRUE;

  /* ERRORS */
invalid_caps:
  {
    GST_ERROR_OBJECT (trans, "invalid caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
no_device:
  {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
        ("Caps were set before the element was started"), (NULL));
    return FALSE;
  }
refused_again:
  {
    GST_DEBUG_OBJECT (trans, "refused again: %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
}

static gboolean
gst_clv_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  const gchar *const *tags;

  /* ROI metas are mapped through the geometry in transform(). */
  if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)
    return FALSE;
  /* Metas that don't depend on the pixels' layout survive. */
  tags = gst_meta_api_type_get_tags (meta->info->api);
  return tags == NULL || tags[0] == NULL || (tags[1] == NULL
      && g_strcmp0 (tags[0], GST_META_TAG_VIDEO_STR) == 0);
}

/* Output buffers are as large as the output caps say, whatever the input's
 * size (without a pool, GstBaseTransform would allocate the input's). */
static gboolean
gst_clv_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_clv_frame_layout_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* Adds to `outbuf` the ROI metas of `inbuf`, mapped through map_point: the
 * bounding box of the four mapped corners, clipped to the output frame.
 * ROIs that fall outside are dropped. */
static void
copy_rois (GstClvFilter * filter, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  GstClvFilterPrivate *priv = PRIV (filter);
  const gdouble ow = priv->out_raster.width;
  const gdouble oh = priv->out_raster.height;
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (inbuf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstVideoRegionOfInterestMeta *out;
    gdouble cx[4] = { roi->x, roi->x + roi->w, roi->x, roi->x + roi->w };
    gdouble cy[4] = { roi->y, roi->y, roi->y + roi->h, roi->y + roi->h };
    gdouble x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE,
        y1 = -G_MAXDOUBLE;

    for (int i = 0; i < 4; i++) {
      if (klass->map_point)
        klass->map_point (filter, &cx[i], &cy[i]);
      x0 = MIN (x0, cx[i]);
      y0 = MIN (y0, cy[i]);
      x1 = MAX (x1, cx[i]);
      y1 = MAX (y1, cy[i]);
    }
    /* Outward rounding, with a small tolerance for float noise. */
    x0 = CLAMP (floor (x0 + 1e-6), 0, ow);
    y0 = CLAMP (floor (y0 + 1e-6), 0, oh);
    x1 = CLAMP (ceil (x1 - 1e-6), 0, ow);
    y1 = CLAMP (ceil (y1 - 1e-6), 0, oh);
    if (x1 <= x0 || y1 <= y0) {
      GST_LOG_OBJECT (filter, "dropping ROI %d outside the output", roi->id);
      continue;
    }
    out = gst_buffer_add_video_region_of_interest_meta_id (outbuf,
        roi->roi_type, (guint) x0, (guint) y0, (guint) (x1 - x0),
        (guint) (y1 - y0));
    out->id = roi->id;
    out->parent_id = roi->parent_id;
    for (GList * l = roi->params; l; l = l->next) {
      GstStructure *s = gst_structure_copy (l->data);
      /* Normalised coordinates follow the new box (DL Streamer fields). */
      if (gst_structure_has_field (s, "x_min"))
        gst_structure_set (s, "x_min", G_TYPE_DOUBLE, x0 / ow, "y_min",
            G_TYPE_DOUBLE, y0 / oh, "x_max", G_TYPE_DOUBLE, x1 / ow, "y_max",
            G_TYPE_DOUBLE, y1 / oh, NULL);
      gst_video_region_of_interest_meta_add_param (out, s);
    }
  }
}

static gboolean
caps_have_opencl (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_OPENCL);
}

/* Upstream gets a pool of our device for either kind of caps: in system
 * memory its buffers are GstClvMemory too, written by the CPU into their
 * pinned host copy, so that our upload of them is a pinned one (3-7x faster
 * than from pageable memory) and needs no staging buffer.  In passthrough
 * (the analysers on unchanged caps) downstream decides: its pool, if it
 * offers one (a display's, say), is left alone. */
static gboolean
gst_clv_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClvFilterPrivate *priv = PRIV (trans);
  GstCaps *caps;
  /* Passthrough forwards the query; otherwise this copies downstream's
   * metas. */
  const gboolean answered =
      GST_BASE_TRANSFORM_CLASS (gst_clv_filter_parent_class)->
      propose_allocation (trans, decide_query, query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (decide_query == NULL) {
    if (priv->device == NULL || caps == NULL || caps_have_opencl (caps)
        || gst_query_get_n_allocation_pools (query) > 0)
      return answered;
    return gst_clv_buffer_pool_propose (priv->device, query,
        GST_ELEMENT (trans));
  }
  if (!answered)
    return FALSE;
  if (priv->device == NULL) {
    if (caps != NULL && caps_have_opencl (caps))
      return FALSE;
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
    return TRUE;
  }
  return gst_clv_buffer_pool_propose (priv->device, query,
      GST_ELEMENT (trans));
}

/* For memory:OpenCL output, only a pool of our own context will do. */
static gboolean
gst_clv_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClvFilter *filter = GST_CLV_FILTER (trans);
  GstClvFilterPrivate *priv = PRIV (trans);
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_clv_frame_layout_from_caps (&info, caps))
    return FALSE;
  if (!caps_have_opencl (caps)) {
    /* System memory, downstream offers no pool: kernels write into buffers
     * of our device pool, which a CPU map downloads into their pinned host
     * copy, and which the next clvision element uses where they are (no
     * copy at all).  Elements without a kernel of their own recycle output
     * buffers through a video pool (as GstVideoFilter does); a fresh frame
     * per buffer costs page faults, 20 ms for a 4096x4096 GRAY16 frame. */
    if (gst_query_get_n_allocation_pools (query) == 0) {
      GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);

      size = GST_VIDEO_INFO_SIZE (&info);
      if (klass->process != NULL)
        pool = gst_clv_buffer_pool_new_for_caps (priv->device, caps,
            &size, 0, 0, GST_ELEMENT (trans));
      else if (gst_clv_caps_is_raster (caps))
        pool = gst_buffer_pool_new ();
      else
        pool = gst_video_buffer_pool_new ();
      if (pool == NULL)
        return FALSE;
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
    return GST_BASE_TRANSFORM_CLASS (gst_clv_filter_parent_class)->
        decide_allocation (trans, query);
  }

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && !(GST_IS_CLV_BUFFER_POOL (pool)
          && gst_clv_device_is_same_context (gst_clv_buffer_pool_get_device
              (GST_CLV_BUFFER_POOL (pool)), priv->device))) {
    GST_DEBUG_OBJECT (filter, "dropping downstream pool %" GST_PTR_FORMAT
        " of another device or context", pool);
    gst_clear_object (&pool);
  }
  size = MAX (size, GST_VIDEO_INFO_SIZE (&info));
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_DEBUG_OBJECT (filter, "downstream pool refused the configuration");
      gst_clear_object (&pool);
    }
  }
  if (pool == NULL)
    pool = gst_clv_buffer_pool_new_for_caps (priv->device, caps, &size, min,
        max, GST_ELEMENT (trans));
  if (pool == NULL)
    return FALSE;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* Grows *mem to at least `size` bytes. */
static gboolean
ensure_buffer (ClvDevice * dev, cl_mem * mem, gsize * mem_size, gsize size,
    cl_mem_flags flags, GError ** error)
{
  if (*mem && *mem_size >= size)
    return TRUE;
  g_clear_pointer (mem, clReleaseMemObject);
  *mem = clv_buffer_new (dev, flags, size, error);
  *mem_size = *mem ? size : 0;
  return *mem != NULL;
}

/* Whether a filter stages an `n`-byte frame from pageable memory. */
static gboolean
filter_stages (GstClvFilterPrivate * priv, gsize n)
{
  return priv->upload_mode == GST_CLV_FILTER_UPLOAD_STAGED
      || (priv->upload_mode == GST_CLV_FILTER_UPLOAD_AUTO
      && !priv->runtime->host_unified_memory && n >= STAGED_UPLOAD_MIN);
}

/* Whether an analyser stages a frame from pageable memory, `alone` on the
 * device or not. */
static gboolean
analyser_stages (GstClvFilterPrivate * priv, gboolean alone)
{
  return priv->upload_mode == GST_CLV_FILTER_UPLOAD_STAGED
      || (priv->upload_mode == GST_CLV_FILTER_UPLOAD_AUTO && !alone);
}

/* How `slot` uploads a frame from pageable memory with `flags`. */
static ClvStager *
slot_stager (GstClvFilterPrivate * priv, GstClvFilterSlot * slot,
    ClvTransferFlags flags)
{
  if (!(flags & CLV_TRANSFER_STAGED))
    return NULL;
  if (slot->stager == NULL)
    slot->stager = clv_stager_new (priv->runtime);
  return slot->stager;
}

gboolean
gst_clv_filter_upload_frame (GstClvFilter * filter,
    const GstVideoFrame * frame, cl_mem dst, const GstVideoInfo * layout,
    GError ** error)
{
  GstClvFilterPrivate *priv = PRIV (filter);
  const ClvTransferFlags flags = filter_stages (priv,
      GST_VIDEO_FRAME_SIZE (frame)) ? CLV_TRANSFER_STAGED : 0;

  return gst_clv_upload_frame (priv->runtime, frame, dst, layout, flags,
      slot_stager (priv, &priv->slots[gst_clv_filter_current_slot ()], flags),
      error);
}

/* Plane 0 of frames laid out as `info` says, holding `raster`: a raster's
 * layout counts bytes, its image pixels of all bands. */
static ClvImage
plane0_image (const GstVideoInfo * info, const GstClvRasterInfo * raster)
{
  ClvImage im = clv_image_make (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_COMP_PSTRIDE (info, 0),
      GST_VIDEO_INFO_PLANE_STRIDE (info, 0));

  if (raster->format != GST_CLV_RASTER_FORMAT_UNKNOWN) {
    im.width = raster->width;
    im.bpp = (int) gst_clv_raster_format_sample_size (raster->format) *
        raster->bands;
  }
  im.offset = GST_VIDEO_INFO_PLANE_OFFSET (info, 0);
  return im;
}

/* The bytes plane 0 of `im` occupies, from pixel (0, 0). */
static gsize
image_bytes (const ClvImage * im)
{
  return im->stride * (im->height - 1) + (gsize) im->bpp * im->width;
}

/* One side of a transform: plane 0 of a buffer as a cl_mem.  Memory of our
 * context is used as is; anything else is mapped for the CPU and goes
 * through a staging buffer. */
typedef struct
{
  gboolean on_device;
  GstMapInfo map;               /* on_device: the GST_MAP_OPENCL map */
  GstVideoFrame frame;          /* otherwise: the CPU map */
  cl_mem mem;
  ClvImage im;
} Side;

gsize
gst_clv_filter_layout_bytes (const GstVideoInfo * info)
{
  gsize end = 0;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint rows;

    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp[0],
        GST_VIDEO_INFO_HEIGHT (info));
    end = MAX (end, GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
        (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p) * rows);
  }
  return end;
}

static gboolean
side_map (GstClvFilter * filter, Side * side, GstBuffer * buf,
    const GstVideoInfo * info, const GstClvRasterInfo * raster,
    GstMapFlags flags)
{
  GstVideoInfo layout;

  side->on_device = gst_clv_filter_buffer_on_device (filter, buf);
  if (side->on_device) {
    gst_clv_buffer_get_video_info (buf, info, &layout);
    if (gst_buffer_get_size (buf) < gst_clv_filter_layout_bytes (&layout)
        || !gst_buffer_map (buf, &side->map, flags | GST_MAP_OPENCL))
      return FALSE;
    side->mem = (cl_mem) side->map.data;
    side->im = plane0_image (&layout, raster);
    return TRUE;
  }
  if (!gst_video_frame_map (&side->frame, info, buf, flags))
    return FALSE;
  side->im = plane0_image (&side->frame.info, raster);
  /* The staging copy starts at the pixels. */
  side->im.offset = 0;
  return TRUE;
}

static void
side_unmap (Side * side, GstBuffer * buf)
{
  if (side->on_device)
    gst_buffer_unmap (buf, &side->map);
  else
    gst_video_frame_unmap (&side->frame);
}

static GstFlowReturn
gst_clv_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClvFilter *filter = GST_CLV_FILTER (trans);
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (trans);
  GstClvFilterPrivate *priv = PRIV (trans);
  ClvDevice *dev = priv->runtime;
  GstClvFilterSlot *slot = &priv->slots[gst_clv_filter_current_slot ()];
  Side in, out;
  GError *error = NULL;
  gboolean ok;

  if (!side_map (filter, &in, inbuf, &priv->in_info, &priv->in_raster,
          GST_MAP_READ))
    goto in_map_failed;
  if (!side_map (filter, &out, outbuf, &priv->out_info, &priv->out_raster,
          GST_MAP_WRITE)) {
    side_unmap (&in, inbuf);
    goto out_map_failed;
  }
  if (!in.on_device) {
    const gsize n = image_bytes (&in.im);
    const void *src = GST_VIDEO_FRAME_PLANE_DATA (&in.frame, 0);
    const ClvTransferFlags flags = filter_stages (priv, n) ?
        CLV_TRANSFER_STAGED : 0;

    /* A staged upload returns once the frame is copied (its DMA and our
     * kernels follow in the queue's order), so the next frame's copy
     * overlaps them. */
    if (!ensure_buffer (dev, &slot->copy, &slot->copy_size, n,
            CL_MEM_READ_ONLY, &error)
        || !gst_clv_upload (dev, slot->copy, 0, src, n, flags,
            slot_stager (priv, slot, flags), NULL, &error))
      goto failed;
    in.mem = slot->copy;
  }
  if (!out.on_device) {
    if (!ensure_buffer (dev, &slot->out, &slot->out_size,
            image_bytes (&out.im), CL_MEM_WRITE_ONLY, &error))
      goto failed;
    out.mem = slot->out;
  }
  g_mutex_lock (&priv->process_lock);
  ok = klass->process (filter, in.mem, &in.im, out.mem, &out.im, &error);
  g_mutex_unlock (&priv->process_lock);
  if (!ok)
    goto failed;
  if (!out.on_device && !gst_clv_download (dev, out.mem, 0,
          GST_VIDEO_FRAME_PLANE_DATA (&out.frame, 0), image_bytes (&out.im),
          &error))
    goto failed;
  side_unmap (&out, outbuf);
  side_unmap (&in, inbuf);

  copy_rois (filter, inbuf, outbuf);
  return GST_FLOW_OK;

  /* ERRORS */
in_map_failed:
  {
    GST_CLV_FILTER_POST_MAP_ERROR (trans, inbuf, "Could not map an input "
        "frame");
    return GST_FLOW_ERROR;
  }
out_map_failed:
  {
    GST_CLV_FILTER_POST_MAP_ERROR (trans, outbuf, "Could not map an output "
        "frame");
    return GST_FLOW_ERROR;
  }
failed:
  {
    /* Nothing may still use the mapped memory once it is unmapped. */
    clFinish (dev->queue);
    side_unmap (&out, outbuf);
    side_unmap (&in, inbuf);
    GST_CLV_FILTER_POST_ERROR (trans, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

/* Puts `buf` on the device (or uses it there) through `slot`, and
 * analyses it. */
static GstFlowReturn
analyse_frame (GstClvFilter * filter, GstBuffer * buf, guint slot_index,
    gpointer data)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  GstClvFilterPrivate *priv = PRIV (trans);
  ClvDevice *dev = priv->runtime;
  GstClvFilterSlot *slot = &priv->slots[slot_index];
  GstVideoInfo info;
  GstMapInfo map;
  GError *error = NULL;
  GstFlowReturn ret;
  GstClvMemory *clmem;
  cl_event uploaded = NULL;
  gboolean alone;
  ClvTransferFlags flags;

  /* Planes where the buffer says they are, if it says. */
  gst_clv_buffer_get_video_info (buf, &priv->in_info, &info);
  if (gst_buffer_get_size (buf) < gst_clv_filter_layout_bytes (&info))
    goto too_short;
  clmem = gst_clv_buffer_peek_memory (buf, priv->device);
  if (clmem && !GST_MEMORY_FLAG_IS_SET (clmem,
          GST_CLV_MEMORY_TRANSFER_NEED_UPLOAD)) {
    /* Device frames are analysed where they are. */
    if (!gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_OPENCL))
      goto map_failed;
    ret = klass->analyse (filter, buf, (cl_mem) map.data, &info, data);
    gst_buffer_unmap (buf, &map);
    return ret;
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto map_failed;
  /* The analysers wait for their kernels (see analyse), so the device
   * copies are idle: the upload need not queue behind other pipelines'
   * kernels on the device.  A frame written into the pool we proposed is in
   * pinned memory already (its host copy): one DMA from there, into our
   * buffer rather than its own, which other pipelines' kernels queued on
   * the device might still be reading from its last use.  Alone on the
   * device we do not wait for that DMA: the device's queue does, while we
   * queue the kernels. */
  alone = clv_device_analysers (dev) <= 1;
  flags = CLV_TRANSFER_UNORDERED | (clmem ? CLV_TRANSFER_PINNED :
      analyser_stages (priv, alone) ? CLV_TRANSFER_STAGED : 0);
  if (!ensure_buffer (dev, &slot->copy, &slot->copy_size, map.size,
          CL_MEM_READ_ONLY, &error)
      || !gst_clv_upload (dev, slot->copy, 0, map.data, map.size, flags,
          slot_stager (priv, slot, flags), clmem && alone ? &uploaded : NULL,
          &error))
    goto failed;
  gst_buffer_unmap (buf, &map);
  ret = klass->analyse (filter, buf, slot->copy, &info, data);
  if (uploaded) {
    /* Done by now unless the analysis failed: the frame's memory must not
     * go back to its pool while the DMA reads it.  A failed wait has
     * nothing left to say: the analysis's own error does. */
    clv_event_wait (dev, uploaded, NULL);
    clReleaseEvent (uploaded);
  }
  return ret;

  /* ERRORS */
too_short:
  {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
        ("A %" G_GSIZE_FORMAT "-byte buffer is too small for a %dx%d %s "
            "frame (%" G_GSIZE_FORMAT " bytes)", gst_buffer_get_size (buf),
            GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
            GST_VIDEO_INFO_NAME (&info),
            gst_clv_filter_layout_bytes (&info)), (NULL));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    GST_CLV_FILTER_POST_MAP_ERROR (trans, buf, "Could not map a buffer");
    return GST_FLOW_ERROR;
  }
failed:
  {
    gst_buffer_unmap (buf, &map);
    GST_CLV_FILTER_POST_ERROR (trans, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

/* An analyser's frame in the streaming thread: prepared, analysed if it
 * needs to be, and finished. */
static GstFlowReturn
gst_clv_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClvFilter *filter = GST_CLV_FILTER (trans);
  GstClvFilterClass *klass = GST_CLV_FILTER_GET_CLASS (filter);
  gpointer data = NULL;
  GstFlowReturn ret = GST_FLOW_OK;

  if (klass->prepare_frame == NULL || klass->prepare_frame (filter, buf,
          &data))
    ret = analyse_frame (filter, buf, 0, data);
  if (ret == GST_FLOW_OK && klass->finish_frame)
    klass->finish_frame (filter, buf, data);
  if (data && klass->free_frame_data)
    klass->free_frame_data (data);
  return ret;
}

GstFlowReturn
gst_clv_filter_run_frame (GstClvFilter * filter, GstClvFilterFrame * f,
    guint slot)
{
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (filter);
  GstFlowReturn ret;

  if (GST_CLV_FILTER_GET_CLASS (filter)->analyse)
    return analyse_frame (filter, f->out, slot, f->data);
  /* The element's own transform, as it would run in the streaming thread,
   * with the slot of this thread. */
  g_private_set (&current_slot, GUINT_TO_POINTER (slot + 1));
  ret = f->in ? klass->transform (GST_BASE_TRANSFORM (filter), f->in, f->out)
      : klass->transform_ip (GST_BASE_TRANSFORM (filter), f->out);
  g_private_set (&current_slot, NULL);
  return ret;
}

static gboolean
gst_clv_filter_post_message (GstElement * element, GstMessage * msg)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_clv_filter_flight_error_posted (GST_CLV_FILTER (element));
  return GST_ELEMENT_CLASS (gst_clv_filter_parent_class)->post_message
      (element, msg);
}

static GstFlowReturn
gst_clv_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  if (gst_clv_filter_flight_take (GST_CLV_FILTER (trans), &ret)) {
    *outbuf = NULL;
    return ret;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_clv_filter_parent_class)->
      generate_output (trans, outbuf);
}

static void
gst_clv_filter_finalize (GObject * object)
{
  GstClvFilterPrivate *priv = PRIV (object);

  release_slots (priv);
  gst_clear_object (&priv->device);
  g_free (priv->device_spec);
  g_mutex_clear (&priv->process_lock);
  gst_clv_filter_flight_clear (GST_CLV_FILTER (object));
  G_OBJECT_CLASS (gst_clv_filter_parent_class)->finalize (object);
}

static void
gst_clv_filter_class_init (GstClvFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_clv_filter_set_property;
  gobject_class->get_property = gst_clv_filter_get_property;
  gobject_class->finalize = gst_clv_filter_finalize;

  /**
   * GstClvFilter:device:
   *
   * The OpenCL device: "auto" (of the best kind present, GPU, else
   * accelerator, else CPU, the one least used by this process, so that
   * pipelines and the branches of one pipeline spread over several GPUs;
   * an element takes the device of its peers in the same branch, or of
   * the `memory:OpenCL` it receives; the environment variable
   * CLVISION_DEVICE overrides it), "first" (the first device of that kind),
   * "P:D" (platform and device index, as `clinfo -l` lists them) or a
   * case-insensitive part of the platform or device name ("nvidia",
   * "pocl").  Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: auto (least-used GPU), first, P:D index, or part "
          "of the platform/device name",
          DEFAULT_DEVICE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstClvFilter:in-flight:
   *
   * How many frames the element works on at once.  With more than one,
   * the streaming thread hands each frame over and goes on to the next,
   * so that the next frames' uploads and kernels overlap the current
   * one's and the work upstream and downstream overlaps the device's;
   * frames leave in order, each as soon as it and the ones before it are
   * done (none waits for a later one), pushed by a task of the source
   * pad.  1 works on each frame in the streaming thread before passing it
   * on.  0 lets the element choose (its description says how; 1 unless
   * it says otherwise).
   */
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "Frames in flight",
          "How many frames are worked on at once (1: each in the streaming "
          "thread before it is passed on; 0: the element's default)",
          0, GST_CLV_FILTER_MAX_IN_FLIGHT, DEFAULT_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstClvFilter:upload:
   *
   * How frames in pageable system memory (not written into a pool of the
   * element) go up to the device: copied by several threads into pinned
   * memory, a DMA per chunk as soon as it is copied ("staged"), or by the
   * OpenCL driver from where they are ("direct").  "auto" stages where
   * that was measured faster: filters for frames of 1 MiB or more on
   * devices with memory of their own, analysers while other analysers use
   * the device.  Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_UPLOAD,
      g_param_spec_enum ("upload", "Upload",
          "How frames in pageable memory go up to the device",
          GST_TYPE_CLV_FILTER_UPLOAD, DEFAULT_UPLOAD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->set_context = gst_clv_filter_set_context;
  element_class->post_message = gst_clv_filter_post_message;

  trans_class->start = gst_clv_filter_start;
  trans_class->stop = gst_clv_filter_stop;
  trans_class->query = gst_clv_filter_query;
  trans_class->set_caps = gst_clv_filter_set_caps;
  trans_class->transform_caps = gst_clv_filter_transform_caps;
  trans_class->transform_meta = gst_clv_filter_transform_meta;
  trans_class->propose_allocation = gst_clv_filter_propose_allocation;
  trans_class->decide_allocation = gst_clv_filter_decide_allocation;
  trans_class->transform = gst_clv_filter_transform;
  trans_class->transform_ip = gst_clv_filter_transform_ip;
  trans_class->transform_size = gst_clv_filter_transform_size;
  trans_class->generate_output = gst_clv_filter_generate_output;

  gst_type_mark_as_plugin_api (GST_TYPE_CLV_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CLV_FILTER_UPLOAD, 0);
}

static void
gst_clv_filter_init (GstClvFilter * filter)
{
  GstClvFilterPrivate *priv = PRIV (filter);

  priv->device_spec = g_strdup (DEFAULT_DEVICE);
  priv->in_flight = DEFAULT_IN_FLIGHT;
  priv->upload = DEFAULT_UPLOAD;
  g_mutex_init (&priv->process_lock);
  gst_clv_filter_flight_init (filter);
  gst_clv_filter_flight_install_pad_functions (filter);
}
