/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on the device equal the double-precision C reference:
 * training (eigenvalues, eigenvectors up to sign, projections) and batched
 * recognition (crop + resize, labels, distances), on real LFW face crops. */
#include "clv-eigen-batch.h"
#include "clv-test-util.h"
#include "clv-test-eigen.h"
#include "clv-vj-ref.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- test data */

typedef struct
{
  int width, height, n;
  guint8 *pixels;               /* n × width × height */
  int *labels;
  char **paths;                 /* relative to the LFW directory */
} FaceSet;

static void
face_set_free (FaceSet * s)
{
  g_free (s->pixels);
  g_free (s->labels);
  g_strfreev (s->paths);
  g_free (s);
}

/* An LFW list of tests/data/make-lfw.py ("train.txt", "test.txt"). */
static FaceSet *
load_list (const char *list_name)
{
  FaceSet *s = g_new0 (FaceSet, 1);

  s->pixels = clv_test_lfw_load (list_name, &s->n, &s->width, &s->height,
      &s->labels, &s->paths);
  return s;
}

static const guint8 *
face_pixels (const FaceSet * s, int i)
{
  return s->pixels + (gsize) i * s->width * s->height;
}

/* -------------------------------------------------------------- training */

/* Relative comparison; distances near 0 (a face against itself) are
 * compared against 1 grey level instead. */
static void
assert_rel (double a, double b, double tol, const char *what, int i)
{
  double scale = MAX (MAX (fabs (a), fabs (b)), 1e-300);
  if (fabs (a - b) > tol * scale)
    g_error ("%s %d: %.17g vs %.17g (relative %.3g > %.3g)", what, i, a, b,
        fabs (a - b) / scale, tol);
}

/* The device model equals the reference one: same K, mean, eigenvalues
 * within 1e-4 relative, eigenvectors equal up to sign, and the distances of
 * every probe to every training projection within 1e-3 relative. */
static void
assert_models_equal (const ClvEigenModel * ref, const ClvEigenModel * gpu,
    const FaceSet * probes)
{
  const int k = ref->n_components, dim = ref->dim;
  double *wr = g_new (double, k), *wg = g_new (double, k);

  g_assert_cmpint (gpu->n_components, ==, k);
  g_assert_cmpint (gpu->n_train, ==, ref->n_train);
  g_assert_cmpint (gpu->width, ==, ref->width);
  for (int p = 0; p < dim; p++)
    assert_rel (ref->mean[p], gpu->mean[p], 1e-12, "mean pixel", p);
  for (int c = 0; c < k; c++)
    assert_rel (ref->eigenvalues[c], gpu->eigenvalues[c], 1e-4, "eigenvalue",
        c);
  for (int c = 0; c < k; c++) {
    double dot = 0, worst = 0;
    for (int p = 0; p < dim; p++)
      dot += ref->eigenvectors[(gsize) p * k + c] *
          gpu->eigenvectors[(gsize) p * k + c];
    for (int p = 0; p < dim; p++)
      worst = MAX (worst, fabs (ref->eigenvectors[(gsize) p * k + c] -
              (dot < 0 ? -1 : 1) * gpu->eigenvectors[(gsize) p * k + c]));
    if (fabs (fabs (dot) - 1) > 1e-6 || worst > 1e-4)
      g_error ("eigenvector %d differs: |u·u'| = %.12f, max difference %.3g",
          c, fabs (dot), worst);
  }
  for (int i = 0; i < ref->n_train; i++)
    g_assert_cmpint (gpu->labels[i], ==, ref->labels[i]);
  for (int f = 0; f < probes->n; f++) {
    clv_eigen_project_ref (ref, face_pixels (probes, f), wr);
    clv_eigen_project_ref (gpu, face_pixels (probes, f), wg);
    for (int i = 0; i < ref->n_train; i++) {
      double dr = 0, dg = 0;
      for (int c = 0; c < k; c++) {
        const double a = wr[c] - ref->projections[(gsize) i * k + c];
        const double b = wg[c] - gpu->projections[(gsize) i * k + c];
        dr += a * a;
        dg += b * b;
      }
      assert_rel (sqrt (dr), sqrt (dg), 1e-3, "probe × training distance",
          f * ref->n_train + i);
    }
  }
  g_free (wr);
  g_free (wg);
}

