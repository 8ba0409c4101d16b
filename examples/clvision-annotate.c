/* clvision-annotate: run an analysis fragment (e.g. "vjfacedetect") over an
 * image or a video, draw every region-of-interest meta into the frames, print
 * the metas, and write the result.
 *
 *   clvision-annotate [--max-frames N] [--crop-dir DIR] INPUT OUTPUT "FRAGMENT"
 *
 * INPUT is anything decodebin handles (PNG, JPEG, WebM...).  A .png OUTPUT
 * gets the first frame; a .webm OUTPUT gets the whole video (VP8); "-" none.
 * --crop-dir saves every ROI as a gray PGM (OpenCV's RGB->gray weights), e.g.
 * as training images for clvision-eigen-train.
 * Example:
 *   clvision-annotate photo.jpg faces.png "vjfacedetect min-neighbors=3"
 */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <string.h>

/* Distinct, readable box colours (RGBx), picked by label_id. */
static const guint8 palette[][3] = {
  {255, 64, 64}, {64, 220, 64}, {64, 128, 255}, {255, 200, 0},
  {255, 64, 255}, {0, 220, 220},
};

static void
draw_box (GstVideoFrame * frame, int x0, int y0, int w, int h,
    const guint8 * rgb, int thickness)
{
  const int fw = GST_VIDEO_FRAME_WIDTH (frame);
  const int fh = GST_VIDEO_FRAME_HEIGHT (frame);
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);

  for (int y = MAX (y0, 0); y < MIN (y0 + h, fh); y++)
    for (int x = MAX (x0, 0); x < MIN (x0 + w, fw); x++) {
      gboolean edge = x < x0 + thickness || x >= x0 + w - thickness
          || y < y0 + thickness || y >= y0 + h - thickness;
      if (edge)
        memcpy (data + (gsize) y * stride + x * 4, rgb, 3);
    }
}

typedef struct
{
  guint64 frames;
  const gchar *crop_dir;
  guint crops;
} Annotate;

/* Writes the ROI as an 8-bit PGM, gray by OpenCV 4.6's weights. */
static void
save_crop (Annotate * a, GstVideoFrame * frame, int x0, int y0, int w, int h)
{
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  GString *pgm;
  gchar *name, *path;

  w = MIN (w, GST_VIDEO_FRAME_WIDTH (frame) - x0);
  h = MIN (h, GST_VIDEO_FRAME_HEIGHT (frame) - y0);
  if (w <= 0 || h <= 0)
    return;
  pgm = g_string_new (NULL);
  g_string_append_printf (pgm, "P5\n%d %d\n255\n", w, h);
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++) {
      const guint8 *p = data + (gsize) y * stride + x * 4;
      g_string_append_c (pgm, (9798 * p[0] + 19235 * p[1] + 3735 * p[2] +
              16384) >> 15);
    }
  name = g_strdup_printf ("face-%05u.pgm", a->crops++);
  path = g_build_filename (a->crop_dir, name, NULL);
  if (!g_file_set_contents (path, pgm->str, pgm->len, NULL))
    fprintf (stderr, "could not write %s\n", path);
  g_free (path);
  g_free (name);
  g_string_free (pgm, TRUE);
}

