/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClvFilter: base class of the clvision OpenCL elements.
 *
 * It owns the `device` property, obtains the shared OpenCL device through a
 * gst.opencl.context GstContext, moves frames between buffers and device
 * memory, and maps ROI metas through a subclass's geometry.  Subclasses see
 * device buffers only (process) or analyse frames in place (analyse).
 *
 * Memory: both pads accept system memory and memory:OpenCL (GstClvMemory,
 * see gstclvmemory.h), OpenCL first.  A subclass's transform_caps must keep
 * each structure's caps features (copy them, as sarmultilook does), so an
 * element outputs the memory it receives and a chain that clupload starts
 * stays on the device.  Buffers whose memory is GstClvMemory of the element's
 * context reach process/analyse as their own cl_mem (no copy); any other
 * buffer (system memory, or OpenCL memory of another context) is copied
 * through the host into a staging cl_mem.  For memory:OpenCL the base
 * proposes a GstClvBufferPool of its device upstream and uses only a pool of
 * its own context downstream; system memory stays plain system memory.
 *
 * Frames in flight (the `in-flight` property, gstclvflight.c): with more
 * than one, the streaming thread hands each frame over, the element's
 * analysis threads run the subclass's transform / transform_ip / analyse
 * on several frames at once (each thread with device copies of its own),
 * and a task on the source pad pushes them in order.  The subclass's
 * vfuncs must then be safe from several threads: a filter's process runs
 * under one lock (its kernels share buffers), an analyser keeps what
 * depends on the frames before for finish_frame. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "clv-image.h"
#include "clv-opencl.h"
#include <gst/clvision/clvision.h>

G_BEGIN_DECLS

/* How frames in pageable system memory go up to the device (the `upload`
 * property). */
typedef enum
{
  GST_CLV_FILTER_UPLOAD_AUTO,
  GST_CLV_FILTER_UPLOAD_STAGED,
  GST_CLV_FILTER_UPLOAD_DIRECT,
} GstClvFilterUpload;

#define GST_TYPE_CLV_FILTER_UPLOAD (gst_clv_filter_upload_get_type ())
GType gst_clv_filter_upload_get_type (void);

/* The most frames an element may have in flight (the `in-flight`
 * property), each with its own device copies. */
#define GST_CLV_FILTER_MAX_IN_FLIGHT 8

#define GST_TYPE_CLV_FILTER (gst_clv_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClvFilter, gst_clv_filter, GST, CLV_FILTER,
    GstBaseTransform);

struct _GstClvFilterClass
{
  GstBaseTransformClass parent_class;

  /* Caps are set: prepare kernels for these frames.  Post an element error
   * and return FALSE if they can't be handled.  The infos are the frames'
   * memory layout: for application/x-raster caps (gstclvraster.h) that of
   * their bytes only; gst_clv_filter_get_in_raster() says what they hold. */
  gboolean (*set_info) (GstClvFilter * filter, GstCaps * incaps,
      GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);

  /* Not-in-place filters: compute plane 0 of `out` from plane 0 of `in`,
   * both device buffers, enqueued on filter->device->queue.  The images'
   * `offset` says where pixel (0, 0) is: buffers of a pool may carry a
   * video meta, and device frames are passed whole. */
  gboolean (*process) (GstClvFilter * filter, cl_mem in,
      const ClvImage * in_im, cl_mem out, const ClvImage * out_im,
      GError ** error);

  /* In-place analysers, in three steps per frame.
   *
   * prepare_frame: in the streaming thread, for every frame in order;
   * *data (NULL at first) takes what the other two steps need of this
   * frame, freed with free_frame_data.  FALSE: the frame is not analysed
   * (not even uploaded), only finished.  NULL: every frame is analysed.
   *
   * analyse: `frame` is the whole buffer on the device (all planes, laid
   * out as `info` says: the buffer's video meta if it has one).  With one
   * frame in flight it runs in the streaming thread; with more, in the
   * element's analysis threads, several frames at once, so it must not
   * depend on the frames before: results go on `buf` or into `data`.
   * Don't write to `frame`: it may be the buffer's own memory.  Every
   * kernel reading `frame` must be done when it returns: the next frame's
   * upload into the same device copy does not wait for the device queue.
   *
   * finish_frame: for every frame in order (analysed, or not after
   * prepare_frame said so), just before it is pushed: what depends on the
   * frames before (results reused between analysed frames, messages).
   * NULL: nothing. */
  gboolean (*prepare_frame) (GstClvFilter * filter, GstBuffer * buf,
      gpointer * data);
  GstFlowReturn (*analyse) (GstClvFilter * filter, GstBuffer * buf,
      cl_mem frame, const GstVideoInfo * info, gpointer data);
  void (*finish_frame) (GstClvFilter * filter, GstBuffer * buf,
      gpointer data);
  GDestroyNotify free_frame_data;

  /* How many frames of `size` bytes may be in flight now, `requested`
   * being the `in-flight` property (0: the element's default); called in
   * the streaming thread for every frame.  NULL: `requested`, and 1 for 0. */
  guint (*frames_in_flight) (GstClvFilter * filter, guint requested,
      gsize size);

  /* Geometry for ROI metas: map a point from input to output frame
   * coordinates, where pixel i spans [i, i + 1).  NULL: same geometry. */
  void (*map_point) (GstClvFilter * filter, gdouble * x, gdouble * y);

