/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chains of clvision elements in memory:OpenCL: same bytes as in system
 * memory, one upload and one download per frame, a steady pool, one shared
 * context (or the application's), CPU maps mid-chain, analysers working on
 * device frames, and elements of different contexts copying through the
 * host. */
#include "cl-check-util.h"
#include "gstclvfilter.h"
#include "gstclv-private.h"
#include "clv-sar.h"
#include "clv-test-util.h"
#include "clv-vj-ref.h"
#include "vj-test-util.h"

#include <string.h>

#define W 70
#define H 50
#define RL 3
#define AL 2
#define FRAMES 4
#define SYS_CAPS "video/x-raw,format=GRAY16_LE,width=70,height=50," \
  "framerate=30/1"
#define CL_CAPS "video/x-raw(memory:OpenCL),format=GRAY16_LE,width=70," \
  "height=50,framerate=30/1"

static GstVideoInfo *
frame_info (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo *info = gst_video_info_new_from_caps (caps);

  gst_caps_unref (caps);
  return info;
}

/* Asserts that `out` (GRAY16, the caps' layout) is the multilook of frame
 * `seed` of SYS_CAPS, `looks` times over. */
static void
assert_multilook (const guint8 * out, guint32 seed, int looks)
{
  GstVideoInfo *info = frame_info (SYS_CAPS);
  GstBuffer *in = clv_check_frame (info, seed);
  GstMapInfo map;
  ClvImage si = clv_image_make (W, H, 2, GST_VIDEO_INFO_PLANE_STRIDE (info,
          0)), di = si;
  guint8 *src, *dst = NULL;

  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  src = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);
  for (int i = 0; i < looks; i++) {
    int ow, oh;
    clv_multilook_out_size (si.width, si.height, RL, AL, &ow, &oh);
    di = clv_image_make (ow, oh, 2, GST_ROUND_UP_4 (ow * 2));
    dst = g_malloc0 (di.stride * oh);
    clv_multilook_ref (src, &si, dst, &di, RL, AL, CLV_MULTILOOK_INTENSITY);
    g_free (src);
    src = dst;
    si = di;
  }
  clv_test_assert_images_equal (dst, out, &di);
  g_free (dst);
  gst_buffer_unref (in);
  gst_video_info_free (info);
}

/* Pushes FRAMES frames through `h` and checks each output. */
static void
run_harness (GstHarness * h, int looks)
{
  GstVideoInfo *info = frame_info (SYS_CAPS);

  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *out;
    GstMapInfo map;

    fail_unless_equals_int (gst_harness_push (h, clv_check_frame (info, i)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    assert_multilook (map.data, i, looks);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  gst_video_info_free (info);
}

static gboolean
pad_has_opencl (GstElement * bin, const gchar * name, const gchar * pad_name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ret;

  fail_unless (caps != NULL);
  ret = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_OPENCL);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  return ret;
}

#define DEVICE_CHAIN "clupload ! sarmultilook name=ml1 range-looks=3 " \
  "azimuth-looks=2 ! sarmultilook name=ml2 range-looks=3 azimuth-looks=2 ! " \
  "cldownload"

GST_START_TEST (test_device_chain_matches_system)
{
  GstHarness *h = gst_harness_new_parse (DEVICE_CHAIN);
  GstHarness *sys = gst_harness_new_parse ("sarmultilook range-looks=3 "
      "azimuth-looks=2 ! sarmultilook range-looks=3 azimuth-looks=2");
  ClvCounts c0, c1;

  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  clv_check_counts (&c0);
  run_harness (h, 2);
  clv_check_counts (&c1);
  /* Between clupload and cldownload frames stay on the device. */
  fail_unless (pad_has_opencl (h->element, "ml1", "sink"));
  fail_unless (pad_has_opencl (h->element, "ml2", "sink"));
  fail_unless (pad_has_opencl (h->element, "ml2", "src"));
  fail_unless_equals_int (c1.uploads - c0.uploads, FRAMES);
  fail_unless_equals_int (c1.downloads - c0.downloads, FRAMES);

  /* The same chain in system memory gives the same bytes (both are
   * checked against the C reference). */
  gst_harness_set_src_caps_str (sys, SYS_CAPS);
  gst_harness_set_sink_caps_str (sys, "video/x-raw");
  run_harness (sys, 2);
  fail_if (pad_has_opencl (sys->element, "sarmultilook0", "src"));
  /* There, the first element's output buffers come from its device pool
   * and the second uses them where they are: the frame crosses once each
   * way, as between clupload and cldownload. */
  clv_check_counts (&c0);
  fail_unless_equals_int (c0.uploads - c1.uploads, FRAMES);
  fail_unless_equals_int (c0.downloads - c1.downloads, FRAMES);

  gst_harness_teardown (sys);
  gst_harness_teardown (h);
}

GST_END_TEST;

#define SAR_CHAIN "sarmultilook looks=2 ! sarrotscale angle=30 scale=1.5 ! " \
  "sarquantize coef=35"

/* Pushes FRAMES frames, each with a face ROI, through `h`; returns the
 * output buffers. */
static GstBuffer **
run_collect (GstHarness * h)
{
  GstVideoInfo *info = frame_info (SYS_CAPS);
  GstBuffer **out = g_new0 (GstBuffer *, FRAMES);

  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *in = clv_check_frame (info, i);
    gst_buffer_add_video_region_of_interest_meta (in, "face", 20 + i, 10, 16,
        12);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out[i] = gst_harness_pull (h);
  }
  gst_video_info_free (info);
  return out;
}

