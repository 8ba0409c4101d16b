/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for the Viola–Jones tests (C reference, OpenCL path, element):
 * the real test images, the golden detections and OpenCV's oracle. */
#pragma once

#include <glib.h>
#include "clv-vj-ref.h"

G_BEGIN_DECLS

/* The gray test images of tests/fetch-data.sh (without ".pgm") and the
 * cascades and parameters the golden files cover. */
extern const char *const vj_test_images[];      /* NULL-terminated */
extern const char *const vj_test_cascades[];    /* "frontalface_default", ... */
extern const double vj_test_scale_factors[2];
extern const int vj_test_min_neighbors[2];

/* The LBP cascades the golden files cover: "lbp_frontalface", ... */
extern const char *const vj_test_lbp_cascades[];        /* NULL-terminated */

/* Path of haarcascade_NAME.xml in Debian's opencv-data, or of
 * lbpcascade_REST.xml for a NAME "lbp_REST". */
char *vj_test_cascade_path (const char *name);

/* `c` written in OpenCV's old XML format (opencv-haar-classifier, trees of
 * left_node/right_node and left_val/right_val); the stage thresholds are
 * written so that loading them gives back c's within 1e-6. */
char *vj_test_cascade_to_old_format (const ClvCascade * c);

/* Path of tests/data/cache/NAME.pgm, running tests/fetch-data.sh (with
 * $CLV_GRAY_PGM) first; aborts the test with the script's output if the
 * data cannot be prepared. */
char *vj_test_image_path (const char *name);

/* Reads NAME.pgm, checking it is the image the golden files were made from
 * (tests/data/golden/images.sha256). */
guint8 *vj_test_load_image (const char *name, int *width, int *height);

/* Faces ("x y width height neighbors" lines, '#' comments) from a golden
 * file or the oracle's output. */
GArray *vj_test_parse_faces (const char *text);

/* tests/data/golden/IMAGE.CASCADE.sSCALE.nNEIGHBORS.txt */
GArray *vj_test_golden_faces (const char *image, const char *cascade,
    double scale_factor, int min_neighbors);

/* Scored faces ("x y width height reject_level level_weight" lines), as
 * the oracle writes them with --reject-levels. */
GArray *vj_test_parse_scores (const char *text);

/* tests/data/golden/IMAGE.CASCADE.s1.1.nNEIGHBORS.levels.txt */
GArray *vj_test_golden_scores (const char *image, const char *cascade,
    int min_neighbors);

/* A detection inside a parent detection: the parent's index. */
typedef struct
{
  int parent;
  ClvVjFace face;
} VjTestChild;

/* tests/data/golden/IMAGE.CHILD-in-PARENT.txt: the children (GArray of
 * VjTestChild) and, in *parents, the parents in index order. */
GArray *vj_test_golden_children (const char *image, const char *child,
    const char *parent, GArray ** parents);

/* Whether OpenCV's oracle was built ($CLV_ORACLE_DETECT). */
gboolean vj_test_have_oracle (void);

/* Runs the oracle on a PGM with the parameters (scores with
 * output_reject_levels). */
GArray *vj_test_oracle_faces (const char *cascade_path, const char *pgm_path,
    const ClvVjParams * params);

/* Asserts the same faces in any order: same count, each rectangle within
 * `tolerance` pixels of its partner and, when tolerance is 0, the same
 * neighbour count.  `what` names the case in the failure message. */
void vj_test_assert_faces (GArray * expected, GArray * actual, int tolerance,
    const char *what);

/* Asserts the same rectangles and reject levels and level weights within
 * 1e-5 relative, in any order. */
void vj_test_assert_scores (GArray * expected, GArray * actual,
    const char *what);

G_END_DECLS
