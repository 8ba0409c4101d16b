/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Training images from a directory, decoded by GStreamer; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvfaceimages.h"

#include <string.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#define DECODE_TIMEOUT (30 * GST_SECOND)

static gboolean
is_image_name (const char *name)
{
  static const char *const exts[] = {
    ".pgm", ".pnm", ".png", ".jpg", ".jpeg"
  };
  gchar *lower = g_ascii_strdown (name, -1);
  gboolean ok = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (exts) && !ok; i++)
    ok = g_str_has_suffix (lower, exts[i]);
  g_free (lower);
  return ok;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names of `dir`'s entries, sorted; directories or image files. */
static GPtrArray *
list_dir (const char *dir, gboolean dirs, GError ** error)
{
  GDir *d = g_dir_open (dir, 0, error);
  GPtrArray *names;
  const char *name;

  if (d == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    gboolean keep = dirs ? g_file_test (path, G_FILE_TEST_IS_DIR) :
        g_file_test (path, G_FILE_TEST_IS_REGULAR) && is_image_name (name);
    if (keep && name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
    g_free (path);
  }
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* Decodes one image to GRAY8 and resizes it to width × height into out. */
static gboolean
decode_image (const char *path, int width, int height, guint8 * out,
    GError ** error)
{
  GstElement *pipeline, *src, *sink;
  GstSample *sample = NULL;
  GstVideoInfo info;
  GstVideoFrame frame;
  gchar *uri;
  gboolean ok = FALSE;

  /* Fatal errors only: a half-built pipeline (a missing element) is none. */
  pipeline = gst_parse_launch_full ("uridecodebin name=src ! videoconvert ! "
      "video/x-raw,format=GRAY8 ! appsink name=sink sync=false", NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, error);
  if (pipeline == NULL)
    return FALSE;
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  uri = gst_filename_to_uri (path, error);
  if (uri == NULL)
    goto done;
  g_object_set (src, "uri", uri, NULL);
  g_free (uri);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE)
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        DECODE_TIMEOUT);
  if (sample == NULL) {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *err = NULL;
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO,
        "%s: cannot be decoded as an image: %s", path,
        err ? err->message : "no picture came out");
    g_clear_error (&err);
    g_clear_pointer (&msg, gst_message_unref);
    gst_object_unref (bus);
    goto done;
  }
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO,
        "%s: the decoded picture cannot be read", path);
    goto done;
  }
  {
    ClvImage im = clv_image_make (GST_VIDEO_FRAME_WIDTH (&frame),
        GST_VIDEO_FRAME_HEIGHT (&frame), 1,
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0));
    clv_eigen_crop_resize_ref (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0), &im,
        0, 0, im.width, im.height, out, width, height);
  }
  gst_video_frame_unmap (&frame);
  ok = TRUE;

done:
  g_clear_pointer (&sample, gst_sample_unref);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}

void
gst_clv_face_images_free (GstClvFaceImages * images)
{
  if (images == NULL)
    return;
  g_free (images->pixels);
  g_free (images->labels);
  g_strfreev (images->label_names);
  g_free (images);
}

GstClvFaceImages *
gst_clv_face_images_load (const char *dir, int width, int height,
    GstClvFaceImagesProgress progress, gpointer user_data, GError ** error)
{
  GstClvFaceImages *im = g_new0 (GstClvFaceImages, 1);
  GPtrArray *labels, *paths = g_ptr_array_new ();
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int));
  const gsize dim = (gsize) width * height;

  im->width = width;
  im->height = height;
  if (width < 1 || height < 1)
    goto bad_size;
  if ((labels = list_dir (dir, TRUE, error)) == NULL)
    goto fail;
  for (guint l = 0; l < labels->len; l++) {
    gchar *sub = g_build_filename (dir, labels->pdata[l], NULL);
    GPtrArray *files = list_dir (sub, FALSE, error);
    if (files == NULL) {
      g_free (sub);
      g_ptr_array_unref (labels);
      goto fail;
    }
    for (guint f = 0; f < files->len; f++) {
      int id = l;
      g_ptr_array_add (paths, g_build_filename (sub, files->pdata[f], NULL));
      g_array_append_val (ids, id);
    }
    g_ptr_array_unref (files);
    g_free (sub);
  }
  im->n_labels = labels->len;
  g_ptr_array_add (labels, NULL);
  im->label_names = (char **) g_ptr_array_free (labels, FALSE);
  im->n = paths->len;
  if (im->n == 0)
    goto empty;

  im->pixels = g_malloc (im->n * dim);
  for (int i = 0; i < im->n; i++) {
    if (progress)
      progress (i, im->n, paths->pdata[i], user_data);
    if (!decode_image (paths->pdata[i], width, height, im->pixels + i * dim,
            error))
      goto fail;
  }
  if (progress)
    progress (im->n, im->n, NULL, user_data);
  g_ptr_array_set_free_func (paths, g_free);
  g_ptr_array_unref (paths);
  im->labels = (int *) g_array_free (ids, FALSE);
  return im;

  /* ERRORS */
bad_size:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
      "The model size %d×%d is empty", width, height);
  goto fail;
empty:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING,
      "%s has no images: expected %s/<label>/<image> (.pgm, .png, .jpg)",
      dir, dir);
  goto fail;
fail:
  g_ptr_array_set_free_func (paths, g_free);
  g_ptr_array_unref (paths);
  g_array_unref (ids);
  gst_clv_face_images_free (im);
  return NULL;
}

void
gst_clv_face_images_name_labels (const GstClvFaceImages * images,
    ClvEigenModel * model)
{
  for (int l = 0; l < images->n_labels; l++)
    clv_eigen_model_set_label_name (model, l, images->label_names[l]);
}
