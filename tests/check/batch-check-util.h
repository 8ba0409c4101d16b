/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For the cross-stream batching tests of vjfacedetect and eigenrecognise:
 * the elements log "batch of N frames" for every frame they analyse. */
#pragma once

#include <gst/gst.h>
#include "clv-opencl.h"

G_BEGIN_DECLS

/* Starts collecting the batch sizes `category` logs (its threshold goes
 * to LOG). */
void batch_check_watch (const char *category);

/* Stops, and returns the largest batch logged since batch_check_watch. */
gint batch_check_unwatch (void);

/* Holds `dev`'s queue (a marker waiting on a user event, returned): the
 * batches that start wait on the device, and the frames that come
 * meanwhile gather in the service, however the streams' threads are
 * scheduled (a batch of recognition is over in a moment, before another
 * thread runs). */
cl_event batch_check_hold (ClvDevice * dev);

/* Lets the queue go once `*started` (counted by the stream threads before
 * their first frame) reaches `streams`, and two seconds more for the
 * frames to reach the service. */
void batch_check_release (cl_event hold, gint * started, gint streams);

G_END_DECLS