/* The whole SAR chain between clupload and cldownload gives the bytes and
 * ROI metas of the same chain in system memory, both with one upload and
 * one download per frame (in system memory, the elements' output pools are
 * device pools, whose frames the next element uses where they are). */
GST_START_TEST (test_sar_chain_matches_system)
{
  GstHarness *dh = gst_harness_new_parse ("clupload ! " SAR_CHAIN
      " ! cldownload");
  GstHarness *sh = gst_harness_new_parse (SAR_CHAIN);
  GstBuffer **dev_out, **sys_out;
  GstVideoInfo *info;
  GstCaps *caps, *sys_caps;
  ClvCounts c0, c1, c2;

  clv_check_counts (&c0);
  dev_out = run_collect (dh);
  clv_check_counts (&c1);
  sys_out = run_collect (sh);
  clv_check_counts (&c2);
  fail_unless_equals_int (c1.uploads - c0.uploads, FRAMES);
  fail_unless_equals_int (c1.downloads - c0.downloads, FRAMES);
  fail_unless_equals_int (c2.uploads - c1.uploads, FRAMES);
  /* System-memory frames are downloaded when first read on the CPU. */
  fail_unless_equals_int (c2.downloads - c1.downloads, 0);

  caps = gst_pad_get_current_caps (dh->sinkpad);
  sys_caps = gst_pad_get_current_caps (sh->sinkpad);
  fail_unless (gst_caps_is_equal (caps, sys_caps));
  gst_caps_unref (sys_caps);
  info = gst_video_info_new_from_caps (caps);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_FORMAT_GRAY8);
  for (guint i = 0; i < FRAMES; i++) {
    GstVideoFrame a, b;
    GstVideoRegionOfInterestMeta *ra, *rb;

    fail_unless (gst_video_frame_map (&a, info, dev_out[i], GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, info, sys_out[i], GST_MAP_READ));
    clv_check_frames_equal (&a, &b);
    gst_video_frame_unmap (&b);
    gst_video_frame_unmap (&a);
    ra = gst_buffer_get_video_region_of_interest_meta (dev_out[i]);
    rb = gst_buffer_get_video_region_of_interest_meta (sys_out[i]);
    fail_unless (ra != NULL && rb != NULL);
    fail_unless (ra->x == rb->x && ra->y == rb->y && ra->w == rb->w
        && ra->h == rb->h);
    gst_buffer_unref (dev_out[i]);
    gst_buffer_unref (sys_out[i]);
  }
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.downloads - c2.downloads, FRAMES);
  g_free (dev_out);
  g_free (sys_out);
  gst_video_info_free (info);
  gst_caps_unref (caps);
  gst_harness_teardown (sh);
  gst_harness_teardown (dh);
}

GST_END_TEST;

