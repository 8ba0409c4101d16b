/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Training images for Eigenfaces from a directory, decoded by GStreamer:
 * DIR/<label>/<image> (PGM/PNM, PNG, JPEG), one subdirectory per person.
 * Shared by the eigenrecognise element and clvision-eigen-train. */
#pragma once

#include <gst/gst.h>

#include "clv-eigen.h"

G_BEGIN_DECLS

typedef struct
{
  int width, height;            /* the model size every image was resized to */
  int n;                        /* images */
  guint8 *pixels;               /* n × width × height GRAY8, packed */
  int *labels;                  /* n */
  int n_labels;
  char **label_names;           /* n_labels: the subdirectory names */
} GstClvFaceImages;

/* Called before each image is decoded (done of total). */
typedef void (*GstClvFaceImagesProgress) (int done, int total,
    const char *path, gpointer user_data);

/* Reads every image file (by extension: .pgm .pnm .png .jpg .jpeg, any
 * case) of every subdirectory of `dir`.  Labels are the subdirectories'
 * indices in name order; their names are the label names.  Each image is
 * decoded to GRAY8 at its own size (uridecodebin ! videoconvert) and
 * resized to width × height by clv_eigen_crop_resize_ref, the resize the
 * recognition uses for face boxes.  An unreadable image is an error that
 * names it. */
GstClvFaceImages *gst_clv_face_images_load (const char *dir, int width,
    int height, GstClvFaceImagesProgress progress, gpointer user_data,
    GError ** error);
void gst_clv_face_images_free (GstClvFaceImages * images);

/* Sets the model's label names from the images' subdirectories. */
void gst_clv_face_images_name_labels (const GstClvFaceImages * images,
    ClvEigenModel * model);

G_END_DECLS
