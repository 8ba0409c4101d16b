/* clvision-annotate: run an analysis fragment (e.g. "vjfacedetect") over an
 * image or a video, draw every region-of-interest meta into the frames, print
 * the metas, and write the result.
 *
 *   clvision-annotate [--max-frames N] INPUT OUTPUT.{png,webm} "FRAGMENT"
 *
 * INPUT is anything decodebin handles (PNG, JPEG, WebM...).  A .png OUTPUT
 * gets the first frame; a .webm OUTPUT gets the whole video (VP8).
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

static GstPadProbeReturn
annotate_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint64 *frames = user_data;
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

    printf ("frame %" G_GUINT64_FORMAT " %s #%d at %u,%u %ux%u", *frames,
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
    draw_box (&frame, roi->x, roi->y, roi->w, roi->h,
        palette[(label_id + 1) % G_N_ELEMENTS (palette)],
        MAX (2, (int) MIN (vinfo.width, vinfo.height) / 200));
  }
  gst_video_frame_unmap (&frame);
  (*frames)++;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gint max_frames = -1;
  GOptionEntry entries[] = {
    {"max-frames", 0, 0, G_OPTION_ARG_INT, &max_frames,
        "Stop after N frames (video)", "N"},
    {NULL}
  };
  GOptionContext *ctx =
      g_option_context_new ("INPUT OUTPUT.{png,webm} \"FRAGMENT\"");
  GError *error = NULL;
  GstElement *pipeline, *draw;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gchar *desc, *in_uri;
  const gchar *encode;
  guint64 frames = 0;
  int ret = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 4) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: clvision-annotate INPUT OUTPUT.{png,webm} \"FRAGMENT\"");
    return 2;
  }
  if (g_str_has_suffix (argv[2], ".png"))
    encode = "pngenc snapshot=true";
  else if (g_str_has_suffix (argv[2], ".webm"))
    encode = "vp8enc deadline=1 ! webmmux";
  else {
    fprintf (stderr, "OUTPUT must end in .png or .webm\n");
    return 2;
  }

  in_uri = gst_filename_to_uri (argv[1], &error);
  if (in_uri == NULL) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  desc = g_strdup_printf ("uridecodebin uri=\"%s\" ! videoconvert ! "
      "video/x-raw,format=RGBx ! %s ! identity name=draw ! videoconvert ! "
      "%s ! filesink location=\"%s\"", in_uri, argv[3], encode, argv[2]);
  pipeline = gst_parse_launch (desc, &error);
  if (pipeline == NULL) {
    fprintf (stderr, "Could not build the pipeline: %s\n", error->message);
    return 1;
  }
  draw = gst_bin_get_by_name (GST_BIN (pipeline), "draw");
  pad = gst_element_get_static_pad (draw, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, annotate_probe, &frames,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (draw);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  for (;;) {
    msg = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg == NULL) {
      if (max_frames > 0 && frames >= (guint64) max_frames)
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
  fprintf (stderr, "%" G_GUINT64_FORMAT " frame(s) -> %s\n", frames, argv[2]);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (in_uri);
  g_option_context_free (ctx);
  return ret;
}
