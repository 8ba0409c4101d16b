/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision-faces: how an application reads clvision's results.
 *
 *   clvision-faces [--model MODEL.yml] [--max-frames N] [--crop-dir DIR]
 *                  [--min-neighbors N] FILE
 *
 * Runs  filesrc ! decodebin ! videoconvert ! vjfacedetect
 *       [! eigenrecognise model=MODEL.yml] ! fakesink
 * and prints, for every frame, the faces found: the boxes of the
 * GstVideoRegionOfInterestMeta the elements attach, read through a pad probe
 * with the typed helpers of <gst/clvision/clvision.h>.  --crop-dir also
 * saves every face as DIR/frame-FFFFFF-face-K.pgm, gray (frames are then
 * converted to GRAY8 before the detector), e.g. to train an Eigenface model
 * on them; --min-neighbors sets vjfacedetect's min-neighbors (higher: fewer
 * false faces).
 *
 * Standalone build (after `meson install` of clvision):
 *   cc faces.c $(pkg-config --cflags --libs gstreamer-clvision-1.0) -o clvision-faces
 * or `meson setup build && ninja -C build` in this folder. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/clvision/clvision.h>

typedef struct
{
  guint64 frames;
  guint64 max_frames;
  GstElement *pipeline;
  const gchar *crop_dir;
} AppState;

/* Writes the box `roi` of the GRAY8 frame in `buf`, face `index` of the
 * current frame, as DIR/frame-FFFFFF-face-K.pgm. */
static void
save_crop (AppState * app, GstPad * pad, GstBuffer * buf,
    const GstVideoRegionOfInterestMeta * roi, guint index)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  GString *pgm;
  gchar *name, *path;

  if (!caps || !gst_video_info_from_caps (&vinfo, caps)
      || !gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_READ)) {
    g_printerr ("cannot read the frame to crop a face\n");
    gst_clear_caps (&caps);
    return;
  }
  gst_caps_unref (caps);
  pgm = g_string_new (NULL);
  g_string_append_printf (pgm, "P5\n%u %u\n255\n", roi->w, roi->h);
  for (guint y = roi->y; y < roi->y + roi->h; y++)
    g_string_append_len (pgm, (const gchar *) GST_VIDEO_FRAME_PLANE_DATA
        (&frame, 0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0)
        + roi->x, roi->w);
  gst_video_frame_unmap (&frame);
  name = g_strdup_printf ("frame-%06" G_GUINT64_FORMAT "-face-%u.pgm",
      app->frames, index);
  path = g_build_filename (app->crop_dir, name, NULL);
  if (!g_file_set_contents (path, pgm->str, pgm->len, NULL))
    g_printerr ("could not write %s\n", path);
  g_free (path);
  g_free (name);
  g_string_free (pgm, TRUE);
}

/* Prints the faces of one frame.  Runs in the streaming thread, once per
 * buffer that reaches fakesink's sink pad. */
