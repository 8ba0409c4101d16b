/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenfaces on an OpenCL device: recognition (crop and resize, project,
 * nearest training face); see clv-eigen-gpu.h and
 * kernels/eigen_recognise.cl. */
#include "clv-eigen-gpu-private.h"
#include "clv-resize.h"

#include <math.h>

double
clv_eigen_confidence (int label, double distance, double other_distance)
{
  if (label == CLV_EIGEN_UNKNOWN)
    return 0;
  if (other_distance >= G_MAXDOUBLE)
    return 1;
  /* Another label at distance 0 too: a tie. */
  if (other_distance <= 0)
    return 0;
  return CLAMP (1 - distance / other_distance, 0, 1);
}

gboolean
clv_eigen_roi_clip (ClvEigenRoi * roi, int width, int height)
{
  gint64 x0 = MAX (roi->x, 0), y0 = MAX (roi->y, 0);
  gint64 x1 = MIN ((gint64) roi->x + MAX (roi->w, 0), width);
  gint64 y1 = MIN ((gint64) roi->y + MAX (roi->h, 0), height);

  if (x1 <= x0 || y1 <= y0)
    return FALSE;
  roi->x = (int) x0;
  roi->y = (int) y0;
  roi->w = (int) (x1 - x0);
  roi->h = (int) (y1 - y0);
  return TRUE;
}

enum
{ R_CROP, R_PROJECT, R_DISTANCES, R_NEAREST, N_REC_KERNELS };

static const char *const rec_kernel_names[N_REC_KERNELS] = {
  "crop_resize", "project", "distances", "nearest",
};

/* Model buffers, then per-batch buffers grown to `capacity` faces. */
enum
{
  R_MEAN, R_UT, R_OMEGA_T, R_LABELS,
  R_XTAB, R_YTAB, R_FACES, R_WEIGHTS, R_DIST, R_BEST_INDEX, R_BEST_DIST,
  N_REC_BUFFERS
};

struct _ClvEigenRecogniser
{
  ClvDevice *dev;
  gboolean fp64;
  int width, height, dim, n_comp, n_train;
  int proj_wg, proj_faces, near_wg;
  int *labels;
  cl_kernel k[N_REC_KERNELS];
  cl_mem b[N_REC_BUFFERS];
  int capacity;
  /* Host side of the per-batch buffers. */
  int *xtab, *ytab, *best_index;
  double *best_dist;
  int *first;
  guint16 *frac;
};

void
clv_eigen_recogniser_free (ClvEigenRecogniser * rec)
{
  if (rec == NULL)
    return;
  clv_eigen_release_kernels (rec->k, N_REC_KERNELS);
  clv_eigen_release_mems (rec->b, N_REC_BUFFERS);
  if (rec->dev)
    clv_device_unref (rec->dev);
  g_free (rec->labels);
  g_free (rec->xtab);
  g_free (rec->ytab);
  g_free (rec->best_index);
  g_free (rec->best_dist);
  g_free (rec->first);
  g_free (rec->frac);
  g_free (rec);
}