static void
check_training (const FaceSet * train, int n_train,
    const ClvEigenComponents * comp, const FaceSet * probes)
{
  ClvDevice *dev = clv_test_device ();
  GError *error = NULL;
  ClvEigenTrainStats times;
  ClvEigenModel *ref, *gpu;

  ref = clv_eigen_train_ref (train->pixels, n_train, train->labels,
      train->width, train->height, comp, &error);
  g_assert_no_error (error);
  gpu = clv_eigen_train_gpu (dev, train->pixels, n_train, train->labels,
      train->width, train->height, comp, &times, &error);
  g_assert_no_error (error);
  g_test_message ("M = %d, K = %d: %d sweeps, %.3f s", n_train,
      gpu->n_components, times.sweeps, times.wall);
  g_assert_cmpint (times.sweeps, >, 0);
  assert_models_equal (ref, gpu, probes);
  clv_eigen_model_free (ref);
  clv_eigen_model_free (gpu);
  clv_device_unref (dev);
}

/* 70 LFW faces (even M), the energy rule (formula (1) of
 * Li, Yan and Zhang, "Optimization of GPU-based Eigenface Algorithm"). */
static void
test_train_lfw_energy (void)
{
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_ENERGY, 0, 0.9 };

  check_training (train, train->n, &comp, test);
  face_set_free (train);
  face_set_free (test);
}

/* 69 faces (odd M: L is padded with a zero row and column), every
 * non-trivial component; the stretch rule. */
static void
test_train_lfw_odd_all (void)
{
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  ClvEigenComponents all = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  ClvEigenComponents stretch = { CLV_EIGEN_KEEP_STRETCH, 0, 0.01 };

  check_training (train, train->n - 1, &all, test);
  check_training (train, train->n - 1, &stretch, test);
  face_set_free (train);
  face_set_free (test);
}

/* The smallest case (M = 2, one round) and repeated images (zero and
 * repeated eigenvalues). */
static void
test_train_small_and_repeated (void)
{
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  ClvEigenComponents all = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  FaceSet rep = *train;
  const gsize dim = (gsize) train->width * train->height;

  check_training (train, 2, &all, test);
  /* Faces 0..9 twice: rank 9 out of 20. */
  rep.n = 20;
  rep.pixels = g_malloc (20 * dim);
  memcpy (rep.pixels, train->pixels, 10 * dim);
  memcpy (rep.pixels + 10 * dim, train->pixels, 10 * dim);
  rep.labels = g_new (int, 20);
  for (int i = 0; i < 20; i++)
    rep.labels[i] = train->labels[i % 10];
  check_training (&rep, 20, &all, test);
  g_free (rep.pixels);
  g_free (rep.labels);
  face_set_free (train);
  face_set_free (test);
}

static void
test_train_errors (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenComponents all = { CLV_EIGEN_KEEP_COUNT, 0, 0 };
  guint8 same[4 * 16];
  int labels[4] = { 0, 1, 2, 3 };
  GError *error = NULL;

  memset (same, 77, sizeof same);
  g_assert_null (clv_eigen_train_gpu (dev, same, 1, labels, 4, 4, &all, NULL,
          &error));
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING);
  g_clear_error (&error);
  g_assert_null (clv_eigen_train_gpu (dev, same, 4, labels, 4, 4, &all, NULL,
          &error));
  g_assert_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_TRAINING);
  g_clear_error (&error);
  clv_device_unref (dev);
}

/* ----------------------------------------------------------- recognition */

typedef struct
{
  ClvLumaImage im;
  guint8 *data;
  gsize size;
} Frame;

/* A gray frame (stride padded past the width) with the probe faces pasted
 * on a noisy background, each at its own place and scale: face i becomes
 * a box of size × size at (x, y) by the reference resize. */
