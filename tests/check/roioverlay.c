/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roioverlay: boxes and labels on every format, in system memory and
 * memory:OpenCL (same bytes, equal to the common/ reference and to values
 * computed by hand), clipping at the frame's edges, frames without ROIs
 * passed untouched in place, overlay compositions for downstreams that take
 * them. */
#include "cl-check-util.h"
#include "gstroioverlay.h"

#include <math.h>
#include <string.h>

#define W 96
#define H 72
#define PAD 2                   /* the element's space around label text */
#define FONT "Sans 10"
#define THICKNESS 2

static const gchar *formats[] = { "GRAY8", "I420", "YV12", "NV12", "NV21",
  "Y444", "RGB", "BGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGBA", "BGRA",
  "ARGB", "ABGR"
};

static const ClvRgb red = { 255, 0, 0 }, white = { 255, 255, 255 },
    black = { 0, 0, 0 };

/* Extra element properties and what they should draw: the label's text
 * (NULL: none), the colour and the font (NULL: FONT). */
typedef struct
{
  const gchar *props;
  const gchar *text;
  ClvRgb color;
  const gchar *font;
} Style;

static const Style plain = { "", "alice d=1234 50%", {255, 0, 0} };

typedef struct
{
  guint x, y, w, h;
} Roi;

static gchar *
caps_string (const gchar * format, gboolean opencl, int w, int h)
{
  return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,"
      "framerate=30/1", opencl ? "(memory:OpenCL)" : "", format, w, h);
}

static GstVideoInfo *
info_for (const gchar * format, int w, int h)
{
  gchar *str = caps_string (format, FALSE, w, h);
  GstCaps *caps = gst_caps_from_string (str);
  GstVideoInfo *info = gst_video_info_new_from_caps (caps);

  gst_caps_unref (caps);
  g_free (str);
  return info;
}

/* A random frame with one ROI: a recognised face ("alice", label_id 1,
 * `distance`, detection confidence 0.5): red, "alice d=<distance> 50%". */
static GstBuffer *
frame_with_roi_at (const GstVideoInfo * info, const Roi * r, double distance)
{
  GstBuffer *buf = clv_check_frame (info, 7);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", r->x, r->y,
      r->w, r->h);
  GstClvDetection det = { "face", 0, 0.5, 3, 0, 0, 0, 0 };
  GstClvRecognition rec = { "alice", 1, distance, 0.9 };

  gst_clv_roi_meta_set_detection (roi, &det);
  gst_clv_roi_meta_set_recognition (roi, &rec);
  return buf;
}

/* The same at distance 1234: "alice d=1234 50%". */
static GstBuffer *
frame_with_roi (const GstVideoInfo * info, const Roi * r)
{
  return frame_with_roi_at (info, r, 1234.0);
}

/* What the element must draw for `r` in `style` with lines `thickness`
 * wide: the box (none if 0) and its label, text in white or black on the
 * box's colour above the box (inside it if there is no room).  Returns how
 * many operations. */
static int
expected_ops (const ClvOverlayLayout * l, const Roi * r, const Style * style,
    guint thickness, ClvOverlayOp ops[2], guint8 ** mask)
{
  GError *error = NULL;
  int w, h, n = 0;

  memset (ops, 0, 2 * sizeof (ClvOverlayOp));
  *mask = NULL;
  if (thickness > 0) {
    ops[n].kind = CLV_OVERLAY_BOX;
    ops[n].x0 = r->x;
    ops[n].y0 = r->y;
    ops[n].x1 = r->x + r->w;
    ops[n].y1 = r->y + r->h;
    ops[n].thickness = thickness;
    clv_overlay_op_set_colors (&ops[n], l, style->color, style->color);
    n++;
  }
  if (style->text == NULL)
    return n;
  *mask = clv_overlay_render_text (style->font ? style->font : FONT,
      style->text, PAD, &w, &h, &error);
  g_assert_no_error (error);
  ops[n].kind = CLV_OVERLAY_LABEL;
  ops[n].x0 = r->x;
  ops[n].y0 = (int) r->y >= h ? (int) r->y - h : (int) r->y;
  ops[n].x1 = ops[n].x0 + w;
  ops[n].y1 = ops[n].y0 + h;
  clv_overlay_op_set_colors (&ops[n], l,
      clv_overlay_component_value (CLV_OVERLAY_GRAY, style->color) >= 128 ?
      black : white, style->color);
  return n + 1;
}

/* The thickness roioverlay in `h` draws with. */
static guint
overlay_thickness (GstHarness * h)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "o");
  guint thickness;

  g_object_get (e, "thickness", &thickness, NULL);
  gst_object_unref (e);
  return thickness;
}

static guint8
sample (const GstVideoFrame * f, const ClvOverlayLayout * l, int c, int x,
    int y)
{
  const ClvOverlayComp *comp = &l->comp[c];
  const guint8 *p = GST_VIDEO_FRAME_PLANE_DATA (f, comp->plane);

  return p[comp->offset + (gsize) (y >> comp->ysub) * comp->stride +
      (gsize) (x >> comp->xsub) * comp->pstride];
}

/* Pushes `in` (kept) through `h` and returns the output. */
static GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  return gst_harness_pull (h);
}

static GstHarness *
new_harness (const gchar * format, gboolean opencl, int w, int h,
    const gchar * props)
{
  gchar *launch = g_strdup_printf ("%sroioverlay name=o thickness=2 "
      "font-desc=\"" FONT "\" %s%s", opencl ? "clupload ! " : "", props,
      opencl ? " ! cldownload" : "");
  GstHarness *harness = gst_harness_new_parse (launch);
  gchar *caps = caps_string (format, FALSE, w, h);

  g_free (launch);

  gst_harness_set_src_caps_str (harness, caps);
  gst_harness_set_sink_caps_str (harness, "video/x-raw");
  g_free (caps);
  return harness;
}

