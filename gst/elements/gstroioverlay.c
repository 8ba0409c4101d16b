/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-roioverlay
 * @title: roioverlay
 *
 * Draws every #GstVideoRegionOfInterestMeta of a frame: its box and a
 * label built from its "detection" (confidence), "recognition" (name,
 * distance) and "tracking" (identifier) parameter structures: the
 * recognition's label (else the detection's, else the ROI type), then
 * ` #<id>` for a tracked object and, with `show-confidence`, ` d=<distance>`
 * and ` <confidence>%`, e.g. `alice #12 d=1234 50%` or `face 86%`; names
 * longer than 64 characters are cut.  Frames in system memory are drawn on the
 * CPU; frames in memory:OpenCL are drawn by a kernel on the device, so a
 * chain from clupload to cldownload never leaves it.  Both give the same
 * bytes (common/clv-overlay.h has the rules).
 *
 * Boxes are drawn inside the ROI, `thickness` pixels wide, clipped at the
 * frame's edges.  A label is a band of the box's colour above the box
 * (inside it when there is no room above) with the text in black or white,
 * whichever reads better; Pango renders each distinct text once, in
 * `font-desc`, into a cached alpha mask.  Colours: one per label_id (the
 * recognition's, else the detection's) from a palette of eight, or the
 * fixed `color` (drawn opaque); a ROI inside another one (its parent_id
 * names another ROI of the frame, as a cascadedetect with `parent` makes
 * them: eyes inside faces) takes the palette's next colour after its
 * parent's, one step per level.  The palette: 0 green, 1 red, 2 azure,
 * 3 yellow, 4 magenta, 5 cyan, 6 orange, 7 violet; ids wrap modulo 8 and
 * -1 (unknown) takes violet.  Colours are converted to the frame's
 * components with BT.601 (limited range for YUV, OpenCV's gray weights for
 * GRAY8).
 *
 * Redaction: with #GstRoiOverlay:mode `blur`, `pixelate` or `fill`, each
 * ROI's box, enlarged by #GstRoiOverlay:grow about its centre and outward
 * to whole chroma blocks (2x2 pixels in I420), is blurred
 * (every pixel the rounded mean of those within a cell of it), pixelated
 * (cells replaced by their rounded means) or filled with `color` (black
 * when 0), and nothing else is drawn for it; a cell is the box's longer
 * side divided by #GstRoiOverlay:cells.  With the default, vjfacedetect
 * finds no face in a blurred or pixelated face (at 4 cells it still finds
 * some blurred ones).  Only the box's own pixels
 * are read, so nothing outside it changes.  The device and the CPU give
 * the same bytes.  #GstRoiOverlay:labels limits the ROIs the element acts
 * on (in every mode) to those with one of the listed labels; chain two
 * roioverlays to redact some ROIs and draw others.
 *
 * When downstream (e.g. glimagesink) supports #GstVideoOverlayCompositionMeta
 * in its allocation query, the boxes and labels are attached as an overlay
 * composition instead (as textoverlay does) and the pixels are left alone.
 * (Redaction always changes the pixels.)
 * A frame without ROI metas passes untouched, in place.
 *
 * A font-desc whose family fontconfig does not know, or with a size of 0 or
 * above 256, is a RESOURCE/SETTINGS error when the element starts (or at the
 * next frame with ROIs when set while playing), instead of Pango's silent
 * fallback to another font.  A frame larger than the device's largest
 * buffer (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`) fails at negotiation with a
 * message that gives both sizes.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg ! \
 *     jpegdec ! videoconvert ! imagefreeze num-buffers=1 ! vjfacedetect ! \
 *     roioverlay thickness=3 ! videoconvert ! pngenc ! filesink location=faces.png
 * ]| Boxes the faces of a photo, drawn on the CPU.
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg ! \
 *     jpegdec ! videoconvert ! imagefreeze num-buffers=1 ! clupload ! \
 *     vjfacedetect ! roioverlay color=0xffffff00 font-desc="Sans Bold 14" ! \
 *     cldownload ! videoconvert ! pngenc ! filesink location=faces.png
 * ]| The same with detection and drawing on the OpenCL device, in yellow.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstroioverlay.h"
#include "gstclv-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_roi_overlay_debug);
#define GST_CAT_DEFAULT gst_roi_overlay_debug

#define FORMATS "{ GRAY8, I420, YV12, NV12, NV21, Y444, RGB, BGR, RGBx, " \
  "BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR }"

#define DEFAULT_SHOW_LABEL TRUE
#define DEFAULT_SHOW_CONFIDENCE TRUE
#define DEFAULT_THICKNESS 2
#define MAX_THICKNESS 100
#define DEFAULT_COLOR 0
#define DEFAULT_FONT_DESC "Sans 10"
#define DEFAULT_MODE GST_ROI_OVERLAY_MODE_DRAW
#define DEFAULT_GROW 1.0
#define DEFAULT_LABELS NULL
#define DEFAULT_CELLS 3
/* Blur sums stay within 32 bits: 255 (2 r + 1)^2 < 2^32. */
#define MAX_REDACT_SIZE 2048

/* Empty pixels around the text in a label. */
#define LABEL_PAD 2
/* The label cache starts again past these (labels with distances or
 * confidences change all the time). */
#define MAX_LABELS 256
/* Longer names are cut (with an ellipsis): a label stays a label, and its
 * mask far below Cairo's 32767-pixel limit. */
#define MAX_NAME_CHARS 64
#define MAX_MASK_BYTES (8 << 20)

enum
{
  PROP_0,
  PROP_SHOW_LABEL,
  PROP_SHOW_CONFIDENCE,
  PROP_THICKNESS,
  PROP_COLOR,
  PROP_FONT_DESC,
  PROP_MODE,
  PROP_GROW,
  PROP_LABELS,
  PROP_CELLS,
};

/* Where a rendered text is in the mask atlas. */
typedef struct
{
  gint32 offset;
  int width, height;
} LabelMask;

/* What a frame's ROIs draw: the operations and their RGB colours (the
 * composition needs those). */
typedef struct
{
  ClvOverlayOp op;
  ClvRgb fg, bg;
} Shape;

struct _GstRoiOverlay
{
  GstClvFilter parent;

  /* properties, under the object lock */
  gboolean show_label;
  gboolean show_confidence;
  guint thickness;
  guint color;
  gchar *font_desc;
  GstRoiOverlayMode mode;
  gdouble grow;
  gchar **label_filter;         /* NULL: every ROI */
  guint cells;

  /* streaming: one frame at a time under `draw_lock` (frames in flight
   * are drawn in the element's threads) */
  GMutex draw_lock;
  GHashTable *labels;           /* text -> LabelMask */
  GByteArray *masks;            /* the atlas */
  gchar *labels_font;           /* the font of the cached labels */
  ClvOverlayGpu *gpu;
  gboolean composition_checked;
  gboolean attach_composition;
};

G_DEFINE_TYPE_WITH_CODE (GstRoiOverlay, gst_roi_overlay, GST_TYPE_CLV_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_roi_overlay_debug, "roioverlay", 0,
        "ROI boxes and labels, on the CPU or an OpenCL device"));
GST_ELEMENT_REGISTER_DEFINE (roioverlay, "roioverlay", GST_RANK_NONE,
    GST_TYPE_ROI_OVERLAY);

GType
gst_roi_overlay_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ROI_OVERLAY_MODE_DRAW, "Boxes and labels", "draw"},
    {GST_ROI_OVERLAY_MODE_BLUR, "Blur the boxes", "blur"},
    {GST_ROI_OVERLAY_MODE_PIXELATE, "Pixelate the boxes", "pixelate"},
    {GST_ROI_OVERLAY_MODE_FILL, "Fill the boxes with the colour", "fill"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstRoiOverlayMode", values));
  return type;
}

/* Colours per label_id; -1 (unknown) takes the last. */
static const ClvRgb palette[8] = {
  {0, 255, 0}, {255, 0, 0}, {0, 128, 255}, {255, 255, 0},
  {255, 0, 255}, {0, 255, 255}, {255, 128, 0}, {128, 0, 255},
};

static const ClvRgb black = { 0, 0, 0 }, white = { 255, 255, 255 };

/* The text of `roi`'s label and the label_id its colour follows. */
static gchar *
label_text (GstVideoRegionOfInterestMeta * roi, gboolean show_confidence,
    gint * label_id)
{
  GstClvDetection det;
  GstClvRecognition rec;
  GstClvTracking tracking;
  const gboolean has_det = gst_clv_roi_meta_get_detection (roi, &det);
  const gboolean has_rec = gst_clv_roi_meta_get_recognition (roi, &rec);
  /* UTF-8 (GstStructure refuses other strings). */
  const gchar *name = has_rec ? rec.label : has_det ? det.label :
      g_quark_to_string (roi->roi_type);
  GString *text = g_string_new (name);

  if (g_utf8_strlen (text->str, -1) > MAX_NAME_CHARS) {
    g_string_truncate (text, g_utf8_offset_to_pointer (text->str,
            MAX_NAME_CHARS - 1) - text->str);
    g_string_append (text, "\u2026");
  }
  *label_id = has_rec ? rec.label_id : has_det ? det.label_id : 0;
  if (gst_clv_roi_meta_get_tracking (roi, &tracking))
    g_string_append_printf (text, " #%" G_GUINT64_FORMAT, tracking.id);
  if (show_confidence && has_rec)
    g_string_append_printf (text, " d=%.0f", rec.distance);
  if (show_confidence && has_det)
    g_string_append_printf (text, " %.0f%%", det.confidence * 100.0);
  return g_string_free (text, FALSE);
}

/* Starts a new label cache if font-desc changed (checking the new font)
 * or the cache is full; between frames only, so that a frame's masks stay
 * where they are. */
static gboolean
labels_prepare (GstRoiOverlay * self, GError ** error)
{
  gchar *font;
  gboolean same_font;

  GST_OBJECT_LOCK (self);
  font = g_strdup (self->font_desc);
  GST_OBJECT_UNLOCK (self);
  same_font = g_strcmp0 (font, self->labels_font) == 0;
  if (same_font && g_hash_table_size (self->labels) < MAX_LABELS
      && self->masks->len < MAX_MASK_BYTES) {
    g_free (font);
    return TRUE;
  }
  if (!same_font && !clv_overlay_check_font (font, error)) {
    g_free (font);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "starting a new label cache for font \"%s\"",
      font);
  g_hash_table_remove_all (self->labels);
  g_byte_array_set_size (self->masks, 0);
  g_free (self->labels_font);
  self->labels_font = font;
  if (self->gpu)
    clv_overlay_gpu_forget_masks (self->gpu);
  return TRUE;
}

/* The cached mask of `text`, rendered now if new; 0 x 0 for a text with
 * nothing to draw (a label of zero-width characters draws no label rather
 * than stopping the stream). */
static const LabelMask *
label_mask (GstRoiOverlay * self, const gchar * text, GError ** error)
{
  LabelMask *label = g_hash_table_lookup (self->labels, text);
  GError *render_error = NULL;
  guint8 *mask;
  int w, h;

  if (label)
    return label;
  mask = clv_overlay_render_text (self->labels_font, text, LABEL_PAD, &w, &h,
      &render_error);
  if (render_error) {
    g_propagate_error (error, render_error);
    return NULL;
  }
  label = g_new (LabelMask, 1);
  label->offset = self->masks->len;
  label->width = w;
  label->height = h;
  if (mask)
    g_byte_array_append (self->masks, mask, (guint) w * h);
  g_free (mask);
  g_hash_table_insert (self->labels, g_strdup (text), label);
  GST_LOG_OBJECT (self, "rendered \"%s\": %dx%d", text, w, h);
  return label;
}

/* A ROI coordinate for drawing: coordinates far outside any frame become
 * 2^30, still outside, so that adding a thickness or a label's width
 * cannot overflow. */
static gint32
coord (guint64 v)
{
  return (gint32) MIN (v, 1 << 30);
}

/* The properties a frame is drawn with. */
typedef struct
{
  gboolean show_label, show_confidence;
  guint thickness, color, cells;
  GstRoiOverlayMode mode;
  gdouble grow;
  gchar **labels;
  int xalign, yalign;           /* the format's chroma blocks */
} Settings;

static void
settings_get (GstRoiOverlay * self, Settings * st)
{
  const GstVideoInfo *info =
      gst_clv_filter_get_in_info (GST_CLV_FILTER (self));

  st->xalign = st->yalign = 1;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    st->xalign = MAX (st->xalign, 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c));
    st->yalign = MAX (st->yalign, 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c));
  }
  GST_OBJECT_LOCK (self);
  st->show_label = self->show_label;
  st->show_confidence = self->show_confidence;
  st->thickness = self->thickness;
  st->color = self->color;
  st->cells = self->cells;
  st->mode = self->mode;
  st->grow = self->grow;
  st->labels = g_strdupv (self->label_filter);
  GST_OBJECT_UNLOCK (self);
}

/* Whether the element acts on `roi`: any ROI without a label filter, else
 * one whose type, detection label or recognition label is listed. */
static gboolean
roi_selected (GstVideoRegionOfInterestMeta * roi, gchar ** labels)
{
  GstClvDetection det;
  GstClvRecognition rec;
  const gchar *names[3] = { g_quark_to_string (roi->roi_type), NULL, NULL };

  if (labels == NULL)
    return TRUE;
  if (gst_clv_roi_meta_get_detection (roi, &det))
    names[1] = det.label;
  if (gst_clv_roi_meta_get_recognition (roi, &rec))
    names[2] = rec.label;
  for (gchar ** l = labels; *l; l++)
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      if (g_strcmp0 (*l, names[i]) == 0)
        return TRUE;
  return FALSE;
}

/* A ROI coordinate from a double, kept where `coord` keeps them. */
static gint32
coord_d (gdouble v)
{
  return (gint32) CLAMP (v, -(1 << 30), 1 << 30);
}

/* The redaction of `roi`: its box grown about its centre, outward to whole
 * chroma blocks (so that no pixel outside it changes), cells of its longer
 * side / cells (rounded up). */
static Shape
redact_shape (GstVideoRegionOfInterestMeta * roi, const Settings * st)
{
  const gdouble cx = roi->x + roi->w / 2.0, cy = roi->y + roi->h / 2.0;
  const gdouble hw = roi->w * st->grow / 2.0, hh = roi->h * st->grow / 2.0;
  static const ClvOverlayOpKind kinds[] = {
    [GST_ROI_OVERLAY_MODE_BLUR] = CLV_OVERLAY_BLUR,
    [GST_ROI_OVERLAY_MODE_PIXELATE] = CLV_OVERLAY_PIXELATE,
    [GST_ROI_OVERLAY_MODE_FILL] = CLV_OVERLAY_FILL,
  };
  Shape shape = { {0} };
  gint64 side;

  shape.op.kind = kinds[st->mode];
  shape.op.x0 = coord_d (floor ((cx - hw) / st->xalign) * st->xalign);
  shape.op.y0 = coord_d (floor ((cy - hh) / st->yalign) * st->yalign);
  shape.op.x1 = coord_d (ceil ((cx + hw) / st->xalign) * st->xalign);
  shape.op.y1 = coord_d (ceil ((cy + hh) / st->yalign) * st->yalign);
  side = MAX ((gint64) shape.op.x1 - shape.op.x0,
      (gint64) shape.op.y1 - shape.op.y0);
  /* A pixelation's cell, a blur's radius. */
  shape.op.size = (gint32) CLAMP ((side + st->cells - 1) / st->cells, 1,
      MAX_REDACT_SIZE);
  shape.fg = shape.bg = st->color == 0 ? black : (ClvRgb) {
  (st->color >> 16) & 0xff, (st->color >> 8) & 0xff, st->color & 0xff};
  return shape;
}

/* The box and label of `roi`, `depth` levels below a ROI without a
 * parent. */
static gboolean
add_drawing (GstRoiOverlay * self, GstVideoRegionOfInterestMeta * roi,
    guint depth, const Settings * st, GArray * shapes, GError ** error)
{
  gint label_id;
  gchar *text = label_text (roi, st->show_confidence, &label_id);
  Shape box = { {0} };
  ClvRgb rgb = palette[(((label_id + (gint) depth) % 8) + 8) % 8];
  gboolean ok = TRUE;

  if (st->color != 0)
    rgb = (ClvRgb) { (st->color >> 16) & 0xff, (st->color >> 8) & 0xff,
    st->color & 0xff};
  box.op.kind = CLV_OVERLAY_BOX;
  box.op.x0 = coord (roi->x);
  box.op.y0 = coord (roi->y);
  box.op.x1 = coord ((guint64) roi->x + roi->w);
  box.op.y1 = coord ((guint64) roi->y + roi->h);
  box.op.thickness = st->thickness;
  box.fg = box.bg = rgb;
  /* A ring 0 wide would still paint the chroma blocks at odd edges. */
  if (st->thickness > 0)
    g_array_append_val (shapes, box);

  if (st->show_label && text[0] != '\0') {
    const LabelMask *mask = label_mask (self, text, error);
    Shape label = { {0} };

    if (mask == NULL) {
      ok = FALSE;
    } else if (mask->width > 0) {
      label.op.kind = CLV_OVERLAY_LABEL;
      label.op.x0 = box.op.x0;
      /* Above the box, or inside its top when there is no room. */
      label.op.y0 = box.op.y0 >= mask->height ?
          box.op.y0 - mask->height : box.op.y0;
      label.op.x1 = label.op.x0 + mask->width;
      label.op.y1 = label.op.y0 + mask->height;
      label.op.mask_offset = mask->offset;
      label.bg = rgb;
      label.fg = clv_overlay_component_value (CLV_OVERLAY_GRAY, rgb) >= 128
          ? black : white;
      g_array_append_val (shapes, label);
    }
  }
  g_free (text);
  return ok;
}

/* How many ancestors `roi` has among the frame's ROIs (`parents`: id ->
 * parent_id + 1): a parent_id naming its own id (GStreamer's default 0 for
 * a ROI of id 0) or a chain that loops or runs deeper than 8 gives 0. */
static guint
roi_depth (GHashTable * parents, const GstVideoRegionOfInterestMeta * roi)
{
  gint id = roi->id, up_id = roi->parent_id;
  guint depth = 0;
  gpointer up;

  while (up_id >= 0 && up_id != id && g_hash_table_lookup_extended (parents,
          GINT_TO_POINTER (up_id), NULL, &up)) {
    if (++depth > 8 || up_id == roi->id)
      return 0;
    id = up_id;
    up_id = GPOINTER_TO_INT (up) - 1;
  }
  return depth;
}

/* What every ROI of `buf` the element acts on gives, in meta order. */
static gboolean
build_shapes (GstRoiOverlay * self, GstBuffer * buf, const Settings * st,
    GArray * shapes, GError ** error)
{
  GHashTable *parents = g_hash_table_new (NULL, NULL);
  gpointer state = NULL;
  GstMeta *meta;
  gboolean ok = TRUE;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    g_hash_table_insert (parents, GINT_TO_POINTER (roi->id),
        GINT_TO_POINTER (roi->parent_id + 1));
  }
  state = NULL;
  while (ok && (meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    if (!roi_selected (roi, st->labels))
      continue;
    if (st->mode == GST_ROI_OVERLAY_MODE_DRAW) {
      ok = add_drawing (self, roi, roi_depth (parents, roi), st, shapes,
          error);
    } else {
      const Shape shape = redact_shape (roi, st);

      g_array_append_val (shapes, shape);
    }
  }
  g_hash_table_unref (parents);
  return ok;
}

/* ---- Composition --------------------------------------------------------- */

/* Whether downstream takes GstVideoOverlayCompositionMeta (asked once per
 * negotiation, as textoverlay does). */
static gboolean
downstream_takes_composition (GstRoiOverlay * self)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *caps = gst_pad_get_current_caps (srcpad);
  GstQuery *query;
  gboolean ret;

  if (caps == NULL)
    return FALSE;
  query = gst_query_new_allocation (caps, FALSE);
  ret = gst_pad_peer_query (srcpad, query)
      && gst_query_find_allocation_meta (query,
      GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  gst_query_unref (query);
  gst_caps_unref (caps);
  GST_DEBUG_OBJECT (self, "downstream %s overlay compositions",
      ret ? "takes" : "does not take");
  return ret;
}

/* A w x h rectangle of `pixels` (GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB,
 * taken) shown at x, y, render_w x render_h. */
static GstVideoOverlayRectangle *
new_rectangle (guint8 * pixels, int w, int h, int x, int y, int render_w,
    int render_h)
{
  GstBuffer *buf = gst_buffer_new_wrapped (pixels, (gsize) w * h * 4);
  GstVideoOverlayRectangle *rect;

  gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, w, h);
  rect = gst_video_overlay_rectangle_new_raw (buf, x, y, render_w, render_h,
      GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
  gst_buffer_unref (buf);
  return rect;
}

/* An opaque pixel of the composition format (BGRA in memory on little
 * endian machines, ARGB on big endian). */
static void
set_pixel (guint8 * p, guint8 r, guint8 g, guint8 b)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  p[0] = b, p[1] = g, p[2] = r, p[3] = 255;
#else
  p[0] = 255, p[1] = r, p[2] = g, p[3] = b;
#endif
}

/* Adds a one-pixel rectangle of colour `c` stretched over [x0, x1) x
 * [y0, y1) clipped to the frame, if anything is left. */
static void
add_solid (GstVideoOverlayComposition ** comp, ClvRgb c, int x0, int y0,
    int x1, int y1, const GstVideoInfo * info)
{
  GstVideoOverlayRectangle *rect;
  guint8 *pixel;

  x0 = MAX (x0, 0);
  y0 = MAX (y0, 0);
  x1 = MIN (x1, GST_VIDEO_INFO_WIDTH (info));
  y1 = MIN (y1, GST_VIDEO_INFO_HEIGHT (info));
  if (x0 >= x1 || y0 >= y1)
    return;
  pixel = g_malloc (4);
  set_pixel (pixel, c.r, c.g, c.b);
  rect = new_rectangle (pixel, 1, 1, x0, y0, x1 - x0, y1 - y0);
  if (*comp == NULL)
    *comp = gst_video_overlay_composition_new (rect);
  else
    gst_video_overlay_composition_add_rectangle (*comp, rect);
  gst_video_overlay_rectangle_unref (rect);
}

/* The shapes as an overlay composition: each box as four solid
 * rectangles (its sides), each label as its pixels, both as they would be
 * drawn (labels blended with the same integer rule). */
static GstVideoOverlayComposition *
shapes_composition (GstRoiOverlay * self, GArray * shapes,
    const GstVideoInfo * info)
{
  GstVideoOverlayComposition *comp = NULL;

  for (guint i = 0; i < shapes->len; i++) {
    const Shape *s = &g_array_index (shapes, Shape, i);
    const ClvOverlayOp *op = &s->op;

    if (op->kind == CLV_OVERLAY_BOX) {
      /* Top, bottom, left, right; none overlap, even when the ring fills
       * the box. */
      const int top = MIN (op->y0 + op->thickness, op->y1);
      const int bottom = MAX (op->y1 - op->thickness, top);
      const int left = MIN (op->x0 + op->thickness, op->x1);
      const int right = MAX (op->x1 - op->thickness, left);

      add_solid (&comp, s->fg, op->x0, op->y0, op->x1, top, info);
      add_solid (&comp, s->fg, op->x0, bottom, op->x1, op->y1, info);
      add_solid (&comp, s->fg, op->x0, top, left, bottom, info);
      add_solid (&comp, s->fg, right, top, op->x1, bottom, info);
    } else {
      const int w = op->x1 - op->x0, h = op->y1 - op->y0;
      const guint8 *mask = self->masks->data + op->mask_offset;
      guint8 *pixels;
      GstVideoOverlayRectangle *rect;

      /* Labels start inside the frame or are left out, like boxes. */
      if (op->x0 >= GST_VIDEO_INFO_WIDTH (info)
          || op->y0 >= GST_VIDEO_INFO_HEIGHT (info))
        continue;
      pixels = g_malloc ((gsize) w * h * 4);
      for (int p = 0; p < w * h; p++) {
        const int m = mask[p];
#define BLEND(f, b) ((guint8) (((f) * m + (b) * (255 - m) + 127) / 255))
        set_pixel (pixels + 4 * p, BLEND (s->fg.r, s->bg.r),
            BLEND (s->fg.g, s->bg.g), BLEND (s->fg.b, s->bg.b));
#undef BLEND
      }
      rect = new_rectangle (pixels, w, h, op->x0, op->y0, w, h);
      if (comp == NULL)
        comp = gst_video_overlay_composition_new (rect);
      else
        gst_video_overlay_composition_add_rectangle (comp, rect);
      gst_video_overlay_rectangle_unref (rect);
    }
  }
  return comp;
}

/* Attaches `comp` to `buf`, on top of a composition upstream attached (a
 * buffer has one: sinks read the first). */
static void
attach_composition (GstBuffer * buf, GstVideoOverlayComposition * comp)
{
  GstVideoOverlayCompositionMeta *meta =
      gst_buffer_get_video_overlay_composition_meta (buf);
  GstVideoOverlayComposition *merged;

  if (meta == NULL) {
    gst_buffer_add_video_overlay_composition_meta (buf, comp);
    return;
  }
  merged = gst_video_overlay_composition_copy (meta->overlay);
  for (guint i = 0; i < gst_video_overlay_composition_n_rectangles (comp);
      i++)
    gst_video_overlay_composition_add_rectangle (merged,
        gst_video_overlay_composition_get_rectangle (comp, i));
  gst_buffer_remove_meta (buf, (GstMeta *) meta);
  gst_buffer_add_video_overlay_composition_meta (buf, merged);
  gst_video_overlay_composition_unref (merged);
}

/* ---- Drawing ------------------------------------------------------------- */

/* The operations of `shapes` with colours for `layout`. */
static ClvOverlayOp *
shapes_ops (GArray * shapes, const ClvOverlayLayout * layout)
{
  ClvOverlayOp *ops = g_new (ClvOverlayOp, shapes->len);

  for (guint i = 0; i < shapes->len; i++) {
    const Shape *s = &g_array_index (shapes, Shape, i);

    ops[i] = s->op;
    clv_overlay_op_set_colors (&ops[i], layout, s->fg, s->bg);
  }
  return ops;
}

static gboolean
draw_on_device (GstRoiOverlay * self, GstBuffer * buf, GArray * shapes,
    GError ** error)
{
  ClvDevice *dev = gst_clv_filter_get_device (GST_CLV_FILTER (self));
  GstVideoInfo info;
  ClvOverlayLayout layout;
  gsize plane_offsets[GST_VIDEO_MAX_PLANES];
  ClvOverlayOp *ops;
  GstMapInfo map;
  gboolean ok;

  gst_clv_buffer_get_video_info (buf,
      gst_clv_filter_get_in_info (GST_CLV_FILTER (self)), &info);
  if (gst_buffer_get_size (buf) < gst_clv_filter_layout_bytes (&info))
    goto too_short;
  if (self->gpu == NULL
      && (self->gpu = clv_overlay_gpu_new (dev, error)) == NULL)
    return FALSE;
  gst_roi_overlay_layout (&info, &layout);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
    plane_offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET (&info, p);
  if (!gst_buffer_map (buf, &map, GST_MAP_READWRITE | GST_MAP_OPENCL))
    goto map_failed;
  ops = shapes_ops (shapes, &layout);
  ok = clv_overlay_gpu_draw (self->gpu, (cl_mem) map.data, plane_offsets,
      &layout, ops, shapes->len, self->masks->data, self->masks->len, error);
  g_free (ops);
  gst_buffer_unmap (buf, &map);
  return ok;

  /* ERRORS */
too_short:
  {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A %" G_GSIZE_FORMAT
        "-byte buffer is too small for a %dx%d %s frame (%" G_GSIZE_FORMAT
        " bytes)", gst_buffer_get_size (buf), GST_VIDEO_INFO_WIDTH (&info),
        GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_NAME (&info),
        gst_clv_filter_layout_bytes (&info));
    return FALSE;
  }
map_failed:
  {
    gchar *why = gst_clv_filter_map_failure (buf, "Could not map an OpenCL "
        "frame for writing");
    g_set_error_literal (error, CLV_ERROR, CLV_ERROR_INVALID, why);
    g_free (why);
    return FALSE;
  }
}

static gboolean
draw_on_cpu (GstRoiOverlay * self, GstBuffer * buf, GArray * shapes,
    GError ** error)
{
  GstVideoFrame frame;
  ClvOverlayLayout layout;
  guint8 *planes[GST_VIDEO_MAX_PLANES];
  ClvOverlayOp *ops;

  if (!gst_video_frame_map (&frame,
          gst_clv_filter_get_in_info (GST_CLV_FILTER (self)), buf,
          GST_MAP_READWRITE))
    goto map_failed;
  gst_roi_overlay_layout (&frame.info, &layout);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++)
    planes[p] = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
  ops = shapes_ops (shapes, &layout);
  clv_overlay_draw_ref (planes, &layout, ops, shapes->len, self->masks->data);
  g_free (ops);
  gst_video_frame_unmap (&frame);
  return TRUE;

  /* ERRORS */
map_failed:
  {
    g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
        "Could not map a video frame for writing (is the buffer too small "
        "for its caps?)");
    return FALSE;
  }
}

static gboolean
has_rois (GstBuffer * buf)
{
  return gst_buffer_get_meta (buf,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) != NULL;
}

/* Frames without ROIs are not even made writable. */
static GstFlowReturn
gst_roi_overlay_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  if (!has_rois (inbuf)) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_roi_overlay_parent_class)->
      prepare_output_buffer (trans, inbuf, outbuf);
}

static GstFlowReturn
draw_frame (GstRoiOverlay * self, GstBuffer * buf)
{
  GArray *shapes;
  GError *error = NULL;
  Settings st;
  gboolean ok;

  if (!has_rois (buf))
    return GST_FLOW_OK;
  if (!labels_prepare (self, &error))
    goto bad_font;
  settings_get (self, &st);
  shapes = g_array_new (FALSE, FALSE, sizeof (Shape));
  ok = build_shapes (self, buf, &st, shapes, &error);
  g_strfreev (st.labels);
  if (!ok)
    goto no_label;

  if (!self->composition_checked) {
    self->attach_composition = downstream_takes_composition (self);
    self->composition_checked = TRUE;
  }
  if (shapes->len == 0) {
    ok = TRUE;
  } else if (self->attach_composition && st.mode == GST_ROI_OVERLAY_MODE_DRAW) {
    GstVideoOverlayComposition *comp = shapes_composition (self, shapes,
        gst_clv_filter_get_in_info (GST_CLV_FILTER (self)));

    if (comp) {
      attach_composition (buf, comp);
      gst_video_overlay_composition_unref (comp);
    }
    ok = TRUE;
  } else if (gst_clv_filter_buffer_on_device (GST_CLV_FILTER (self), buf)) {
    ok = draw_on_device (self, buf, shapes, &error);
  } else {
    ok = draw_on_cpu (self, buf, shapes, &error);
  }
  g_array_unref (shapes);
  if (!ok)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
bad_font:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return GST_FLOW_ERROR;
  }
no_label:
  {
    g_array_unref (shapes);
    GST_CLV_FILTER_POST_ERROR (self, LIBRARY, FAILED, error);
    return GST_FLOW_ERROR;
  }
failed:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, FAILED, error);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
gst_roi_overlay_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (trans);
  GstFlowReturn ret;

  g_mutex_lock (&self->draw_lock);
  ret = draw_frame (self, buf);
  g_mutex_unlock (&self->draw_lock);
  return ret;
}

static gboolean
gst_roi_overlay_set_info (GstClvFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (filter);

  /* Downstream may differ for the new caps. */
  self->composition_checked = FALSE;
  return TRUE;
}

static gboolean
gst_roi_overlay_src_event (GstBaseTransform * trans, GstEvent * event)
{
  /* A new downstream (or new caps there) may take compositions or not. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE)
    GST_ROI_OVERLAY (trans)->composition_checked = FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_roi_overlay_parent_class)->src_event
      (trans, event);
}

/* A font-desc Pango would not honour fails here, before any frame. */
static gboolean
gst_roi_overlay_start (GstBaseTransform * trans)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (trans);
  GError *error = NULL;
  gchar *font;
  gboolean ok;

  if (!GST_BASE_TRANSFORM_CLASS (gst_roi_overlay_parent_class)->start (trans))
    return FALSE;
  GST_OBJECT_LOCK (self);
  font = g_strdup (self->font_desc);
  GST_OBJECT_UNLOCK (self);
  ok = clv_overlay_check_font (font, &error);
  g_free (font);
  if (!ok)
    goto bad_font;
  return TRUE;

  /* ERRORS */
bad_font:
  {
    GST_CLV_FILTER_POST_ERROR (self, RESOURCE, SETTINGS, error);
    return FALSE;
  }
}

static gboolean
gst_roi_overlay_stop (GstBaseTransform * trans)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (trans);

  g_clear_pointer (&self->gpu, clv_overlay_gpu_free);
  g_hash_table_remove_all (self->labels);
  g_byte_array_set_size (self->masks, 0);
  g_clear_pointer (&self->labels_font, g_free);
  self->composition_checked = FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_roi_overlay_parent_class)->stop
      (trans);
}

/* "face, person" -> { "face", "person" }; NULL when it lists none. */
static gchar **
parse_labels (const gchar * list)
{
  gchar **items = g_strsplit (list ? list : "", ",", -1);
  GPtrArray *labels = g_ptr_array_new ();

  for (gchar ** l = items; *l; l++)
    if (*g_strstrip (*l) != '\0')
      g_ptr_array_add (labels, g_strdup (*l));
  g_strfreev (items);
  if (labels->len == 0) {
    g_ptr_array_free (labels, TRUE);
    return NULL;
  }
  g_ptr_array_add (labels, NULL);
  return (gchar **) g_ptr_array_free (labels, FALSE);
}

static void
gst_roi_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SHOW_LABEL:
      self->show_label = g_value_get_boolean (value);
      break;
    case PROP_SHOW_CONFIDENCE:
      self->show_confidence = g_value_get_boolean (value);
      break;
    case PROP_THICKNESS:
      self->thickness = g_value_get_uint (value);
      break;
    case PROP_COLOR:
      self->color = g_value_get_uint (value);
      break;
    case PROP_FONT_DESC:
      g_free (self->font_desc);
      self->font_desc = g_value_dup_string (value);
      if (self->font_desc == NULL)
        self->font_desc = g_strdup (DEFAULT_FONT_DESC);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_GROW:
      self->grow = g_value_get_double (value);
      break;
    case PROP_LABELS:
      g_strfreev (self->label_filter);
      self->label_filter = parse_labels (g_value_get_string (value));
      break;
    case PROP_CELLS:
      self->cells = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SHOW_LABEL:
      g_value_set_boolean (value, self->show_label);
      break;
    case PROP_SHOW_CONFIDENCE:
      g_value_set_boolean (value, self->show_confidence);
      break;
    case PROP_THICKNESS:
      g_value_set_uint (value, self->thickness);
      break;
    case PROP_COLOR:
      g_value_set_uint (value, self->color);
      break;
    case PROP_FONT_DESC:
      g_value_set_string (value, self->font_desc);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_GROW:
      g_value_set_double (value, self->grow);
      break;
    case PROP_LABELS:
      g_value_take_string (value, self->label_filter ?
          g_strjoinv (",", self->label_filter) : NULL);
      break;
    case PROP_CELLS:
      g_value_set_uint (value, self->cells);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_overlay_finalize (GObject * object)
{
  GstRoiOverlay *self = GST_ROI_OVERLAY (object);

  g_clear_pointer (&self->gpu, clv_overlay_gpu_free);
  g_hash_table_unref (self->labels);
  g_byte_array_unref (self->masks);
  g_free (self->labels_font);
  g_free (self->font_desc);
  g_strfreev (self->label_filter);
  g_mutex_clear (&self->draw_lock);
  G_OBJECT_CLASS (gst_roi_overlay_parent_class)->finalize (object);
}

static void
gst_roi_overlay_class_init (GstRoiOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClvFilterClass *filter_class = GST_CLV_FILTER_CLASS (klass);

  gobject_class->set_property = gst_roi_overlay_set_property;
  gobject_class->get_property = gst_roi_overlay_get_property;
  gobject_class->finalize = gst_roi_overlay_finalize;

  g_object_class_install_property (gobject_class, PROP_SHOW_LABEL,
      g_param_spec_boolean ("show-label", "Show label",
          "Draw a text label above each box", DEFAULT_SHOW_LABEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiOverlay:show-confidence:
   *
   * Append to the label the recognition distance ("d=1520") and the
   * detection confidence ("87%").
   */
  g_object_class_install_property (gobject_class, PROP_SHOW_CONFIDENCE,
      g_param_spec_boolean ("show-confidence", "Show confidence",
          "Append the recognition distance and detection confidence to the "
          "label", DEFAULT_SHOW_CONFIDENCE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_THICKNESS,
      g_param_spec_uint ("thickness", "Thickness",
          "Width of the box lines in pixels (0: labels only)", 0,
          MAX_THICKNESS, DEFAULT_THICKNESS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiOverlay:color:
   *
   * The colour of every box and label as 0xAARRGGBB (textoverlay's
   * convention; drawn opaque, the alpha byte is ignored), or 0 for a colour
   * per label_id from the palette.
   */
  g_object_class_install_property (gobject_class, PROP_COLOR,
      g_param_spec_uint ("color", "Color",
          "Colour of boxes and labels as 0xAARRGGBB, 0 for one per label_id",
          0, G_MAXUINT32, DEFAULT_COLOR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiOverlay:font-desc:
   *
   * The Pango font description of the labels.  A family fontconfig does not
   * know, or a size of 0 or above 256, is an error (RESOURCE/SETTINGS) when
   * the element starts or, if set while playing, at the next frame with
   * ROIs: Pango would otherwise fall back to another font without a word.
   */
  g_object_class_install_property (gobject_class, PROP_FONT_DESC,
      g_param_spec_string ("font-desc", "Font description",
          "Pango font description of the labels, e.g. \"Sans Bold 12\"",
          DEFAULT_FONT_DESC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRoiOverlay:mode:
   *
   * `draw` boxes and labels, or redact each box: `blur`, `pixelate` or
   * `fill` it (with #GstRoiOverlay:color, black when 0); a redacted box
   * gets no box line and no label.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "Draw boxes and labels, or redact the boxes: blur, pixelate, fill",
          GST_TYPE_ROI_OVERLAY_MODE, DEFAULT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_GROW,
      g_param_spec_double ("grow", "Grow",
          "Redaction: enlarge each box by this factor about its centre "
          "(1.3: 30% wider and taller)", 0.1, 10.0, DEFAULT_GROW,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRoiOverlay:labels:
   *
   * A comma-separated list of labels: the element acts only on the ROIs
   * whose type, detection label or recognition label is one of them
   * ("face", or "unknown" to redact the faces eigenrecognise did not
   * recognise), and leaves the others alone.  Empty: every ROI.
   */
  g_object_class_install_property (gobject_class, PROP_LABELS,
      g_param_spec_string ("labels", "Labels",
          "Act only on ROIs with one of these labels (comma-separated; "
          "empty: all)", DEFAULT_LABELS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CELLS,
      g_param_spec_uint ("cells", "Cells",
          "Redaction: pixelate into this many cells along a box's longer "
          "side; blur with a radius of one such cell", 1, 256,
          DEFAULT_CELLS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class, "ROI overlay",
      "Filter/Editor/Video",
      "Draws the boxes and labels of region-of-interest metas, on the CPU "
      "or an OpenCL device", "clvision developers");
  gst_clv_filter_class_add_pad_templates (filter_class, FORMATS, FORMATS);

  gst_type_mark_as_plugin_api (GST_TYPE_ROI_OVERLAY_MODE, 0);

  trans_class->start = gst_roi_overlay_start;
  trans_class->stop = gst_roi_overlay_stop;
  trans_class->src_event = gst_roi_overlay_src_event;
  trans_class->prepare_output_buffer = gst_roi_overlay_prepare_output_buffer;
  trans_class->transform_ip = gst_roi_overlay_transform_ip;
  filter_class->set_info = gst_roi_overlay_set_info;
}

static void
gst_roi_overlay_init (GstRoiOverlay * self)
{
  self->show_label = DEFAULT_SHOW_LABEL;
  self->show_confidence = DEFAULT_SHOW_CONFIDENCE;
  self->thickness = DEFAULT_THICKNESS;
  self->color = DEFAULT_COLOR;
  self->font_desc = g_strdup (DEFAULT_FONT_DESC);
  self->mode = DEFAULT_MODE;
  self->grow = DEFAULT_GROW;
  self->cells = DEFAULT_CELLS;
  g_mutex_init (&self->draw_lock);
  self->labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  self->masks = g_byte_array_new ();
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
