/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstsarcaps.h"

gboolean
gst_sar_sample_of (const GstClvRasterInfo * info, ClvSample * sample)
{
  if (info->bands != 1)
    return FALSE;
  switch (info->format) {
    case GST_CLV_RASTER_FORMAT_BYTE:
      *sample = CLV_SAMPLE_U8;
      return TRUE;
    case GST_CLV_RASTER_FORMAT_UINT16:
      *sample = CLV_SAMPLE_U16;
      return TRUE;
    case GST_CLV_RASTER_FORMAT_FLOAT32:
      *sample = CLV_SAMPLE_F32;
      return TRUE;
    case GST_CLV_RASTER_FORMAT_CINT16:
      *sample = CLV_SAMPLE_CI16;
      return TRUE;
    case GST_CLV_RASTER_FORMAT_CFLOAT32:
      *sample = CLV_SAMPLE_CF32;
      return TRUE;
    default:
      return FALSE;
  }
}

/* `t`, a template structure, with the size and rate of `s`. */
static GstStructure *
sized_like (const GstStructure * t, const GstStructure * s,
    GstPadDirection direction, GstBaseTransform * trans,
    GstSarMapNodata map_nodata)
{
  static const gchar *fields[] = { "width", "height", "framerate" };
  GstStructure *out = gst_structure_copy (t);
  gdouble nodata, mapped;

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
    const GValue *v = gst_structure_get_value (s, fields[i]);

    if (v)
      gst_structure_set_value (out, fields[i], v);
    else
      gst_structure_remove_field (out, fields[i]);
  }
  if (direction == GST_PAD_SINK
      && gst_structure_has_name (out, GST_CLV_RASTER_MEDIA_TYPE)
      && gst_structure_get_double (s, "nodata", &nodata)
      && (map_nodata == NULL ? (mapped = nodata, TRUE) :
          map_nodata (trans, nodata, &mapped)))
    gst_structure_set (out, "nodata", G_TYPE_DOUBLE, mapped, NULL);
  return out;
}

GstCaps *
gst_sar_transform_caps_same_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter,
    GstSarMapNodata map_nodata)
{
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstCaps *templ = gst_pad_get_pad_template_caps (other);
  GstCaps *ret = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    for (guint j = 0; j < gst_caps_get_size (templ); j++) {
      if (!gst_caps_features_is_equal (f, gst_caps_get_features (templ, j)))
        continue;
      ret = gst_caps_merge_structure_full (ret,
          sized_like (gst_caps_get_structure (templ, j), s, direction, trans,
              map_nodata), gst_caps_features_copy (f));
    }
  }
  gst_caps_unref (templ);
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

gboolean
gst_sar_same_geometry_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  GstBaseTransformClass *filter_class =
      g_type_class_peek (GST_TYPE_CLV_FILTER);

  if (meta->info->api == GST_CLV_GEO_META_API_TYPE)
    return TRUE;
  return filter_class->transform_meta (trans, outbuf, meta, inbuf);
}

/* Bytes per pixel of a structure's fixed format, or 0. */
static guint64
structure_pixel_bytes (const GstStructure * s)
{
  const gchar *format = gst_structure_get_string (s, "format");
  gint bands = 1;

  if (format == NULL)
    return 0;
  if (!gst_structure_has_name (s, GST_CLV_RASTER_MEDIA_TYPE))
    return strcmp (format, "GRAY8") == 0 ? 1 :
        strcmp (format, "GRAY16_LE") == 0 ? 2 : 0;
  gst_structure_get_int (s, "bands", &bands);
  return (guint64) gst_clv_raster_format_sample_size
      (gst_clv_raster_format_from_string (format)) * bands;
}

gboolean
gst_sar_check_output_size (GstClvFilter * filter, const GstStructure * s,
    gint w, gint h, const gchar * advice, guint64 * said)
{
  /* GstVideoInfo describes no frame of 4 GiB or more. */
  const guint64 frame_limit = G_MAXUINT32;
  const guint64 bytes = (guint64) w * h * structure_pixel_bytes (s);
  const guint64 key = (guint64) w << 32 | (guint) h;
  ClvDevice *dev = gst_clv_filter_get_device (filter);
  const guint64 limit = dev ? MIN (dev->max_mem_alloc_size, frame_limit) :
      frame_limit;

  if (bytes <= limit)
    return TRUE;
  /* Links are made in NULL, before there is a bus to tell. */
  if (GST_STATE (filter) >= GST_STATE_READY && *said != key) {
    *said = key;
    GST_ELEMENT_ERROR (filter, CORE, NEGOTIATION, ("A %dx%d output frame "
            "of %s needs %" G_GUINT64_FORMAT " bytes, more than %s "
            "(%" G_GUINT64_FORMAT " bytes): %s", w, h,
            gst_structure_get_string (s, "format"), bytes,
            dev && limit < frame_limit ? "the device's largest buffer" :
            "one frame holds", limit, advice), ("caps %" GST_PTR_FORMAT, s));
  }
  return FALSE;
}