static Frame *
frame_with_faces (const FaceSet * probes, int n, const ClvEigenRoi * boxes,
    int width, int height)
{
  Frame *fr = g_new0 (Frame, 1);
  ClvImage tile = clv_image_make (probes->width, probes->height, 1,
      probes->width);
  ClvImage bg;
  guint8 *noise = clv_test_random_image (&bg, width, height, 1, 7);

  fr->im.image = clv_image_make (width, height, 1, width + 13);
  fr->im.image.offset = 5;
  fr->im.r = fr->im.g = fr->im.b = -1;
  fr->size = fr->im.image.offset + fr->im.image.stride * height;
  fr->data = g_malloc0 (fr->size);
  for (int y = 0; y < height; y++)
    memcpy (fr->data + fr->im.image.offset + y * fr->im.image.stride,
        noise + y * bg.stride, width);
  for (int i = 0; i < n; i++) {
    const ClvEigenRoi *b = &boxes[i];
    guint8 *scaled = g_malloc ((gsize) b->w * b->h);
    clv_eigen_crop_resize_ref (face_pixels (probes, i), &tile, 0, 0,
        probes->width, probes->height, scaled, b->w, b->h);
    for (int y = 0; y < b->h; y++)
      for (int x = 0; x < b->w; x++)
        if (b->x + x < width && b->y + y < height)
          fr->data[fr->im.image.offset + (b->y + y) * fr->im.image.stride +
              b->x + x] = scaled[y * b->w + x];
    g_free (scaled);
  }
  g_free (noise);
  return fr;
}

static void
frame_free (Frame * fr)
{
  g_free (fr->data);
  g_free (fr);
}

/* The reference answer for a box of a frame: its luma (its bytes, or
 * clv_rgb_to_gray_ref, OpenCV's cvtColor), clipped, cropped and resized by
 * clv_eigen_crop_resize_ref, then clv_eigen_predict_ref. */
static int
reference_predict (const ClvEigenModel * model, const Frame * fr,
    ClvEigenRoi box, double threshold, double *distance)
{
  const ClvImage *fi = &fr->im.image;
  ClvImage gi = clv_image_make (fi->width, fi->height, 1, fi->width);
  guint8 *gray = g_malloc ((gsize) fi->width * fi->height);
  guint8 *face = g_malloc (model->dim);
  int label;

  if (fr->im.r < 0)
    for (int y = 0; y < fi->height; y++)
      memcpy (gray + y * fi->width, fr->data + fi->offset + y * fi->stride,
          fi->width);
  else
    clv_rgb_to_gray_ref (fr->data + fi->offset, fi->stride, fi->bpp,
        fr->im.r, fr->im.g, fr->im.b, fi->width, fi->height, gray, fi->width);
  g_assert_true (clv_eigen_roi_clip (&box, fi->width, fi->height));
  clv_eigen_crop_resize_ref (gray, &gi, box.x, box.y, box.w, box.h, face,
      model->width, model->height);
  label = clv_eigen_predict_ref (model, face, threshold, distance);
  g_free (gray);
  g_free (face);
  return label;
}

/* Runs one batch on the device and compares every face with the
 * reference: same label, distance within 1e-9 relative (both in double;
 * a single pixel off in the crop would show far above that). */
static void
check_batch (ClvDevice * dev, ClvEigenRecogniser * rec,
    const ClvEigenModel * model, const Frame * fr, const ClvEigenRoi * boxes,
    int n, double threshold, const int *expect_labels)
{
  ClvEigenMatch *m = g_new0 (ClvEigenMatch, n);
  GError *error = NULL;
  cl_mem mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, fr->size, &error);
  const double tol = dev->has_fp64 ? 1e-9 : 1e-3;

  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, mem, CL_TRUE, 0,
          fr->size, fr->data, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clv_eigen_recogniser_run (rec, mem, &fr->im, boxes, n,
          threshold, m, NULL, &error));
  g_assert_no_error (error);
  for (int f = 0; f < n; f++) {
    double dist;
    int label = reference_predict (model, fr, boxes[f], threshold, &dist);
    g_assert_cmpint (m[f].label, ==, label);
    assert_rel (MAX (dist, 1), MAX (m[f].distance, 1), tol, "face distance",
        f);
    if (dist < 1)
      g_assert_cmpfloat (m[f].distance, <, 1e-6);
    if (expect_labels)
      g_assert_cmpint (m[f].label, ==, expect_labels[f]);
    g_assert_cmpfloat (m[f].other_distance, >=, m[f].distance);
    g_assert_cmpfloat (m[f].confidence, >=, 0);
    g_assert_cmpfloat (m[f].confidence, <=, 1);
    if (label == CLV_EIGEN_UNKNOWN)
      g_assert_cmpfloat (m[f].confidence, ==, 0);
  }
  clReleaseMemObject (mem);
  g_free (m);
}