/* Whether roioverlay in `h` got memory:OpenCL frames. */
static gboolean
overlay_on_device (GstHarness * h)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "o");
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ret = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_OPENCL);

  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  return ret;
}

/* Asserts that `out` is `in` with what the reference draws for `r` in
 * `style` and `thickness`. */
static void
assert_reference (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    const Roi * r, const Style * style, guint thickness)
{
  GstBuffer *want = gst_buffer_copy_deep (in);
  GstVideoFrame fw, fo;
  ClvOverlayLayout l;
  ClvOverlayOp ops[2];
  guint8 *planes[GST_VIDEO_MAX_PLANES], *mask;
  int n_ops;

  fail_unless (gst_video_frame_map (&fw, info, want, GST_MAP_READWRITE));
  gst_roi_overlay_layout (&fw.info, &l);
  n_ops = expected_ops (&l, r, style, thickness, ops, &mask);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fw); p++)
    planes[p] = GST_VIDEO_FRAME_PLANE_DATA (&fw, p);
  clv_overlay_draw_ref (planes, &l, ops, n_ops, mask);
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  clv_check_frames_equal (&fw, &fo);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fw);
  g_free (mask);
  gst_buffer_unref (want);
}

/* Asserts that `a` and `b` hold the same bytes. */
static void
assert_same_bytes (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  GstMapInfo ma, mb;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0,
      "%s", what);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unmap (a, &ma);
}

/* Draws `r` on a frame of `format` through the element, in `opencl` memory
 * or not; asserts the output equals the reference; returns it. */
static GstBuffer *
draw_checked (const gchar * format, gboolean opencl, int w, int h,
    const Roi * r, const Style * style)
{
  GstVideoInfo *info = info_for (format, w, h);
  GstHarness *harness = new_harness (format, opencl, w, h, style->props);
  GstBuffer *in = frame_with_roi (info, r), *out;

  out = push_pull (harness, in);
  fail_unless_equals_int (overlay_on_device (harness), opencl);
  /* Downstream takes no compositions here: drawn, none attached. */
  fail_unless (gst_buffer_get_video_overlay_composition_meta (out) == NULL);
  assert_reference (info, in, out, r, style, overlay_thickness (harness));
  gst_buffer_unref (in);
  gst_harness_teardown (harness);
  gst_video_info_free (info);
  return out;
}

/* Red and white in a component of kind `k`, by hand: red is gray 76; Y 82,
 * U 90, V 240; R 255, G 0, B 0; white is gray 255; Y 235, U 128, V 128;
 * R, G, B 255.  Alpha is 255. */
static guint8
red_value (ClvOverlayCompKind k)
{
  return k == CLV_OVERLAY_GRAY ? 76 : k == CLV_OVERLAY_Y ? 82
      : k == CLV_OVERLAY_U ? 90 : k == CLV_OVERLAY_V ? 240
      : k == CLV_OVERLAY_R || k == CLV_OVERLAY_A ? 255 : 0;
}

static guint8
white_value (ClvOverlayCompKind k)
{
  return k == CLV_OVERLAY_Y ? 235 : k == CLV_OVERLAY_U
      || k == CLV_OVERLAY_V ? 128 : 255;
}

/* A text pixel of the label "alice d=1234 50%" above `r` with partial
 * coverage, away from the label's edges: the value every component's
 * sample there must have, computed by hand: m the mask there (the rounded
 * mean of the 2x2 block for subsampled chroma), blended as
 * (white m + red (255 - m) + 127) / 255. */
static void
assert_blended (const GstVideoFrame * f, const ClvOverlayLayout * l,
    const Roi * r)
{
  int mw, mh, x, y;
  guint8 *mask = clv_overlay_render_text (FONT, "alice d=1234 50%", PAD, &mw,
      &mh, NULL);
  const int x0 = r->x, y0 = r->y - mh;
  gboolean found = FALSE;

  /* (x, y) even: the top left pixel of a 2x2 chroma block. */
  for (int my = PAD + 2; my < mh - PAD - 2 && !found; my++)
    for (int mx = PAD + 2; mx < mw - PAD - 2 && !found; mx++)
      if ((x0 + mx) % 2 == 0 && (y0 + my) % 2 == 0 && mask[my * mw + mx] > 0
          && mask[my * mw + mx] < 255) {
        x = x0 + mx;
        y = y0 + my;
        found = TRUE;
      }
  fail_unless (found);
  for (int c = 0; c < l->n_comps; c++) {
    const ClvOverlayCompKind k = l->comp[c].kind;
    const int bw = 1 << l->comp[c].xsub, bh = 1 << l->comp[c].ysub;
    int sum = 0, m;

    for (int j = 0; j < bh; j++)
      for (int i = 0; i < bw; i++)
        sum += mask[(y + j - y0) * mw + x + i - x0];
    m = (sum + bw * bh / 2) / (bw * bh);
    fail_unless_equals_int (sample (f, l, c, x, y), (white_value (k) * m
            + red_value (k) * (255 - m) + 127) / 255);
  }
  g_free (mask);
}

