/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for the SAR element tests: frames between ClvImage and GstBuffer. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "clv-image.h"

G_BEGIN_DECLS

/* The ClvImage bytes per pixel of "GRAY8" or "GRAY16_LE". */
int sar_check_bpp (const gchar * format);

/* Sets `h`'s source caps to a raw gray format of this size. */
void sar_check_set_caps (GstHarness * h, const gchar * format, int width,
    int height);

/* A buffer holding `data` (laid out as GStreamer lays out `im`'s size). */
GstBuffer *sar_check_buffer_new (const guint8 * data, const ClvImage * im);

/* Pushes `data` through `h` and returns the output frame as a packed image
 * (g_free it), with its caps' size and format in `out_im`.  `out_buf`
 * (nullable) receives the output buffer (unref it). */
guint8 *sar_check_push_image (GstHarness * h, const guint8 * data,
    const ClvImage * in_im, ClvImage * out_im, GstBuffer ** out_buf);

/* The frame of `buf` as a packed image (g_free it). */
guint8 *sar_check_buffer_image (GstBuffer * buf, GstCaps * caps,
    ClvImage * im);

/* Adds a "face" ROI meta with this id and a "detection" parameter structure
 * (normalised box fields zeroed), as vjfacedetect would. */
GstVideoRegionOfInterestMeta *sar_check_add_face (GstBuffer * buf, guint x,
    guint y, guint w, guint h, gint id);

G_END_DECLS
