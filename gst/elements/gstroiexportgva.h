/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roiexport schema=gva: the records Intel DL Streamer's gvametaconvert
 * writes for video frames (its json format, as its jsonconverter.cpp makes
 * them), so that consumers of DL Streamer read ours unchanged. */
#pragma once

#include <gst/gst.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The record of `buf`, a frame of width x height in `segment`: NULL when
 * it has no object and `add_empty` is FALSE.  `source` (NULL: none) and
 * `tags` (a JSON object, NULL: none) go in as they are. */
gchar *roi_export_gva_record (GstBuffer * buf, const GstSegment * segment,
    gint width, gint height, const gchar * source, JsonNode * tags,
    gboolean add_empty);

G_END_DECLS
