/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A small RTSP server for the tests, on gst-rtsp-server: serves a
 * gst-launch description (its payloader named pay0) at
 * rtsp://127.0.0.1:PORT/test, each client its own media from the start.
 * Prints the port it listens on, then serves until killed.
 *
 *   clv-rtsp-server [--port PORT] LAUNCH
 *   clv-rtsp-server "( filesrc location=franck.webm ! matroskademux ! \
 *       rtpvp8pay name=pay0 pt=96 )"
 *
 * PORT 0 (the default) takes a free one. */
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

int
main (int argc, char **argv)
{
  gint port = 0;
  GOptionEntry entries[] = {
    {"port", 0, 0, G_OPTION_ARG_INT, &port, "Port (0: a free one)", "PORT"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("LAUNCH - an RTSP server "
      "for the tests");
  GError *error = NULL;
  GstRTSPServer *server;
  GstRTSPMountPoints *mounts;
  GstRTSPMediaFactory *factory;
  GMainLoop *loop;
  gchar *service;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message : "one LAUNCH needed");
    return 2;
  }
  server = gst_rtsp_server_new ();
  gst_rtsp_server_set_address (server, "127.0.0.1");
  service = g_strdup_printf ("%d", port);
  gst_rtsp_server_set_service (server, service);
  g_free (service);
  factory = gst_rtsp_media_factory_new ();
  gst_rtsp_media_factory_set_launch (factory, argv[1]);
  gst_rtsp_media_factory_set_shared (factory, FALSE);
  mounts = gst_rtsp_server_get_mount_points (server);
  gst_rtsp_mount_points_add_factory (mounts, "/test", factory);
  g_object_unref (mounts);
  if (gst_rtsp_server_attach (server, NULL) == 0) {
    fprintf (stderr, "cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
  printf ("%d\n", gst_rtsp_server_get_bound_port (server));
  fflush (stdout);
  loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return 0;
}
