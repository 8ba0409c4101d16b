/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The batching service (common/clv-batch.c) with a run function that holds
 * each batch until the test lets it end: when requests start a batch, and
 * how many each batch takes. */
#include <glib.h>

#include "clv-batch.h"

#define MAX_BATCHES 16
#define MAX_REQUESTS 16

/* What the run function saw, and which batches the test let end. */
static GMutex lock;
static GCond changed;
static guint started;
static guint sizes[MAX_BATCHES];
static gboolean ended[MAX_BATCHES];

static gpointer
slot_new (G_GNUC_UNUSED gpointer data, G_GNUC_UNUSED GError ** error)
{
  return g_new0 (int, 1);
}

static gboolean
run_held (G_GNUC_UNUSED gpointer slot, G_GNUC_UNUSED gpointer * requests,
    guint n, G_GNUC_UNUSED GError ** error)
{
  guint k;

  g_mutex_lock (&lock);
  k = started++;
  g_assert_cmpuint (k, <, MAX_BATCHES);
  sizes[k] = n;
  g_cond_broadcast (&changed);
  while (!ended[k])
    g_cond_wait (&changed, &lock);
  g_mutex_unlock (&lock);
  return TRUE;
}

static guint
started_now (void)
{
  guint n;

  g_mutex_lock (&lock);
  n = started;
  g_mutex_unlock (&lock);
  return n;
}

/* What the test waits for comes within 10 s, or the test fails (instead
 * of hanging). */
#define PATIENCE_US (10 * G_USEC_PER_SEC)

static void
wait_started (guint n)
{
  const gint64 until = g_get_monotonic_time () + PATIENCE_US;

  g_mutex_lock (&lock);
  while (started < n)
    if (!g_cond_wait_until (&changed, &lock, until))
      g_error ("batch %u did not start (%u started)", n - 1, started);
  g_mutex_unlock (&lock);
}

static void
end_batch (guint k)
{
  g_mutex_lock (&lock);
  ended[k] = TRUE;
  g_cond_broadcast (&changed);
  g_mutex_unlock (&lock);
}

static ClvBatchService *svc;

static gpointer
submit (gpointer request)
{
  g_assert_true (clv_batch_service_submit (svc, request, NULL, NULL));
  return NULL;
}

/* Waits until `n` requests wait in the service. */
static void
wait_pending (guint n)
{
  const gint64 until = g_get_monotonic_time () + PATIENCE_US;
  ClvBatchStats st;

  for (;;) {
    clv_batch_service_stats (svc, &st);
    if (st.pending == n)
      return;
    if (g_get_monotonic_time () > until)
      g_error ("%u requests wait, not %u (%u batches started)", st.pending,
          n, started_now ());
    g_usleep (1000);
  }
}

/* Submits request `i` from a thread of its own and waits until it waits
 * in the service, `pending` requests with it (submit_waiting) or until it
 * started batch `batch` (submit_running). */
static GThread *
submit_waiting (guint i, guint pending)
{
  GThread *t = g_thread_new ("submit", submit, GUINT_TO_POINTER (i + 1));

  wait_pending (pending);
  return t;
}

static GThread *
submit_running (guint i, guint batch)
{
  GThread *t = g_thread_new ("submit", submit, GUINT_TO_POINTER (i + 1));

  wait_started (batch + 1);
  return t;
}

/* A batch that could start but must not: it has not after 50 ms. */
static void
assert_still_started (guint n)
{
  g_usleep (50000);
  g_assert_cmpuint (started_now (), ==, n);
}

/* Two slots.  A lone request starts at once; beside a batch of 1 one
 * waiting request is as many; requests beside a full house go together
 * when a slot frees; beside a batch of 3 in flight the next starts only
 * once 3 wait, and a request short of that goes when nothing is in flight
 * any more. */
static void
test_batch_gathers (void)
{
  GThread *t[MAX_REQUESTS];
  guint n = 0;
  GError *error = NULL;

  svc = clv_batch_service_get ("test", 2, 32, slot_new, NULL, run_held,
      g_free, &error);
  g_assert_no_error (error);

  t[n++] = submit_running (0, 0);
  g_assert_cmpuint (sizes[0], ==, 1);
  t[n++] = submit_running (1, 1);
  g_assert_cmpuint (sizes[1], ==, 1);
  for (guint i = 2; i < 5; i++)
    t[n++] = submit_waiting (i, i - 1);
  assert_still_started (2);
  end_batch (0);
  wait_started (3);
  g_assert_cmpuint (sizes[2], ==, 3);

  /* Batch 2 (3 requests) in flight, a slot free. */
  end_batch (1);
  t[n++] = submit_waiting (5, 1);
  t[n++] = submit_waiting (6, 2);
  assert_still_started (3);
  t[n++] = submit_running (7, 3);
  g_assert_cmpuint (sizes[3], ==, 3);

  /* Batches 2 and 3 in flight: one request waits for a slot, then, beside
   * batch 3, for it to end. */
  t[n++] = submit_waiting (8, 1);
  end_batch (2);
  assert_still_started (4);
  end_batch (3);
  wait_started (5);
  g_assert_cmpuint (sizes[4], ==, 1);
  end_batch (4);

  for (guint i = 0; i < n; i++)
    g_thread_join (t[i]);
  clv_batch_service_unref (svc);
}

/* A service is shared while a second holder has it, under the same key
 * only, and alone again once that one lets go. */
static void
test_batch_shared (void)
{
  ClvBatchService *a = clv_batch_service_get ("shared", 2, 4, slot_new, NULL,
      run_held, g_free, NULL), *b, *other;

  g_assert_nonnull (a);
  g_assert_false (clv_batch_service_shared (a));
  other = clv_batch_service_get ("shared-other", 2, 4, slot_new, NULL,
      run_held, g_free, NULL);
  g_assert_false (clv_batch_service_shared (a));
  g_assert_false (clv_batch_service_shared (other));
  b = clv_batch_service_get ("shared", 2, 4, slot_new, NULL, run_held,
      g_free, NULL);
  g_assert_true (a == b);
  g_assert_true (clv_batch_service_shared (a));
  clv_batch_service_unref (b);
  g_assert_false (clv_batch_service_shared (a));
  clv_batch_service_unref (other);
  clv_batch_service_unref (a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/batch/gathers", test_batch_gathers);
  g_test_add_func ("/batch/shared", test_batch_shared);
  return g_test_run ();
}
