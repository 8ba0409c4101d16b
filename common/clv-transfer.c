/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host<->device copies of frames; see clv-transfer.h. */
#include "clv-opencl.h"

#include <string.h>

/* ---- Pinned memory ------------------------------------------------------- */

void *
clv_pinned_new (ClvDevice * dev, gsize size, cl_mem * buffer, GError ** error)
{
  void *data = NULL;
  cl_int st;

  *buffer = clv_buffer_new (dev, CL_MEM_ALLOC_HOST_PTR, size, error);
  if (*buffer == NULL)
    return NULL;
  /* Mapped through the transfer queue: the new buffer waits for nothing,
   * and on the device's queue the map would wait behind every kernel other
   * pipelines have queued (a stream's first frame stalled behind them). */
  CLV_CHECK ((data = clEnqueueMapBuffer (dev->transfer_queue, *buffer,
              CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, MAX (size, 1), 0, NULL,
              NULL, &st), st), error, fail);
  return data;
fail:
  g_clear_pointer (buffer, clReleaseMemObject);
  return NULL;
}

void
clv_pinned_free (ClvDevice * dev, cl_mem buffer, void *data)
{
  if (buffer == NULL)
    return;
  if (data)
    clEnqueueUnmapMemObject (dev->queue, buffer, data, 0, NULL, NULL);
  clReleaseMemObject (buffer);
}

/* ---- Staged uploads ------------------------------------------------------ */

/* Pageable memory is copied into pinned memory in chunks by several threads
 * at once, each chunk's DMA enqueued as soon as it is copied.  The driver's
 * own upload from pageable memory copies through its staging one chunk
 * after another on one thread (32 MiB in 2.8-6.9 ms on an H100); a
 * single-threaded copy into pinned memory first was slower still (5.5 ms). */
#define STAGE_CHUNK ((gsize) 2 << 20)

typedef struct
{
  cl_mem buffer;
  void *data;
  gsize size;
} PinnedStage;

struct _ClvStager
{
  ClvDevice *dev;
  PinnedStage stage[2];
  /* Completes when stage i is no longer read by a DMA; NULL: free. */
  cl_event busy[2];
  guint next;
  guint n_stages;
  gboolean borrowed;            /* stage 0 is someone else's memory */
};

typedef struct
{
  GMutex lock;
  GCond done;
  guint pending;
  cl_int status;                /* the first failed enqueue, if any */
  cl_command_queue queue;
  cl_mem dst;
  gsize dst_offset;
  guint8 *pinned;
  const guint8 *src;
  gsize size;
  cl_event *events;             /* one per chunk */
} StagedUpload;

typedef struct
{
  StagedUpload *up;
  gsize index;
} StagedChunk;

static void
staged_chunk (gpointer data, G_GNUC_UNUSED gpointer unused)
{
  const StagedChunk *c = data;
  StagedUpload *up = c->up;
  const gsize at = c->index * STAGE_CHUNK, n = MIN (STAGE_CHUNK,
      up->size - at);
  cl_event ev = NULL;
  cl_int st;

  memcpy (up->pinned + at, up->src + at, n);
  st = clEnqueueWriteBuffer (up->queue, up->dst, CL_FALSE, up->dst_offset + at,
      n, up->pinned + at, 0, NULL, &ev);
  g_mutex_lock (&up->lock);
  up->events[c->index] = st == CL_SUCCESS ? ev : NULL;
  if (st != CL_SUCCESS && up->status == CL_SUCCESS)
    up->status = st;
  if (--up->pending == 0)
    g_cond_signal (&up->done);
  g_mutex_unlock (&up->lock);
}

/* Threads shared by every staged upload of the process: half the cores, at
 * most 8 (the copies are bound by memory bandwidth well before that). */
static GThreadPool *
stage_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool)) {
    GThreadPool *p = g_thread_pool_new (staged_chunk, NULL,
        CLAMP (g_get_num_processors () / 2, 1, 8), FALSE, NULL);
    g_once_init_leave (&pool, p);
  }
  return pool;
}

/* Copies the chunks of `up` on the pool's threads and returns once every
 * one is copied and its DMA enqueued (or failed: up->status). */
static void
copy_chunks (StagedUpload * up, gsize n_chunks)
{
  StagedChunk *chunks = g_new (StagedChunk, n_chunks);

  g_mutex_init (&up->lock);
  g_cond_init (&up->done);
  up->pending = n_chunks;
  up->events = g_new0 (cl_event, n_chunks);
  for (gsize i = 0; i < n_chunks; i++) {
    chunks[i] = (StagedChunk) { up, i };
    g_thread_pool_push (stage_pool (), &chunks[i], NULL);
  }
  g_mutex_lock (&up->lock);
  while (up->pending > 0)
    g_cond_wait (&up->done, &up->lock);
  g_mutex_unlock (&up->lock);
  g_mutex_clear (&up->lock);
  g_cond_clear (&up->done);
  g_free (chunks);
}

