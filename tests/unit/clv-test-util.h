/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the unit and element tests. */
#pragma once

#include <glib.h>
#include "clv-image.h"
#include "clv-opencl.h"

G_BEGIN_DECLS

/* The device tests run on ("auto" unless CLVISION_DEVICE says otherwise);
 * aborts the test with the reason if there is none. */
ClvDevice *clv_test_device (void);

/* A tightly packed (stride rounded to 4 bytes, as GStreamer does) image
 * filled by a deterministic generator. */
guint8 *clv_test_random_image (ClvImage * im, int width, int height, int bpp,
    guint32 seed);

/* A copy of `src` with `pad` more bytes per row and its first pixel at byte
 * `offset`, as a frame inside a larger buffer would be (g_free it). */
guint8 *clv_test_padded_copy (const guint8 * src, const ClvImage * im,
    gsize pad, gsize offset, ClvImage * padded);

/* Path of a file under tests/data or the source tree. */
char *clv_test_data_path (const char *name);

/* Reads plane 0 of an image back from a device buffer. */
void clv_test_read_buffer (ClvDevice * dev, cl_mem mem, guint8 * dst,
    gsize size);

/* Asserts equal pixels, naming the first differing one. */
void clv_test_assert_images_equal (const guint8 * a, const guint8 * b,
    const ClvImage * im);

/* Asserts that `a` and `b` differ by at most one level, on at most one
 * pixel in a thousand; returns how many differ. */
guint clv_test_assert_images_close (const guint8 * a, const guint8 * b,
    const ClvImage * im);

/* A SAR image of `sample`s (stride rounded to 4 bytes) filled by a
 * deterministic generator: speckle-like positive values of a wide range,
 * complex pairs about 0, and a few zeros. */
guint8 *clv_test_random_samples (ClvImage * im, int width, int height,
    ClvSample sample, guint32 seed);

/* A 300 x 200 Float32 scene of known statistics (g_free it):
 * reflectivities 1, 10, 0.05 and 40 in four quadrants, a bright square and
 * a one-pixel line, times `looks`-look speckle (Gamma of shape looks and
 * mean 1: the mean of `looks` unit exponentials). */
float *clv_test_speckled_scene (int looks, int *w, int *h);

/* Whether `got` agrees with `want` within `rel` relative (to `want`) or
 * `abs` absolute difference; NaN agrees with NaN. */
gboolean clv_test_float_close (float got, float want, double rel, double abs);

/* Asserts that two Float32 images agree within `rel` relative or `abs`
 * absolute difference (NaN matches NaN), naming the first pixel that does
 * not. */
void clv_test_assert_floats_close (const guint8 * a, const guint8 * b,
    const ClvImage * im, double rel, double abs);

G_END_DECLS
