/* The clvision plugin: registers every element. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstsarmultilook.h"
#include "gsteigenrecognise.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (sarmultilook, plugin);
  ret |= GST_ELEMENT_REGISTER (eigenrecognise, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clvision,
    "OpenCL computer vision and SAR processing elements", plugin_init,
    VERSION, "LGPL", PACKAGE, "https://example.invalid/clvision")
