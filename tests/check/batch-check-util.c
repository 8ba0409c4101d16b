/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See batch-check-util.h. */
#include <stdlib.h>
#include <string.h>

#include "batch-check-util.h"

static gchar *watched;
static gint max_batch;

static void
batch_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const char *text, *at;
  gint n, old;

  if (g_strcmp0 (gst_debug_category_get_name (category), watched))
    return;
  text = gst_debug_message_get (message);
  if (text == NULL || (at = strstr (text, "batch of ")) == NULL)
    return;
  n = atoi (at + strlen ("batch of "));
  do
    old = g_atomic_int_get (&max_batch);
  while (n > old && !g_atomic_int_compare_and_exchange (&max_batch, old, n));
}

void
batch_check_watch (const char *category)
{
  g_free (watched);
  watched = g_strdup (category);
  g_atomic_int_set (&max_batch, 0);
  gst_debug_set_threshold_for_name (category, GST_LEVEL_LOG);
  gst_debug_add_log_function (batch_log, NULL, NULL);
}

gint
batch_check_unwatch (void)
{
  gst_debug_remove_log_function (batch_log);
  g_clear_pointer (&watched, g_free);
  return g_atomic_int_get (&max_batch);
}

cl_event
batch_check_hold (ClvDevice * dev)
{
  cl_int st;
  cl_event hold = clCreateUserEvent (dev->context, &st);

  g_assert_cmpint (st, ==, CL_SUCCESS);
  g_assert_cmpint (clEnqueueMarkerWithWaitList (dev->queue, 1, &hold, NULL),
      ==, CL_SUCCESS);
  g_assert_cmpint (clFlush (dev->queue), ==, CL_SUCCESS);
  return hold;
}

void
batch_check_release (cl_event hold, gint * started, gint streams)
{
  while (g_atomic_int_get (started) < streams)
    g_usleep (1000);
  /* Time for every started stream to reach the service, with a margin
   * for a CI machine of two cores busy with other tests. */
  g_usleep (2 * G_USEC_PER_SEC);
  g_assert_cmpint (clSetUserEventStatus (hold, CL_COMPLETE), ==, CL_SUCCESS);
  clReleaseEvent (hold);
}
