/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Faults a pipeline meets, each ending in a clear error or the right
 * output, never a crash: bad files set while PLAYING, caps changing
 * mid-stream, flushes and segment changes, many state cycles, parallel
 * pipelines sharing one context, a frame larger than the device allows,
 * EOS with frames in flight, and a tee sharing a memory:OpenCL buffer
 * between two branches that write. */
#include "cl-check-util.h"
#include "clv-eigen.h"
#include "clv-sar.h"
#include "clv-test-util.h"
#include "clv-vj-ref.h"
#include "vj-check-frame.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *tmp_dir;

static void
setup_tmp (void)
{
  tmp_dir = g_dir_make_tmp ("clv-faults-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
}

static void
teardown_tmp (void)
{
  char *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);

  fail_unless (system (cmd) == 0);
  g_free (cmd);
  g_clear_pointer (&tmp_dir, g_free);
}

/* A file in tmp_dir with `contents`. */
static char *
tmp_file (const char *name, const char *contents)
{
  char *path = g_build_filename (tmp_dir, name, NULL);

  fail_unless (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

/* Resident memory of this process, bytes. */
static gsize
rss_bytes (void)
{
  char *text = NULL;
  unsigned long pages[2] = { 0, 0 };

  fail_unless (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL));
  fail_unless (sscanf (text, "%lu %lu", &pages[0], &pages[1]) == 2);
  g_free (text);
  return pages[1] * (gsize) sysconf (_SC_PAGESIZE);
}

/* ---- Frames ------------------------------------------------------------ */

static Gray
load_gray_checked (const char *name)
{
  Gray g = load_gray (name);

  fail_unless (g.pixels != NULL, "cannot load %s", name);
  return g;
}

static Gray
blank_gray (int width, int height, guint8 value)
{
  Gray g = { g_malloc ((gsize) width * height), width, height };

  memset (g.pixels, value, (gsize) width * height);
  return g;
}

static GstHarness *
element_harness (const char *factory, const char *prop, ...)
{
  GstElement *el = gst_element_factory_make (factory, NULL);
  GstHarness *h;
  va_list ap;

  fail_unless (el != NULL);
  va_start (ap, prop);
  if (prop)
    g_object_set_valist (G_OBJECT (el), prop, ap);
  va_end (ap);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  return h;
}

/* Pushes `l` as `format` through a vjfacedetect harness: the faces found. */
static guint
push_gray (GstHarness * h, const Gray * l, const char *format)
{
  GstCaps *caps;
  GstBuffer *in = vj_check_frame_buffer (l, format, &caps), *out;
  GstCaps *current = gst_pad_get_current_caps (h->srcpad);
  gpointer state = NULL;
  guint n = 0;

  /* Caps only when they change: the harness sends a segment with them. */
  if (current == NULL || !gst_caps_is_equal (current, caps))
    gst_harness_set_src_caps (h, caps);
  else
    gst_caps_unref (caps);
  if (current)
    gst_caps_unref (current);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  while (gst_buffer_iterate_meta_filtered (out, &state,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    n++;
  gst_buffer_unref (out);
  return n;
}

/* Brings `el` (on `bus`) to NULL and back to PLAYING: the start fails and
 * the error on the bus contains `expect`. */
static void
assert_restart_fails (GstElement * el, GstBus * bus, const char *expect)
{
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (el, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, expect) != NULL,
      "error \"%s\" does not name \"%s\"", err->message, expect);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (el, GST_STATE_NULL);
}

/* ---- Bad files set while PLAYING ---------------------------------------- */

/* Sets `property` of `h`'s element to each of the NULL-terminated `bad`
 * files while PLAYING: `still_works` stays TRUE and no error is posted;
 * then each fails the next start with an error naming its file. */
static void
assert_bad_files_keep_old (GstHarness * h, const char *property,
    gboolean (*still_works) (GstHarness * h), char **bad)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  fail_unless (still_works (h));
  for (char **path = bad; *path; path++) {
    g_object_set (h->element, property, *path, NULL);
    fail_unless (still_works (h), "not working after %s=%s", property,
        *path);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  for (char **path = bad; *path; path++) {
    char *base = g_path_get_basename (*path);
    g_object_set (h->element, property, *path, NULL);
    assert_restart_fails (h->element, bus, base);
    g_free (base);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
}

static gboolean
finds_grace_hoppers_face (GstHarness * h)
{
  Gray face = load_gray_checked ("grace_hopper");
  guint n = push_gray (h, &face, "GRAY8");

  g_free (face.pixels);
  return n == 1;
}

/* The cascade is read at start: a bad file set while PLAYING leaves the
 * running one at work; the next start fails naming the file. */
GST_START_TEST (test_bad_cascade_while_playing)
{
  char *bad[] = { g_build_filename (tmp_dir, "missing.xml", NULL),
    tmp_file ("corrupt.xml", "<?xml version=\"1.0\"?>\n<opencv_storage>"
        "<cascade><width>24</wi"), NULL
  };
  GstHarness *h = element_harness ("vjfacedetect", NULL);

  assert_bad_files_keep_old (h, "cascade", finds_grace_hoppers_face, bad);
  gst_harness_teardown (h);
  g_free (bad[0]);
  g_free (bad[1]);
}

GST_END_TEST;

/* A model of 8x8 faces: label 0 ("dark") projects to 0, label 1 ("light")
 * to 100 along the first pixel, so a uniform face of value 100 is "light". */
static char *
write_small_model (void)
{
  ClvEigenModel *m = clv_eigen_model_new (8, 8, 2, 1);
  char *path = g_build_filename (tmp_dir, "model.yml", NULL);
  GError *error = NULL;

  m->eigenvalues[0] = 1.0;
  m->eigenvectors[0] = 1.0;
  m->projections[0] = 0.0;
  m->projections[1] = 100.0;
  m->labels[0] = 0;
  m->labels[1] = 1;
  clv_eigen_model_set_label_name (m, 0, "dark");
  clv_eigen_model_set_label_name (m, 1, "light");
  fail_unless (clv_eigen_model_save (m, path, TRUE, &error), "%s",
      error ? error->message : "");
  clv_eigen_model_free (m);
  return path;
}

/* Whether eigenrecognise calls the face box of a uniform frame "light". */
static gboolean
recognises_light (GstHarness * h)
{
  Gray l = blank_gray (64, 48, 100);
  GstCaps *caps;
  GstBuffer *in = vj_check_frame_buffer (&l, "GRAY8", &caps), *out;
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *rec;
  gboolean light;

  roi = gst_buffer_add_video_region_of_interest_meta (in, "face", 8, 8, 32,
      32);
  roi->id = 0;
  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL);
  rec = gst_video_region_of_interest_meta_get_param (roi, "recognition");
  fail_unless (rec != NULL);
  light = g_strcmp0 (gst_structure_get_string (rec, "label"), "light") == 0;
  gst_buffer_unref (out);
  g_free (l.pixels);
  return light;
}

GST_START_TEST (test_bad_model_while_playing)
{
  char *model = write_small_model ();
  char *bad[] = { g_build_filename (tmp_dir, "missing.yml", NULL),
    tmp_file ("corrupt.yml", "%YAML:1.0\n---\nopencv_eigenfaces:\n"
        "   threshold: 2500.\n   num_components: [ 1, "), NULL
  };
  GstHarness *h = element_harness ("eigenrecognise", "model", model, NULL);

  assert_bad_files_keep_old (h, "model", recognises_light, bad);
  gst_harness_teardown (h);
  g_free (model);
  g_free (bad[0]);
  g_free (bad[1]);
}

GST_END_TEST;

/* ---- Caps, flushes and segments --------------------------------------- */

/* Size and format change between frames: every frame gets its own faces. */
GST_START_TEST (test_caps_change_mid_stream)
{
  Gray face = load_gray_checked ("grace_hopper");
  Gray small = blank_gray (160, 120, 90);
  Gray odd = blank_gray (33, 25, 200);
  GstHarness *h = element_harness ("vjfacedetect", "interval", 2, NULL);

  for (int round = 0; round < 2; round++) {
    fail_unless_equals_int (push_gray (h, &face, "GRAY8"), 1);
    fail_unless_equals_int (push_gray (h, &small, "I420"), 0);
    fail_unless_equals_int (push_gray (h, &face, "I420"), 1);
    fail_unless_equals_int (push_gray (h, &odd, "GRAY8"), 0);
  }
  gst_harness_teardown (h);
  g_free (face.pixels);
  g_free (small.pixels);
  g_free (odd.pixels);
}

GST_END_TEST;

static void
push_segment (GstHarness * h, GstClockTime start)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = segment.time = start;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* interval=100 reuses frame 0's faces, until a flush or a new segment:
 * then the next frame is analysed again and no stale face reaches it. */
GST_START_TEST (test_flush_and_segment_reset_interval)
{
  Gray face = load_gray_checked ("grace_hopper");
  Gray blank = blank_gray (face.width, face.height, 90);
  GstHarness *h = element_harness ("vjfacedetect", "interval", 100, NULL);

  fail_unless_equals_int (push_gray (h, &face, "GRAY8"), 1);
  fail_unless_equals_int (push_gray (h, &blank, "GRAY8"), 1);   /* reused */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_segment (h, 0);
  fail_unless_equals_int (push_gray (h, &blank, "GRAY8"), 0);

  fail_unless_equals_int (push_gray (h, &face, "GRAY8"), 0);    /* reused */
  push_segment (h, 10 * GST_SECOND);
  fail_unless_equals_int (push_gray (h, &face, "GRAY8"), 1);
  /* An equal segment again is no change: faces are reused. */
  push_segment (h, 10 * GST_SECOND);
  fail_unless_equals_int (push_gray (h, &blank, "GRAY8"), 1);

  gst_harness_teardown (h);
  g_free (face.pixels);
  g_free (blank.pixels);
}

GST_END_TEST;

/* The faces vjfacedetect gives the first frame after a flushing seek to
 * `seek_to` in the real video, as "x,y,w,h;..." */
static char *
faces_after_seek (int interval, GstClockTime seek_to)
{
  char *video = g_build_filename (g_getenv ("CLV_DATA_CACHE"), "franck.webm",
      NULL);
  char *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! vjfacedetect interval=%d "
      "min-size=60x60 ! appsink name=sink sync=false", video, interval);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GString *s = g_string_new (NULL);
  GstSample *sample;
  GstBuffer *buf;
  gpointer state = NULL;
  GstMeta *meta;

  fail_unless (pipe != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  /* Frames of the start go through first (interval counting). */
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < 3; i++) {
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    fail_unless (sample != NULL);
    gst_sample_unref (sample);
  }
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, seek_to));
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  buf = gst_sample_get_buffer (sample);
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    g_string_append_printf (s, "%u,%u,%u,%u;", roi->x, roi->y, roi->w,
        roi->h);
  }
  gst_sample_unref (sample);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (video);
  return g_string_free (s, FALSE);
}