/* Hand-computed values of the box and label of `r` in `out`. */
static void
assert_drawn (const gchar * format, int w, int h, const Roi * r,
    GstBuffer * out)
{
  GstVideoInfo *info = info_for (format, w, h);
  GstBuffer *in = clv_check_frame (info, 7);
  GstVideoFrame fo, fi;
  ClvOverlayLayout l;
  int text = 0;

  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  gst_roi_overlay_layout (&fo.info, &l);
  for (int c = 0; c < l.n_comps; c++) {
    const guint8 want = red_value (l.comp[c].kind);

    /* The left line, mid-height and at the bottom; the label's bottom
     * padding row just above the box (its background); the middle of the
     * box, untouched. */
    fail_unless_equals_int (sample (&fo, &l, c, r->x, r->y + r->h / 2),
        want);
    fail_unless_equals_int (sample (&fo, &l, c, r->x + THICKNESS - 1,
            r->y + r->h - 1), want);
    fail_unless_equals_int (sample (&fo, &l, c, r->x + 20, r->y - 1), want);
    fail_unless_equals_int (sample (&fo, &l, c, r->x + r->w / 2,
            r->y + r->h / 2), sample (&fi, &l, c, r->x + r->w / 2,
            r->y + r->h / 2));
  }
  /* Some label pixels are white text: full white luma, gray or red. */
  for (int y = 0; y < (int) r->y; y++)
    for (int x = r->x; x < w; x++)
      text += sample (&fo, &l, 0, x, y) == white_value (l.comp[0].kind);
  fail_unless (text > 5, "%s: %d white text pixels", format, text);
  assert_blended (&fo, &l, r);

  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_video_info_free (info);
}

static const Roi centre = { 8, 30, 50, 36 };

GST_START_TEST (test_formats_both_memories)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstBuffer *sys = draw_checked (formats[i], FALSE, W, H, &centre, &plain);
    GstBuffer *dev = draw_checked (formats[i], TRUE, W, H, &centre, &plain);

    assert_drawn (formats[i], W, H, &centre, sys);
    /* Same bytes both ways (both equal the reference already). */
    assert_same_bytes (sys, dev, formats[i]);
    gst_buffer_unref (dev);
    gst_buffer_unref (sys);
  }
}

GST_END_TEST;

/* A box across the right and bottom edges of an odd-sized frame, its label
 * across the right edge; a box at the top edge gets its label inside. */
GST_START_TEST (test_clipping)
{
  const Roi edge = { 70, 40, 40, 40 }, top = { 20, 0, 20, 30 };
  const gchar *fmts[] = { "I420", "NV21", "RGB", "GRAY8" };
  int label_w, label_h;

  g_free (clv_overlay_render_text (FONT, "alice d=1234 50%", PAD, &label_w,
          &label_h, NULL));
  fail_unless (label_h > PAD + 2 && label_h < 28);

  for (guint i = 0; i < G_N_ELEMENTS (fmts); i++) {
    for (int opencl = 0; opencl < 2; opencl++) {
      GstBuffer *out = draw_checked (fmts[i], opencl, 85, 61, &edge,
          &plain);
      GstBuffer *out2 = draw_checked (fmts[i], opencl, 85, 61, &top,
          &plain);
      GstVideoInfo *info = info_for (fmts[i], 85, 61);
      GstVideoFrame f;
      ClvOverlayLayout l;

      fail_unless (gst_video_frame_map (&f, info, out, GST_MAP_READ));
      gst_roi_overlay_layout (&f.info, &l);
      /* The top and left lines, up to the last column and row. */
      fail_unless_equals_int (sample (&f, &l, 0, 84, 41),
          clv_overlay_component_value (l.comp[0].kind, red));
      fail_unless_equals_int (sample (&f, &l, 0, 70, 60),
          clv_overlay_component_value (l.comp[0].kind, red));
      gst_video_frame_unmap (&f);
      /* The label of a box at the top is inside it: its bottom padding
       * row, inside the box's hole, is red. */
      fail_unless (gst_video_frame_map (&f, info, out2, GST_MAP_READ));
      fail_unless_equals_int (sample (&f, &l, 0, 25, label_h - 1),
          clv_overlay_component_value (l.comp[0].kind, red));
      gst_video_frame_unmap (&f);
      gst_video_info_free (info);
      gst_buffer_unref (out2);
      gst_buffer_unref (out);
    }
  }
}

GST_END_TEST;

/* ROIs entirely outside the frame, one at coordinates that would overflow
 * 32-bit sums, and one whose label is zero-width characters only: the frame
 * comes out untouched but for the last one's box, in both memories. */
GST_START_TEST (test_outside_and_empty_label)
{
  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("NV12", W, H);
    GstHarness *h = new_harness ("NV12", opencl, W, H, "show-confidence=false");
    GstBuffer *in = clv_check_frame (info, 3), *out;
    GstVideoRegionOfInterestMeta *roi;
    GstClvRecognition rec = { "\u200b\u200b", 1, 1.0, 0.9 };
    const Roi inside = { 10, 30, 20, 20 };
    const Style box_only = { "", NULL, {255, 0, 0} };

    gst_buffer_add_video_region_of_interest_meta (in, "face", W + 3, 5, 20,
        20);
    gst_buffer_add_video_region_of_interest_meta (in, "face", G_MAXUINT - 5,
        G_MAXUINT - 5, 10, 10);
    roi = gst_buffer_add_video_region_of_interest_meta (in, "face",
        inside.x, inside.y, inside.w, inside.h);
    gst_clv_roi_meta_set_recognition (roi, &rec);
    out = push_pull (h, in);
    assert_reference (info, in, out, &inside, &box_only, THICKNESS);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

static GstPadProbeReturn
remember_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  *(GstBuffer **) user_data = GST_PAD_PROBE_INFO_BUFFER (info);
  return GST_PAD_PROBE_OK;
}