ClvEigenRecogniser *
clv_eigen_recogniser_new (ClvDevice * dev, const ClvEigenModel * model,
    GError ** error)
{
  ClvEigenRecogniser *rec = g_new0 (ClvEigenRecogniser, 1);
  const gboolean gpu = dev->simd_width > 1;
  const int dim = model->dim, kc = model->n_components, m = model->n_train;
  double *t = NULL;
  cl_program prog;
  char *opts;
  gboolean ok;

  rec->dev = clv_device_ref (dev);
  if (!clv_eigen_choose_precision (dev, &rec->fp64, error))
    goto fail;
  if (kc < 1 || m < 1 || dim < 1)
    goto empty;
  rec->width = model->width;
  rec->height = model->height;
  rec->dim = dim;
  rec->n_comp = kc;
  rec->n_train = m;
  rec->proj_wg = clv_eigen_tune_pow2 (dev, "EIG_PROJ_WG", gpu ? 256 : 64,
      dev->max_work_group_size);
  rec->proj_faces = (int) CLAMP (clv_device_tune_int (dev, "EIG_PROJ_FACES",
          gpu ? 8 : 4), 1, 32);
  rec->near_wg = clv_eigen_tune_pow2 (dev, "EIG_NEAR_WG", gpu ? 256 : 64,
      dev->max_work_group_size);
  /* The first PROJ_FACES work-items write the results; the partial sums of
   * all faces must fit in local memory. */
  rec->proj_faces = MIN (rec->proj_faces, rec->proj_wg);
  while (rec->proj_wg > rec->proj_faces && (gsize) rec->proj_wg *
      rec->proj_faces * clv_eigen_real_size (rec->fp64) > dev->local_mem_size)
    rec->proj_wg /= 2;
  opts = g_strdup_printf ("-DREAL_DOUBLE=%d -DPROJ_WG=%d -DPROJ_FACES=%d "
      "-DNEAR_WG=%d", rec->fp64, rec->proj_wg, rec->proj_faces, rec->near_wg);
  prog = clv_device_get_program (dev, "eigen_recognise", opts, error);
  g_free (opts);
  if (prog == NULL)
    goto fail;
  ok = clv_eigen_create_kernels (prog, rec_kernel_names, N_REC_KERNELS,
      rec->k, error);
  clReleaseProgram (prog);
  if (!ok)
    goto fail;

  /* Eigenfaces as rows (Uᵀ, K × dim) for the projection's contiguous rows;
   * training weights transposed (Ωᵀ, K × M) for the distances' coalescing. */
  t = g_new (double, MAX ((gsize) kc * dim, (gsize) kc * m));
  for (int c = 0; c < kc; c++)
    for (int p = 0; p < dim; p++)
      t[(gsize) c * dim + p] = model->eigenvectors[(gsize) p * kc + c];
  if ((rec->b[R_MEAN] = clv_eigen_upload_reals (dev, rec->fp64, model->mean,
              dim, error)) == NULL
      || (rec->b[R_UT] = clv_eigen_upload_reals (dev, rec->fp64, t,
              (gsize) kc * dim, error)) == NULL)
    goto fail;
  for (int c = 0; c < kc; c++)
    for (int i = 0; i < m; i++)
      t[(gsize) c * m + i] = model->projections[(gsize) i * kc + c];
  if ((rec->b[R_OMEGA_T] = clv_eigen_upload_reals (dev, rec->fp64, t,
              (gsize) kc * m, error)) == NULL)
    goto fail;
  if ((rec->b[R_LABELS] = clv_buffer_new_with_data (dev, CL_MEM_READ_ONLY,
              model->labels, m * sizeof (int), error)) == NULL)
    goto fail;
  rec->labels = g_memdup2 (model->labels, m * sizeof (int));
  rec->first = g_new (int, MAX (rec->width, rec->height));
  rec->frac = g_new (guint16, MAX (rec->width, rec->height));
  g_free (t);
  return rec;

  /* ERRORS */
empty:
  g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
      "The model is empty (%d components, %d training faces of %d pixels)",
      kc, m, dim);
  goto fail;
fail:
  g_free (t);
  clv_eigen_recogniser_free (rec);
  return NULL;
}

/* Grows the per-batch buffers to at least `n` faces. */
static gboolean
ensure_capacity (ClvEigenRecogniser * rec, int n, GError ** error)
{
  const gsize rs = clv_eigen_real_size (rec->fp64);
  gsize per_face[N_REC_BUFFERS] = { 0 };

  if (n <= rec->capacity)
    return TRUE;
  n = MAX (n, 2 * rec->capacity);
  per_face[R_XTAB] = rec->width * sizeof (int);
  per_face[R_YTAB] = rec->height * sizeof (int);
  per_face[R_FACES] = rec->dim * rs;
  per_face[R_WEIGHTS] = rec->n_comp * rs;
  per_face[R_DIST] = rec->n_train * rs;
  per_face[R_BEST_INDEX] = sizeof (int);
  per_face[R_BEST_DIST] = 2 * rs;
  rec->capacity = 0;
  clv_eigen_release_mems (rec->b + R_XTAB, N_REC_BUFFERS - R_XTAB);
  for (int i = R_XTAB; i < N_REC_BUFFERS; i++)
    if ((rec->b[i] = clv_buffer_new (rec->dev, CL_MEM_READ_WRITE,
                per_face[i] * n, error)) == NULL)
      return FALSE;
  rec->xtab = g_renew (int, rec->xtab, (gsize) n * rec->width);
  rec->ytab = g_renew (int, rec->ytab, (gsize) n * rec->height);
  rec->best_index = g_renew (int, rec->best_index, n);
  rec->best_dist = g_renew (double, rec->best_dist, 2 * n);
  rec->capacity = n;
  return TRUE;
}

/* One axis of a face's resize table: frame coordinate of the first source
 * pixel << 9 | weight of the next. */
