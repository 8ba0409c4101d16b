/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device time and waits: how busy a device is (the benchmarks' busy
 * fraction), how long events took, and waiting for an event outside the
 * driver while several analysers share the device. */
#pragma once

#include "clv-device.h"

G_BEGIN_DECLS

/* An interval of device time, in the device's profiling nanoseconds. */
typedef struct
{
  cl_ulong start, end;
} ClvSpan;

/* How busy the device is (the benchmarks' busy fraction): between
 * clv_device_busy_start() and clv_device_busy_stop(), the detectors note
 * the device time of the kernels they ran (clv_device_busy_note(), with
 * finished events of a queue that profiles: ClvDevice's `profiling`).
 * clv_device_busy_stop() returns the fraction of the span, from the first
 * kernel's start to the last one's end, during which at least one of them
 * ran, and the span in seconds (0 and 0 if none ran).  Uploads on the
 * transfer queue are not counted. */
CLV_API
void clv_device_busy_start (ClvDevice * dev);
CLV_API
void clv_device_busy_note (ClvDevice * dev, GPtrArray * events);
CLV_API
double clv_device_busy_stop (ClvDevice * dev, double *span_seconds);
/* The same for `n` spans in any order, overlapping or not (sorts them). */
CLV_API
double clv_spans_busy_fraction (ClvSpan * spans, guint n,
    double *span_seconds);

/* Whether waits on `dev` are left to the driver (clvision's only analyser
 * of it, clv_device_analysers()), or poll outside it. */
CLV_API
gboolean clv_event_waits_in_driver (ClvDevice * dev);
/* Submits the queue of `event` unless it is `except`: a wait for a
 * command not yet submitted would never end.  FALSE with `error` naming
 * the failed call. */
CLV_API
gboolean clv_event_flush_queue (cl_event event, cl_command_queue except,
    GError ** error);

/* Waits until `event` is complete, as clWaitForEvents() does, but with
 * several analysers on `dev` (clv_device_analysers()) outside the driver:
 * the event's queue is flushed and its status polled.  FALSE with `error`
 * naming the failed call, or saying that the event's command failed (its
 * negative status is the error's). */
CLV_API
gboolean clv_event_wait (ClvDevice * dev, cl_event event, GError ** error);
/* Seconds a finished event spent executing (needs a queue that profiles;
 * 0 otherwise). */
CLV_API
double clv_event_seconds (cl_event event);
/* Seconds from the start of `first` to the end of `last` (0 if unknown). */
CLV_API
double clv_event_span_seconds (cl_event first, cl_event last);

G_END_DECLS
