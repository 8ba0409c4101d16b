/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sharing one ClvDevice (OpenCL context + queue) between the elements of a
 * pipeline through a GstContext, as GstGL and GstCuda do. */
#pragma once

#include <gst/gst.h>
#include <gst/clvision/clvision-prelude.h>
#include <clv-opencl.h>

G_BEGIN_DECLS

/* The GstContext type; its structure holds the device in the field "device". */
#define GST_CLV_CONTEXT_TYPE "gst.opencl.context"

#define GST_TYPE_CLV_DEVICE (gst_clv_device_get_type ())
GST_CLVISION_API
GType gst_clv_device_get_type (void);

GST_CLVISION_API
GstContext *gst_clv_context_new (ClvDevice * dev);
/* The device a context holds (a new reference), or NULL. */
GST_CLVISION_API
ClvDevice *gst_clv_context_get_device (GstContext * context);

/* Makes *dev a device that `spec` selects: keeps one already set, else asks
 * the pipeline (context query on the peers, then need-context on the bus),
 * else opens one and announces it with have-context. */
GST_CLVISION_API
gboolean gst_clv_ensure_device (GstElement * element, const gchar * spec,
    ClvDevice ** dev, GError ** error);

/* For GstElement::set_context: takes the device of a gst.opencl.context if it
 * suits `spec` and none is held yet. */
GST_CLVISION_API
void gst_clv_handle_set_context (GstElement * element, GstContext * context,
    const gchar * spec, ClvDevice ** dev);

/* For context queries: answers with `dev` (may be NULL). */
GST_CLVISION_API
gboolean gst_clv_handle_context_query (GstElement * element, GstQuery * query,
    ClvDevice * dev);

G_END_DECLS