  /* Caps: edit one structure (a copy) into what the other pad can have,
   * `direction` being the pad the caps come from; FALSE drops it.  The base
   * class keeps caps features, applies the filter and logs.  NULL: the
   * caps are the same on both pads. */
  gboolean (*transform_structure) (GstClvFilter * filter,
      GstPadDirection direction, GstStructure * s);

  /*< private >*/
  gint max_side;                /* the widest and tallest video frame */
};

/* Other analysers of the element's device in the process: those of other
 * elements, not counting the frames this one has in flight. */
gint gst_clv_filter_other_analysers (GstClvFilter * filter);

/* Fields subclasses may read while streaming: the device for common/'s
 * functions, and as a GstClvDevice for libgstclvision-1.0's. */
ClvDevice *gst_clv_filter_get_device (GstClvFilter * filter);
GstClvDevice *gst_clv_filter_get_gst_device (GstClvFilter * filter);
/* Whether `buf` is memory that the element's kernels use where it is
 * (gst_clv_buffer_peek_memory). */
gboolean gst_clv_filter_buffer_on_device (GstClvFilter * filter,
    GstBuffer * buf);
/* Uploads every plane of a CPU-mapped `frame` into `dst`, laid out as
 * `layout` says, as the element uploads its own input (staged through
 * pinned memory or not). */
gboolean gst_clv_filter_upload_frame (GstClvFilter * filter,
    const GstVideoFrame * frame, cl_mem dst, const GstVideoInfo * layout,
    GError ** error);
const GstVideoInfo *gst_clv_filter_get_in_info (GstClvFilter * filter);
const GstVideoInfo *gst_clv_filter_get_out_info (GstClvFilter * filter);
/* The samples of the frames: application/x-raster caps, or GRAY8 and
 * GRAY16_LE video as one band of Byte and UInt16; format UNKNOWN for other
 * video.  The ClvImage of process() counts pixels of all bands (bpp is
 * their bytes). */
const GstClvRasterInfo *gst_clv_filter_get_in_raster (GstClvFilter * filter);
const GstClvRasterInfo *gst_clv_filter_get_out_raster (GstClvFilter *
    filter);

/* Where the luma of a frame laid out as `info` is: the luma plane as is for
 * gray and YUV formats, the packed pixel and its R, G, B offsets for RGB. */
ClvLumaImage gst_clv_filter_luma_image (const GstVideoInfo * info);

/* The bytes a frame laid out as `info` spans: buffers shorter than that are
 * refused rather than read past their end (on the device too). */
gsize gst_clv_filter_layout_bytes (const GstVideoInfo * info);

/* The start of an element message about `buf`, shaped like gst-plugins-bad
 * facedetect's: `name` (the element's), timestamp, stream-time,
 * running-time and duration (guint64). */
GstStructure *gst_clv_filter_new_frame_message (GstClvFilter * filter,
    const gchar * name, GstBuffer * buf);

/* The largest width and height of the video frames the element takes, for
 * its pad templates (call it before adding them): a frame beyond fails at
 * negotiation with an error that says so.  Unset: no limit of its own
 * (the device's largest buffer applies to every element). */
void gst_clv_filter_class_set_max_side (GstClvFilterClass * klass,
    gint max_side);

/* Adds "sink" and "src" always-pad templates for video/x-raw with these
 * formats (a GstCaps format list, e.g. "{ GRAY8, GRAY16_LE }"), in
 * memory:OpenCL and in system memory. */
void gst_clv_filter_class_add_pad_templates (GstClvFilterClass * klass,
    const gchar * sink_formats, const gchar * src_formats);
/* The same with application/x-raster caps of any size after the video
 * ones, their other fields given as caps text (e.g. "format = (string)
 * Float32, bands = (int) 1"); NULL leaves out that media type. */
void gst_clv_filter_class_add_raster_pad_templates (GstClvFilterClass *
    klass, const gchar * sink_formats, const gchar * sink_raster_fields,
    const gchar * src_formats, const gchar * src_raster_fields);

/* Why a map of `buf` failed, as "`what`: REASON" (REASON: the error a
 * clvision memory of it kept, since a GstMemory map cannot say), or `what`
 * alone.  Free with g_free. */
gchar *gst_clv_filter_map_failure (GstBuffer * buf, const gchar * what);

/* Posts the failed map of `buf` as an element error of `element`. */
#define GST_CLV_FILTER_POST_MAP_ERROR(element, buf, what)                \
  G_STMT_START {                                                        \
    gchar *clv_map_failure_ = gst_clv_filter_map_failure ((buf), (what)); \
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("%s",                \
            clv_map_failure_), (NULL));                                 \
    g_free (clv_map_failure_);                                          \
  } G_STMT_END

/* Logs `error` to the caller's debug category and posts it as an element
 * error; consumes `error`. */
#define GST_CLV_FILTER_POST_ERROR(filter, domain, code, error)           \
  G_STMT_START {                                                        \
    GST_ERROR_OBJECT (filter, "%s", (error)->message);                  \
    GST_ELEMENT_ERROR (filter, domain, code, ("%s", (error)->message),  \
        (NULL));                                                        \
    g_clear_error (&(error));                                           \
  } G_STMT_END

G_END_DECLS