GST_START_TEST (test_pool_steady_after_warmup)
{
  GstHarness *h = gst_harness_new_parse (DEVICE_CHAIN);
  ClvCounts c0, c1;

  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  run_harness (h, 2);
  clv_check_counts (&c0);
  run_harness (h, 2);
  run_harness (h, 2);
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.allocations - c0.allocations, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames written on the CPU into the pool the first element of `desc`
 * proposes are uploaded once, from their pinned copy, and the buffer itself
 * goes on. */
static void
run_proposed_pool (const gchar * desc)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstVideoInfo *info = frame_info (SYS_CAPS);
  GstBufferPool *pool;
  ClvCounts c0, c1;

  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  pool = clv_check_proposed_pool (h, SYS_CAPS);
  clv_check_counts (&c0);
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *frame = clv_check_frame (info, i), *out;
    GstBuffer *buf = clv_check_pool_copy (pool, frame);
    GstMapInfo dst;

    gst_buffer_unref (frame);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_buffer_map (out, &dst, GST_MAP_READ));
    assert_multilook (dst.data, i, 2);
    gst_buffer_unmap (out, &dst);
    gst_buffer_unref (out);
  }
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.uploads - c0.uploads, FRAMES);
  fail_unless_equals_int (c1.downloads - c0.downloads, FRAMES);

  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_video_info_free (info);
  gst_harness_teardown (h);
}

GST_START_TEST (test_upload_from_proposed_pool)
{
  run_proposed_pool (DEVICE_CHAIN);
}

GST_END_TEST;

/* Elements in system memory propose a pool of pinned device buffers too. */
GST_START_TEST (test_system_element_proposes_pinned_pool)
{
  run_proposed_pool ("sarmultilook range-looks=3 azimuth-looks=2 ! "
      "sarmultilook range-looks=3 azimuth-looks=2");
}

GST_END_TEST;

GST_START_TEST (test_passthrough_when_caps_match)
{
  GstHarness *up = gst_harness_new ("clupload");
  GstHarness *down = gst_harness_new ("cldownload");
  GstVideoInfo *info = frame_info (SYS_CAPS);
  GstBuffer *in = clv_check_frame (info, 1), *out;

  gst_harness_set_caps_str (up, CL_CAPS, CL_CAPS);
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (up->element)));
  gst_harness_set_caps_str (down, SYS_CAPS, SYS_CAPS);
  fail_unless_equals_int (gst_harness_push (down, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (down);
  fail_unless (out == in);
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (down->element)));

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_video_info_free (info);
  gst_harness_teardown (down);
  gst_harness_teardown (up);
}

GST_END_TEST;

/* Pushes `in` (a frame laid out as `info` or as its video meta says)
 * through h, checks that the pulled frame has the same pixels and returns
 * the transfers it took in *delta. */
static void
round_trip (GstHarness * h, const GstVideoInfo * info, GstBuffer * in,
    ClvCounts * delta)
{
  GstVideoFrame fin, fout;
  GstBuffer *out;
  ClvCounts c0, c1;

  clv_check_counts (&c0);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_READ));
  clv_check_frames_equal (&fin, &fout);
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  clv_check_counts (&c1);
  delta->uploads = c1.uploads - c0.uploads;
  delta->downloads = c1.downloads - c0.downloads;
  gst_buffer_unref (out);
}

/* Any raw format survives clupload ! cldownload, in one copy each way from
 * a buffer laid out as the caps say, and from one whose planes are laid out
 * differently. */
GST_START_TEST (test_round_trip_any_layout)
{
  const gchar *caps = "video/x-raw,format=I420,width=33,height=17,"
      "framerate=30/1";
  GstHarness *h = gst_harness_new_parse ("clupload ! cldownload");
  GstVideoInfo *info = frame_info (caps);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 64 * 17, 64 * 17 + 64 * 9 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 64, 64, 64 };
  GstVideoInfo padded = *info;
  GstBuffer *in[2];

  for (int i = 0; i < 3; i++) {
    padded.offset[i] = offset[i];
    padded.stride[i] = stride[i];
  }
  padded.size = 64 * 17 + 2 * 64 * 9;
  in[0] = clv_check_frame (info, 6);
  in[1] = clv_check_frame (&padded, 7);
  gst_buffer_add_video_meta_full (in[1], GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, 33, 17, 3, offset, stride);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  fail_unless (pad_has_opencl (h->element, "cldownload0", "sink"));

  for (int i = 0; i < 2; i++) {
    ClvCounts delta;

    round_trip (h, info, in[i], &delta);
    fail_unless_equals_int (delta.uploads, 1);
    fail_unless_equals_int (delta.downloads, 1);
    gst_buffer_unref (in[i]);
  }
  gst_video_info_free (info);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame from pageable memory staged through pinned memory by several
 * threads (upload=staged; by default only on GPUs and for frames of 1 MiB
 * or more): 3 MB in two chunks, twice through the same stage, one counted
 * upload each. */
