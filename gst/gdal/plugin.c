/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The clvisiongdal plugin: GDAL rasters in and out of clvision pipelines.
 * A plugin of its own (as gst-plugins-bad keeps elements with heavy
 * dependencies apart) so that the clvision plugin loads without GDAL. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gdal.h>

#include <gst/clvision/clvision.h>
#include "gstgdalsrc.h"
#include "gstgdalsink.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  GDALAllRegister ();
  /* Registered now: the elements attach and read it from any thread. */
  gst_clv_geo_meta_get_info ();
  ret |= GST_ELEMENT_REGISTER (gdalsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (gdalsink, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clvisiongdal,
    "GDAL raster source and sink with georeferencing for clvision",
    plugin_init, VERSION, "LGPL", PACKAGE, GST_PACKAGE_ORIGIN)