static ClvEigenModel *
lfw_model (void)
{
  FaceSet *train = load_list ("train.txt");
  ClvEigenComponents comp = { CLV_EIGEN_KEEP_ENERGY, 0, 0.9 };
  GError *error = NULL;
  ClvEigenModel *model = clv_eigen_train_ref (train->pixels, train->n,
      train->labels, train->width, train->height, &comp, &error);

  g_assert_no_error (error);
  face_set_free (train);
  return model;
}

/* Nine faces of one frame in one batch, at the model size, up- and
 * down-scaled and off-square; training faces come back with their own
 * label at distance 0. */
static void
test_recognise_gray_batch (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model ();
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  FaceSet probes = *test;
  const ClvEigenRoi boxes[] = {
    {3, 4, 25, 25}, {40, 2, 50, 50}, {100, 10, 19, 19}, {130, 60, 37, 29},
    {5, 70, 64, 64}, {80, 90, 25, 40}, {150, 5, 13, 13}, {120, 110, 30, 30},
    {175, 150, 24, 24},
  };
  const int n = G_N_ELEMENTS (boxes);
  Frame *fr;
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);
  int expect[1] = { train->labels[0] };

  g_assert_no_error (error);
  probes.n = n;
  fr = frame_with_faces (&probes, n, boxes, 200, 175);
  check_batch (dev, rec, model, fr, boxes, n, G_MAXDOUBLE, NULL);
  frame_free (fr);

  /* A training face, pasted at the model size: itself, distance ~0. */
  fr = frame_with_faces (train, 1, boxes, 60, 40);
  check_batch (dev, rec, model, fr, boxes, 1, G_MAXDOUBLE, expect);
  frame_free (fr);

  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  face_set_free (train);
  face_set_free (test);
  clv_device_unref (dev);
}

/* A threshold below every distance makes every face unknown; one between
 * the distances splits them as the reference does. */
static void
test_recognise_threshold (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model ();
  FaceSet *test = load_list ("test.txt");
  const ClvEigenRoi boxes[] = {
    {0, 0, 25, 25}, {30, 0, 25, 25}, {60, 0, 25, 25}, {90, 0, 25, 25},
  };
  const int unknown[4] = { -1, -1, -1, -1 };
  Frame *fr = frame_with_faces (test, 4, boxes, 120, 30);
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);
  double d[4];

  g_assert_no_error (error);
  check_batch (dev, rec, model, fr, boxes, 4, 1e-3, unknown);
  for (int i = 0; i < 4; i++)
    reference_predict (model, fr, boxes[i], G_MAXDOUBLE, &d[i]);
  check_batch (dev, rec, model, fr, boxes, 4, (d[0] + d[1]) / 2, NULL);
  frame_free (fr);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  face_set_free (test);
  clv_device_unref (dev);
}

/* Boxes across the frame's edges are clipped; 1×1 and 1-pixel-wide boxes
 * work; boxes wholly outside are refused with an error. */
