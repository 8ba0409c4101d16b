/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces: the model, its file (OpenCV FileStorage YAML as
 * cv::face::EigenFaceRecognizer::write produces it), the component choice
 * and the double-precision C reference of training and recognition that
 * the OpenCL path is tested against. */
#pragma once

#include <glib.h>
#include "clv-image.h"

G_BEGIN_DECLS

#define CLV_EIGEN_ERROR (clv_eigen_error_quark ())
GQuark clv_eigen_error_quark (void);

typedef enum
{
  CLV_EIGEN_ERROR_IO,           /* the file cannot be read or written */
  CLV_EIGEN_ERROR_PARSE,        /* not the YAML subset FileStorage writes */
  CLV_EIGEN_ERROR_MISSING_KEY,  /* a key the model needs is absent */
  CLV_EIGEN_ERROR_BAD_VALUE,    /* wrong type, size or non-numeric data */
  CLV_EIGEN_ERROR_TRAINING,     /* too few images, sizes that differ, ... */
  CLV_EIGEN_ERROR_EXISTS,       /* the model file exists, not to be replaced */
} ClvEigenError;

/* The label OpenCV and we give a face that is farther than the threshold
 * from every training face. */
#define CLV_EIGEN_UNKNOWN (-1)

/* A trained model, everything in double as OpenCV keeps it.
 * Matrices are row-major. */
typedef struct
{
  int width;                    /* model image size (OpenCV stores only   */
  int height;                   /* width × height, see clv_eigen_model_load) */
  int dim;                      /* width × height */
  int n_components;             /* K, eigenfaces kept */
  int n_train;                  /* M, training images */
  double *mean;                 /* dim */
  double *eigenvalues;          /* K, descending */
  double *eigenvectors;         /* dim × K: column k is eigenface k, unit length */
  double *projections;          /* M × K: row i is training image i projected */
  int *labels;                  /* M */
  GHashTable *label_names;      /* GINT_TO_POINTER (label) → char * (owned) */
  double threshold;             /* OpenCV's stored threshold, DBL_MAX = none */
} ClvEigenModel;

/* All arrays allocated (zeroed), no label names, threshold DBL_MAX. */
ClvEigenModel *clv_eigen_model_new (int width, int height, int n_train,
    int n_components);
void clv_eigen_model_free (ClvEigenModel * model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ClvEigenModel, clv_eigen_model_free);

/* The name of a label (NULL if none) and setting it (a copy is kept). */
const char *clv_eigen_model_get_label_name (const ClvEigenModel * model,
    int label);
void clv_eigen_model_set_label_name (ClvEigenModel * model, int label,
    const char *name);

/* Reads a model written by OpenCV's FaceRecognizer::write (or save) or by
 * clv_eigen_model_save.  OpenCV's file has no image size: a model we wrote
 * carries it in the extra keys `clvision_width`/`clvision_height` (OpenCV
 * ignores them); otherwise `width`/`height` (> 0) say it, or with 0 the
 * size is taken as the square side of `mean`.  Any defect → NULL and an
 * error naming the file, the key and what was expected. */
ClvEigenModel *clv_eigen_model_load (const char *path, int width,
    int height, GError ** error);
/* Parses the text of a model file; `name` is used in error messages. */
ClvEigenModel *clv_eigen_model_parse (const char *text, gsize length,
    const char *name, int width, int height, GError ** error);

/* Writes the model as OpenCV does (loadable by EigenFaceRecognizer::read),
 * through a temporary file renamed once complete, so that `path` holds a
 * whole model or none.  An existing `path` is replaced only with `replace`
 * (else CLV_EIGEN_ERROR_EXISTS). */
gboolean clv_eigen_model_save (const ClvEigenModel * model, const char *path,
    gboolean replace, GError ** error);
char *clv_eigen_model_to_string (const ClvEigenModel * model);

/* How many components to keep: formulas (1) and (2) of Li, Yan and Zhang,
 * "Optimization of GPU-based Eigenface Algorithm". */