/* A name of 500 characters is cut to 63 and an ellipsis, a name of 64 is
 * drawn whole, in both memories (on frames wide enough to show it). */
GST_START_TEST (test_long_names)
{
  gchar *long_name = g_strnfill (500, 'x');
  gchar *cut = g_strdup_printf ("%.63s\u2026", long_name);
  gchar *just_fits = g_strnfill (64, 'y');
  const gchar *names[2] = { long_name, just_fits };
  const gchar *drawn[2] = { cut, just_fits };

  for (int i = 0; i < 2; i++)
    for (int opencl = 0; opencl < 2; opencl++) {
      GstVideoInfo *info = info_for ("I420", 800, H);
      GstHarness *h = new_harness ("I420", opencl, 800, H,
          "show-confidence=false");
      GstBuffer *in = clv_check_frame (info, 3), *out;
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_add_video_region_of_interest_meta (in, "face",
          centre.x, centre.y, centre.w, centre.h);
      GstClvRecognition rec = { names[i], 1, 1.0, 0.9 };
      const Style style = { "", drawn[i], {255, 0, 0} };

      gst_clv_roi_meta_set_recognition (roi, &rec);
      out = push_pull (h, in);
      assert_reference (info, in, out, &centre, &style, THICKNESS);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_harness_teardown (h);
      gst_video_info_free (info);
    }
  g_free (just_fits);
  g_free (cut);
  g_free (long_name);
}

GST_END_TEST;

/* A frame without ROI metas comes out of the overlay as the buffer that
 * went in, untouched: in system memory, and in memory:OpenCL straight from
 * clupload (the device buffer passes as is). */
GST_START_TEST (test_no_meta_passthrough)
{
  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("I420", W, H);
    GstHarness *h = gst_harness_new_parse (opencl ?
        "clupload ! roioverlay name=o" : "roioverlay name=o");
    GstElement *o = gst_bin_get_by_name (GST_BIN (h->element), "o");
    GstPad *sink = gst_element_get_static_pad (o, "sink");
    GstBuffer *in = clv_check_frame (info, 3), *copy =
        gst_buffer_copy_deep (in), *entered = NULL, *out;

    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, remember_buffer,
        &entered, NULL);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=96,"
        "height=72,framerate=30/1");
    gst_harness_set_sink_caps_str (h, opencl ? "video/x-raw(memory:OpenCL)"
        : "video/x-raw");
    out = push_pull (h, in);
    fail_unless (out == entered, "the buffer was replaced");
    fail_unless_equals_int (overlay_on_device (h), opencl);
    assert_same_bytes (out, copy, "the frame changed");
    gst_buffer_unref (out);
    gst_buffer_unref (copy);
    gst_buffer_unref (in);
    gst_object_unref (sink);
    gst_object_unref (o);
    gst_harness_teardown (h);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

/* A downstream that takes GstVideoOverlayCompositionMeta gets the box (four
 * sides) and label as rectangles, after those of a composition upstream
 * attached, in one meta; the pixels are left alone.  Blended, the
 * composition gives the box's colour. */
GST_START_TEST (test_composition)
{
  GstVideoInfo *info = info_for ("BGRx", W, H);
  GstHarness *h = new_harness ("BGRx", FALSE, W, H, "");
  GstBuffer *in, *copy, *out;
  GstVideoOverlayCompositionMeta *meta;
  GstVideoOverlayComposition *comp;
  GstVideoOverlayRectangle *rect;
  GstVideoFrame f;
  gint x, y;
  guint rw, rh;
  GstBuffer *upstream_pixel = gst_buffer_new_allocate (NULL, 4, NULL);
  gpointer state = NULL;
  guint n_metas = 0;

  gst_harness_add_propose_allocation_meta (h,
      GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  in = frame_with_roi (info, &centre);
  /* Upstream's composition: one pixel stretched over 0, 0, 3 x 3. */
  gst_buffer_memset (upstream_pixel, 0, 0xff, 4);
  gst_buffer_add_video_meta (upstream_pixel, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, 1, 1);
  rect = gst_video_overlay_rectangle_new_raw (upstream_pixel, 0, 0, 3, 3,
      GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
  comp = gst_video_overlay_composition_new (rect);
  gst_buffer_add_video_overlay_composition_meta (in, comp);
  gst_video_overlay_composition_unref (comp);
  gst_video_overlay_rectangle_unref (rect);
  gst_buffer_unref (upstream_pixel);
  /* Wholly outside the frame: no rectangle. */
  gst_buffer_add_video_region_of_interest_meta (in, "face", W + 3, 5, 20, 20);
  copy = gst_buffer_copy_deep (in);
  out = push_pull (h, in);
  gst_buffer_unref (in);
  assert_same_bytes (out, copy, "pixels changed");

  while (gst_buffer_iterate_meta_filtered (out, &state,
          GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE))
    n_metas++;
  fail_unless_equals_int (n_metas, 1);
  meta = gst_buffer_get_video_overlay_composition_meta (out);
  comp = meta->overlay;
  fail_unless_equals_int (gst_video_overlay_composition_n_rectangles (comp),
      6);
  /* Upstream's first, then the top side: the box's width, THICKNESS high. */
  rect = gst_video_overlay_composition_get_rectangle (comp, 0);
  fail_unless (gst_video_overlay_rectangle_get_render_rectangle (rect, &x, &y,
          &rw, &rh));
  fail_unless (x == 0 && y == 0 && rw == 3 && rh == 3);
  rect = gst_video_overlay_composition_get_rectangle (comp, 1);
  fail_unless (gst_video_overlay_rectangle_get_render_rectangle (rect, &x, &y,
          &rw, &rh));
  fail_unless_equals_int (x, centre.x);
  fail_unless_equals_int (y, centre.y);
  fail_unless_equals_int (rw, centre.w);
  fail_unless_equals_int (rh, THICKNESS);
  /* The label: above the box. */
  rect = gst_video_overlay_composition_get_rectangle (comp, 5);
  fail_unless (gst_video_overlay_rectangle_get_render_rectangle (rect, &x, &y,
          &rw, &rh));
  fail_unless_equals_int (x, centre.x);
  fail_unless_equals_int (y + (int) rh, centre.y);

  /* Blending the composition draws the red box. */
  fail_unless (gst_video_frame_map (&f, info, copy, GST_MAP_READWRITE));
  fail_unless (gst_video_overlay_composition_blend (comp, &f));
  {
    const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0)
        + (centre.y + 10) * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0)
        + centre.x * 4;
    fail_unless_equals_int (p[0], 0);
    fail_unless_equals_int (p[1], 0);
    fail_unless_equals_int (p[2], 255);
  }
  gst_video_frame_unmap (&f);

  gst_buffer_unref (copy);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_video_info_free (info);
}

