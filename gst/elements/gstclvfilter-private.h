/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What GstClvFilter's two files share: the instance's private part, and
 * the frames in flight (gstclvflight.c) that the base class
 * (gstclvfilter.c) hands frames to. */
#pragma once

#include "gstclvfilter.h"
#include "gstclv-private.h"

G_BEGIN_DECLS

/* What one frame in flight needs on the device: the device copy of a frame
 * from system memory, grown as needed (sources that write into the pool we
 * propose need none), the pinned stages that a staged upload goes through,
 * and a filter's output copy when its output is in system memory.  The
 * streaming thread uses slot 0, the analysis threads one slot each. */
typedef struct
{
  cl_mem copy;
  gsize copy_size;
  ClvStager *stager;
  cl_mem out;
  gsize out_size;
} GstClvFilterSlot;

/* A frame between the streaming thread and its push. */
typedef struct
{
  GstBuffer *in;                /* not in place: the input */
  GstBuffer *out;               /* what is pushed */
  gboolean analyse;             /* FALSE: only finished, in its turn */
  gpointer data;                /* the analyser's (prepare_frame) */
  GstFlowReturn ret;
  gboolean done;
} GstClvFilterFrame;

typedef struct
{
  gchar *device_spec;           /* properties, under the object lock */
  guint in_flight;
  GstClvFilterUpload upload;

  GstClvDevice *device;         /* set under the object lock */
  ClvDevice *runtime;           /* the device's, while started */
  GstVideoInfo in_info;         /* the frames' memory layout */
  GstVideoInfo out_info;
  GstClvRasterInfo in_raster;   /* what they hold: see the header */
  GstClvRasterInfo out_raster;
  GstClvFilterSlot slots[GST_CLV_FILTER_MAX_IN_FLIGHT];
  GstClvFilterUpload upload_mode;       /* the property's, while started */
  gboolean counted;             /* in clv_device_analysers () */
  /* One frame's kernels are enqueued at a time: a filter's kernels share
   * their buffers between frames, and the queue runs them in order. */
  GMutex process_lock;
  /* The input caps last refused, with an error: upstream offers them
   * again at each try, and one cause gets one error.  The same for the
   * frame size a caps query last asked for beyond the templates. */
  GstCaps *refused;
  gint too_large_w, too_large_h;

  /* Frames in flight (gstclvflight.c), under `lock`; `cond` tells of a
   * frame queued, analysed or pushed, and of flushing and stopping. */
  GMutex lock;
  GCond cond;
  GThread *threads[GST_CLV_FILTER_MAX_IN_FLIGHT];
  guint n_threads;
  guint extra_analysers;        /* ours in clv_device_analysers (), beyond
                                 * the element's one */
  GQueue frames;                /* GstClvFilterFrame, in order, until pushed */
  GQueue todo;                  /* those not yet taken by a thread */
  gboolean task_started;
  gboolean pushing;             /* the task pushes a frame */
  gboolean flushing;
  gboolean stopping;
  gboolean failed;              /* a frame failed: the next are dropped */
  GstFlowReturn flow;           /* for the streaming thread: the first
                                 * error of an analysis or a push */
} GstClvFilterPrivate;

GstClvFilterPrivate *gst_clv_filter_priv (GstClvFilter * filter);

/* gstclvfilter.c: one frame's work, in the calling thread with `slot`:
 * analysers analyse `f->out` with `f->data`, in-place elements run their
 * transform_ip on it, the others their transform from `f->in`. */
GstFlowReturn gst_clv_filter_run_frame (GstClvFilter * filter,
    GstClvFilterFrame * f, guint slot);
/* The slot of the calling thread (0: the streaming thread). */
guint gst_clv_filter_current_slot (void);

/* gstclvflight.c */
void gst_clv_filter_flight_init (GstClvFilter * filter);
void gst_clv_filter_flight_clear (GstClvFilter * filter);
/* For generate_output, with trans->queued_buf next: FALSE when it goes
 * through GstBaseTransform as usual (one frame in flight; those before it
 * have left), else TRUE with the flow to return: it was taken in flight
 * (or dropped after an error). */
gboolean gst_clv_filter_flight_take (GstClvFilter * filter,
    GstFlowReturn * ret);
/* Waits until the frames in flight have been pushed or dropped; the flow
 * they left. */
GstFlowReturn gst_clv_filter_flight_drain (GstClvFilter * filter);
/* Stops the analysis threads and the task and drops what is left; the
 * frames that come next are refused (FLUSHING) until
 * gst_clv_filter_flight_start (). */
void gst_clv_filter_flight_stop (GstClvFilter * filter);
void gst_clv_filter_flight_start (GstClvFilter * filter);
/* For GstElement::post_message: an error posted from an analysis thread
 * is the flow of the next frame that comes, before anyone sees it. */
void gst_clv_filter_flight_error_posted (GstClvFilter * filter);
/* The sink pad's event and query functions: frames in flight go before
 * serialized events and queries; a flush drops the frames not yet taken
 * and waits for the others. */
void gst_clv_filter_flight_install_pad_functions (GstClvFilter * filter);

G_END_DECLS