/* A flushing seek in a real file: with interval=1000 the first frame after
 * the seek is analysed, its faces those of interval=1, not the start's. */
GST_START_TEST (test_seek_real_file_resets_interval)
{
  char *start = faces_after_seek (1, 0);
  char *every = faces_after_seek (1, 5 * GST_SECOND);
  char *sparse = faces_after_seek (1000, 5 * GST_SECOND);

  fail_unless (strcmp (start, every) != 0,
      "the frames chosen must show different faces: %s", start);
  fail_unless_equals_string (sparse, every);
  g_free (start);
  g_free (every);
  g_free (sparse);
}

GST_END_TEST;

/* ---- State cycles and parallel pipelines ------------------------------- */

#define SAR_CL_CHAIN "videotestsrc pattern=snow num-buffers=%d ! " \
  "video/x-raw,format=GRAY16_LE,width=%d,height=%d,framerate=30/1 ! " \
  "clupload name=up device=first ! sarmultilook range-looks=2 azimuth-looks=3 ! " \
  "sarquantize ! " \
  "cldownload ! appsink name=sink sync=false"

/* NULL -> PLAYING -> NULL 1,000 times: every cycle prerolls a frame on the
 * device and resident memory does not grow after the first 100. */
GST_START_TEST (test_state_cycles)
{
  char *desc = g_strdup_printf (SAR_CL_CHAIN, 1, 64, 48);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  gsize warm = 0, end;

  fail_unless (pipe != NULL);
  for (int i = 0; i < 1000; i++) {
    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
        != GST_STATE_CHANGE_FAILURE, "cycle %d", i);
    fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    if (i == 99)
      warm = rss_bytes ();
  }
  end = rss_bytes ();
  GST_INFO ("RSS after 100 cycles %" G_GSIZE_FORMAT ", after 1000 %"
      G_GSIZE_FORMAT, warm, end);
  /* 900 cycles: a leak of even 2 KiB a cycle would show.  Under
   * AddressSanitizer (tests/sanitize.sh) freed blocks wait in its
   * quarantine and RSS grows by hundreds of MiB regardless: there
   * LeakSanitizer checks the cycles for leaks instead. */