GST_END_TEST;

/* A label per frame, 300 distinct ones: past the 256 the cache holds, it
 * starts again (on the device too) and every frame still equals the
 * reference. */
GST_START_TEST (test_label_cache_restart)
{
  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("GRAY8", W, H);
    GstHarness *h = new_harness ("GRAY8", opencl, W, H, "");

    for (int i = 0; i < 300; i++) {
      GstBuffer *in = frame_with_roi_at (info, &centre, i);
      GstBuffer *out = push_pull (h, in);

      if (i % 50 == 0 || i > 250) {
        gchar *text = g_strdup_printf ("alice d=%d 50%%", i);
        const Style style = { "", text, {255, 0, 0} };

        assert_reference (info, in, out, &centre, &style, THICKNESS);
        g_free (text);
      }
      gst_buffer_unref (out);
      gst_buffer_unref (in);
    }
    gst_harness_teardown (h);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

/* In memory:OpenCL too, a downstream that takes compositions gets one and
 * the device frame is left alone. */
GST_START_TEST (test_composition_on_device)
{
  GstVideoInfo *info = info_for ("NV12", W, H);
  GstHarness *h = gst_harness_new_parse ("clupload ! roioverlay name=o "
      "font-desc=\"" FONT "\"");
  GstBuffer *in = frame_with_roi (info, &centre), *out;
  GstVideoOverlayCompositionMeta *meta;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=NV12,width=96,"
      "height=72,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:OpenCL)");
  gst_harness_add_propose_allocation_meta (h,
      GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  out = push_pull (h, in);
  fail_unless (overlay_on_device (h));
  assert_same_bytes (out, in, "pixels changed");
  meta = gst_buffer_get_video_overlay_composition_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_video_overlay_composition_n_rectangles
      (meta->overlay), 5);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_video_info_free (info);
}

GST_END_TEST;

/* show-label, show-confidence and color change what is drawn, the same
 * way in both memories. */
GST_START_TEST (test_properties)
{
  const Style styles[] = {
    {"show-label=false color=0xff0000ff", NULL, {0, 0, 255}},
    {"show-confidence=false color=0x00ffff80", "alice", {255, 255, 128}},
  };

  for (guint i = 0; i < G_N_ELEMENTS (styles); i++)
    for (int opencl = 0; opencl < 2; opencl++) {
      GstBuffer *out = draw_checked ("RGBA", opencl, W, H, &centre,
          &styles[i]);
      GstVideoInfo *info = info_for ("RGBA", W, H);
      GstBuffer *in = clv_check_frame (info, 7);
      GstMapInfo a, b;
      const gsize box = (centre.y + 10) * W * 4 + centre.x * 4;
      const gsize above = (centre.y - 1) * W * 4 + (centre.x + 20) * 4;

      fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
      fail_unless (gst_buffer_map (in, &b, GST_MAP_READ));
      fail_unless_equals_int (a.data[box + 0], styles[i].color.r);
      fail_unless_equals_int (a.data[box + 1], styles[i].color.g);
      fail_unless_equals_int (a.data[box + 2], styles[i].color.b);
      /* No label: untouched above the box; else the label's padding. */
      fail_unless_equals_int (a.data[above + 2], styles[i].text ?
          styles[i].color.b : b.data[above + 2]);
      gst_buffer_unmap (in, &b);
      gst_buffer_unmap (out, &a);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_video_info_free (info);
    }
}

GST_END_TEST;

/* A tracked ROI's label carries its identifier after the name, in both
 * memories. */
