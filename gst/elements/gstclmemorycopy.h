/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemoryCopy: the base of clupload and cldownload.  Any raw video, in
 * system memory or memory:OpenCL on either pad, passthrough when both pads
 * agree; the other pad prefers the memory the subclass moves frames into. */
#pragma once

#include "gstclvfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_MEMORY_COPY (gst_cl_memory_copy_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClMemoryCopy, gst_cl_memory_copy, GST,
    CL_MEMORY_COPY, GstClvFilter);

struct _GstClMemoryCopyClass
{
  GstClvFilterClass parent_class;

  /* TRUE: frames go to the device (clupload); FALSE: to the host. */
  gboolean to_device;
};

G_END_DECLS