ClvStager *
clv_stager_new (ClvDevice * dev)
{
  ClvStager *stager = g_new0 (ClvStager, 1);

  stager->dev = clv_device_ref (dev);
  stager->n_stages = G_N_ELEMENTS (stager->stage);
  return stager;
}

ClvStager *
clv_stager_new_for_pinned (ClvDevice * dev, cl_mem buffer, void *data,
    gsize size)
{
  ClvStager *stager = g_new0 (ClvStager, 1);

  stager->dev = clv_device_ref (dev);
  stager->n_stages = 1;
  stager->borrowed = TRUE;
  stager->stage[0] = (PinnedStage) { buffer, data, size };
  return stager;
}

/* Waits until stage k is no longer read by a DMA. */
static gboolean
stage_wait_free (ClvStager * stager, guint k, GError ** error)
{
  cl_event ev = g_steal_pointer (&stager->busy[k]);
  gboolean ok;

  if (ev == NULL)
    return TRUE;
  ok = clv_event_wait (stager->dev, ev, error);
  clReleaseEvent (ev);
  return ok;
}

void
clv_stager_free (ClvStager * stager)
{
  if (stager == NULL)
    return;
  for (guint k = 0; k < stager->n_stages; k++) {
    PinnedStage *s = &stager->stage[k];

    /* A failed DMA is past caring. */
    stage_wait_free (stager, k, NULL);
    if (!stager->borrowed)
      clv_pinned_free (stager->dev, s->buffer, s->data);
  }
  clv_device_unref (stager->dev);
  g_free (stager);
}

/* The next stage in turn, free and of at least `size` bytes. */
static PinnedStage *
stager_take (ClvStager * stager, gsize size, cl_event ** busy,
    GError ** error)
{
  const guint k = stager->next;
  PinnedStage *s = &stager->stage[k];

  stager->next = (k + 1) % stager->n_stages;
  *busy = &stager->busy[k];
  if (!stage_wait_free (stager, k, error))
    return NULL;
  if (s->size >= size)
    return s;
  if (stager->borrowed)
    goto too_large;
  clv_pinned_free (stager->dev, s->buffer, s->data);
  *s = (PinnedStage) { NULL, NULL, 0 };
  if (!(s->data = clv_pinned_new (stager->dev, size, &s->buffer, error)))
    return NULL;
  s->size = size;
  return s;

too_large:
  g_set_error (error, CLV_ERROR, CLV_ERROR_INVALID, "A staged upload of %"
      G_GSIZE_FORMAT " bytes through %" G_GSIZE_FORMAT " bytes of pinned "
      "memory", size, s->size);
  return NULL;
}

/* A staged upload on `queue`.  Ordered, or with `done`, it returns once
 * the chunks are copied, and its stage is busy until the marker that
 * follows their DMAs; unordered without `done` it waits for the DMAs. */
static gboolean
upload_staged (ClvStager * stager, cl_command_queue queue, gboolean wait,
    cl_mem dst, gsize offset, const void *src, gsize size, cl_event * done,
    GError ** error)
{
  StagedUpload up = { 0 };
  const gsize n_chunks = (size + STAGE_CHUNK - 1) / STAGE_CHUNK;
  cl_int marked = CL_SUCCESS;
  GError *wait_error = NULL;
  gboolean ok;
  cl_event *busy;
  PinnedStage *stage = stager_take (stager, size, &busy, error);

  if (stage == NULL)
    return FALSE;
  up.queue = queue;
  up.dst = dst;
  up.dst_offset = offset;
  up.pinned = stage->data;
  up.src = src;
  up.size = size;
  copy_chunks (&up, n_chunks);
  /* One marker stands for the DMAs (the queue is in order); without one,
   * or after a failure, every enqueued chunk is waited for: the pinned
   * memory must be idle before anyone writes it again. */
  wait |= up.status != CL_SUCCESS;
  if (!wait) {
    marked = clEnqueueMarkerWithWaitList (queue, 0, NULL, busy);
    wait = marked != CL_SUCCESS;
  }
  for (gsize i = 0; i < n_chunks; i++)
    if (up.events[i]) {
      if (wait)
        clv_event_wait (stager->dev, up.events[i], wait_error ? NULL :
            &wait_error);
      clReleaseEvent (up.events[i]);
    }
  g_free (up.events);
  ok = up.status == CL_SUCCESS && marked == CL_SUCCESS && wait_error == NULL;
  /* The workers cannot fill a GError; the failed call is named here. */
  if (up.status != CL_SUCCESS)
    clv_set_cl_error (error, up.status,
        "clEnqueueWriteBuffer (a chunk of a staged upload)", __FILE__,
        __LINE__);
  else if (marked != CL_SUCCESS)
    clv_set_cl_error (error, marked, "clEnqueueMarkerWithWaitList (queue, "
        "0, NULL, busy)", __FILE__, __LINE__);
  else if (wait_error != NULL)
    g_propagate_error (error, g_steal_pointer (&wait_error));
  else if (done && *busy && clRetainEvent (*busy) == CL_SUCCESS)
    *done = *busy;
  g_clear_error (&wait_error);
  return ok;
}