GST_START_TEST (test_track_id)
{
  const Style tracked = { "", "alice #7 d=1234 50%", {255, 0, 0} };
  const GstClvTracking t = {.id = 7,.age = 3,.first_seen = 0,
    .last_seen = 0
  };

  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("I420", W, H);
    GstHarness *harness = new_harness ("I420", opencl, W, H, "");
    GstBuffer *in = frame_with_roi (info, &centre), *out;

    gst_clv_roi_meta_set_tracking (gst_buffer_get_video_region_of_interest_meta
        (in), &t);
    out = push_pull (harness, in);
    fail_unless_equals_int (overlay_on_device (harness), opencl);
    assert_reference (info, in, out, &centre, &tracked, THICKNESS);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (harness);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

/* thickness=5 draws lines 5 pixels wide; thickness=0 draws no box at all,
 * not even chroma at odd edges (with no label either, the frame is
 * untouched).  Both memories. */
GST_START_TEST (test_thickness)
{
  const Style thick = { "thickness=5", "alice d=1234 50%", {255, 0, 0} };
  const Style none = { "thickness=0 show-label=false", NULL, {255, 0, 0} };
  const Roi odd = { 7, 31, 21, 17 };

  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("I420", W, H);
    GstBuffer *out = draw_checked ("I420", opencl, W, H, &centre, &thick);
    GstBuffer *in = clv_check_frame (info, 7);
    GstVideoFrame f, fi;
    ClvOverlayLayout l;

    fail_unless (gst_video_frame_map (&f, info, out, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
    gst_roi_overlay_layout (&f.info, &l);
    fail_unless_equals_int (sample (&f, &l, 0, centre.x + 4, centre.y + 10),
        82);
    fail_unless_equals_int (sample (&f, &l, 0, centre.x + 5, centre.y + 10),
        sample (&fi, &l, 0, centre.x + 5, centre.y + 10));
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);

    out = draw_checked ("I420", opencl, W, H, &odd, &none);
    assert_same_bytes (out, in, "thickness=0 changed the frame");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

/* font-desc is the font the labels are rendered in (the reference renders
 * them in Serif 14: a label in Sans 10 would differ). */
GST_START_TEST (test_font_desc)
{
  const Style serif = { "font-desc=\"Serif 14\"", "alice d=1234 50%",
    {255, 0, 0}, "Serif 14"
  };

  for (int opencl = 0; opencl < 2; opencl++)
    gst_buffer_unref (draw_checked ("NV12", opencl, W, H, &centre, &serif));
}

GST_END_TEST;

/* A frame of `info` with a ROI at `r` of label_id `id`: a detection only
 * ("face", confidence 0.5) for id 0, else a recognition ("bob"). */
static void
add_roi (GstBuffer * buf, const Roi * r, gint id)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", r->x, r->y,
      r->w, r->h);
  GstClvDetection det = { "face", 0, 0.5, 3, 0, 0, 0, 0 };
  GstClvRecognition rec = { "bob", id, 800.0, 0.9 };

  gst_clv_roi_meta_set_detection (roi, &det);
  if (id != 0)
    gst_clv_roi_meta_set_recognition (roi, &rec);
}

/* Counts the pixels of colour `c` in the rectangle x, y, w, h of an RGB
 * frame `m` `width` pixels wide. */
static int
count_rgb (const GstMapInfo * m, int width, int x, int y, int w, int h,
    ClvRgb c)
{
  int n = 0;

  for (int j = y; j < y + h; j++)
    for (int i = x; i < x + w; i++) {
      const guint8 *p = m->data + ((gsize) j * width + i) * 3;

      n += p[0] == c.r && p[1] == c.g && p[2] == c.b;
    }
  return n;
}

/* Without `color`, each label_id has its palette colour (the recognition's
 * id, else the detection's; -1 takes the last, ids wrap after 8), and the
 * text is black on light colours, white on dark ones; with `color`, every
 * box has it.  Same bytes in both memories. */
GST_START_TEST (test_label_colors)
{
  const Roi rois[4] = { {4, 30, 30, 20}, {84, 30, 30, 20}, {4, 90, 30, 20},
  {84, 90, 30, 20}
  };
  const gint ids[4] = { 0, 2, -1, 9 };
  const ClvRgb palette[4] = { {0, 255, 0}, {0, 128, 255}, {128, 0, 255},
  {255, 0, 0}
  };
  const ClvRgb fixed = { 0x12, 0x34, 0x56 };
  const gchar *props[2] = { "", "color=0xff123456" };

  for (int p = 0; p < 2; p++) {
    GstBuffer *outs[2];

    for (int opencl = 0; opencl < 2; opencl++) {
      GstVideoInfo *info = info_for ("RGB", 160, 120);
      GstHarness *h = new_harness ("RGB", opencl, 160, 120, props[p]);
      GstBuffer *in = clv_check_frame (info, 5);
      GstMapInfo m;

      for (int i = 0; i < 4; i++)
        add_roi (in, &rois[i], ids[i]);
      outs[opencl] = push_pull (h, in);
      fail_unless (gst_buffer_map (outs[opencl], &m, GST_MAP_READ));
      for (int i = 0; i < 4; i++) {
        const ClvRgb want = p == 0 ? palette[i] : fixed;

        /* The whole left line (2 x 20) has the box's colour. */
        fail_unless_equals_int (count_rgb (&m, 160, rois[i].x, rois[i].y,
                THICKNESS, rois[i].h, want), THICKNESS * rois[i].h);
      }
      if (p == 0) {
        /* The labels above: black text on green, white text on purple. */
        fail_unless (count_rgb (&m, 160, 4, 10, 60, 20, black) > 5);
        fail_unless (count_rgb (&m, 160, 4, 10, 60, 20, white) == 0);
        fail_unless (count_rgb (&m, 160, 4, 70, 60, 20, white) > 5);
      }
      gst_buffer_unmap (outs[opencl], &m);
      gst_buffer_unref (in);
      gst_harness_teardown (h);
      gst_video_info_free (info);
    }
    assert_same_bytes (outs[0], outs[1], "system and OpenCL differ");
    gst_buffer_unref (outs[1]);
    gst_buffer_unref (outs[0]);
  }
}

GST_END_TEST;

/* A ROI inside another (its parent_id names a ROI of the frame) takes the
 * next palette colour, one step per level: a face green, its eye red, a
 * pupil in the eye azure; a parent_id naming no ROI of the frame, or the
 * ROI itself, changes nothing. */
GST_START_TEST (test_children_colors)
{
  const Roi rois[4] = { {4, 30, 100, 80}, {20, 50, 30, 20}, {24, 54, 10, 8},
  {120, 30, 30, 20}
  };
  const gint ids[4][2] = { {5, -1}, {6, 5}, {7, 6}, {8, 42} };
  const ClvRgb want[4] = { {0, 255, 0}, {255, 0, 0}, {0, 128, 255},
  {0, 255, 0}
  };
  GstVideoInfo *info = info_for ("RGB", 160, 120);
  GstHarness *h = new_harness ("RGB", FALSE, 160, 120, "show-label=false");
  GstBuffer *in = clv_check_frame (info, 5), *out;
  GstMapInfo m;
  gpointer state = NULL;
  GstMeta *meta;

  for (int i = 0; i < 4; i++)
    add_roi (in, &rois[i], 0);
  for (int i = 0; (meta = gst_buffer_iterate_meta_filtered (in, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)); i++) {
    ((GstVideoRegionOfInterestMeta *) meta)->id = ids[i][0];
    ((GstVideoRegionOfInterestMeta *) meta)->parent_id = ids[i][1];
  }
  out = push_pull (h, in);
  fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
  for (int i = 0; i < 4; i++)
    fail_unless_equals_int (count_rgb (&m, 160, rois[i].x, rois[i].y,
            THICKNESS, rois[i].h, want[i]), THICKNESS * rois[i].h);
  gst_buffer_unmap (out, &m);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_video_info_free (info);
}

GST_END_TEST;

/* The error message the element posted on `bus`; asserts there is one in
 * `domain`, with `code`, that contains `said`. */
static void
assert_error_posted (GstBus * bus, GQuark domain, gint code,
    const gchar * said)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  fail_unless (msg != NULL, "no error message (expected \"%s\")", said);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, domain, code), "%s", error->message);
  fail_unless (strstr (error->message, said) != NULL, "message: %s",
      error->message);
  g_error_free (error);
  gst_message_unref (msg);
}

