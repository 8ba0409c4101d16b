/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgstclvision-1.0: what applications and the clvision plugin share.
 *
 *   #include <gst/clvision/clvision.h>      (pkg-config gstreamer-clvision-1.0)
 *
 * - GstClvDevice: an OpenCL device with the context and queue that every
 *   user of it in the process shares (gstclvdevice.h);
 * - the gst.opencl.context GstContext that shares one device between the
 *   elements of a pipeline and the application (gstclvcontext.h);
 * - memory:OpenCL: GstClvMemory, its allocator and GST_MAP_OPENCL
 *   (gstclvmemory.h), and a buffer pool of it (gstclvbufferpool.h);
 * - typed access to the detection and recognition results that the
 *   analysers put on GstVideoRegionOfInterestMeta (gstclvmeta.h);
 * - the georeferencing of a frame, GstClvGeoMeta (gstclvgeometa.h);
 * - application/x-raster, the media type of Float32, complex and other
 *   rasters that video/x-raw cannot express (gstclvraster.h). */
#pragma once

#include <gst/clvision/clvision-prelude.h>
#include <gst/clvision/gstclvdevice.h>
#include <gst/clvision/gstclvcontext.h>
#include <gst/clvision/gstclvmemory.h>
#include <gst/clvision/gstclvbufferpool.h>
#include <gst/clvision/gstclvmeta.h>
#include <gst/clvision/gstclvgeometa.h>
#include <gst/clvision/gstclvraster.h>
