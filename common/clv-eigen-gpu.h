/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on an OpenCL device: training (steps 1–8 of
 * Li, Yan and Zhang, "Optimization of GPU-based Eigenface Algorithm") and
 * recognition of all the faces of a frame in one batch.  The C reference
 * these are tested against is in clv-eigen.h. */
#pragma once

#include "clv-eigen.h"
#include "clv-image.h"
#include "clv-opencl.h"

G_BEGIN_DECLS

/* Device time of each training step (kernel profiling, seconds), the wall
 * time of the whole call (uploads, read-backs and host work included), and
 * what the tool's summary reports. */
typedef struct
{
  double build;                 /* wall: kernels built or loaded from cache */
  double mean;                  /* step 1: mean face, a reduction */
  double zero_mean;             /* step 2: A = faces − mean */
  double covariance;            /* step 3: L = A·Aᵀ / M, tiled product */
  double jacobi;                /* step 4: parallel cyclic Jacobi on L */
  double eigenfaces;            /* step 6: Uᵀ = Vₖᵀ·A, tiled product */
  double normalise;             /* step 7: ‖uₖ‖ = 1 */
  double projections;           /* step 8: Ω = A·U, tiled product */
  double wall;
  int sweeps;                   /* Jacobi sweeps until convergence */
  double eigenvalue_sum;        /* Σ of all M eigenvalues (the energy) */
} ClvEigenTrainStats;

/* Trains on M = n_train GRAY8 faces of width × height packed one after the
 * other, as clv_eigen_train_ref does, on `dev` (double precision where the
 * device has it).  `stats` is nullable. */
ClvEigenModel *clv_eigen_train_gpu (ClvDevice * dev, const guint8 * faces,
    int n_train, const int *labels, int width, int height,
    const ClvEigenComponents * components, ClvEigenTrainStats * stats,
    GError ** error);


/* A face to recognise: its box in frame pixels (clipped to the frame by
 * clv_eigen_recogniser_run). */
typedef struct
{
  int x, y, w, h;
} ClvEigenRoi;

/* The answer for one face: the nearest training face (OpenCV's rule) and
 * the nearest one whose label differs (for the confidence). */
typedef struct
{
  int label;                    /* CLV_EIGEN_UNKNOWN past the threshold */
  int index;                    /* nearest training face */
  double distance;              /* to it, Euclidean in PCA space */
  double other_distance;        /* to the nearest face of another label,
                                 * G_MAXDOUBLE if the model has one label */
  double confidence;            /* clv_eigen_confidence () */
} ClvEigenMatch;

/* 0 for unknown faces; else how much nearer the winning label is than the
 * next: 1 − distance / other_distance (1 with a single label). */
double clv_eigen_confidence (int label, double distance,
    double other_distance);

typedef struct _ClvEigenRecogniser ClvEigenRecogniser;

/* Uploads the model (mean, eigenfaces, projections, labels) to `dev`. */
ClvEigenRecogniser *clv_eigen_recogniser_new (ClvDevice * dev,
    const ClvEigenModel * model, GError ** error);
void clv_eigen_recogniser_free (ClvEigenRecogniser * rec);

/* Recognises the `n` faces `rois` of the frame in device buffer `frame`
 * in one batch: each is clipped to the frame, cropped and resized to the
 * model size on the device as clv_eigen_crop_resize_ref does, projected
 * and compared with every training face.  Faces with `threshold` or more
 * as distance are unknown.  `seconds` (nullable) gets the device time. */
gboolean clv_eigen_recogniser_run (ClvEigenRecogniser * rec, cl_mem frame,
    const ClvLumaImage * im, const ClvEigenRoi * rois, int n,
    double threshold, ClvEigenMatch * matches, double *seconds,
    GError ** error);

/* One frame of a batch: its faces and where their answers go. */
typedef struct
{
  cl_mem frame;
  ClvLumaImage image;
  const ClvEigenRoi *rois;
  int n;
  double threshold;
  ClvEigenMatch *matches;       /* n of them */
} ClvEigenFrame;

/* The faces of several frames in one batch: each frame's faces are cropped
 * from its own buffer by their own launch, then all are projected and
 * compared at once; each frame gets exactly the matches
 * clv_eigen_recogniser_run would give it.  `seconds` as there. */
gboolean clv_eigen_recogniser_run_batch (ClvEigenRecogniser * rec,
    ClvEigenFrame * frames, guint n_frames, double *seconds, GError ** error);

/* Clips a box to a width × height frame; FALSE if nothing is left. */
gboolean clv_eigen_roi_clip (ClvEigenRoi * roi, int width, int height);

G_END_DECLS
