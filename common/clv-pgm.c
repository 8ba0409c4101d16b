/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 8-bit binary PGM reading and writing. */
#include "clv-pgm.h"

#include <string.h>

/* The next header integer, skipping whitespace and # comments. */
static gboolean
header_int (const char *data, gsize len, gsize * pos, int *out)
{
  gint64 v = 0;
  gsize start;

  for (;;) {
    while (*pos < len && g_ascii_isspace (data[*pos]))
      (*pos)++;
    if (*pos < len && data[*pos] == '#') {
      while (*pos < len && data[*pos] != '\n')
        (*pos)++;
      continue;
    }
    break;
  }
  start = *pos;
  while (*pos < len && g_ascii_isdigit (data[*pos]) && v <= G_MAXINT)
    v = v * 10 + (data[(*pos)++] - '0');
  if (*pos == start || v > G_MAXINT)
    return FALSE;
  *out = (int) v;
  return TRUE;
}

guint8 *
clv_pgm_read (const char *path, int *width, int *height, GError ** error)
{
  char *data;
  gsize len, pos = 2;
  int w, h, maxval;
  guint8 *pixels = NULL;

  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  if (len < 2 || data[0] != 'P' || data[1] != '5'
      || !header_int (data, len, &pos, &w) || !header_int (data, len, &pos, &h)
      || !header_int (data, len, &pos, &maxval) || pos >= len
      || !g_ascii_isspace (data[pos]) || w <= 0 || h <= 0 || maxval != 255) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is not an 8-bit binary PGM (P5, maxval 255)", path);
    goto out;
  }
  pos++;
  if (len - pos < (gsize) w * h) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is truncated: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
        " pixel bytes", path, len - pos, (gsize) w * h);
    goto out;
  }
  pixels = g_memdup2 (data + pos, (gsize) w * h);
  *width = w;
  *height = h;
out:
  g_free (data);
  return pixels;
}

gboolean
clv_pgm_write (const char *path, const guint8 * pixels, int width, int height,
    gsize stride, GError ** error)
{
  GString *s = g_string_new (NULL);
  gboolean ok;

  g_string_printf (s, "P5\n%d %d\n255\n", width, height);
  for (int y = 0; y < height; y++)
    g_string_append_len (s, (const char *) pixels + y * stride, width);
  ok = g_file_set_contents (path, s->str, s->len, error);
  g_string_free (s, TRUE);
  return ok;
}
