/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Refusals at negotiation, shared by the element tests. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Runs `videotestsrc num-buffers=1 ! capsfilter ! ELEMENT ! fakesink` with
 * the capsfilter's `caps` set once linked (as when a stream changes size)
 * and counts ELEMENT's errors; the first goes to *det_error.  Asserts that
 * the stream does not pass and that any other error is GStreamer's echo
 * ("Internal data stream error."). */
guint clv_check_late_caps_errors (const gchar * element, const gchar * caps,
    GError ** det_error);

G_END_DECLS