static void
test_recognise_edges (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model ();
  FaceSet *test = load_list ("test.txt");
  const ClvEigenRoi paste[] = { {0, 0, 25, 25}, {35, 15, 25, 25} };
  const ClvEigenRoi boxes[] = {
    {-10, -5, 30, 30}, {45, 20, 40, 40}, {59, 39, 1, 1}, {0, 0, 1, 1},
    {10, 3, 1, 30}, {-100, 10, 160, 2},
  };
  const ClvEigenRoi outside[] = { {60, 0, 5, 5} };
  Frame *fr = frame_with_faces (test, 2, paste, 60, 40);
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);
  ClvEigenMatch m;
  cl_mem mem;

  g_assert_no_error (error);
  check_batch (dev, rec, model, fr, boxes, G_N_ELEMENTS (boxes), G_MAXDOUBLE,
      NULL);
  mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, fr->size, &error);
  g_assert_no_error (error);
  g_assert_false (clv_eigen_recogniser_run (rec, mem, &fr->im, outside, 1,
          G_MAXDOUBLE, &m, NULL, &error));
  g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
  g_clear_error (&error);
  clReleaseMemObject (mem);
  frame_free (fr);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  face_set_free (test);
  clv_device_unref (dev);
}

/* A BGRx frame whose colours scatter around `gray`'s values, so that the
 * luma weights matter. */
static Frame *
bgrx_frame (const Frame * gray)
{
  const int w = gray->im.image.width, h = gray->im.image.height;
  Frame *rgb = g_new0 (Frame, 1);
  GRand *rand = g_rand_new_with_seed (3);

  rgb->im.image = clv_image_make (w, h, 4, w * 4);
  rgb->im.b = 0;
  rgb->im.g = 1;
  rgb->im.r = 2;
  rgb->size = rgb->im.image.stride * h;
  rgb->data = g_malloc (rgb->size);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int v = gray->data[gray->im.image.offset + y * gray->im.image.stride +
          x];
      guint8 *px = rgb->data + y * rgb->im.image.stride + x * 4;
      for (int c = 0; c < 3; c++)
        px[c] = (guint8) CLAMP (v + g_rand_int_range (rand, -40, 41), 0, 255);
      px[3] = 0xff;
    }
  g_rand_free (rand);
  return rgb;
}

/* Packed RGB (BGRx layout): the device takes OpenCV's fixed-point luma,
 * as clv_rgb_to_gray_ref (checked against cvtColor) does. */
static void
test_recognise_rgb (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model ();
  FaceSet *test = load_list ("test.txt");
  const ClvEigenRoi boxes[] = { {2, 2, 25, 25}, {30, 5, 33, 31} };
  Frame *gray = frame_with_faces (test, 2, boxes, 70, 40);
  Frame *rgb = bgrx_frame (gray);
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);

  g_assert_no_error (error);
  check_batch (dev, rec, model, rgb, boxes, 2, G_MAXDOUBLE, NULL);
  frame_free (rgb);
  frame_free (gray);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  face_set_free (test);
  clv_device_unref (dev);
}

/* Frames for the batch tests: gray and BGRx pictures of test faces, one
 * without faces, one with a training face; each with its threshold. */
typedef struct
{
  Frame *fr;
  const ClvEigenRoi *boxes;
  int n;
  double threshold;
  cl_mem mem;
  ClvEigenMatch *alone;         /* clv_eigen_recogniser_run's answers */
} BatchFrame;

static const ClvEigenRoi batch_boxes[] = {
  {3, 4, 25, 25}, {40, 2, 50, 50}, {100, 10, 19, 19}, {130, 60, 37, 29},
  {5, 70, 64, 64}, {80, 90, 25, 40},
};

static void
batch_frames_new (ClvDevice * dev, ClvEigenRecogniser * rec,
    BatchFrame * bf, guint n)
{
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  GError *error = NULL;
  Frame *gray;

  g_assert_cmpuint (n, ==, 4);
  bf[0] = (BatchFrame) {
  frame_with_faces (test, 6, batch_boxes, 200, 175), batch_boxes, 6,
        G_MAXDOUBLE};
  gray = frame_with_faces (test, 2, batch_boxes, 120, 60);
  bf[1] = (BatchFrame) {
  bgrx_frame (gray), batch_boxes, 2, 2000.0};
  frame_free (gray);
  bf[2] = (BatchFrame) {
  frame_with_faces (test, 0, batch_boxes, 50, 30), batch_boxes, 0,
        G_MAXDOUBLE};
  bf[3] = (BatchFrame) {
  frame_with_faces (train, 1, batch_boxes, 60, 40), batch_boxes, 1,
        G_MAXDOUBLE};
  for (guint i = 0; i < n; i++) {
    bf[i].mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, bf[i].fr->size,
        &error);
    g_assert_no_error (error);
    g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, bf[i].mem, CL_TRUE, 0,
            bf[i].fr->size, bf[i].fr->data, 0, NULL, NULL), ==, CL_SUCCESS);
    bf[i].alone = g_new0 (ClvEigenMatch, MAX (bf[i].n, 1));
    g_assert_true (clv_eigen_recogniser_run (rec, bf[i].mem, &bf[i].fr->im,
            bf[i].boxes, bf[i].n, bf[i].threshold, bf[i].alone, NULL,
            &error));
    g_assert_no_error (error);
  }
  face_set_free (train);
  face_set_free (test);
}

