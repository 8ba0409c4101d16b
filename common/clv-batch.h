/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-device services that batch work from many threads (many
 * streams): every element of a process that uses one device and one model
 * (a cascade, an Eigenfaces model) submits its requests to one service;
 * requests that arrive while a batch runs gather and go, all together (up
 * to the service's maximum), into the next one.  There is no timer: with
 * no batch in flight a request starts one at once, so a lone stream waits
 * for nothing; beside batches in flight, requests start the next batch in
 * a free slot once as many wait as the largest of them holds, or else when
 * a batch ends, so a request never waits for more than the batches already
 * in flight plus its own.  The thread whose request starts a batch runs it
 * for everyone.  Each slot owns what one batch in flight needs on the
 * device (a detector, a recogniser).  GLib only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Requests a batch holds at most (the analysers' batch-size): by default,
 * and the largest a service takes. */
#define CLV_BATCH_DEFAULT_FRAMES 32
#define CLV_BATCH_MAX_FRAMES 4096

typedef struct _ClvBatchService ClvBatchService;

/* Runs `n` requests (the submitters' pointers) as one batch with `slot`.
 * When a batch of several fails (one frame too large to share a batch,
 * say), the service runs its requests one by one, so that only the guilty
 * one fails. */
typedef gboolean (*ClvBatchRunFunc) (gpointer slot, gpointer * requests,
    guint n, GError ** error);

/* Makes what one batch in flight needs (freed with `slot_free` later), or
 * NULL with `error` set. */
typedef gpointer (*ClvBatchSlotNew) (gpointer data, GError ** error);

/* The service registered under `key` (a new reference), made on first use
 * with `n_slots` batches in flight (slot_new called for each), at most
 * `max_batch` requests per batch. */
ClvBatchService *clv_batch_service_get (const char *key, guint n_slots,
    guint max_batch, ClvBatchSlotNew slot_new, gpointer data,
    ClvBatchRunFunc run, GDestroyNotify slot_free, GError ** error);
void clv_batch_service_unref (ClvBatchService * svc);

/* Runs `request` in a batch; blocks until that batch is done.  FALSE with
 * the batch's error for this request.  `batch_size` (nullable) receives
 * how many requests its batch held. */
gboolean clv_batch_service_submit (ClvBatchService * svc, gpointer request,
    guint * batch_size, GError ** error);

/* Whether more than one holder (the elements of several streams) uses
 * the service now: a hint, which changes as holders come and go. */
gboolean clv_batch_service_shared (ClvBatchService * svc);

typedef struct
{
  guint64 requests;             /* requests run */
  guint64 batches;              /* batches run */
  guint max_batch_seen;         /* the largest batch */
  guint pending;                /* requests waiting now */
} ClvBatchStats;

/* Counters since the service was made, for tests and benchmarks. */
void clv_batch_service_stats (ClvBatchService * svc, ClvBatchStats * stats);

G_END_DECLS