#ifndef __SANITIZE_ADDRESS__
  fail_unless (end < warm + 1024 * 1024, "resident memory grew from %"
      G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT " bytes", warm, end);
#endif
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* Frames of `sink` until EOS as one byte string; their number in
 * `n_frames` if not NULL. */
static GByteArray *
pull_all (GstElement * sink, int *n_frames)
{
  GByteArray *all = g_byte_array_new ();
  GstSample *sample;
  int n = 0;

  while (TRUE) {
    GstMapInfo map;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (sample == NULL)
      break;
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
    n++;
  }
  if (n_frames)
    *n_frames = n;
  return all;
}

/* The checksum of every frame the SAR chain gives, in order, and in
 * `device` (if not NULL) the device its clupload used. */
static char *
run_sar_chain (int frames, GstClvDevice ** device)
{
  char *desc = g_strdup_printf (SAR_CL_CHAIN, frames, 96, 72);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GByteArray *all;
  int n;
  char *digest;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  all = pull_all (sink, &n);
  fail_unless_equals_int (n, frames);
  if (device) {
    GstElement *up = gst_bin_get_by_name (GST_BIN (pipe), "up");
    *device = clv_check_element_device (up);
    gst_object_unref (up);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, all->data,
      all->len);
  g_byte_array_unref (all);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return digest;
}

