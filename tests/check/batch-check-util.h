/* For the cross-stream batching tests of vjfacedetect and eigenrecognise:
 * the elements log "batch of N frames" for every frame they analyse. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Starts collecting the batch sizes `category` logs (its threshold goes
 * to LOG). */
void batch_check_watch (const char *category);

/* Stops, and returns the largest batch logged since batch_check_watch. */
gint batch_check_unwatch (void);

G_END_DECLS
