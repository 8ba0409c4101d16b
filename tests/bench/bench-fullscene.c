/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Full-scene check: one Sentinel-1-sized GRAY16_LE frame (25,000 x 16,700 by
 * default) through sarmultilook ! sarrotscale ! sarquantize, read by
 * filesrc ! rawvideoparse, in system memory and memory:OpenCL, each output
 * compared byte for byte with the C references of the three elements.
 * Prints one JSON object; exits 1 if an output differs or a run fails.
 *
 *   GST_PLUGIN_PATH_1_0=build/gst/elements build/tests/bench/bench-fullscene \
 *       [--width 25000] [--height 16700] [--runs 2] [--raw FILE] [--out FILE]
 *
 * The frame is synthetic speckle (exponential, of a mean that varies over
 * the scene) written once to --raw (default: in the temporary folder); each
 * run is one pipeline from PLAYING to EOS, file read included. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include "bench-common.h"
#include "clv-sar.h"

#define LOOKS 2
#define ANGLE 30.0
#define SCALE 1.5
#define COEF 35.0

/* Speckle of mean 2000..12000 (a ramp across the scene), in GStreamer's
 * GRAY16_LE layout (rows padded to 4 bytes). */
static guint8 *
make_scene (const ClvImage * im)
{
  guint8 *data = g_malloc0 (im->stride * im->height);
  guint32 state = 12345;

  for (int y = 0; y < im->height; y++) {
    guint16 *row = (guint16 *) (data + (gsize) y * im->stride);
    for (int x = 0; x < im->width; x++) {
      const double mean = 2000.0 + 10000.0 * (x + y) / (im->width +
          im->height);
      double v;

      state = state * 1664525u + 1013904223u;
      v = -log ((state >> 8) / 16777216.0 + 1e-9) * mean;
      row[x] = (guint16) MIN (v + 0.5, 65535.0);
    }
  }
  return data;
}

/* Runs the chain on the raw frame; returns the seconds from PLAYING to EOS
 * (negative on an error) and the number of output bytes that differ from
 * `expected` in *differ. */
static double
run_once (const gchar * raw, const ClvImage * si, gboolean opencl,
    const guint8 * expected, const ClvImage * qi, guint64 * differ)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s blocksize=%"
      G_GSIZE_FORMAT " ! rawvideoparse format=gray16-le width=%d height=%d "
      "framerate=0/1 ! %ssarmultilook looks=%d ! sarrotscale angle=%g "
      "scale=%g ! sarquantize coef=%g ! %sappsink name=sink sync=false",
      raw, si->stride * si->height, si->width, si->height,
      opencl ? "clupload ! " : "", LOOKS, ANGLE, SCALE, COEF,
      opencl ? "cldownload ! " : "");
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstSample *sample;
  gint64 t0;
  double seconds = -1;

  if (pipeline == NULL)
    g_error ("%s: %s", desc, error->message);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  if (sample) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    GstVideoFrame frame;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    if (GST_VIDEO_INFO_WIDTH (&info) == qi->width
        && GST_VIDEO_INFO_HEIGHT (&info) == qi->height
        && gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
      *differ = 0;
      for (int y = 0; y < qi->height; y++) {
        const guint8 *o = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
            0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
        const guint8 *e = expected + (gsize) y * qi->stride;
        for (int x = 0; x < qi->width; x++)
          *differ += o[x] != e[x];
      }
      gst_video_frame_unmap (&frame);
      seconds = (g_get_monotonic_time () - t0) / 1e6;
    }
    gst_sample_unref (sample);
  } else {
    GstMessage *msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_MESSAGE_ERROR);
    if (msg) {
      gst_message_parse_error (msg, &error, NULL);
      g_printerr ("%s: %s\n", desc, error->message);
      g_clear_error (&error);
      gst_message_unref (msg);
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return seconds;
}

int
main (int argc, char **argv)
{
  gint width = 25000, height = 16700, runs = 2;
  gchar *raw = NULL, *out_path = NULL;
  GOptionEntry entries[] = {
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Frame width", "N"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Frame height", "N"},
    {"runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs per memory kind", "N"},
    {"raw", 0, 0, G_OPTION_ARG_FILENAME, &raw, "Where to write the frame",
        "FILE"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path, "JSON file", "FILE"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- full-scene SAR chain");
  gchar *command = g_strjoinv (" ", argv);
  GError *error = NULL;
  GString *json = g_string_new (NULL);
  ClvDevice *dev;
  ClvImage si, qi;
  guint8 *scene, *expected;
  gboolean all_equal = TRUE;
  gint64 t0;
  double ref_seconds;

  gst_init (&argc, &argv);
  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    g_error ("%s", error->message);
  g_option_context_free (octx);
  if (width < 16 || height < 16 || runs < 1)
    g_error ("--width and --height must be at least 16, --runs at least 1");
  if (raw == NULL)
    raw = g_build_filename (g_get_tmp_dir (), "clv-fullscene.raw", NULL);
  dev = clv_device_open (NULL, &error);
  if (dev == NULL)
    g_error ("%s", error->message);

  si = clv_image_make (width, height, 2, clv_round_up ((gsize) width * 2, 4));
  scene = make_scene (&si);
  if (!g_file_set_contents (raw, (const gchar *) scene, si.stride * height,
          &error))
    g_error ("%s", error->message);
  t0 = g_get_monotonic_time ();
  expected = clv_sar_chain_ref (scene, &si, LOOKS, ANGLE, SCALE, COEF,
      &qi);
  ref_seconds = (g_get_monotonic_time () - t0) / 1e6;
  g_free (scene);

  bench_json_begin (json, dev, command);
  g_string_append_printf (json, ",\n  \"format\": \"GRAY16_LE\",\n"
      "  \"width\": %d,\n  \"height\": %d,\n  \"input_bytes\": %"
      G_GSIZE_FORMAT ",\n  \"chain\": \"sarmultilook looks=%d ! sarrotscale "
      "angle=%g scale=%g ! sarquantize coef=%g\",\n  \"output\": \"%dx%d "
      "GRAY8\",\n  \"c_reference_seconds\": %.3f,\n  \"runs\": {\n", width,
      height, si.stride * height, LOOKS, ANGLE, SCALE, COEF, qi.width,
      qi.height, ref_seconds);
  for (int m = 0; m < 2; m++) {
    g_string_append_printf (json, "    \"%s\": [", m ? "opencl_memory" :
        "system_memory");
    for (int r = 0; r < runs; r++) {
      guint64 differ = G_MAXUINT64;
      double s = run_once (raw, &si, m == 1, expected, &qi, &differ);

      all_equal &= s >= 0 && differ == 0;
      g_string_append_printf (json, "%s{\"seconds\": %.3f, \"bytes_differing"
          "_from_c_reference\": %" G_GINT64_FORMAT "}", r ? ", " : "", s,
          s >= 0 ? (gint64) differ : -1);
    }
    g_string_append_printf (json, "]%s\n", m ? "" : ",");
  }
  g_string_append_printf (json, "  },\n  \"all_equal\": %s\n}\n",
      all_equal ? "true" : "false");
  fputs (json->str, stdout);
  if (out_path && !g_file_set_contents (out_path, json->str, -1, &error))
    g_error ("%s", error->message);

  g_unlink (raw);
  g_string_free (json, TRUE);
  g_free (expected);
  clv_device_unref (dev);
  g_free (raw);
  g_free (out_path);
  g_free (command);
  return all_equal ? 0 : 1;
}
