/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 8-bit binary PGM (P5) files: the gray test images that the C reference,
 * the OpenCL path and OpenCV's oracle all read. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads a P5 file with maxval 255; rows are packed (stride = width).
 * Returns the pixels (g_free) or NULL with a G_FILE_ERROR.  GLib only (the
 * OpenCV oracle compiles this file too). */
guint8 *clv_pgm_read (const char *path, int *width, int *height,
    GError ** error);

gboolean clv_pgm_write (const char *path, const guint8 * pixels, int width,
    int height, gsize stride, GError ** error);

G_END_DECLS