GST_START_TEST (test_round_trip_staged)
{
  const gchar *caps = "video/x-raw,format=GRAY16_LE,width=1500,height=1001,"
      "framerate=30/1";
  GstVideoInfo *info = frame_info (caps);
  GstHarness *h;

  h = gst_harness_new_parse ("clupload upload=staged ! cldownload");
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  for (int i = 0; i < 2; i++) {
    GstBuffer *in = clv_check_frame (info, 11 + i);
    ClvCounts delta;

    round_trip (h, info, in, &delta);
    fail_unless_equals_int (delta.uploads, 1);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
  gst_video_info_free (info);
}

GST_END_TEST;

/* ---- Pipelines: contexts and CPU maps ------------------------------------ */

typedef struct
{
  GMutex lock;
  GPtrArray *frames;            /* GBytes, as the CPU maps them */
  gboolean all_opencl;          /* every buffer was memory:OpenCL */
} Handoffs;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Handoffs * ho)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cl = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_OPENCL)
      && gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
      GST_CLV_MEMORY_TYPE_NAME);
  GstMapInfo map;
  GBytes *bytes = NULL;

  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    bytes = g_bytes_new (map.data, map.size);
    gst_buffer_unmap (buf, &map);
  }
  g_mutex_lock (&ho->lock);
  ho->all_opencl &= cl;
  g_ptr_array_add (ho->frames, bytes);
  g_mutex_unlock (&ho->lock);
  gst_caps_unref (caps);
}

#define PIPELINE "appsrc name=src format=time caps=\"" SYS_CAPS "\" ! " \
  "clupload name=up ! sarmultilook name=ml range-looks=3 azimuth-looks=2 ! "

static GstElement *
pipeline_new (const gchar * tail, Handoffs * ho)
{
  gchar *desc = g_strconcat (PIPELINE, tail,
      " ! fakesink name=sink signal-handoffs=true", NULL);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_mutex_init (&ho->lock);
  ho->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  ho->all_opencl = TRUE;
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), ho);
  gst_object_unref (sink);
  g_free (desc);
  return pipeline;
}

static void
handoffs_clear (Handoffs * ho)
{
  g_ptr_array_unref (ho->frames);
  g_mutex_clear (&ho->lock);
}

/* Plays FRAMES frames to EOS (the pipeline stays PLAYING) and checks what
 * reached the sink. */
static void
pipeline_run (GstElement * pipeline, Handoffs * ho)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstVideoInfo *info = frame_info (SYS_CAPS);
  GstFlowReturn ret;
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *buf = clv_check_frame (info, i);
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gst_message_parse_error (msg, &error, NULL);
    fail ("pipeline error: %s", error->message);
  }
  gst_message_unref (msg);

  fail_unless_equals_int (ho->frames->len, FRAMES);
  for (guint i = 0; i < FRAMES; i++)
    assert_multilook (g_bytes_get_data (g_ptr_array_index (ho->frames, i),
            NULL), i, 1);
  gst_video_info_free (info);
  gst_object_unref (bus);
  gst_object_unref (src);
}

static GstClvDevice *
device_of (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstClvDevice *dev = clv_check_element_device (e);

  fail_unless (dev != NULL, "%s has no OpenCL device", name);
  gst_object_unref (e);
  /* The elements keep theirs; only identity matters here. */
  gst_object_unref (dev);
  return dev;
}

/* A device of its own context and queue, outside the process-wide table,
 * as an application might make one. */
