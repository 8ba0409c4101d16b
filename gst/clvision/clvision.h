/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgstclvision-1.0: what applications and the clvision plugin share.
 *
 *   #include <gst/clvision/clvision.h>      (pkg-config gstreamer-clvision-1.0)
 *
 * - memory:OpenCL: GstClMemory, its allocator and GST_MAP_OPENCL
 *   (gstclmemory.h), and a buffer pool of it (gstclbufferpool.h);
 * - the gst.opencl.context GstContext that shares one OpenCL device, its
 *   context and queue between elements and the application (gstclvcontext.h);
 * - typed access to the detection and recognition results that the
 *   analysers put on GstVideoRegionOfInterestMeta (gstclvmeta.h);
 * - the georeferencing of a frame, GstClvGeoMeta (gstclvgeometa.h);
 * - application/x-raster, the media type of Float32, complex and other
 *   rasters that video/x-raw cannot express (gstclvraster.h).
 * The device object itself, ClvDevice, comes from the GStreamer-free
 * runtime libclvision-opencl-1.0 (clv-opencl.h). */
#pragma once

#include <gst/clvision/clvision-prelude.h>
#include <gst/clvision/gstclmemory.h>
#include <gst/clvision/gstclbufferpool.h>
#include <gst/clvision/gstclvcontext.h>
#include <gst/clvision/gstclvmeta.h>
#include <gst/clvision/gstclvgeometa.h>
#include <gst/clvision/gstclvraster.h>