static GstClvDevice *thread_devices[4];

static gpointer
sar_chain_thread (gpointer data)
{
  return run_sar_chain (20, &thread_devices[GPOINTER_TO_INT (data)]);
}

/* Four pipelines in four threads on one device (device=first: auto would
 * spread them over the GPUs of a machine with several) share its context
 * and queue: each gives exactly what one pipeline alone gives. */
GST_START_TEST (test_parallel_pipelines)
{
  char *alone = run_sar_chain (20, NULL);
  GThread *threads[G_N_ELEMENTS (thread_devices)];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("pipeline", sar_chain_thread,
        GINT_TO_POINTER (i));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++) {
    char *digest = g_thread_join (threads[i]);
    fail_unless_equals_string (digest, alone);
    g_free (digest);
  }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++) {
    fail_unless (thread_devices[i] != NULL);
    fail_unless (gst_clv_device_get_cl_context (thread_devices[i]) ==
        gst_clv_device_get_cl_context (thread_devices[0]));
    fail_unless (gst_clv_device_get_cl_queue (thread_devices[i]) ==
        gst_clv_device_get_cl_queue (thread_devices[0]));
  }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    gst_clear_object (&thread_devices[i]);
  g_free (alone);
}

GST_END_TEST;

/* ---- Too large, EOS in flight, tee ------------------------------------- */

/* A frame larger than the device can allocate in one buffer: the upload
 * fails with an error naming the size and the device's limit.  PoCL's
 * limit (a quarter of the memory, up to 4 GiB) can exceed the largest
 * frame GstVideoInfo describes, so the test gives the shared device the
 * 64 MiB limit of a small device.  The frame is untouched anonymous
 * memory, so it costs no RAM. */
