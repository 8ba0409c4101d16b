/* roioverlay: boxes and labels on every format, in system memory and
 * memory:OpenCL (same bytes, equal to the common/ reference and to values
 * computed by hand), clipping at the frame's edges, frames without ROIs
 * passed untouched in place, overlay compositions for downstreams that take
 * them. */
#include "cl-check-util.h"
#include "gstroioverlay.h"

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

static const ClvRgb red = { 255, 0, 0 }, white = { 255, 255, 255 };

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
 * distance 1234, detection confidence 0.5): red, "alice d=1234 50%". */
static GstBuffer *
frame_with_roi (const GstVideoInfo * info, const Roi * r)
{
  GstBuffer *buf = clv_check_frame (info, 7);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", r->x, r->y,
      r->w, r->h);
  GstClvDetection det = { "face", 0, 0.5, 3, 0, 0, 0, 0 };
  GstClvRecognition rec = { "alice", 1, 1234.0, 0.9 };

  gst_clv_roi_meta_set_detection (roi, &det);
  gst_clv_roi_meta_set_recognition (roi, &rec);
  return buf;
}

/* What the element must draw for `r`: the red box and its label, white
 * text on red above the box (inside it if there is no room). */
static void
expected_ops (const ClvOverlayLayout * l, const Roi * r, ClvOverlayOp ops[2],
    guint8 ** mask)
{
  GError *error = NULL;
  int w, h;

  *mask = clv_overlay_render_text (FONT, "alice d=1234 50%", PAD, &w, &h,
      &error);
  g_assert_no_error (error);
  memset (ops, 0, 2 * sizeof (ClvOverlayOp));
  ops[0].kind = CLV_OVERLAY_BOX;
  ops[0].x0 = r->x;
  ops[0].y0 = r->y;
  ops[0].x1 = r->x + r->w;
  ops[0].y1 = r->y + r->h;
  ops[0].thickness = THICKNESS;
  clv_overlay_op_set_colors (&ops[0], l, red, red);
  ops[1].kind = CLV_OVERLAY_LABEL;
  ops[1].x0 = r->x;
  ops[1].y0 = (int) r->y >= h ? (int) r->y - h : (int) r->y;
  ops[1].x1 = ops[1].x0 + w;
  ops[1].y1 = ops[1].y0 + h;
  clv_overlay_op_set_colors (&ops[1], l, white, red);
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
new_harness (const gchar * format, gboolean opencl, int w, int h)
{
  GstHarness *harness = gst_harness_new_parse (opencl ?
      "clupload ! roioverlay name=o thickness=2 font-desc=\"" FONT
      "\" ! cldownload" :
      "roioverlay name=o thickness=2 font-desc=\"" FONT "\"");
  gchar *caps = caps_string (format, FALSE, w, h);

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

/* Draws `r` on a frame of `format` through the element, in `opencl` memory
 * or not; asserts the output equals the reference; returns it. */
static GstBuffer *
draw_checked (const gchar * format, gboolean opencl, int w, int h,
    const Roi * r)
{
  GstVideoInfo *info = info_for (format, w, h);
  GstHarness *harness = new_harness (format, opencl, w, h);
  GstBuffer *in = frame_with_roi (info, r), *want = gst_buffer_copy_deep (in),
      *out;
  GstVideoFrame fw, fo;
  ClvOverlayLayout l;
  ClvOverlayOp ops[2];
  guint8 *planes[GST_VIDEO_MAX_PLANES], *mask;

  out = push_pull (harness, in);
  fail_unless_equals_int (overlay_on_device (harness), opencl);
  fail_unless (gst_video_frame_map (&fw, info, want, GST_MAP_READWRITE));
  gst_roi_overlay_layout (&fw.info, &l);
  expected_ops (&l, r, ops, &mask);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fw); p++)
    planes[p] = GST_VIDEO_FRAME_PLANE_DATA (&fw, p);
  clv_overlay_draw_ref (planes, &l, ops, 2, mask);
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  clv_check_frames_equal (&fw, &fo);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fw);

  g_free (mask);
  gst_buffer_unref (want);
  gst_buffer_unref (in);
  gst_harness_teardown (harness);
  gst_video_info_free (info);
  return out;
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
  guint8 white_value;

  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  gst_roi_overlay_layout (&fo.info, &l);
  for (int c = 0; c < l.n_comps; c++) {
    const ClvOverlayCompKind k = l.comp[c].kind;
    /* Red: gray 76; Y 82, U 90, V 240; R 255, G 0, B 0; A 255. */
    const guint8 want = k == CLV_OVERLAY_GRAY ? 76 : k == CLV_OVERLAY_Y ? 82
        : k == CLV_OVERLAY_U ? 90 : k == CLV_OVERLAY_V ? 240
        : k == CLV_OVERLAY_R || k == CLV_OVERLAY_A ? 255 : 0;

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
  white_value = l.comp[0].kind == CLV_OVERLAY_Y ? 235 : 255;
  for (int y = 0; y < (int) r->y; y++)
    for (int x = r->x; x < w; x++)
      text += sample (&fo, &l, 0, x, y) == white_value;
  fail_unless (text > 5, "%s: %d white text pixels", format, text);

  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_video_info_free (info);
}

