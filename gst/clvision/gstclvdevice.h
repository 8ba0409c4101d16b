/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <CL/cl.h>

#include <gst/clvision/clvision-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CLV_ERROR:
 *
 * The error domain of the errors of libgstclvision-1.0 and of the messages
 * of the clvision elements that come from OpenCL; the codes are
 * #GstClvError.
 *
 * Since: 0.1
 */
#define GST_CLV_ERROR (gst_clv_error_quark ())

/**
 * GstClvError:
 * @GST_CLV_ERROR_NO_PLATFORM: no OpenCL platform is installed
 * @GST_CLV_ERROR_NO_DEVICE: the device string matches no device
 * @GST_CLV_ERROR_OPENCL: an OpenCL call failed (the message names it and
 *     its error)
 * @GST_CLV_ERROR_BUILD: a kernel failed to build (the message holds the
 *     build log)
 * @GST_CLV_ERROR_INVALID: a bad argument or bad data
 *
 * The errors of libgstclvision-1.0 and of the OpenCL runtime under it,
 * in the #GST_CLV_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CLV_ERROR_NO_PLATFORM,
  GST_CLV_ERROR_NO_DEVICE,
  GST_CLV_ERROR_OPENCL,
  GST_CLV_ERROR_BUILD,
  GST_CLV_ERROR_INVALID,
} GstClvError;

GST_CLVISION_API
GQuark gst_clv_error_quark (void);

#define GST_TYPE_CLV_DEVICE (gst_clv_device_get_type ())
GST_CLVISION_API
G_DECLARE_FINAL_TYPE (GstClvDevice, gst_clv_device, GST, CLV_DEVICE,
    GstObject);

GST_CLVISION_API
GstClvDevice *gst_clv_device_new (const gchar * spec, GError ** error);

GST_CLVISION_API
const gchar *gst_clv_device_get_name (GstClvDevice * device);

GST_CLVISION_API
const gchar *gst_clv_device_get_platform_name (GstClvDevice * device);

GST_CLVISION_API
gchar *gst_clv_device_get_description (GstClvDevice * device);

GST_CLVISION_API
guint gst_clv_device_get_platform_index (GstClvDevice * device);

GST_CLVISION_API
guint gst_clv_device_get_device_index (GstClvDevice * device);

GST_CLVISION_API
gboolean gst_clv_device_is_same_context (GstClvDevice * device,
    GstClvDevice * other);

GST_CLVISION_API
cl_context gst_clv_device_get_cl_context (GstClvDevice * device);

GST_CLVISION_API
cl_device_id gst_clv_device_get_cl_device (GstClvDevice * device);

GST_CLVISION_API
cl_command_queue gst_clv_device_get_cl_queue (GstClvDevice * device);

G_END_DECLS