static GstPadProbeReturn
annotate_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Annotate *a = user_data;
  GstBuffer *buf = gst_pad_probe_info_get_buffer (info);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  gpointer state = NULL;
  GstMeta *meta;

  if (caps == NULL || !gst_video_info_from_caps (&vinfo, caps)) {
    if (caps)
      gst_caps_unref (caps);
    return GST_PAD_PROBE_OK;
  }
  gst_caps_unref (caps);
  buf = gst_buffer_make_writable (buf);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  if (!gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_READWRITE))
    return GST_PAD_PROBE_OK;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    int label_id = 0;

    printf ("frame %" G_GUINT64_FORMAT " %s #%d at %u,%u %ux%u", a->frames,
        g_quark_to_string (roi->roi_type), roi->id, roi->x, roi->y, roi->w,
        roi->h);
    for (GList * l = roi->params; l; l = l->next) {
      gchar *s = gst_structure_to_string (l->data);
      printf (" %s", s);
      g_free (s);
      if (gst_structure_has_name (l->data, "recognition"))
        gst_structure_get_int (l->data, "label_id", &label_id);
    }
    printf ("\n");
    if (a->crop_dir)
      save_crop (a, &frame, roi->x, roi->y, roi->w, roi->h);
    draw_box (&frame, roi->x, roi->y, roi->w, roi->h,
        palette[(label_id + 1) % G_N_ELEMENTS (palette)],
        MAX (2, (int) MIN (vinfo.width, vinfo.height) / 200));
  }
  gst_video_frame_unmap (&frame);
  a->frames++;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gint max_frames = -1;
  gchar *crop_dir = NULL;
  GOptionEntry entries[] = {
    {"max-frames", 0, 0, G_OPTION_ARG_INT, &max_frames,
        "Stop after N frames (video)", "N"},
    {"crop-dir", 0, 0, G_OPTION_ARG_FILENAME, &crop_dir,
        "Save every ROI as a gray PGM into DIR", "DIR"},
    {NULL}
  };
  Annotate a = { 0, NULL, 0 };
  GOptionContext *ctx =
      g_option_context_new ("INPUT OUTPUT.{png,webm,-} \"FRAGMENT\"");
  GError *error = NULL;
  GstElement *pipeline, *draw;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gchar *desc, *in_uri;
  const gchar *encode;
  int ret = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 4) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: clvision-annotate INPUT OUTPUT.{png,webm,-} \"FRAGMENT\"");
    return 2;
  }
  if (g_str_has_suffix (argv[2], ".png"))
    encode = "pngenc snapshot=true ! filesink";
  else if (g_str_has_suffix (argv[2], ".webm"))
    encode = "vp8enc deadline=1 ! webmmux ! filesink";
  else if (strcmp (argv[2], "-") == 0)
    encode = "fakesink";
  else {
    fprintf (stderr, "OUTPUT must end in .png or .webm, or be -\n");
    return 2;
  }
  if (crop_dir && g_mkdir_with_parents (crop_dir, 0755) != 0) {
    fprintf (stderr, "could not create %s\n", crop_dir);
    return 2;
  }
  a.crop_dir = crop_dir;

  in_uri = gst_filename_to_uri (argv[1], &error);
  if (in_uri == NULL) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  desc = g_strdup_printf ("uridecodebin uri=\"%s\" ! videoconvert ! "
      "video/x-raw,format=RGBx ! %s ! identity name=draw ! videoconvert ! "
      "%s name=out", in_uri, argv[3], encode);
  pipeline = gst_parse_launch (desc, &error);
  if (pipeline == NULL) {
    fprintf (stderr, "Could not build the pipeline: %s\n", error->message);
    return 1;
  }
  if (strcmp (argv[2], "-") != 0) {
    GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
    g_object_set (out, "location", argv[2], NULL);
    gst_object_unref (out);
  }
  draw = gst_bin_get_by_name (GST_BIN (pipeline), "draw");
  pad = gst_element_get_static_pad (draw, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, annotate_probe, &a,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (draw);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  for (;;) {
    msg = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg == NULL) {
      if (max_frames > 0 && a.frames >= (guint64) max_frames)
        gst_element_send_event (pipeline, gst_event_new_eos ());
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &error, &dbg);
      fprintf (stderr, "Error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          error->message, dbg ? dbg : "");
      g_free (dbg);
      ret = 1;
    }
    gst_message_unref (msg);
    break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fprintf (stderr, "%" G_GUINT64_FORMAT " frame(s) -> %s%s%s\n", a.frames,
      argv[2], crop_dir ? ", faces in " : "", crop_dir ? crop_dir : "");
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (in_uri);
  g_option_context_free (ctx);
  g_free (crop_dir);
  return ret;
}