static const Roi centre = { 8, 30, 50, 36 };

GST_START_TEST (test_formats_both_memories)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstBuffer *sys = draw_checked (formats[i], FALSE, W, H, &centre);
    GstBuffer *dev = draw_checked (formats[i], TRUE, W, H, &centre);
    GstMapInfo ms, md;

    assert_drawn (formats[i], W, H, &centre, sys);
    /* Same bytes both ways (both equal the reference already). */
    fail_unless (gst_buffer_map (sys, &ms, GST_MAP_READ));
    fail_unless (gst_buffer_map (dev, &md, GST_MAP_READ));
    fail_unless (ms.size == md.size && memcmp (ms.data, md.data,
            ms.size) == 0, "%s: system and OpenCL differ", formats[i]);
    gst_buffer_unmap (dev, &md);
    gst_buffer_unmap (sys, &ms);
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
      GstBuffer *out = draw_checked (fmts[i], opencl, 85, 61, &edge);
      GstBuffer *out2 = draw_checked (fmts[i], opencl, 85, 61, &top);
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

/* A frame without ROI metas comes out as the same buffer, untouched. */
GST_START_TEST (test_no_meta_passthrough)
{
  for (int opencl = 0; opencl < 2; opencl++) {
    GstVideoInfo *info = info_for ("I420", W, H);
    GstHarness *h = new_harness ("I420", FALSE, W, H);
    GstBuffer *in = clv_check_frame (info, 3), *copy =
        gst_buffer_copy_deep (in), *out;
    GstMapInfo a, b;

    if (opencl) {
      /* Directly into the overlay, in memory:OpenCL from clupload's
       * pool: the device buffer passes as is. */
      gst_harness_teardown (h);
      h = gst_harness_new_parse ("clupload ! roioverlay name=o");
      gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=96,"
          "height=72,framerate=30/1");
      gst_harness_set_sink_caps_str (h, "video/x-raw(memory:OpenCL)");
    }
    out = push_pull (h, in);
    if (!opencl)
      fail_unless (out == in, "the buffer was replaced");
    else
      fail_unless (overlay_on_device (h));
    fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (copy, &b, GST_MAP_READ));
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (copy, &b);
    gst_buffer_unmap (out, &a);
    gst_buffer_unref (out);
    gst_buffer_unref (copy);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
    gst_video_info_free (info);
  }
}

GST_END_TEST;

/* A downstream that takes GstVideoOverlayCompositionMeta gets the box (four
 * sides) and label as rectangles; the pixels are left alone.  Blended, the
 * composition gives the box's colour. */
GST_START_TEST (test_composition)
{
  GstVideoInfo *info = info_for ("BGRx", W, H);
  GstHarness *h = new_harness ("BGRx", FALSE, W, H);
  GstBuffer *in, *copy, *out;
  GstVideoOverlayCompositionMeta *meta;
  GstVideoOverlayComposition *comp;
  GstVideoOverlayRectangle *rect;
  GstVideoFrame f;
  GstMapInfo a, b;
  gint x, y;
  guint rw, rh;

  gst_harness_add_propose_allocation_meta (h,
      GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  in = frame_with_roi (info, &centre);
  copy = gst_buffer_copy_deep (in);
  out = push_pull (h, in);
  gst_buffer_unref (in);
  fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (copy, &b, GST_MAP_READ));
  fail_unless (memcmp (a.data, b.data, a.size) == 0, "pixels changed");
  gst_buffer_unmap (copy, &b);
  gst_buffer_unmap (out, &a);

  meta = gst_buffer_get_video_overlay_composition_meta (out);
  fail_unless (meta != NULL);
  comp = meta->overlay;
  fail_unless_equals_int (gst_video_overlay_composition_n_rectangles (comp),
      5);
  /* The top side: the box's width, THICKNESS high. */
  rect = gst_video_overlay_composition_get_rectangle (comp, 0);
  fail_unless (gst_video_overlay_rectangle_get_render_rectangle (rect, &x, &y,
          &rw, &rh));
  fail_unless_equals_int (x, centre.x);
  fail_unless_equals_int (y, centre.y);
  fail_unless_equals_int (rw, centre.w);
  fail_unless_equals_int (rh, THICKNESS);
  /* The label: above the box. */
  rect = gst_video_overlay_composition_get_rectangle (comp, 4);
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

static Suite *
roioverlay_suite (void)
{
  Suite *s = suite_create ("roioverlay");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_both_memories);
  tcase_add_test (tc, test_clipping);
  tcase_add_test (tc, test_no_meta_passthrough);
  tcase_add_test (tc, test_composition);
  return s;
}

GST_CHECK_MAIN (roioverlay);
