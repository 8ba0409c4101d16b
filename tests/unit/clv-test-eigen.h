/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface test data: the LFW crops (tests/data/cache/lfw, made by
 * tests/data/make-lfw.py), PGM files, OpenCV's golden results and the
 * oracle (CLV_ORACLE_EIGEN, set by meson where OpenCV is installed). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A binary 8-bit PGM; aborts the test if it cannot be read. */
guint8 *clv_test_read_pgm (const char *path, int *width, int *height);
void clv_test_write_pgm (const char *path, const guint8 * pixels, int width,
    int height);

/* The directory of the LFW crops; aborts the test, saying how to make them,
 * if they are missing. */
const char *clv_test_lfw_dir (void);

/* The images of an LFW list ("train.txt", "test.txt") packed one after
 * the other (n × width × height bytes) with their labels and their paths
 * relative to the LFW directory (all nullable outputs, free with g_free /
 * g_strfreev). */
guint8 *clv_test_lfw_load (const char *list, int *n, int *width,
    int *height, int **labels, char ***paths);

typedef struct
{
  char *path;                   /* relative to the LFW directory */
  double threshold;             /* INFINITY: none */
  int label;
  double distance;              /* DBL_MAX for unknown faces, as OpenCV */
} ClvTestPrediction;

typedef struct
{
  GArray *eigenvalues;          /* double */
  GArray *predictions;          /* ClvTestPrediction */
} ClvTestEigenGolden;

/* tests/data/golden/eigen-lfw-k<k>.txt. */
ClvTestEigenGolden *clv_test_eigen_golden_load (int k);
void clv_test_eigen_golden_free (ClvTestEigenGolden * golden);

/* The oracle's path, or NULL where it was not built. */
const char *clv_test_oracle_eigen (void);
/* A model of the LFW training faces (the components that keep 90% of the
 * energy), as clvision-eigen-train would write it, in a new temporary
 * folder: its path, for clv_test_eigen_model_file_remove() to remove. */
char *clv_test_eigen_model_file (void);
void clv_test_eigen_model_file_remove (char *path);

/* Runs the oracle with `args` (NULL-terminated); returns its stdout and
 * aborts the test if it fails. */
char *clv_test_oracle_run (const char *first_arg, ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