static GstClvDevice *
unshared_device (void)
{
  GError *error = NULL;
  ClvDevice *runtime = clv_device_open_unshared (NULL, &error);
  GstClvDevice *dev;

  fail_unless (runtime != NULL, "%s", error ? error->message : "");
  dev = gst_clv_device_new_for_runtime (runtime);
  clv_device_unref (runtime);
  return dev;
}

GST_START_TEST (test_elements_share_context)
{
  Handoffs ho;
  GstElement *pipeline = pipeline_new ("cldownload name=down", &ho);

  pipeline_run (pipeline, &ho);
  fail_unless (device_of (pipeline, "up") == device_of (pipeline, "ml"));
  fail_unless (device_of (pipeline, "down") == device_of (pipeline, "ml"));
  fail_if (ho.all_opencl);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  handoffs_clear (&ho);
}

GST_END_TEST;

GST_START_TEST (test_application_context_honoured)
{
  GstClvDevice *app = unshared_device ();
  Handoffs ho;
  GstElement *pipeline = pipeline_new ("cldownload name=down", &ho);
  GstContext *context;

  context = gst_clv_context_new (app);
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);
  pipeline_run (pipeline, &ho);
  fail_unless (device_of (pipeline, "up") == app);
  fail_unless (device_of (pipeline, "ml") == app);
  fail_unless (device_of (pipeline, "down") == app);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  handoffs_clear (&ho);
  gst_object_unref (app);
}

GST_END_TEST;

/* A sink that maps OpenCL buffers on the CPU sees the right pixels. */
GST_START_TEST (test_cpu_map_mid_chain)
{
  Handoffs ho;
  GstElement *pipeline = pipeline_new ("identity", &ho);

  pipeline_run (pipeline, &ho);
  fail_unless (ho.all_opencl);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  handoffs_clear (&ho);
}

GST_END_TEST;

/* clupload and cldownload in one context, sarmultilook in another: frames
 * cross through the host on both sides of sarmultilook, and nothing
 * breaks. */
GST_START_TEST (test_contexts_differ)
{
  GstClvDevice *a = unshared_device ();
  GstClvDevice *b = unshared_device ();
  Handoffs ho;
  GstElement *pipeline = pipeline_new ("cldownload name=down", &ho);
  GstContext *ca, *cb;
  ClvCounts c0, c1;
  const gchar *names[3] = { "up", "ml", "down" };

  fail_if (gst_clv_device_is_same_context (a, b));
  ca = gst_clv_context_new (a);
  cb = gst_clv_context_new (b);
  for (int i = 0; i < 3; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);
    gst_element_set_context (e, i == 1 ? cb : ca);
    gst_object_unref (e);
  }
  clv_check_counts (&c0);
  pipeline_run (pipeline, &ho);
  clv_check_counts (&c1);
  fail_unless (device_of (pipeline, "up") == a);
  fail_unless (device_of (pipeline, "ml") == b);
  fail_unless (device_of (pipeline, "down") == a);
  /* clupload uploads into A; sarmultilook downloads that through A and
   * uploads it into B; cldownload downloads B's output. */
  fail_unless_equals_int (c1.uploads - c0.uploads, 2 * FRAMES);
  fail_unless_equals_int (c1.downloads - c0.downloads, 2 * FRAMES);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  handoffs_clear (&ho);
  gst_context_unref (ca);
  gst_context_unref (cb);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

/* ---- An analyser sees device frames where they are ----------------------- */

typedef struct
{
  GMutex lock;
  guint frames;
  guint own_memory;             /* frames given as the buffer's own cl_mem */
  GArray *sums;                 /* guint64 byte sums read on the device */
} AnalyseLog;

static AnalyseLog analyse_log;

