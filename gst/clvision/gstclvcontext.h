/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <gst/clvision/clvision-prelude.h>
#include <gst/clvision/gstclvdevice.h>

G_BEGIN_DECLS

/**
 * GST_CLV_CONTEXT_TYPE:
 *
 * The type of the #GstContext that shares a #GstClvDevice between the
 * elements of a pipeline and the application; its structure holds the
 * device in the field "device".
 *
 * Since: 0.1
 */
#define GST_CLV_CONTEXT_TYPE "gst.opencl.context"

GST_CLVISION_API
GstContext *gst_clv_context_new (GstClvDevice * device);

GST_CLVISION_API
GstClvDevice *gst_clv_context_get_device (GstContext * context);

GST_CLVISION_API
gboolean gst_clv_ensure_device (GstElement * element, const gchar * spec,
    GstClvDevice ** device, GError ** error);

GST_CLVISION_API
void gst_clv_handle_set_context (GstElement * element, GstContext * context,
    const gchar * spec, GstClvDevice ** device);

GST_CLVISION_API
gboolean gst_clv_handle_context_query (GstElement * element, GstQuery * query,
    GstClvDevice * device);

G_END_DECLS
