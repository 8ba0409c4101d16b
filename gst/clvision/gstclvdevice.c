/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvdevice
 * @title: GstClvDevice
 * @short_description: An OpenCL device with its shared context and queue
 *
 * A #GstClvDevice is an OpenCL device together with the context and the
 * in-order command queue that every clvision element of the process uses
 * on it, so that their kernels and memory (#GstClvMemory) work together
 * without copies through the host.  Elements find it through a
 * `gst.opencl.context` #GstContext (see gst_clv_context_new()); an
 * application that wants its own pipelines on a given device makes one
 * with gst_clv_device_new() and sets that context on them.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclv-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_device_debug);
#define GST_CAT_DEFAULT gst_clv_device_debug

/**
 * GstClvDevice:
 *
 * An OpenCL device with the context and queue its users in the process
 * share.
 *
 * Since: 0.1
 */
struct _GstClvDevice
{
  GstObject parent;

  ClvDevice *runtime;
};

enum
{
  PROP_0,
  PROP_NAME,
  PROP_PLATFORM_NAME,
  PROP_DESCRIPTION,
  PROP_PLATFORM_INDEX,
  PROP_DEVICE_INDEX,
};

G_DEFINE_TYPE_WITH_CODE (GstClvDevice, gst_clv_device, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_clv_device_debug, "clvdevice", 0,
        "clvision OpenCL device"));

/* One domain for the runtime's errors and ours. */
G_STATIC_ASSERT ((int) GST_CLV_ERROR_NO_PLATFORM == CLV_ERROR_NO_PLATFORM);
G_STATIC_ASSERT ((int) GST_CLV_ERROR_NO_DEVICE == CLV_ERROR_NO_DEVICE);
G_STATIC_ASSERT ((int) GST_CLV_ERROR_OPENCL == CLV_ERROR_OPENCL);
G_STATIC_ASSERT ((int) GST_CLV_ERROR_BUILD == CLV_ERROR_BUILD);
G_STATIC_ASSERT ((int) GST_CLV_ERROR_INVALID == CLV_ERROR_INVALID);

/**
 * gst_clv_error_quark:
 *
 * The error domain #GST_CLV_ERROR.
 *
 * Returns: the #GST_CLV_ERROR domain.
 *
 * Since: 0.1
 */
GQuark
gst_clv_error_quark (void)
{
  return clv_error_quark ();
}

GstClvDevice *
gst_clv_device_new_for_runtime (ClvDevice * runtime)
{
  GstClvDevice *device;

  g_return_val_if_fail (runtime != NULL, NULL);

  device = g_object_new (GST_TYPE_CLV_DEVICE, NULL);
  gst_object_ref_sink (device);
  device->runtime = clv_device_ref (runtime);
  return device;
}

ClvDevice *
gst_clv_device_get_runtime (GstClvDevice * device)
{
  return device->runtime;
}

/**
 * gst_clv_device_new:
 * @spec: (nullable): which device: %NULL or "auto" (the least used device
 *     of the best kind present: GPU, else accelerator, else CPU; the
 *     environment variable CLVISION_DEVICE overrides it), "first" (the
 *     first device of that kind), "P:D" (platform and device index, as
 *     `clinfo -l` lists them) or a case-insensitive part of the platform or
 *     device name
 * @error: return location for a #GError, or %NULL
 *
 * Opens the device that @spec names, with the context and queue that
 * every user of that device in the process shares.
 *
 * Returns: (transfer full) (nullable): the device, or %NULL with @error
 *     set when no OpenCL platform is installed or none of its devices
 *     matches @spec.
 *
 * Since: 0.1
 */
GstClvDevice *
gst_clv_device_new (const gchar * spec, GError ** error)
{
  ClvDevice *runtime = clv_device_open (spec, error);
  GstClvDevice *device;

  if (runtime == NULL)
    return NULL;
  device = gst_clv_device_new_for_runtime (runtime);
  clv_device_unref (runtime);
  return device;
}

/**
 * gst_clv_device_get_name:
 * @device: a #GstClvDevice
 *
 * The name of @device.
 *
 * Returns: (transfer none): the device's name (CL_DEVICE_NAME).
 *
 * Since: 0.1
 */
const gchar *
gst_clv_device_get_name (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return device->runtime->device_name;
}

/**
 * gst_clv_device_get_platform_name:
 * @device: a #GstClvDevice
 *
 * The name of the OpenCL platform of @device.
 *
 * Returns: (transfer none): the name of the device's OpenCL platform
 *     (CL_PLATFORM_NAME).
 *
 * Since: 0.1
 */
const gchar *
gst_clv_device_get_platform_name (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return device->runtime->platform_name;
}

/**
 * gst_clv_device_get_description:
 * @device: a #GstClvDevice
 *
 * A description of @device for messages.
 *
 * Returns: (transfer full): the device, its platform and its index for
 *     messages, e.g. "NVIDIA H200 (NVIDIA CUDA, 0:0)".
 *
 * Since: 0.1
 */
gchar *
gst_clv_device_get_description (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return clv_device_describe (device->runtime);
}