static GstFlowReturn
test_analyse (GstClvFilter * filter, GstBuffer * buf, cl_mem frame,
    const GstVideoInfo * info, gpointer data)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  gboolean own = FALSE;
  cl_context ctx;
  cl_device_id device;
  cl_command_queue queue;
  guint8 *bytes = g_malloc (GST_VIDEO_INFO_SIZE (info));
  guint64 sum = 0;
  cl_int st;

  /* Read the frame through a queue of its own context. */
  fail_unless_equals_int (clGetMemObjectInfo (frame, CL_MEM_CONTEXT,
          sizeof (ctx), &ctx, NULL), CL_SUCCESS);
  fail_unless_equals_int (clGetContextInfo (ctx, CL_CONTEXT_DEVICES,
          sizeof (device), &device, NULL), CL_SUCCESS);
  queue = clCreateCommandQueue (ctx, device, 0, &st);
  fail_unless_equals_int (st, CL_SUCCESS);
  fail_unless_equals_int (clEnqueueReadBuffer (queue, frame, CL_TRUE, 0,
          GST_VIDEO_INFO_SIZE (info), bytes, 0, NULL, NULL), CL_SUCCESS);
  clReleaseCommandQueue (queue);
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH (info) * 2; x++)
      sum += bytes[GST_VIDEO_INFO_PLANE_OFFSET (info, 0) +
          y * GST_VIDEO_INFO_PLANE_STRIDE (info, 0) + x];
  g_free (bytes);

  g_mutex_lock (&analyse_log.lock);
  analyse_log.frames++;
  if (gst_is_clv_memory (mem)
      && gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_OPENCL)) {
    own = (cl_mem) map.data == frame;
    gst_memory_unmap (mem, &map);
  }
  analyse_log.own_memory += own;
  g_array_append_val (analyse_log.sums, sum);
  g_mutex_unlock (&analyse_log.lock);
  return GST_FLOW_OK;
}

static void
test_analyser_class_init (gpointer klass, gpointer data)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:OpenCL), "
      "format=GRAY16_LE; video/x-raw, format=GRAY16_LE");

  gst_element_class_add_pad_template (klass, gst_pad_template_new ("sink",
          GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass, gst_pad_template_new ("src",
          GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (klass, "Test analyser", "Analyzer",
      "Sums the bytes of each frame on the device", "clvision");
  ((GstClvFilterClass *) klass)->analyse = test_analyse;
}

static void
test_analyser_init (GTypeInstance * instance, gpointer klass)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (instance), TRUE);
}

/* An in-place GstClvFilter subclass, registered as "clvtestanalyse". */
static void
register_test_analyser (void)
{
  GstElement *any = gst_element_factory_make ("clupload", NULL);
  GType parent = g_type_from_name ("GstClvFilter");
  GTypeQuery q;
  GType type;

  fail_unless (any != NULL && parent != 0);
  gst_object_unref (any);
  if (g_type_from_name ("ClvTestAnalyser"))
    return;
  g_type_query (parent, &q);
  type = g_type_register_static_simple (parent, "ClvTestAnalyser",
      q.class_size, test_analyser_class_init, q.instance_size,
      test_analyser_init, 0);
  fail_unless (gst_element_register (NULL, "clvtestanalyse", GST_RANK_NONE,
          type));
}

static void
check_analyser (const gchar * launch, guint expect_own, guint expect_uploads,
    guint expect_downloads)
{
  GstHarness *h;
  GstVideoInfo *info = frame_info (SYS_CAPS);
  ClvCounts c0, c1;

  register_test_analyser ();
  g_mutex_init (&analyse_log.lock);
  analyse_log.frames = analyse_log.own_memory = 0;
  analyse_log.sums = g_array_new (FALSE, FALSE, sizeof (guint64));
  h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, "video/x-raw");

  clv_check_counts (&c0);
  for (guint i = 0; i < FRAMES; i++)
    fail_unless_equals_int (gst_harness_push (h, clv_check_frame (info, i)),
        GST_FLOW_OK);
  for (guint i = 0; i < FRAMES; i++)
    gst_buffer_unref (gst_harness_pull (h));
  clv_check_counts (&c1);

  fail_unless_equals_int (analyse_log.frames, FRAMES);
  fail_unless_equals_int (analyse_log.own_memory, expect_own);
  fail_unless_equals_int (c1.uploads - c0.uploads, expect_uploads);
  fail_unless_equals_int (c1.downloads - c0.downloads, expect_downloads);
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *buf = clv_check_frame (info, i);
    GstMapInfo map;
    guint64 sum = 0;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W * 2; x++)
        sum += map.data[y * GST_VIDEO_INFO_PLANE_STRIDE (info, 0) + x];
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    fail_unless_equals_uint64 (g_array_index (analyse_log.sums, guint64, i),
        sum);
  }
  g_array_unref (analyse_log.sums);
  g_mutex_clear (&analyse_log.lock);
  gst_video_info_free (info);
  gst_harness_teardown (h);
}