GST_START_TEST (test_frame_too_large)
{
  /* The element's device (auto could pick another GPU than this one). */
  ClvDevice *dev = clv_device_open ("first", NULL);
  const guint64 device_limit = dev ? dev->max_mem_alloc_size : 0;
  const int height = 1024;
  int width;
  gsize size;
  void *mem;
  GstHarness *h = element_harness ("clupload", "device", "first", NULL);
  GstBus *bus = gst_bus_new ();
  GstCaps *caps;
  GstBuffer *buf;
  GstMessage *msg;
  GError *err = NULL;
  char *limit;

  fail_unless (dev != NULL);
  dev->max_mem_alloc_size = 64 << 20;
  width = GST_ROUND_UP_4 ((int) (dev->max_mem_alloc_size / height) + 4);
  size = (gsize) width * height;
  limit = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes",
      dev->max_mem_alloc_size);
  mem = mmap (NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
      MAP_NORESERVE, -1, 0);
  fail_unless (mem != MAP_FAILED);

  gst_element_set_bus (h->element, bus);
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:OpenCL)");
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "GRAY8",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
      GST_TYPE_FRACTION, 1, 1, NULL);
  gst_harness_set_src_caps (h, caps);
  buf = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, mem, size, 0,
      size, NULL, NULL);
  fail_unless (gst_harness_push (h, buf) != GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("error: %s", err->message);
  fail_unless (strstr (err->message, limit) != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  munmap (mem, size);
  g_free (limit);
  dev->max_mem_alloc_size = device_limit;
  clv_device_unref (dev);
}

GST_END_TEST;

#define EOS_W 96
#define EOS_H 64
#define EOS_FRAMES 40

/* EOS right after the last frame, with the frames still queued on the
 * device: every frame comes out, in order, each the multilook of its own
 * input (the C reference). */
GST_START_TEST (test_eos_with_frames_in_flight)
{
  GstElement *pipe = gst_parse_launch ("appsrc name=src format=time ! "
      "clupload ! sarmultilook range-looks=2 azimuth-looks=2 ! cldownload ! "
      "appsink name=sink sync=false", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *inputs[EOS_FRAMES];
  GstFlowReturn ret;
  int ow, oh;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, EOS_W, EOS_H);
  info.fps_n = 25;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < EOS_FRAMES; i++) {
    inputs[i] = clv_check_frame (&info, 1000 + i);
    GST_BUFFER_PTS (inputs[i]) = i * 40 * GST_MSECOND;
    GST_BUFFER_DURATION (inputs[i]) = 40 * GST_MSECOND;
    g_signal_emit_by_name (src, "push-buffer", inputs[i], &ret);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);

  clv_multilook_out_size (EOS_W, EOS_H, 2, 2, &ow, &oh);
  for (int i = 0; i < EOS_FRAMES; i++) {
    GstSample *sample;
    GstMapInfo in_map, out_map;
    ClvImage si = clv_image_make (EOS_W, EOS_H, 2,
        GST_VIDEO_INFO_PLANE_STRIDE (&info, 0));
    ClvImage di = clv_image_make (ow, oh, 2, GST_ROUND_UP_4 (ow * 2));
    guint8 *expect = g_malloc0 (di.stride * oh);

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    fail_unless (sample != NULL, "frame %d of %d is missing", i, EOS_FRAMES);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)), i * 40 * GST_MSECOND);
    fail_unless (gst_buffer_map (inputs[i], &in_map, GST_MAP_READ));
    clv_multilook_ref (in_map.data, &si, expect, &di, 2, 2,
        CLV_MULTILOOK_INTENSITY);
    gst_buffer_unmap (inputs[i], &in_map);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &out_map,
            GST_MAP_READ));
    clv_test_assert_images_equal (expect, out_map.data, &di);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &out_map);
    gst_sample_unref (sample);
    gst_buffer_unref (inputs[i]);       /* push-buffer took a reference */
    g_free (expect);
  }
  {
    gboolean eos;
    GstSample *sample;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    fail_unless (sample == NULL);
    g_object_get (sink, "eos", &eos, NULL);
    fail_unless (eos);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Branch "writer" of a tee writes into the shared memory:OpenCL buffer: on
 * the device (a kernel-side fill through GST_MAP_OPENCL) on even frames, on
 * the host on odd ones. */
static GstPadProbeReturn
overwrite_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = gst_pad_probe_info_get_buffer (info);
  static guint frame;
  GstMapInfo map;

  buf = gst_buffer_make_writable (buf);
  if (frame++ % 2 == 0) {
    ClvDevice *dev = user_data;
    const cl_uchar value = 255;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_OPENCL));
    fail_unless_equals_int (clEnqueueFillBuffer (dev->queue,
            (cl_mem) map.data, &value, 1, 0, map.size, 0, NULL, NULL),
        CL_SUCCESS);
    fail_unless_equals_int (clFinish (dev->queue), CL_SUCCESS);
  } else {
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    memset (map.data, 255, map.size);
  }
  gst_buffer_unmap (buf, &map);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static gpointer