static void
batch_frames_free (BatchFrame * bf, guint n)
{
  for (guint i = 0; i < n; i++) {
    clReleaseMemObject (bf[i].mem);
    frame_free (bf[i].fr);
    g_free (bf[i].alone);
  }
}

/* The faces of several frames (gray with padding and offset, BGRx, none,
 * a training face; different thresholds) in one batch, in every order of
 * a few: each frame gets exactly the answers it gets alone, which the
 * tests above hold to the reference. */
static void
test_recognise_frames_batch (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model ();
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);
  BatchFrame bf[4];
  const guint orders[][4] = { {0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2} };

  g_assert_no_error (error);
  batch_frames_new (dev, rec, bf, 4);
  g_assert_cmpint (bf[3].alone[0].label, !=, CLV_EIGEN_UNKNOWN);
  for (guint o = 0; o < G_N_ELEMENTS (orders); o++) {
    ClvEigenFrame frames[4];
    ClvEigenMatch *got[4];
    for (guint i = 0; i < 4; i++) {
      BatchFrame *b = &bf[orders[o][i]];
      got[i] = g_new0 (ClvEigenMatch, MAX (b->n, 1));
      frames[i] = (ClvEigenFrame) {
      b->mem, b->fr->im, b->boxes, b->n, b->threshold, got[i]};
    }
    g_assert_true (clv_eigen_recogniser_run_batch (rec, frames, 4, NULL,
            &error));
    g_assert_no_error (error);
    for (guint i = 0; i < 4; i++) {
      BatchFrame *b = &bf[orders[o][i]];
      g_assert_cmpmem (got[i], b->n * sizeof (ClvEigenMatch), b->alone,
          b->n * sizeof (ClvEigenMatch));
      g_free (got[i]);
    }
  }
  batch_frames_free (bf, 4);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  clv_device_unref (dev);
}

/* Streams submitting to the recognition service from their threads. */
typedef struct
{
  ClvBatchService *svc;
  BatchFrame *bf;
  guint first;
  gboolean outside;             /* submits a face outside its frame */
} Submitter;

