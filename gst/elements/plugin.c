/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The clvision plugin: registers every element. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include <gst/clvision/clvision.h>
#include "gstclupload.h"
#include "gstcldownload.h"
#include "gstsardb.h"
#include "gstsarintensity.h"
#include "gstsarmultilook.h"
#include "gstsarquantize.h"
#include "gstsarrotscale.h"
#include "gstsarspeckle.h"
#include "gstvjfacedetect.h"
#include "gsteigenrecognise.h"
#include "gstroiexport.h"
#include "gstroioverlay.h"
#include "gstroitrack.h"
#include "gstclvurisrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  gst_clv_memory_init_once ();
  /* Registered now so that applications can build a gst.opencl.context by
   * type name, and so that its debug category exists before first use. */
  g_type_ensure (GST_TYPE_CLV_DEVICE);
  ret |= GST_ELEMENT_REGISTER (clupload, plugin);
  ret |= GST_ELEMENT_REGISTER (cldownload, plugin);
  ret |= GST_ELEMENT_REGISTER (sardb, plugin);
  ret |= GST_ELEMENT_REGISTER (sarintensity, plugin);
  ret |= GST_ELEMENT_REGISTER (sarmultilook, plugin);
  ret |= GST_ELEMENT_REGISTER (sarquantize, plugin);
  ret |= GST_ELEMENT_REGISTER (sarrotscale, plugin);
  ret |= GST_ELEMENT_REGISTER (sarspeckle, plugin);
  ret |= GST_ELEMENT_REGISTER (vjfacedetect, plugin);
  ret |= GST_ELEMENT_REGISTER (cascadedetect, plugin);
  ret |= GST_ELEMENT_REGISTER (eigenrecognise, plugin);
  ret |= GST_ELEMENT_REGISTER (roiexport, plugin);
  ret |= GST_ELEMENT_REGISTER (roioverlay, plugin);
  ret |= GST_ELEMENT_REGISTER (roitrack, plugin);
  ret |= GST_ELEMENT_REGISTER (clvurisrc, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clvision,
    "OpenCL computer vision and SAR processing elements", plugin_init,
    VERSION, "LGPL", PACKAGE, GST_PACKAGE_ORIGIN)