/* A font-desc Pango would not honour stops the element from starting, or,
 * set while playing, fails the next frame with ROIs, with a message naming
 * the font. */
GST_START_TEST (test_bad_font)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *overlay = gst_element_factory_make ("roioverlay", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstVideoInfo *info = info_for ("I420", W, H);
  GstHarness *h = new_harness ("I420", FALSE, W, H, "");
  GstBus *hbus = gst_bus_new ();
  GstElement *o = gst_bin_get_by_name (GST_BIN (h->element), "o");
  GstBuffer *in;

  g_object_set (overlay, "font-desc", "NoSuchFamilyXyz 12", NULL);
  gst_bin_add (GST_BIN (pipeline), overlay);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  assert_error_posted (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "No font family \"NoSuchFamilyXyz\" is installed");
  gst_element_set_state (pipeline, GST_STATE_NULL);

  gst_element_set_bus (h->element, hbus);
  in = frame_with_roi (info, &centre);
  gst_buffer_unref (push_pull (h, in));
  gst_buffer_unref (in);
  g_object_set (o, "font-desc", "Sans 999", NULL);
  in = frame_with_roi (info, &centre);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  assert_error_posted (hbus, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "\"Sans 999\" must be between 1 and 256");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (hbus);
  gst_object_unref (o);
  gst_harness_teardown (h);
  gst_video_info_free (info);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Caps outside the formats are refused (not negotiated); a buffer shorter
 * than its caps say is an error, not a write past its end. */
GST_START_TEST (test_bad_input)
{
  GstHarness *h = gst_harness_new ("roioverlay");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo *info = info_for ("I420", W, H);
  GstBuffer *in = frame_with_roi (info, &centre), *cut;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=YUY2,width=96,"
      "height=72,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  h = new_harness ("I420", FALSE, W, H, "");
  gst_element_set_bus (h->element, bus);
  cut = gst_buffer_copy_region (in, GST_BUFFER_COPY_ALL, 0,
      gst_buffer_get_size (in) / 2);
  fail_unless_equals_int (gst_harness_push (h, cut), GST_FLOW_ERROR);
  assert_error_posted (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "too small");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_video_info_free (info);
}

GST_END_TEST;

/* ---- Redaction ----------------------------------------------------------- */

static const gchar *modes[] = { "blur", "pixelate", "fill" };

/* What roioverlay mode=modes[m] grow=1.3 cells=3 does to `r` on a frame of
 * layout `l`: the box grown about its centre, out to whole chroma
 * blocks. */
static ClvOverlayOp
expected_redaction (const ClvOverlayLayout * l, const Roi * r, int m)
{
  static const ClvOverlayOpKind kinds[] = { CLV_OVERLAY_BLUR,
    CLV_OVERLAY_PIXELATE, CLV_OVERLAY_FILL
  };
  const double cx = r->x + r->w / 2.0, cy = r->y + r->h / 2.0;
  ClvOverlayOp op = { kinds[m] };
  int ax = 1, ay = 1, side;

  for (int c = 0; c < l->n_comps; c++) {
    ax = MAX (ax, 1 << l->comp[c].xsub);
    ay = MAX (ay, 1 << l->comp[c].ysub);
  }
  op.x0 = (int) floor ((cx - r->w * 0.65) / ax) * ax;
  op.y0 = (int) floor ((cy - r->h * 0.65) / ay) * ay;
  op.x1 = (int) ceil ((cx + r->w * 0.65) / ax) * ax;
  op.y1 = (int) ceil ((cy + r->h * 0.65) / ay) * ay;
  side = MAX (op.x1 - op.x0, op.y1 - op.y0);
  op.size = (side + 2) / 3;
  clv_overlay_op_set_colors (&op, l, black, black);
  return op;
}

/* Asserts that every sample of `out` that stands for a pixel outside `op`'s
 * rectangle is `in`'s. */
static void
assert_outside_unchanged (const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * out, const ClvOverlayOp * op)
{
  GstVideoFrame fi, fo;
  ClvOverlayLayout l;

  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  gst_roi_overlay_layout (info, &l);
  for (int y = 0; y < l.height; y++)
    for (int x = 0; x < l.width; x++) {
      if (x >= op->x0 && x < op->x1 && y >= op->y0 && y < op->y1)
        continue;
      for (int c = 0; c < l.n_comps; c++)
        fail_unless_equals_int (sample (&fo, &l, c, x, y),
            sample (&fi, &l, c, x, y));
    }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
}

/* Every format, both memories, every redaction mode: the box (grown by
 * 1.3, at odd places and sizes) becomes what the reference makes of it,
 * nothing outside it changes (chroma included), no box line or label is
 * drawn, and the device's bytes are the CPU's. */
GST_START_TEST (test_redaction)
{
  const Roi odd = { 23, 19, 21, 17 };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int m = 0; m < 3; m++) {
      GstVideoInfo *info = info_for (formats[f], W, H);
      GstBuffer *in = frame_with_roi (info, &odd), *out[2], *want;
      gchar *props = g_strdup_printf ("mode=%s grow=1.3 cells=3", modes[m]);
      GstVideoFrame fw, fo;
      ClvOverlayLayout l;
      ClvOverlayOp op;
      guint8 *planes[GST_VIDEO_MAX_PLANES];

      for (int opencl = 0; opencl < 2; opencl++) {
        GstHarness *h = new_harness (formats[f], opencl, W, H, props);

        out[opencl] = push_pull (h, in);
        fail_unless_equals_int (overlay_on_device (h), opencl);
        gst_harness_teardown (h);
      }
      want = gst_buffer_copy_deep (in);
      fail_unless (gst_video_frame_map (&fw, info, want, GST_MAP_READWRITE));
      gst_roi_overlay_layout (&fw.info, &l);
      op = expected_redaction (&l, &odd, m);
      for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fw); p++)
        planes[p] = GST_VIDEO_FRAME_PLANE_DATA (&fw, p);
      clv_overlay_draw_ref (planes, &l, &op, 1, NULL);
      fail_unless (gst_video_frame_map (&fo, info, out[0], GST_MAP_READ));
      clv_check_frames_equal (&fw, &fo);
      gst_video_frame_unmap (&fo);
      gst_video_frame_unmap (&fw);
      assert_outside_unchanged (info, in, out[0], &op);
      assert_same_bytes (out[0], out[1], "device and CPU differ");
      gst_buffer_unref (want);
      gst_buffer_unref (out[0]);
      gst_buffer_unref (out[1]);
      gst_buffer_unref (in);
      g_free (props);
      gst_video_info_free (info);
    }
}

