/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device time and waits; see clv-events.h. */
#include "clv-opencl.h"

#include <stdlib.h>

void
clv_device_busy_start (ClvDevice * dev)
{
  g_mutex_lock (&dev->lock);
  if (dev->busy)
    g_array_set_size (dev->busy, 0);
  else
    dev->busy = g_array_new (FALSE, FALSE, sizeof (ClvSpan));
  g_mutex_unlock (&dev->lock);
}

void
clv_device_busy_note (ClvDevice * dev, GPtrArray * events)
{
  g_mutex_lock (&dev->lock);
  for (guint i = 0; dev->busy && i < events->len; i++) {
    ClvSpan s;

    if (clGetEventProfilingInfo (events->pdata[i], CL_PROFILING_COMMAND_START,
            sizeof (s.start), &s.start, NULL) == CL_SUCCESS
        && clGetEventProfilingInfo (events->pdata[i],
            CL_PROFILING_COMMAND_END, sizeof (s.end), &s.end,
            NULL) == CL_SUCCESS && s.end >= s.start)
      g_array_append_val (dev->busy, s);
  }
  g_mutex_unlock (&dev->lock);
}

double
clv_device_busy_stop (ClvDevice * dev, double *span_seconds)
{
  GArray *spans;
  double fraction;

  g_mutex_lock (&dev->lock);
  spans = dev->busy;
  dev->busy = NULL;
  g_mutex_unlock (&dev->lock);
  if (spans == NULL) {
    *span_seconds = 0;
    return 0;
  }
  fraction = clv_spans_busy_fraction ((ClvSpan *) spans->data, spans->len,
      span_seconds);
  g_array_unref (spans);
  return fraction;
}

static int
compare_span_starts (const void *a, const void *b)
{
  const cl_ulong x = ((const ClvSpan *) a)->start;
  const cl_ulong y = ((const ClvSpan *) b)->start;

  return (x > y) - (x < y);
}

double
clv_spans_busy_fraction (ClvSpan * spans, guint n, double *span_seconds)
{
  cl_ulong busy = 0, first, start, end;

  *span_seconds = 0;
  if (n == 0)
    return 0;
  qsort (spans, n, sizeof (ClvSpan), compare_span_starts);
  /* Sorted by start: [start, end] grows while the next span overlaps it. */
  first = start = spans[0].start;
  end = spans[0].end;
  for (guint i = 1; i < n; i++) {
    if (spans[i].start > end) {
      busy += end - start;
      start = spans[i].start;
    }
    end = MAX (end, spans[i].end);
  }
  busy += end - start;
  *span_seconds = (end - first) * 1e-9;
  return end > first ? (double) busy / (end - first) : 0;
}

double
clv_event_span_seconds (cl_event first, cl_event last)
{
  cl_ulong t0 = 0, t1 = 0;

  if (clGetEventProfilingInfo (first, CL_PROFILING_COMMAND_START,
          sizeof (t0), &t0, NULL) != CL_SUCCESS
      || clGetEventProfilingInfo (last, CL_PROFILING_COMMAND_END,
          sizeof (t1), &t1, NULL) != CL_SUCCESS || t1 < t0)
    return 0.0;
  return (t1 - t0) * 1e-9;
}

double
clv_event_seconds (cl_event event)
{
  return clv_event_span_seconds (event, event);
}

/* Blocking calls wait inside the driver, and NVIDIA's hold up the other
 * threads' calls meanwhile: while a batch's blocking read waited, the
 * other streams' uploads waited 2.3 ms (median) for DMAs of about 0.1 ms,
 * and 64 streams of 640x480 left an H100 idle 25% of the time.  So with several
 * analysers on the device a wait polls the event's status, sleeping
 * between; alone, the driver's own wait returns soonest (a lone 640x480
 * stream's latency went from 0.37 to 0.43-0.47 ms polling, to 0.49 ms
 * woken by the event's callback). */
#define EVENT_POLL_US 20

gboolean
clv_event_waits_in_driver (ClvDevice * dev)
{
  return clv_device_analysers (dev) <= 1;
}

gboolean
clv_event_flush_queue (cl_event event, cl_command_queue except,
    GError ** error)
{
  cl_command_queue queue = NULL;

  CLV_CHECK (clGetEventInfo (event, CL_EVENT_COMMAND_QUEUE, sizeof (queue),
          &queue, NULL), error, fail);
  if (queue && queue != except)
    CLV_CHECK (clFlush (queue), error, fail);
  return TRUE;

fail:
  return FALSE;
}

gboolean
clv_event_wait (ClvDevice * dev, cl_event event, GError ** error)
{
  cl_int st, status = CL_QUEUED;

  if (clv_event_waits_in_driver (dev)) {
    /* NVIDIA's returns CL_SUCCESS for a failed event too: the status
     * below tells. */
    st = clWaitForEvents (1, &event);
    if (st != CL_SUCCESS
        && st != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
      clv_set_cl_error (error, st, "clWaitForEvents (1, &event)", __FILE__,
          __LINE__);
      return FALSE;
    }
  } else if (!clv_event_flush_queue (event, NULL, error)) {
    return FALSE;
  }
  for (;;) {
    CLV_CHECK (clGetEventInfo (event, CL_EVENT_COMMAND_EXECUTION_STATUS,
            sizeof (status), &status, NULL), error, fail);
    if (status <= CL_COMPLETE)
      break;
    g_usleep (EVENT_POLL_US);
  }
  if (status < 0)
    goto command_failed;
  return TRUE;

command_failed:
  clv_set_cl_error (error, status, "the command the event stands for "
      "(its execution status)", __FILE__, __LINE__);
fail:
  return FALSE;
}