pull_all_thread (gpointer sink)
{
  return pull_all (sink, NULL);
}

/* A tee shares each memory:OpenCL buffer between a branch that overwrites
 * it (device and host writes) and one that reads: the reader sees the
 * uploaded frames untouched, the writer its own writes. */
GST_START_TEST (test_tee_copy_on_write)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc pattern=snow "
      "num-buffers=6 ! video/x-raw,format=GRAY8,width=64,height=48 ! "
      "tee name=t "
      "t. ! queue ! appsink name=orig sync=false "
      "t. ! queue ! clupload device=first ! tee name=ct "
      "ct. ! queue ! identity name=writer ! cldownload ! "
      "appsink name=written sync=false "
      "ct. ! queue ! cldownload ! appsink name=read sync=false", NULL);
  GstElement *writer = gst_bin_get_by_name (GST_BIN (pipe), "writer");
  GstElement *sinks[3] = {
    gst_bin_get_by_name (GST_BIN (pipe), "orig"),
    gst_bin_get_by_name (GST_BIN (pipe), "read"),
    gst_bin_get_by_name (GST_BIN (pipe), "written")
  };
  GByteArray *got[3];
  GThread *threads[3];
  GstPad *pad = gst_element_get_static_pad (writer, "sink");
  ClvDevice *dev = clv_device_open ("first", NULL);

  fail_unless (dev != NULL);
  g_object_set (writer, "signal-handoffs", FALSE, NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, overwrite_frame, dev,
      NULL);
  gst_object_unref (pad);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < 3; i++)
    threads[i] = g_thread_new ("pull", pull_all_thread, sinks[i]);
  for (int i = 0; i < 3; i++)
    got[i] = g_thread_join (threads[i]);

  fail_unless_equals_int (got[0]->len, 6 * 64 * 48);
  fail_unless_equals_int (got[1]->len, got[0]->len);
  fail_unless (memcmp (got[1]->data, got[0]->data, got[0]->len) == 0,
      "the reading branch saw the other branch's writes");
  fail_unless_equals_int (got[2]->len, got[0]->len);
  for (guint i = 0; i < got[2]->len; i++)
    fail_unless (got[2]->data[i] == 255, "byte %u of the written branch is "
        "%u", i, got[2]->data[i]);

  gst_element_set_state (pipe, GST_STATE_NULL);
  for (int i = 0; i < 3; i++) {
    g_byte_array_unref (got[i]);
    gst_object_unref (sinks[i]);
  }
  gst_object_unref (writer);
  gst_object_unref (pipe);
  clv_device_unref (dev);
}

GST_END_TEST;

static Suite *
faults_suite (void)
{
  Suite *s = suite_create ("faults");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup_tmp, teardown_tmp);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bad_cascade_while_playing);
  tcase_add_test (tc, test_bad_model_while_playing);
  tcase_add_test (tc, test_caps_change_mid_stream);
  tcase_add_test (tc, test_flush_and_segment_reset_interval);
  tcase_add_test (tc, test_seek_real_file_resets_interval);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_parallel_pipelines);
  tcase_add_test (tc, test_frame_too_large);
  tcase_add_test (tc, test_eos_with_frames_in_flight);
  tcase_add_test (tc, test_tee_copy_on_write);
  return s;
}

GST_CHECK_MAIN (faults);
