/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON helpers of roiexport; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstroiexportjson.h"

void
roi_export_json_add_string (JsonBuilder * b, const gchar * s)
{
  if (s == NULL) {
    json_builder_add_null_value (b);
  } else if (g_utf8_validate (s, -1, NULL)) {
    json_builder_add_string_value (b, s);
  } else {
    gchar *valid = g_utf8_make_valid (s, -1);
    json_builder_add_string_value (b, valid);
    g_free (valid);
  }
}

/* json-glib 1.6 (Debian 12) leaves U+001F unescaped in strings, which
 * strict parsers refuse.  The compact generator puts no whitespace between
 * tokens, so a byte below 0x20 in its output is inside a string, where
 * \u00XX is its escape (UTF-8 sequences have no such bytes). */
static gchar *
escape_control_bytes (gchar * json)
{
  GString *out;

  if (strpbrk (json, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
          "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
          "\x1c\x1d\x1e\x1f") == NULL)
    return json;
  out = g_string_sized_new (strlen (json) + 16);
  for (const gchar * c = json; *c != '\0'; c++) {
    if ((guchar) * c < 0x20)
      g_string_append_printf (out, "\\u%04x", (guchar) * c);
    else
      g_string_append_c (out, *c);
  }
  g_free (json);
  return g_string_free (out, FALSE);
}

gchar *
roi_export_json_line (JsonBuilder * b)
{
  JsonNode *root = json_builder_get_root (b);
  JsonGenerator *gen = json_generator_new ();
  gchar *line;

  json_generator_set_root (gen, root);
  line = escape_control_bytes (json_generator_to_data (gen, NULL));
  g_object_unref (gen);
  json_node_unref (root);
  return line;
}
