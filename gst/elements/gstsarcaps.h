/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the SAR elements share about caps and samples. */
#pragma once

#include <gst/base/gstbasetransform.h>

#include "clv-image.h"
#include "gstclvfilter.h"
#include <gst/clvision/clvision.h>

G_BEGIN_DECLS

/* The sample type of frames holding `info` (GRAY8, GRAY16_LE, Float32,
 * CInt16, CFloat32); FALSE for others. */
gboolean gst_sar_sample_of (const GstClvRasterInfo * info,
    ClvSample * sample);

/* Maps a raster's no-data value from the sink to the source pad; FALSE:
 * the output has none. */
typedef gboolean (*GstSarMapNodata) (GstBaseTransform * trans,
    gdouble in, gdouble * out);

/* transform_caps for elements whose output has the input's size, in any
 * format of the other pad's template: each structure of `caps` gives every
 * structure of that template with the same caps features, with the
 * input's width, height and frame rate.  From sink to source a raster's
 * nodata goes across through `map_nodata` (NULL: as it is). */
GstCaps *gst_sar_transform_caps_same_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter,
    GstSarMapNodata map_nodata);

/* Whether an output frame of `w` x `h` pixels laid out as `s` (a fixed
 * format; other structures pass) fits in one buffer of the element's
 * device, and in a GStreamer frame (under 4 GiB).  If not, posts once for
 * that size what is too large and `advice`, what to change; *said keeps
 * the size last said. */
gboolean gst_sar_check_output_size (GstClvFilter * filter,
    const GstStructure * s, gint w, gint h, const gchar * advice,
    guint64 * said);

/* transform_meta of the elements that keep a frame's geometry: the
 * georeferencing goes across as it is, other metas as GstClvFilter
 * decides. */
gboolean gst_sar_same_geometry_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);

G_END_DECLS
