/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:gstclvcontext
 * @title: Device sharing
 * @short_description: One #GstClvDevice for the elements of a pipeline
 *
 * The elements of a pipeline share one #GstClvDevice through a
 * #GST_CLV_CONTEXT_TYPE #GstContext, as GstGL and GstCuda share theirs:
 * an element that needs a device asks its peers (a context query), then
 * the application and the bins (a need-context message), and otherwise
 * opens one and announces it (a have-context message).  An application
 * that sets a context of its own device on a pipeline decides where its
 * elements run.
 *
 * The contexts the elements announce hold, besides "device" (the device
 * of the element announcing it), "devices": every device the pipeline's
 * elements opened, one #GstClvDevice each.  An element whose device is
 * "auto" that finds no device among its peers (it starts a new branch of
 * the pipeline) takes the least-loaded device of the best kind rather
 * than the pipeline's, sharing the handle of that device if the context
 * has one and announcing a context with it added otherwise: the branches
 * of one pipeline spread over the devices, while the elements of one
 * branch (and of a memory:OpenCL chain) share their peers' device.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclv-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_context_debug);
#define GST_CAT_DEFAULT gst_clv_context_debug

static void
debug_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_clv_context_debug, "clvcontext", 0,
        "clvision OpenCL context sharing");
    g_once_init_leave (&done, 1);
  }
}

/**
 * gst_clv_context_new:
 * @device: the device to share
 *
 * Makes a context that shares @device with the elements of a pipeline
 * (gst_element_set_context()).
 *
 * Returns: (transfer full): a new #GST_CLV_CONTEXT_TYPE context holding
 *     @device, persistent.
 *
 * Since: 0.1
 */
/* A context the elements announce: `device` and every one of `devices`
 * (GstClvDevice), marked as open to spreading. */
static GstContext *
context_new_shared (GstClvDevice * device, GPtrArray * devices)
{
  GstContext *context = gst_context_new (GST_CLV_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);
  GValue array = G_VALUE_INIT;

  g_value_init (&array, GST_TYPE_ARRAY);
  for (guint i = 0; i < devices->len; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_CLV_DEVICE);
    g_value_set_object (&v, devices->pdata[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_set (s, "device", GST_TYPE_CLV_DEVICE, device, "spread",
      G_TYPE_BOOLEAN, TRUE, NULL);
  gst_structure_take_value (s, "devices", &array);
  return context;
}

static gboolean
spec_is_auto (const gchar * spec)
{
  guint platform, device;

  return clv_device_spec_parse (spec, &platform, &device) ==
      CLV_DEVICE_SPEC_AUTO;
}

/* Whether `context` is one the elements announced (not an application's),
 * whose devices an "auto" element may spread over. */
static gboolean
context_is_shared (GstContext * context)
{
  gboolean spread = FALSE;

  return gst_structure_get_boolean (gst_context_get_structure (context),
      "spread", &spread) && spread;
}

/* The devices of `context` (GstClvDevice, referenced): its "devices", or
 * its "device" alone. */
static GPtrArray *
context_devices (GstContext * context)
{
  GPtrArray *devices = g_ptr_array_new_with_free_func (gst_object_unref);
  const GValue *array = gst_structure_get_value (gst_context_get_structure
      (context), "devices");
  GstClvDevice *device;

  if (array != NULL && GST_VALUE_HOLDS_ARRAY (array)) {
    for (guint i = 0; i < gst_value_array_get_size (array); i++)
      g_ptr_array_add (devices, g_value_dup_object (gst_value_array_get_value
              (array, i)));
  } else if ((device = gst_clv_context_get_device (context))) {
    g_ptr_array_add (devices, device);
  }
  return devices;
}

GstContext *
gst_clv_context_new (GstClvDevice * device)
{
  GstContext *context;

  g_return_val_if_fail (GST_IS_CLV_DEVICE (device), NULL);

  context = gst_context_new (GST_CLV_CONTEXT_TYPE, TRUE);
  gst_structure_set (gst_context_writable_structure (context), "device",
      GST_TYPE_CLV_DEVICE, device, NULL);
  return context;
}

/**
 * gst_clv_context_get_device:
 * @context: a #GstContext
 *
 * The device a #GST_CLV_CONTEXT_TYPE context holds.
 *
 * Returns: (transfer full) (nullable): the device @context holds, or %NULL
 *     if it is not a #GST_CLV_CONTEXT_TYPE context holding one.
 *
 * Since: 0.1
 */
GstClvDevice *
gst_clv_context_get_device (GstContext * context)
{
  const GstStructure *s;
  GstClvDevice *device = NULL;

  g_return_val_if_fail (GST_IS_CONTEXT (context), NULL);

  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_CLV_CONTEXT_TYPE) != 0)
    return NULL;
  s = gst_context_get_structure (context);
  if (!gst_structure_get (s, "device", GST_TYPE_CLV_DEVICE, &device, NULL))
    return NULL;
  return device;
}

/**
 * gst_clv_handle_set_context:
 * @element: the element whose #GstElement.set_context() this is
 * @context: the context it was given
 * @spec: (nullable): the device the element wants (its "device" property,
 *     as for gst_clv_device_new())
 * @device: (inout) (transfer full) (nullable): the element's device
 *
 * For #GstElement.set_context(): takes the device of a
 * #GST_CLV_CONTEXT_TYPE @context into *@device if it matches @spec and
 * *@device is %NULL.
 *
 * Since: 0.1
 */
