/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvcontext.h"

GST_DEBUG_CATEGORY_STATIC (gst_clv_context_debug);
#define GST_CAT_DEFAULT gst_clv_context_debug

G_DEFINE_BOXED_TYPE_WITH_CODE (ClvDevice, gst_clv_device,
    (GBoxedCopyFunc) clv_device_ref, (GBoxedFreeFunc) clv_device_unref,
    GST_DEBUG_CATEGORY_INIT (gst_clv_context_debug, "clvcontext", 0,
        "clvision OpenCL context sharing"));

GstContext *
gst_clv_context_new (ClvDevice * dev)
{
  GstContext *context = gst_context_new (GST_CLV_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);

  gst_structure_set (s, "device", GST_TYPE_CLV_DEVICE, dev, NULL);
  return context;
}

ClvDevice *
gst_clv_context_get_device (GstContext * context)
{
  const GstStructure *s;
  ClvDevice *dev = NULL;

  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_CLV_CONTEXT_TYPE) != 0)
    return NULL;
  s = gst_context_get_structure (context);
  if (!gst_structure_get (s, "device", GST_TYPE_CLV_DEVICE, &dev, NULL))
    return NULL;
  return dev;
}

void
gst_clv_handle_set_context (GstElement * element, GstContext * context,
    const gchar * spec, ClvDevice ** dev)
{
  ClvDevice *found = gst_clv_context_get_device (context);

  if (found == NULL)
    return;
  if (*dev == NULL && clv_device_matches (found, spec)) {
    GST_DEBUG_OBJECT (element, "using shared OpenCL device %s",
        found->device_name);
    *dev = found;
    return;
  }
  GST_DEBUG_OBJECT (element, "ignoring shared OpenCL device %s (want \"%s\")",
      found->device_name, spec);
  clv_device_unref (found);
}

gboolean
gst_clv_handle_context_query (GstElement * element, GstQuery * query,
    ClvDevice * dev)
{
  const gchar *type;
  GstContext *context;

  if (dev == NULL || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CLV_CONTEXT_TYPE) != 0)
    return FALSE;
  context = gst_clv_context_new (dev);
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
query_context (GstElement * element, const gchar * spec, ClvDevice ** dev)
{
  PeerQuery pq = { gst_query_new_context (GST_CLV_CONTEXT_TYPE), FALSE };
  GstContext *context = NULL;

  gst_element_foreach_src_pad (element, query_peer, &pq);
  if (!pq.answered)
    gst_element_foreach_sink_pad (element, query_peer, &pq);
  if (pq.answered) {
    gst_query_parse_context (pq.query, &context);
    if (context)
      gst_clv_handle_set_context (element, context, spec, dev);
  }
  gst_query_unref (pq.query);
  if (*dev == NULL)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CLV_CONTEXT_TYPE));
}

gboolean
gst_clv_ensure_device (GstElement * element, const gchar * spec,
    ClvDevice ** dev, GError ** error)
{
  GstContext *context;

  if (*dev && clv_device_matches (*dev, spec))
    return TRUE;
  g_clear_pointer (dev, clv_device_unref);

  query_context (element, spec, dev);
  if (*dev)
    return TRUE;

  *dev = clv_device_open (spec, error);
  if (*dev == NULL)
    return FALSE;
  GST_INFO_OBJECT (element, "opened OpenCL device %s", (*dev)->device_name);
  context = gst_clv_context_new (*dev);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), context));
  return TRUE;
}