GST_START_TEST (test_analyse_device_frames)
{
  /* No download for the analyser: only cldownload's. */
  check_analyser ("clupload ! clvtestanalyse ! cldownload", FRAMES, FRAMES,
      FRAMES);
}

GST_END_TEST;

GST_START_TEST (test_analyse_system_frames)
{
  /* System memory: one upload each into a staging buffer. */
  check_analyser ("clvtestanalyse", 0, FRAMES, 0);
}

GST_END_TEST;

/* ---- vjfacedetect on device frames ---------------------------------------- */

#define FACE_SIDE 200

/* Grace Hopper's portrait at FACE_SIDE², GRAY8, as a system-memory buffer. */
static GstBuffer *
face_frame (void)
{
  int w, h;
  guint8 *src = vj_test_load_image ("grace_hopper", &w, &h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, FACE_SIDE * FACE_SIDE,
      NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  clv_vj_resize (src, w, h, w, map.data, FACE_SIDE, FACE_SIDE, FACE_SIDE);
  gst_buffer_unmap (buf, &map);
  g_free (src);
  return buf;
}

/* The face ROIs of `buf` as "x y w h neighbors" lines. */
static gchar *
faces_text (GstBuffer * buf)
{
  GString *s = g_string_new (NULL);
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *d = gst_video_region_of_interest_meta_get_param (roi,
        "detection");
    gint neighbors = -1;

    fail_unless (d != NULL);
    gst_structure_get_int (d, "neighbors", &neighbors);
    g_string_append_printf (s, "%u %u %u %u %d\n", roi->x, roi->y, roi->w,
        roi->h, neighbors);
  }
  return g_string_free (s, FALSE);
}

static gchar *
detect (const gchar * launch, ClvCounts * delta)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *out;
  ClvCounts c0, c1;
  gchar *faces;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=200,"
      "height=200,framerate=25/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  clv_check_counts (&c0);
  out = gst_harness_push_and_pull (h, face_frame ());
  clv_check_counts (&c1);
  fail_unless (out != NULL);
  faces = faces_text (out);
  delta->uploads = c1.uploads - c0.uploads;
  delta->downloads = c1.downloads - c0.downloads;
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return faces;
}

/* vjfacedetect between clupload and cldownload finds the faces it finds in
 * system memory, analysing the frame where it is: the only frame transfers
 * are clupload's and cldownload's. */
GST_START_TEST (test_facedetect_on_device)
{
  ClvCounts dev, sys;
  gchar *dev_faces = detect ("clupload ! vjfacedetect ! cldownload", &dev);
  gchar *sys_faces = detect ("vjfacedetect", &sys);

  fail_unless (*sys_faces != '\0', "no face found");
  fail_unless_equals_string (dev_faces, sys_faces);
  fail_unless_equals_int (dev.uploads, 1);
  fail_unless_equals_int (dev.downloads, 1);
  fail_unless_equals_int (sys.uploads, 1);
  fail_unless_equals_int (sys.downloads, 0);
  g_free (dev_faces);
  g_free (sys_faces);
}

GST_END_TEST;

static Suite *
clchain_suite (void)
{
  Suite *s = suite_create ("clchain");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_device_chain_matches_system);
  tcase_add_test (tc, test_sar_chain_matches_system);
  tcase_add_test (tc, test_pool_steady_after_warmup);
  tcase_add_test (tc, test_upload_from_proposed_pool);
  tcase_add_test (tc, test_system_element_proposes_pinned_pool);
  tcase_add_test (tc, test_passthrough_when_caps_match);
  tcase_add_test (tc, test_round_trip_any_layout);
  tcase_add_test (tc, test_round_trip_staged);
  tcase_add_test (tc, test_elements_share_context);
  tcase_add_test (tc, test_application_context_honoured);
  tcase_add_test (tc, test_cpu_map_mid_chain);
  tcase_add_test (tc, test_contexts_differ);
  tcase_add_test (tc, test_analyse_device_frames);
  tcase_add_test (tc, test_analyse_system_frames);
  tcase_add_test (tc, test_facedetect_on_device);
  return s;
}

GST_CHECK_MAIN (clchain);
