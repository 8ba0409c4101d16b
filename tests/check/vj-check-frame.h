/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames for the vjfacedetect element tests (check-vjfacedetect,
 * check-faults): a gray picture as a buffer of any raw video format. */
#pragma once

#include <gst/gst.h>

#include "vj-test-gray.h"

/* A frame of `format` whose luma is exactly `g`: gray chroma for YUV, equal
 * channels for RGB (OpenCV's weights add up to one).  Its caps in `caps`
 * if not NULL; no timestamps. */
GstBuffer *vj_check_frame_buffer (const Gray * g, const char *format,
    GstCaps ** caps);
