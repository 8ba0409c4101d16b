/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON that strict parsers take, for roiexport's records. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Adds `s` as a string value (null for NULL); bytes that are not UTF-8
 * become U+FFFD, since JSON must be UTF-8 and nothing makes GstStructure
 * strings so. */
void roi_export_json_add_string (JsonBuilder * b, const gchar * s);

/* The builder's document as one line of compact JSON, control characters
 * escaped. */
gchar *roi_export_json_line (JsonBuilder * b);

G_END_DECLS