static GstPadProbeReturn
print_faces (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  AppState *app = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gpointer iter = NULL;
  GstMeta *meta;
  guint n_faces = 0;
  GString *lines = g_string_new (NULL);

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstClvDetection det;
    GstClvRecognition rec;

    if (roi->roi_type != g_quark_from_static_string ("face"))
      continue;
    g_string_append_printf (lines, "  face %u: x=%u y=%u w=%u h=%u",
        n_faces, roi->x, roi->y, roi->w, roi->h);
    if (gst_clv_roi_meta_get_detection (roi, &det))
      g_string_append_printf (lines, " neighbors=%d confidence=%.3f",
          det.neighbors, det.confidence);
    if (gst_clv_roi_meta_get_recognition (roi, &rec))
      g_string_append_printf (lines, " name=%s label_id=%d distance=%.1f"
          " recognition_confidence=%.3f", rec.label, rec.label_id,
          rec.distance, rec.confidence);
    g_string_append_c (lines, '\n');
    if (app->crop_dir)
      save_crop (app, pad, buf, roi, n_faces);
    n_faces++;
  }
  g_print ("frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT ": %u face%s\n%s",
      app->frames, GST_TIME_ARGS (GST_BUFFER_PTS (buf)), n_faces,
      n_faces == 1 ? "" : "s", lines->str);
  g_string_free (lines, TRUE);

  if (++app->frames == app->max_frames) {
    /* Enough: ask the pipeline to finish as if the file had ended. */
    gst_element_post_message (app->pipeline,
        gst_message_new_application (GST_OBJECT (app->pipeline),
            gst_structure_new_empty ("max-frames")));
  }
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gchar *model = NULL;
  gint64 max_frames = 0;
  gchar *crop_dir = NULL;
  gint min_neighbors = -1;
  GOptionEntry entries[] = {
    {"model", 'm', 0, G_OPTION_ARG_FILENAME, &model,
        "Eigenface model: name the faces with eigenrecognise", "MODEL.yml"},
    {"max-frames", 'n', 0, G_OPTION_ARG_INT64, &max_frames,
        "Stop after N frames (0: the whole file)", "N"},
    {"crop-dir", 'c', 0, G_OPTION_ARG_FILENAME, &crop_dir,
        "Save every face as a gray PGM in DIR", "DIR"},
    {"min-neighbors", 0, 0, G_OPTION_ARG_INT, &min_neighbors,
        "vjfacedetect's min-neighbors (default: the element's)", "N"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("FILE - print the faces "
      "clvision finds in an image or a video");
  GError *err = NULL;
  AppState app = { 0 };
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  GString *pipe;
  gchar *desc, *location;
  gboolean done = FALSE;
  int ret = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc != 2) {
    g_printerr ("%s\n", err ? err->message :
        "Usage: clvision-faces [--model MODEL.yml] [--max-frames N] "
        "[--crop-dir DIR] [--min-neighbors N] FILE");
    g_clear_error (&err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (crop_dir && g_mkdir_with_parents (crop_dir, 0755) != 0) {
    g_printerr ("Cannot create %s\n", crop_dir);
    return 1;
  }
  app.crop_dir = crop_dir;

  /* Paths are quoted for gst_parse_launch (spaces, quotes). */
  pipe = g_string_new (NULL);
  location = g_strescape (argv[1], NULL);
  g_string_append_printf (pipe, "filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! %svjfacedetect", location,
      crop_dir ? "video/x-raw,format=GRAY8 ! " : "");
  g_free (location);
  if (min_neighbors >= 0)
    g_string_append_printf (pipe, " min-neighbors=%d", min_neighbors);
  if (model) {
    gchar *m = g_strescape (model, NULL);
    g_string_append_printf (pipe, " ! eigenrecognise model=\"%s\"", m);
    g_free (m);
  }
  g_string_append (pipe, " ! fakesink name=sink");
  desc = g_string_free (pipe, FALSE);
  app.pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  /* A missing element (plugin not found) is an error here, not a pipeline
   * that later fails with "not-linked". */
  if (err) {
    g_printerr ("Cannot build the pipeline: %s (is clvision installed, or "
        "GST_PLUGIN_PATH set to its build?)\n", err->message);
    g_clear_error (&err);
    gst_clear_object (&app.pipeline);
    return 1;
  }
  app.max_frames = max_frames > 0 ? (guint64) max_frames : 0;

  sink = gst_bin_get_by_name (GST_BIN (app.pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, print_faces, &app, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  gst_element_set_state (app.pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (app.pipeline);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_APPLICATION);

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:{
        gchar *debug = NULL;
        gst_message_parse_error (msg, &err, &debug);
        g_printerr ("Error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
            err->message, debug ? debug : "");
        g_clear_error (&err);
        g_free (debug);
        ret = 1;
        done = TRUE;
        break;
      }
      case GST_MESSAGE_APPLICATION:     /* --max-frames reached */
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (app.pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (app.pipeline);
  g_free (model);
  g_free (crop_dir);
  return ret;
}