static void
fill_axis (ClvEigenRecogniser * rec, int start, int src, int dst, int *tab)
{
  clv_resize_axis_exact (src, dst, rec->first, rec->frac, NULL, NULL);
  for (int i = 0; i < dst; i++)
    tab[i] = (start + rec->first[i]) << 9 | rec->frac[i];
}

/* Step 0 for the faces [first, first + n) of one frame: crop, resize,
 * subtract the mean (the face index is the kernel's second global id, so
 * the frame's faces land at their places in the batch). */
static gboolean
enqueue_crop (ClvEigenRecogniser * rec, const ClvEigenFrame * fr, int first,
    GPtrArray * events, GError ** error)
{
  const int w = rec->width, h = rec->height, dim = rec->dim;
  const ClvLumaImage *im = &fr->image;
  const cl_uint offset = im->image.offset, stride = im->image.stride;
  const cl_int bpp = im->image.bpp;
  const cl_int4 rgb = {.s = {im->r, im->g, im->b, 0} };
  size_t local[2] = { 64, 1 };
  size_t origin[2] = { 0, first };
  size_t global[2] = { clv_round_up (dim, 64), fr->n };
  cl_event ev = NULL;

  if (!clv_kernel_set_args (rec->k[R_CROP], error, CLV_ARG (fr->frame),
          CLV_ARG (offset), CLV_ARG (stride), CLV_ARG (bpp), CLV_ARG (rgb),
          CLV_ARG (rec->b[R_XTAB]), CLV_ARG (rec->b[R_YTAB]), CLV_ARG (w),
          CLV_ARG (h), CLV_ARG (rec->b[R_MEAN]), CLV_ARG (rec->b[R_FACES]),
          CLV_ARGS_END))
    return FALSE;
  CLV_CHECK (clEnqueueNDRangeKernel (rec->dev->queue, rec->k[R_CROP], 2,
          origin, global, local, 0, NULL, &ev), error, fail);
  g_ptr_array_add (events, ev);
  return TRUE;
fail:
  return FALSE;
}