static gpointer
submit_thread (gpointer data)
{
  Submitter *s = data;
  const ClvEigenRoi outside = { 500, 500, 10, 10 };

  for (guint r = 0; r < 8; r++) {
    BatchFrame *b = &s->bf[(s->first + r) % 4];
    ClvEigenMatch got[8];
    GError *error = NULL;

    if (s->outside) {
      g_assert_false (clv_eigen_service_run (s->svc, b->mem, &b->fr->im,
              &outside, 1, G_MAXDOUBLE, got, NULL, &error));
      g_assert_error (error, CLV_ERROR, CLV_ERROR_INVALID);
      g_clear_error (&error);
      continue;
    }
    g_assert_true (clv_eigen_service_run (s->svc, b->mem, &b->fr->im,
            b->boxes, b->n, b->threshold, got, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpmem (got, b->n * sizeof (ClvEigenMatch), b->alone,
        b->n * sizeof (ClvEigenMatch));
  }
  return NULL;
}

/* Six streams and one with a face outside its frame: every frame gets its
 * own answers, the bad one its error alone, and frames shared batches;
 * models with equal contents share one service. */
static void
test_recognise_service (void)
{
  ClvDevice *dev = clv_test_device ();
  ClvEigenModel *model = lfw_model (), *same = lfw_model ();
  GError *error = NULL;
  ClvEigenRecogniser *rec = clv_eigen_recogniser_new (dev, model, &error);
  ClvBatchService *svc = clv_eigen_service_get (dev, model,
      CLV_BATCH_DEFAULT_FRAMES, &error), *twin, *other;
  Submitter sub[7];
  GThread *threads[7];
  BatchFrame bf[4];
  ClvBatchStats st;

  g_assert_no_error (error);
  twin = clv_eigen_service_get (dev, same, CLV_BATCH_DEFAULT_FRAMES, &error);
  other = clv_eigen_service_get (dev, same, 4, &error);
  g_assert_no_error (error);
  g_assert_true (twin == svc);
  g_assert_true (other != svc);
  clv_batch_service_unref (twin);
  clv_batch_service_unref (other);
  batch_frames_new (dev, rec, bf, 4);
  for (guint i = 0; i < G_N_ELEMENTS (sub); i++) {
    sub[i] = (Submitter) {
    svc, bf, i, i == G_N_ELEMENTS (sub) - 1};
    threads[i] = g_thread_new ("stream", submit_thread, &sub[i]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (sub); i++)
    g_thread_join (threads[i]);
  clv_batch_service_stats (svc, &st);
  g_assert_cmpuint (st.requests, ==, 7 * 8);
  g_assert_cmpuint (st.batches, <, st.requests);
  g_assert_cmpuint (st.max_batch_seen, >=, 2);
  g_test_message ("%" G_GUINT64_FORMAT " frames in %" G_GUINT64_FORMAT
      " batches, the largest %u", st.requests, st.batches, st.max_batch_seen);
  clv_batch_service_unref (svc);
  batch_frames_free (bf, 4);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  clv_eigen_model_free (same);
  clv_device_unref (dev);
}

/* Trained on the device on the LFW split, then recognising every test face
 * of one frame in one batch, we give what OpenCV 4.6's EigenFaceRecognizer
 * gave (golden files from tests/data/make-eigen-golden.sh): its
 * eigenvalues within 1e-4 and, with and without a threshold, its labels
 * and its distances within 1e-3. */
static void
test_matches_opencv_golden (gconstpointer data)
{
  const int k = GPOINTER_TO_INT (data);
  ClvTestEigenGolden *golden = clv_test_eigen_golden_load (k);
  ClvEigenComponents keep = { CLV_EIGEN_KEEP_COUNT, k, 0 };
  FaceSet *train = load_list ("train.txt"), *test = load_list ("test.txt");
  ClvDevice *dev = clv_test_device ();
  ClvEigenRoi *boxes = g_new (ClvEigenRoi, test->n);
  ClvEigenMatch *m = g_new (ClvEigenMatch, test->n);
  const int cols = 10, rows = (test->n + cols - 1) / cols;
  GError *error = NULL;
  ClvEigenModel *model;
  ClvEigenRecogniser *rec;
  Frame *fr;
  cl_mem mem;
  guint checked = 0;

  model = clv_eigen_train_gpu (dev, train->pixels, train->n, train->labels,
      train->width, train->height, &keep, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (model->n_components, ==, k);
  for (int c = 0; c < k; c++)
    assert_rel (g_array_index (golden->eigenvalues, double, c),
        model->eigenvalues[c], 1e-4, "OpenCV eigenvalue", c);

  for (int i = 0; i < test->n; i++) {
    ClvEigenRoi b = { (i % cols) * test->width, (i / cols) * test->height,
      test->width, test->height
    };
    boxes[i] = b;
  }
  fr = frame_with_faces (test, test->n, boxes, cols * test->width,
      rows * test->height);
  rec = clv_eigen_recogniser_new (dev, model, &error);
  g_assert_no_error (error);
  mem = clv_buffer_new (dev, CL_MEM_READ_ONLY, fr->size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (clEnqueueWriteBuffer (dev->queue, mem, CL_TRUE, 0,
          fr->size, fr->data, 0, NULL, NULL), ==, CL_SUCCESS);

  /* One batch per threshold of the golden file. */
  for (guint i = 0; i < golden->predictions->len; i++) {
    const ClvTestPrediction *p = &g_array_index (golden->predictions,
        ClvTestPrediction, i);
    const double t = isinf (p->threshold) ? G_MAXDOUBLE : p->threshold;
    if (i > 0 && p->threshold == g_array_index (golden->predictions,
            ClvTestPrediction, i - 1).threshold)
      continue;
    g_assert_true (clv_eigen_recogniser_run (rec, mem, &fr->im, boxes,
            test->n, t, m, NULL, &error));
    g_assert_no_error (error);
    for (guint j = i; j < golden->predictions->len; j++) {
      const ClvTestPrediction *q = &g_array_index (golden->predictions,
          ClvTestPrediction, j);
      int f = 0;
      if (q->threshold != p->threshold)
        break;
      while (f < test->n && strcmp (test->paths[f], q->path) != 0)
        f++;
      g_assert_cmpint (f, <, test->n);
      g_assert_cmpint (m[f].label, ==, q->label);
      if (q->label == CLV_EIGEN_UNKNOWN) {
        g_assert_cmpfloat (q->distance, ==, DBL_MAX);
        g_assert_cmpfloat (m[f].distance, >=, t);
      } else {
        assert_rel (q->distance, m[f].distance, 1e-3, "OpenCV distance", j);
      }
      checked++;
    }
  }
  g_assert_cmpuint (checked, ==, golden->predictions->len);

  clReleaseMemObject (mem);
  frame_free (fr);
  clv_eigen_recogniser_free (rec);
  clv_eigen_model_free (model);
  g_free (boxes);
  g_free (m);
  face_set_free (train);
  face_set_free (test);
  clv_test_eigen_golden_free (golden);
  clv_device_unref (dev);
}

/* The confidence: the margin to the next label, by hand. */
static void
test_confidence (void)
{
  g_assert_cmpfloat (clv_eigen_confidence (3, 10, 40), ==, 0.75);
  g_assert_cmpfloat (clv_eigen_confidence (3, 10, 10), ==, 0);
  g_assert_cmpfloat (clv_eigen_confidence (3, 0, 0), ==, 0);
  g_assert_cmpfloat (clv_eigen_confidence (3, 0, 5), ==, 1);
  g_assert_cmpfloat (clv_eigen_confidence (3, 7, G_MAXDOUBLE), ==, 1);
  g_assert_cmpfloat (clv_eigen_confidence (CLV_EIGEN_UNKNOWN, 7, 9), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eigen-gpu/train/lfw-energy", test_train_lfw_energy);
  g_test_add_func ("/eigen-gpu/train/lfw-odd-all-and-stretch",
      test_train_lfw_odd_all);
  g_test_add_func ("/eigen-gpu/train/small-and-repeated",
      test_train_small_and_repeated);
  g_test_add_func ("/eigen-gpu/train/errors", test_train_errors);
  g_test_add_func ("/eigen-gpu/confidence", test_confidence);
  g_test_add_func ("/eigen-gpu/recognise/frames-batch",
      test_recognise_frames_batch);
  g_test_add_func ("/eigen-gpu/recognise/service", test_recognise_service);
  g_test_add_func ("/eigen-gpu/recognise/gray-batch",
      test_recognise_gray_batch);
  g_test_add_func ("/eigen-gpu/recognise/threshold", test_recognise_threshold);
  g_test_add_func ("/eigen-gpu/recognise/edges", test_recognise_edges);
  g_test_add_func ("/eigen-gpu/recognise/rgb", test_recognise_rgb);
  g_test_add_data_func ("/eigen-gpu/matches-opencv/k5", GINT_TO_POINTER (5),
      test_matches_opencv_golden);
  g_test_add_data_func ("/eigen-gpu/matches-opencv/k20",
      GINT_TO_POINTER (20), test_matches_opencv_golden);
  g_test_add_data_func ("/eigen-gpu/matches-opencv/k69",
      GINT_TO_POINTER (69), test_matches_opencv_golden);
  return g_test_run ();
}