typedef enum
{
  CLV_EIGEN_KEEP_COUNT,         /* `count` components; 0 = all, at most M−1 */
  CLV_EIGEN_KEEP_ENERGY,        /* smallest K with Σ₁ᴷλ / Σλ > `threshold` (1) */
  CLV_EIGEN_KEEP_STRETCH,       /* smallest K with λ_{K+1} / λ₁ < `threshold` (2) */
} ClvEigenKeepRule;

typedef struct
{
  ClvEigenKeepRule rule;
  int count;                    /* for CLV_EIGEN_KEEP_COUNT */
  double threshold;             /* for ENERGY (e.g. 0.9) and STRETCH (e.g. 0.01) */
} ClvEigenComponents;

/* K for the descending `eigenvalues` (n of them, from M training images):
 * always 1 ≤ K ≤ the non-trivial ones (λ > λ₁·1e-10, at most M − 1); 0 if
 * there are none (all images equal).  OpenCV's count 0 keeps M components,
 * the last one a null-space direction of rounding noise: we never keep it. */
int clv_eigen_choose_components (const double *eigenvalues, int n,
    int n_train, const ClvEigenComponents * components);

/* Eigen-decomposition of the symmetric n × n matrix `a` (destroyed) by
 * serial cyclic Jacobi: `eigenvalues` (n) sorted descending, `eigenvectors`
 * (n × n, column j belongs to eigenvalue j, unit length, sign as the
 * rotations leave it).  Returns the number of sweeps used. */
int clv_eigen_jacobi_ref (double *a, int n, double *eigenvalues,
    double *eigenvectors);

/* Trains on M = n_train GRAY8 images of width × height packed one after
 * the other (faces: M × dim bytes), the paper's steps 1–8 in double, giving
 * the model OpenCV's EigenFaceRecognizer::train gives (eigenvalues of the
 * covariance A·Aᵀ/M, as cv::PCA).  Needs M ≥ 2. */
ClvEigenModel *clv_eigen_train_ref (const guint8 * faces, int n_train,
    const int *labels, int width, int height,
    const ClvEigenComponents * components, GError ** error);

/* Ω = Uᵀ (face − mean) for one GRAY8 face of the model size (K weights). */
void clv_eigen_project_ref (const ClvEigenModel * model, const guint8 * face,
    double *weights);

/* The nearest training projection to `weights` (OpenCV's rule: strictly
 * smaller distance wins, first on ties).  Returns its label, or
 * CLV_EIGEN_UNKNOWN if that distance is not below `threshold` (OpenCV's
 * StandardCollector); `distance` (nullable) gets the nearest distance in
 * both cases (OpenCV reports DBL_MAX for unknown faces). */
int clv_eigen_nearest (const ClvEigenModel * model, const double *weights,
    double threshold, double *distance);

/* Projection and nearest in one: what EigenFaceRecognizer::predict does. */
int clv_eigen_predict_ref (const ClvEigenModel * model, const guint8 * face,
    double threshold, double *distance);

/* The face crop recognition uses: the ROI (x, y, w, h), inside the frame,
 * of a GRAY8 frame resized to out_w × out_h bit-exactly as OpenCV's
 * cv::resize (frame (roi), INTER_LINEAR_EXACT).  `out` is packed.
 *
 * The arithmetic, for a kernel to copy: per axis the host computes, for
 * every output index i, `first[i]` and the weight `frac[i]` (0..256, 8
 * fraction bits) of pixel first[i] + 1 with clv_resize_axis_exact; then
 *   h(y)  = (256 − fx)·p[y][x0] + fx·p[y][x0 + 1]        (x1 unused if fx = 0)
 *   out   = ((256 − fy)·h(y0) + fy·h(y0 + 1) + 32768) >> 16
 * in integers (fits 32 bits). */
void clv_eigen_crop_resize_ref (const guint8 * frame, const ClvImage * im,
    int x, int y, int w, int h, guint8 * out, int out_w, int out_h);


G_END_DECLS