gboolean
clv_eigen_recogniser_run_batch (ClvEigenRecogniser * rec,
    ClvEigenFrame * frames, guint n_frames, double *seconds, GError ** error)
{
  cl_command_queue q = rec->dev->queue;
  const int w = rec->width, h = rec->height;
  cl_event ev[N_REC_KERNELS] = { NULL };
  GPtrArray *crops = g_ptr_array_new ();
  double best[2];
  int n = 0;

  if (seconds)
    *seconds = 0;
  for (guint i = 0; i < n_frames; i++)
    n += MAX (frames[i].n, 0);
  if (n == 0)
    goto done;
  if (!ensure_capacity (rec, n, error))
    goto fail;
  for (guint i = 0, f = 0; i < n_frames; i++) {
    const ClvLumaImage *im = &frames[i].image;
    for (int k = 0; k < frames[i].n; k++, f++) {
      ClvEigenRoi r = frames[i].rois[k];
      if (!clv_eigen_roi_clip (&r, im->image.width, im->image.height)) {
        g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID,
            "Face %d (%d,%d %d×%d) lies outside the %d×%d frame", k,
            frames[i].rois[k].x, frames[i].rois[k].y, frames[i].rois[k].w,
            frames[i].rois[k].h, im->image.width, im->image.height);
        goto fail;
      }
      fill_axis (rec, r.x, r.w, w, rec->xtab + (gsize) f * w);
      fill_axis (rec, r.y, r.h, h, rec->ytab + (gsize) f * h);
    }
  }
  CLV_CHECK (clEnqueueWriteBuffer (q, rec->b[R_XTAB], CL_FALSE, 0,
          (gsize) n * w * sizeof (int), rec->xtab, 0, NULL, NULL), error,
      fail);
  CLV_CHECK (clEnqueueWriteBuffer (q, rec->b[R_YTAB], CL_FALSE, 0,
          (gsize) n * h * sizeof (int), rec->ytab, 0, NULL, NULL), error,
      fail);

  /* Step 0: each frame's faces cropped into the batch. */
  for (guint i = 0, first = 0; i < n_frames; first += MAX (frames[i].n, 0),
      i++)
    if (frames[i].n > 0 && !enqueue_crop (rec, &frames[i], first, crops,
            error))
      goto fail;
  /* Step 1: project every face of the batch. */
  {
    size_t local[2] = { rec->proj_wg, 1 };
    size_t global[2] = { (size_t) rec->proj_wg * rec->n_comp,
      (n + rec->proj_faces - 1) / rec->proj_faces
    };
    if (!clv_kernel_set_args (rec->k[R_PROJECT], error,
            CLV_ARG (rec->b[R_FACES]), CLV_ARG (n), CLV_ARG (rec->dim),
            CLV_ARG (rec->b[R_UT]), CLV_ARG (rec->n_comp),
            CLV_ARG (rec->b[R_WEIGHTS]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_PROJECT], 2, NULL, global,
            local, 0, NULL, &ev[R_PROJECT]), error, fail);
  }
  /* Step 2: squared distances to every training face. */
  {
    size_t local[2] = { 64, 1 };
    size_t global[2] = { clv_round_up (rec->n_train, 64), n };
    if (!clv_kernel_set_args (rec->k[R_DISTANCES], error,
            CLV_ARG (rec->b[R_WEIGHTS]), CLV_ARG (rec->n_comp),
            CLV_ARG (rec->b[R_OMEGA_T]), CLV_ARG (rec->n_train),
            CLV_ARG (rec->b[R_DIST]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_DISTANCES], 2, NULL,
            global, local, 0, NULL, &ev[R_DISTANCES]), error, fail);
  }
  /* Step 3: the nearest. */
  {
    size_t local = rec->near_wg, global = local * n;
    if (!clv_kernel_set_args (rec->k[R_NEAREST], error,
            CLV_ARG (rec->b[R_DIST]), CLV_ARG (rec->n_train),
            CLV_ARG (rec->b[R_LABELS]), CLV_ARG (rec->b[R_BEST_INDEX]),
            CLV_ARG (rec->b[R_BEST_DIST]), CLV_ARGS_END))
      goto fail;
    CLV_CHECK (clEnqueueNDRangeKernel (q, rec->k[R_NEAREST], 1, NULL,
            &global, &local, 0, NULL, &ev[R_NEAREST]), error, fail);
  }
  CLV_CHECK (clEnqueueReadBuffer (q, rec->b[R_BEST_INDEX], CL_FALSE, 0,
          n * sizeof (int), rec->best_index, 0, NULL, NULL), error, fail);
  if (!clv_eigen_read_reals (rec->dev, rec->b[R_BEST_DIST], rec->fp64,
          2 * (gsize) n, rec->best_dist, error))
    goto fail;

  for (guint i = 0, f = 0; i < n_frames; i++)
    for (int k = 0; k < frames[i].n; k++, f++) {
      ClvEigenMatch *mt = &frames[i].matches[k];
      mt->index = rec->best_index[f];
      best[0] = rec->best_dist[2 * f];
      best[1] = rec->best_dist[2 * f + 1];
      mt->distance = sqrt (best[0]);
      mt->other_distance = isfinite (best[1]) ? sqrt (best[1]) : G_MAXDOUBLE;
      /* OpenCV's StandardCollector takes a face only below the threshold. */
      mt->label = mt->index >= 0 && mt->distance < frames[i].threshold ?
          rec->labels[mt->index] : CLV_EIGEN_UNKNOWN;
      mt->confidence = clv_eigen_confidence (mt->label, mt->distance,
          mt->other_distance);
    }
  for (guint i = 0; i < crops->len; i++) {
    double s = clv_eigen_take_event_seconds ((cl_event *) & crops->pdata[i]);
    if (seconds)
      *seconds += s;
  }
  for (int i = 0; i < N_REC_KERNELS; i++) {
    double s = clv_eigen_take_event_seconds (&ev[i]);
    if (seconds)
      *seconds += s;
  }
done:
  g_ptr_array_free (crops, TRUE);
  return TRUE;

  /* ERRORS */
fail:
  clFinish (q);
  for (guint i = 0; i < crops->len; i++)
    clReleaseEvent (crops->pdata[i]);
  g_ptr_array_free (crops, TRUE);
  for (int i = 0; i < N_REC_KERNELS; i++)
    g_clear_pointer (&ev[i], clReleaseEvent);
  return FALSE;
}

gboolean
clv_eigen_recogniser_run (ClvEigenRecogniser * rec, cl_mem frame,
    const ClvLumaImage * im, const ClvEigenRoi * rois, int n,
    double threshold, ClvEigenMatch * matches, double *seconds,
    GError ** error)
{
  ClvEigenFrame fr = { frame, *im, rois, n, threshold, matches };

  return clv_eigen_recogniser_run_batch (rec, &fr, 1, seconds, error);
}