void
gst_clv_handle_set_context (GstElement * element, GstContext * context,
    const gchar * spec, GstClvDevice ** device)
{
  GstClvDevice *found;

  g_return_if_fail (GST_IS_ELEMENT (element));
  g_return_if_fail (GST_IS_CONTEXT (context));
  g_return_if_fail (device != NULL);

  debug_init ();
  /* Which of its devices to take is gst_clv_ensure_device()'s choice. */
  if (context_is_shared (context) && spec_is_auto (spec))
    return;
  found = gst_clv_context_get_device (context);
  if (found == NULL)
    return;
  if (*device == NULL
      && clv_device_matches (gst_clv_device_get_runtime (found), spec)) {
    GST_DEBUG_OBJECT (element, "using shared OpenCL device %s",
        gst_clv_device_get_name (found));
    *device = found;
    return;
  }
  GST_DEBUG_OBJECT (element, "ignoring shared OpenCL device %s (want \"%s\")",
      gst_clv_device_get_name (found), spec);
  gst_object_unref (found);
}

/**
 * gst_clv_handle_context_query:
 * @element: the element answering
 * @query: a context query
 * @device: (nullable): the element's device
 *
 * For context queries: answers a #GST_CLV_CONTEXT_TYPE @query with
 * @device.
 *
 * Returns: %TRUE if @query was answered.
 *
 * Since: 0.1
 */
gboolean
gst_clv_handle_context_query (GstElement * element, GstQuery * query,
    GstClvDevice * device)
{
  const gchar *type;
  GstContext *context;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (device == NULL || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CLV_CONTEXT_TYPE) != 0)
    return FALSE;
  context = gst_clv_context_new (device);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}

typedef struct
{
  GstQuery *query;
  gboolean answered;
} PeerQuery;

static gboolean
query_peer (GstElement * element, GstPad * pad, gpointer user_data)
{
  PeerQuery *pq = user_data;

  pq->answered = gst_pad_peer_query (pad, pq->query);
  return !pq->answered;
}

/* The GstGL/GstCuda "run context query" sequence: downstream and upstream
 * peers first, then a need-context message for the application and bins. */
static void
query_context (GstElement * element, const gchar * spec,
    GstClvDevice ** device)
{
  PeerQuery pq = { gst_query_new_context (GST_CLV_CONTEXT_TYPE), FALSE };
  GstContext *context = NULL;

  gst_element_foreach_src_pad (element, query_peer, &pq);
  if (!pq.answered)
    gst_element_foreach_sink_pad (element, query_peer, &pq);
  if (pq.answered) {
    gst_query_parse_context (pq.query, &context);
    if (context)
      gst_clv_handle_set_context (element, context, spec, device);
  }
  gst_query_unref (pq.query);
  if (*device == NULL)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CLV_CONTEXT_TYPE));
}

/* Opens the device `spec` selects (for "auto" the least-loaded of the
 * best kind) as the pipeline's handle of it when the pipeline's context
 * `shared` (nullable) has one; else as a new handle, announced with a
 * have-context message holding it and the pipeline's other devices. */
static GstClvDevice *
open_device (GstElement * element, const gchar * spec, GstContext * shared,
    GError ** error)
{
  ClvDevice *runtime = clv_device_open (spec, error);
  GPtrArray *devices;
  GstClvDevice *device = NULL;

  if (runtime == NULL)
    return NULL;
  devices = shared ? context_devices (shared) :
      g_ptr_array_new_with_free_func (gst_object_unref);
  for (guint i = 0; i < devices->len && device == NULL; i++)
    if (gst_clv_device_get_runtime (devices->pdata[i]) == runtime)
      device = gst_object_ref (devices->pdata[i]);
  if (device != NULL) {
    GST_INFO_OBJECT (element, "using the pipeline's OpenCL device %s",
        gst_clv_device_get_name (device));
  } else {
    device = gst_clv_device_new_for_runtime (runtime);
    g_ptr_array_add (devices, gst_object_ref (device));
    GST_INFO_OBJECT (element, "opened OpenCL device %s, the pipeline's "
        "device %u", gst_clv_device_get_name (device), devices->len);
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (element),
            context_new_shared (device, devices)));
  }
  clv_device_unref (runtime);
  g_ptr_array_unref (devices);
  return device;
}

/**
 * gst_clv_ensure_device:
 * @element: the element that needs a device
 * @spec: (nullable): which device (as for gst_clv_device_new())
 * @device: (inout) (transfer full) (nullable): the element's device
 * @error: return location for a #GError, or %NULL
 *
 * Makes *@device a device that @spec selects: keeps one already there,
 * else asks the pipeline: a context query to the peers (whose device it
 * takes if it matches), then a need-context message, which an application
 * or bin may answer with gst_element_set_context().  A device the
 * application gives is taken if it matches; from a context the elements
 * announced, an "auto" @spec takes the least-loaded device (see the
 * section's description) and any other @spec the device it selects, the
 * pipeline's handle of it if there is one.  A device opened anew is
 * announced with a have-context message.  Call it from the element's
 * change from READY to PAUSED or its start().
 *
 * Returns: %TRUE with *@device set, or %FALSE with @error set.
 *
 * Since: 0.1
 */
gboolean
gst_clv_ensure_device (GstElement * element, const gchar * spec,
    GstClvDevice ** device, GError ** error)
{
  GstContext *shared;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (device != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  debug_init ();
  if (*device && clv_device_matches (gst_clv_device_get_runtime (*device),
          spec))
    return TRUE;
  gst_clear_object (device);

  query_context (element, spec, device);
  if (*device)
    return TRUE;
  shared = gst_element_get_context (element, GST_CLV_CONTEXT_TYPE);
  if (shared != NULL && !context_is_shared (shared)) {
    gst_context_unref (shared);
    shared = NULL;
  }
  *device = open_device (element, spec, shared, error);
  if (shared)
    gst_context_unref (shared);
  return *device != NULL;
}
