/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host<->device copies of frames and the memory they go through.
 *
 * Every frame that crosses between host and device goes through here:
 * GstClvMemory's maps, GstClvFilter's inputs and outputs, clupload.  A copy
 * is described by flags: which queue it goes on (the device's in-order
 * queue, ordered after the kernels queued before it, or the transfer queue
 * beside them) and how the host memory is read (a plain copy by the
 * driver, one DMA from pinned memory, or staged: pageable memory copied by
 * several threads into pinned memory in chunks, each chunk's DMA enqueued
 * as soon as it is copied).  Waits go through clv_event_wait(), so that
 * beside other analysers of the device they poll outside the driver. */
#pragma once

#include "clv-device.h"

G_BEGIN_DECLS

typedef enum
{
  /* On the device's transfer queue: the copy does not wait for the kernels
   * queued before it (other pipelines' work), so the destination must be a
   * buffer no queued kernel uses. */
  CLV_TRANSFER_UNORDERED = 1 << 0,
  /* The host memory is pinned (clv_pinned_new()): one DMA, waited for with
   * clv_event_wait() rather than in a blocking driver call. */
  CLV_TRANSFER_PINNED = 1 << 1,
  /* The host memory is pageable: several threads copy it into the pinned
   * stages of a ClvStager, a DMA per chunk.  The driver's own upload from
   * pageable memory copies one chunk after another on one thread. */
  CLV_TRANSFER_STAGED = 1 << 2,
} ClvTransferFlags;

/* Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer of `size` bytes in
 * `*buffer`, mapped for its whole life; returns where (NULL with `error`
 * set).  Transfers from and to it are DMA at full speed, while those from
 * pageable memory go through the driver's own staging.  Freed with
 * clv_pinned_free(). */
CLV_API
void *clv_pinned_new (ClvDevice * dev, gsize size, cl_mem * buffer,
    GError ** error);
CLV_API
void clv_pinned_free (ClvDevice * dev, cl_mem buffer, void *data);

/* Two pinned stages that staged uploads use in turn, each grown as needed:
 * a staged upload on the device's queue returns once its frame is copied
 * into one, so that the next frame is copied into the other while the
 * first one's DMA runs.  A stage is waited for before it is written again;
 * one stager serves one thread at a time. */
typedef struct _ClvStager ClvStager;

CLV_API
ClvStager *clv_stager_new (ClvDevice * dev);
/* A stager with one stage, `size` bytes of pinned memory `data` mapped
 * from `buffer` (such as a GstClvMemory's host copy), which it neither
 * grows nor frees. */
CLV_API
ClvStager *clv_stager_new_for_pinned (ClvDevice * dev, cl_mem buffer,
    void *data, gsize size);
/* Waits until no DMA reads the stages, and frees them (those it made). */
CLV_API
void clv_stager_free (ClvStager * stager);

/* Copies `size` bytes of host memory `src` into `dst` at `offset` as
 * `flags` say (CLV_TRANSFER_STAGED needs `stager`, else it is ignored).
 * Returns once `src` may change and, without `done`, once what is enqueued
 * on the device's queue afterwards sees the new bytes: a copy on the
 * device's queue may still run then (a staged one leaves its completion
 * with its stage), one on the transfer queue has completed.  With `done`
 * it returns as soon as it can, and *done (a new reference; NULL for size
 * 0) completes with the copy, after which `src` may change; the device's
 * queue waits for it (a barrier for an unordered copy). */
CLV_API
gboolean clv_upload (ClvDevice * dev, cl_mem dst, gsize offset,
    const void *src, gsize size, ClvTransferFlags flags, ClvStager * stager,
    cl_event * done, GError ** error);

/* Copies `rows` rows of `row_bytes` bytes from `src`, `src_stride` bytes
 * apart, into `dst` from `offset` on, `dst_stride` bytes apart, on the
 * device's queue; returns once done (a frame whose planes are laid out
 * differently on both sides). */
CLV_API
gboolean clv_upload_rect (ClvDevice * dev, cl_mem dst, gsize offset,
    gsize dst_stride, const void *src, gsize src_stride, gsize row_bytes,
    gsize rows, GError ** error);

/* Reads `size` bytes of `mem` at `offset` into `dst` through the device's
 * queue and returns once they are there, as a blocking
 * clEnqueueReadBuffer() does, waiting with clv_event_wait(). */
CLV_API
gboolean clv_read_buffer (ClvDevice * dev, cl_mem mem, gsize offset,
    gsize size, void *dst, GError ** error);
/* The same through `queue` (of the device's context), once `after` (an
 * event of any queue, or NULL) has completed. */
CLV_API
gboolean clv_read_buffer_after (ClvDevice * dev, cl_command_queue queue,
    cl_event after, cl_mem mem, gsize offset, gsize size, void *dst,
    GError ** error);

G_END_DECLS
