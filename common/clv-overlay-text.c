/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Label text through Pango/Cairo into A8 masks; see clv-overlay.h. */
#include "clv-overlay.h"

#include <string.h>
#include <pango/pangocairo.h>

/* Whether fontconfig (through Pango) knows `name`: an installed family,
 * one of the aliases Pango lists (Sans, Serif, Monospace, System-ui) or
 * another generic name fontconfig's configuration maps to one. */
static gboolean
family_known (PangoFontMap * fontmap, const char *name)
{
  static const char *const generic[] = { "sans-serif", "mono", "emoji",
    "math", "cursive", "fantasy"
  };
  PangoFontFamily **families;
  int n;
  gboolean found = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (generic); i++)
    if (g_ascii_strcasecmp (name, generic[i]) == 0)
      return TRUE;
  pango_font_map_list_families (fontmap, &families, &n);
  for (int i = 0; i < n && !found; i++)
    found = g_ascii_strcasecmp (name,
        pango_font_family_get_name (families[i])) == 0;
  g_free (families);
  return found;
}

gboolean
clv_overlay_check_font (const char *font_desc, GError ** error)
{
  PangoFontMap *fontmap = pango_cairo_font_map_get_default ();
  PangoFontDescription *desc =
      pango_font_description_from_string (font_desc ? font_desc : "");
  const char *family = pango_font_description_get_family (desc);
  const PangoFontMask set = pango_font_description_get_set_fields (desc);
  const int size = pango_font_description_get_size (desc);
  gchar **names = g_strsplit (family ? family : "", ",", -1);
  gboolean ok = family == NULL;

  for (int i = 0; names[i] != NULL && !ok; i++)
    ok = *g_strstrip (names[i]) != '\0' && family_known (fontmap, names[i]);
  if (!ok)
    goto no_family;
  if ((set & PANGO_FONT_MASK_SIZE) && (size <= 0
          || size > CLV_OVERLAY_MAX_FONT_SIZE * PANGO_SCALE))
    goto bad_size;
  g_strfreev (names);
  pango_font_description_free (desc);
  return TRUE;

no_family:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "No font family \"%s\" is installed (font description \"%s\"): "
      "`fc-list : family` lists the installed ones; Sans, Serif and "
      "Monospace always work", family, font_desc);
  goto fail;
bad_size:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "The font size of \"%s\" must be between 1 and %d", font_desc,
      CLV_OVERLAY_MAX_FONT_SIZE);
fail:
  g_strfreev (names);
  pango_font_description_free (desc);
  return FALSE;
}

guint8 *
clv_overlay_render_text (const char *font_desc, const char *text, int pad,
    int *width, int *height, GError ** error)
{
  PangoFontMap *fontmap = pango_cairo_font_map_get_default ();
  PangoContext *context = pango_font_map_create_context (fontmap);
  PangoFontDescription *desc =
      pango_font_description_from_string (font_desc ? font_desc : "");
  PangoLayout *layout;
  cairo_font_options_t *options = cairo_font_options_create ();
  cairo_surface_t *surface = NULL;
  cairo_t *cr;
  PangoRectangle ink, logical;
  guint8 *mask = NULL;
  int w, h, stride;

  /* Gray antialiasing without hinting: the same masks wherever the same
   * fonts are installed. */
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options (context, options);
  layout = pango_layout_new (context);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_extents (layout, &ink, &logical);
  *width = *height = 0;
  if (logical.width <= 0 || logical.height <= 0)
    goto out;
  w = logical.width + 2 * pad;
  h = logical.height + 2 * pad;
  surface = cairo_image_surface_create (CAIRO_FORMAT_A8, w, h);
  cr = cairo_create (surface);
  cairo_move_to (cr, pad - logical.x, pad - logical.y);
  pango_cairo_show_layout (cr, layout);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    goto cairo_failed;
  stride = cairo_image_surface_get_stride (surface);
  mask = g_malloc ((gsize) w * h);
  for (int y = 0; y < h; y++)
    memcpy (mask + (gsize) y * w, cairo_image_surface_get_data (surface)
        + (gsize) y * stride, w);
  *width = w;
  *height = h;
  goto out;

cairo_failed:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Cairo could not render the label \"%s\": %s", text,
      cairo_status_to_string (cairo_surface_status (surface)));
out:
  g_clear_pointer (&surface, cairo_surface_destroy);
  cairo_font_options_destroy (options);
  g_object_unref (layout);
  pango_font_description_free (desc);
  g_object_unref (context);
  return mask;
}