GST_END_TEST;

/* labels: only the ROIs with a listed label (type, detection or
 * recognition) are acted on, in redaction and drawing alike. */
GST_START_TEST (test_label_filter)
{
  const Roi other = { 60, 10, 20, 20 };
  const struct
  {
    const gchar *props;
    gboolean first_changed, second_changed;
  } cases[] = {
    {"mode=fill labels=alice", TRUE, FALSE},
    {"mode=fill labels=\"bob, car\"", FALSE, TRUE},
    {"mode=fill labels=face", TRUE, FALSE},
    {"mode=fill labels=\"\"", TRUE, TRUE},
    {"mode=draw labels=car", FALSE, TRUE},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstVideoInfo *info = info_for ("RGBA", W, H);
    GstHarness *h = new_harness ("RGBA", FALSE, W, H, cases[i].props);
    GstBuffer *in = frame_with_roi (info, &centre), *out;
    GstMapInfo a, b;
    const gsize in_first = (centre.y + 10) * W * 4 + (centre.x + 10) * 4 + 1;
    const gsize in_second = (other.y + 1) * W * 4 + (other.x + 1) * 4 + 1;

    gst_buffer_add_video_region_of_interest_meta (in, "car", other.x, other.y,
        other.w, other.h);
    out = push_pull (h, in);
    fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (in, &b, GST_MAP_READ));
    fail_unless_equals_int (a.data[in_first] != b.data[in_first],
        cases[i].first_changed);
    fail_unless_equals_int (a.data[in_second] != b.data[in_second],
        cases[i].second_changed);
    gst_buffer_unmap (in, &b);
    gst_buffer_unmap (out, &a);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

static Suite *
roioverlay_suite (void)
{
  Suite *s = suite_create ("roioverlay");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_both_memories);
  tcase_add_test (tc, test_clipping);
  tcase_add_test (tc, test_outside_and_empty_label);
  tcase_add_test (tc, test_long_names);
  tcase_add_test (tc, test_no_meta_passthrough);
  tcase_add_test (tc, test_label_cache_restart);
  tcase_add_test (tc, test_composition);
  tcase_add_test (tc, test_composition_on_device);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_track_id);
  tcase_add_test (tc, test_thickness);
  tcase_add_test (tc, test_font_desc);
  tcase_add_test (tc, test_label_colors);
  tcase_add_test (tc, test_children_colors);
  tcase_add_test (tc, test_bad_font);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_redaction);
  tcase_add_test (tc, test_label_filter);
  return s;
}

GST_CHECK_MAIN (roioverlay);