/**
 * gst_clv_device_get_platform_index:
 * @device: a #GstClvDevice
 *
 * The index of the platform of @device.
 *
 * Returns: the index of the device's platform, P in a "P:D" device string.
 *
 * Since: 0.1
 */
guint
gst_clv_device_get_platform_index (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), 0);

  return device->runtime->platform_index;
}

/**
 * gst_clv_device_get_device_index:
 * @device: a #GstClvDevice
 *
 * The index of @device in its platform.
 *
 * Returns: the index of the device in its platform, D in a "P:D" device
 *     string.
 *
 * Since: 0.1
 */
guint
gst_clv_device_get_device_index (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), 0);

  return device->runtime->device_index;
}

/**
 * gst_clv_device_is_same_context:
 * @device: a #GstClvDevice
 * @other: another #GstClvDevice
 *
 * Whether kernels on @device can use memory of @other where it is, without
 * a copy through the host: both share one OpenCL context.
 *
 * Returns: %TRUE if @device and @other share their OpenCL context.
 *
 * Since: 0.1
 */
gboolean
gst_clv_device_is_same_context (GstClvDevice * device, GstClvDevice * other)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), FALSE);
  g_return_val_if_fail (GST_IS_CLV_DEVICE (other), FALSE);

  return device->runtime->context == other->runtime->context;
}

/**
 * gst_clv_device_get_cl_context: (skip)
 * @device: a #GstClvDevice
 *
 * The OpenCL context of @device.
 *
 * Returns: (transfer none): the OpenCL context shared by every user of the
 *     device in the process; retain it to keep it beyond @device.
 *
 * Since: 0.1
 */
cl_context
gst_clv_device_get_cl_context (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return device->runtime->context;
}

/**
 * gst_clv_device_get_cl_device: (skip)
 * @device: a #GstClvDevice
 *
 * The OpenCL device of @device.
 *
 * Returns: (transfer none): the OpenCL device.
 *
 * Since: 0.1
 */
cl_device_id
gst_clv_device_get_cl_device (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return device->runtime->device;
}

/**
 * gst_clv_device_get_cl_queue: (skip)
 * @device: a #GstClvDevice
 *
 * The in-order command queue (with profiling) on which the elements
 * enqueue their kernels and copies: commands an application enqueues there
 * run after the elements' work queued before them, as #GstClvMemory's
 * contents need.
 *
 * Returns: (transfer none): the device's command queue.
 *
 * Since: 0.1
 */
cl_command_queue
gst_clv_device_get_cl_queue (GstClvDevice * device)
{
  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  return device->runtime->queue;
}

static void
gst_clv_device_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClvDevice *device = GST_CLV_DEVICE (object);

  switch (prop_id) {
    case PROP_NAME:
      g_value_set_string (value, device->runtime->device_name);
      break;
    case PROP_PLATFORM_NAME:
      g_value_set_string (value, device->runtime->platform_name);
      break;
    case PROP_DESCRIPTION:
      g_value_take_string (value, clv_device_describe (device->runtime));
      break;
    case PROP_PLATFORM_INDEX:
      g_value_set_uint (value, device->runtime->platform_index);
      break;
    case PROP_DEVICE_INDEX:
      g_value_set_uint (value, device->runtime->device_index);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_clv_device_finalize (GObject * object)
{
  GstClvDevice *device = GST_CLV_DEVICE (object);

  g_clear_pointer (&device->runtime, clv_device_unref);
  G_OBJECT_CLASS (gst_clv_device_parent_class)->finalize (object);
}

static void
gst_clv_device_class_init (GstClvDeviceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->get_property = gst_clv_device_get_property;
  gobject_class->finalize = gst_clv_device_finalize;

  /**
   * GstClvDevice:name:
   *
   * The device's name (CL_DEVICE_NAME).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_NAME,
      g_param_spec_string ("name", "Name", "The OpenCL device's name", NULL,
          flags));
  /**
   * GstClvDevice:platform-name:
   *
   * The name of the device's OpenCL platform (CL_PLATFORM_NAME).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PLATFORM_NAME,
      g_param_spec_string ("platform-name", "Platform name",
          "The OpenCL platform's name", NULL, flags));
  /**
   * GstClvDevice:description:
   *
   * The device, its platform and its index, for messages.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DESCRIPTION,
      g_param_spec_string ("description", "Description",
          "The device, its platform and its P:D index", NULL, flags));
  /**
   * GstClvDevice:platform-index:
   *
   * The index of the device's platform, P in a "P:D" device string.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PLATFORM_INDEX,
      g_param_spec_uint ("platform-index", "Platform index",
          "P in the P:D device string", 0, G_MAXUINT, 0, flags));
  /**
   * GstClvDevice:device-index:
   *
   * The index of the device in its platform, D in a "P:D" device string.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_INDEX,
      g_param_spec_uint ("device-index", "Device index",
          "D in the P:D device string", 0, G_MAXUINT, 0, flags));
}

static void
gst_clv_device_init (GstClvDevice * device)
{
}
