/* Label text through Pango/Cairo into A8 masks; see clv-overlay.h. */
#include "clv-overlay.h"

#include <string.h>
#include <pango/pangocairo.h>

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
  if (logical.width <= 0 || logical.height <= 0)
    goto empty;
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

empty:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
      "Pango renders nothing for the label \"%s\"", text);
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