/* ---- Uploads and downloads ----------------------------------------------- */

/* A plain or pinned upload on `queue`: blocking in the driver, or (pinned,
 * or with `done`) enqueued with an event that the caller gets or that is
 * waited for here. */
static gboolean
upload_direct (ClvDevice * dev, cl_command_queue queue, gboolean pinned,
    cl_mem dst, gsize offset, const void *src, gsize size, cl_event * done,
    GError ** error)
{
  cl_event ev = NULL;
  gboolean waited;

  if (!pinned && done == NULL) {
    CLV_CHECK (clEnqueueWriteBuffer (queue, dst, CL_TRUE, offset, size, src,
            0, NULL, NULL), error, fail);
    return TRUE;
  }
  CLV_CHECK (clEnqueueWriteBuffer (queue, dst, CL_FALSE, offset, size, src, 0,
          NULL, &ev), error, fail);
  if (done) {
    *done = ev;
    return TRUE;
  }
  waited = clv_event_wait (dev, ev, error);
  clReleaseEvent (ev);
  return waited;

fail:
  return FALSE;
}

gboolean
clv_upload (ClvDevice * dev, cl_mem dst, gsize offset, const void *src,
    gsize size, ClvTransferFlags flags, ClvStager * stager, cl_event * done,
    GError ** error)
{
  const gboolean unordered = (flags & CLV_TRANSFER_UNORDERED) != 0;
  cl_command_queue queue = unordered ? dev->transfer_queue : dev->queue;
  gboolean ok;

  g_return_val_if_fail (!(flags & CLV_TRANSFER_STAGED) || stager, FALSE);
  if (done)
    *done = NULL;
  if (size == 0)
    return TRUE;
  if (flags & CLV_TRANSFER_STAGED)
    ok = upload_staged (stager, queue, unordered && !done, dst, offset, src,
        size, done, error);
  else
    ok = upload_direct (dev, queue, (flags & CLV_TRANSFER_PINNED) != 0, dst,
        offset, src, size, done, error);
  if (!ok || done == NULL || *done == NULL)
    return ok;
  /* What the device's queue runs next reads `dst` after the copy. */
  if (unordered)
    CLV_CHECK (clEnqueueBarrierWithWaitList (dev->queue, 1, done, NULL),
        error, fail);
  CLV_CHECK (clFlush (queue), error, fail);
  return TRUE;

fail:
  clWaitForEvents (1, done);
  g_clear_pointer (done, clReleaseEvent);
  return FALSE;
}

gboolean
clv_upload_rect (ClvDevice * dev, cl_mem dst, gsize offset, gsize dst_stride,
    const void *src, gsize src_stride, gsize row_bytes, gsize rows,
    GError ** error)
{
  const size_t buf_origin[3] = { offset, 0, 0 };
  const size_t host_origin[3] = { 0, 0, 0 };
  const size_t region[3] = { row_bytes, rows, 1 };

  CLV_CHECK (clEnqueueWriteBufferRect (dev->queue, dst, CL_TRUE, buf_origin,
          host_origin, region, dst_stride, 0, src_stride, 0, src, 0, NULL,
          NULL), error, fail);
  return TRUE;

fail:
  return FALSE;
}

gboolean
clv_read_buffer (ClvDevice * dev, cl_mem mem, gsize offset, gsize size,
    void *dst, GError ** error)
{
  return clv_read_buffer_after (dev, dev->queue, NULL, mem, offset, size,
      dst, error);
}

gboolean
clv_read_buffer_after (ClvDevice * dev, cl_command_queue queue,
    cl_event after, cl_mem mem, gsize offset, gsize size, void *dst,
    GError ** error)
{
  const gboolean alone = clv_event_waits_in_driver (dev);
  cl_event ev = NULL;
  gboolean waited;

  if (after && !clv_event_flush_queue (after, queue, error))
    return FALSE;
  CLV_CHECK (clEnqueueReadBuffer (queue, mem, alone, offset, size, dst,
          after ? 1 : 0, after ? &after : NULL, alone ? NULL : &ev), error,
      fail);
  if (alone)
    return TRUE;
  waited = clv_event_wait (dev, ev, error);
  clReleaseEvent (ev);
  return waited;

fail:
  return FALSE;
}
