/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for the memory:OpenCL element tests.  The tests talk to the
 * plugin through GStreamer and libgstclvision-1.0: the allocator's counter
 * properties, pools from allocation queries, contexts from context
 * queries. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clvision/clvision.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 uploads;
  guint64 downloads;
  guint64 allocations;
} ClvCounts;

/* The OpenCL allocator's counters now (the plugin must be loaded). */
void clv_check_counts (ClvCounts * counts);

/* A buffer of system memory holding a deterministic frame of `info`. */
GstBuffer *clv_check_frame (const GstVideoInfo * info, guint32 seed);

/* The pool the element after `h`'s source pad proposes for `caps`,
 * activated. */
GstBufferPool *clv_check_proposed_pool (GstHarness * h, const gchar * caps);

/* A buffer of `pool` holding a copy of `frame`'s bytes, written as a
 * source writes into the pool its peer proposed. */
GstBuffer *clv_check_pool_copy (GstBufferPool * pool, GstBuffer * frame);

/* The device an element answers a gst.opencl.context query with, or NULL. */
GstClvDevice *clv_check_element_device (GstElement * element);

/* Asserts that two mapped frames have equal pixels in every plane. */
void clv_check_frames_equal (const GstVideoFrame * a, const GstVideoFrame * b);

G_END_DECLS
