/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <gst/clvision/clvision-prelude.h>
#include <gst/clvision/gstclvdevice.h>

G_BEGIN_DECLS

#define GST_TYPE_CLV_BUFFER_POOL (gst_clv_buffer_pool_get_type ())
GST_CLVISION_API
G_DECLARE_FINAL_TYPE (GstClvBufferPool, gst_clv_buffer_pool, GST,
    CLV_BUFFER_POOL, GstBufferPool);

GST_CLVISION_API
GstBufferPool *gst_clv_buffer_pool_new (GstClvDevice * device);

GST_CLVISION_API
GstClvDevice *gst_clv_buffer_pool_get_device (GstClvBufferPool * pool);

G_END_DECLS
