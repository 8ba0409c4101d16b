/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClvMemory and GstClvBufferPool: maps, transfers, copies, pool layout. */
#include "cl-check-util.h"

#include <string.h>

#define SYS_CAPS "video/x-raw,format=GRAY8,width=33,height=7,framerate=30/1"
#define CL_CAPS "video/x-raw(memory:OpenCL),format=GRAY8,width=33,height=7," \
  "framerate=30/1"

/* A clupload harness (system memory in, OpenCL out) and the pool it
 * proposes upstream. */
static GstHarness *
upload_harness (GstBufferPool ** pool)
{
  GstHarness *h = gst_harness_new ("clupload");

  gst_harness_set_src_caps_str (h, SYS_CAPS);
  gst_harness_set_sink_caps_str (h, CL_CAPS);
  *pool = clv_check_proposed_pool (h, SYS_CAPS);
  return h;
}

static void
teardown (GstHarness * h, GstBufferPool * pool)
{
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_harness_teardown (h);
}

static GstBuffer *
acquire (GstBufferPool * pool)
{
  GstBuffer *buf = NULL;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  return buf;
}

static GstClvMemory *
cl_memory (GstBuffer * buf)
{
  GstMemory *mem;

  fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (gst_memory_is_type (mem, GST_CLV_MEMORY_TYPE_NAME));
  return (GstClvMemory *) mem;
}

static void
fill (GstBuffer * buf, guint8 seed)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + seed);
  gst_buffer_unmap (buf, &map);
}

/* The bytes the device holds, read without the memory's help. */
static guint8 *
device_bytes (GstBuffer * buf)
{
  GstClvMemory *mem;
  GstMapInfo map;
  guint8 *bytes;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_OPENCL));
  mem = cl_memory (buf);
  bytes = g_malloc (map.size);
  fail_unless_equals_int (clEnqueueReadBuffer (gst_clv_device_get_cl_queue
          (mem->device),
          (cl_mem) map.data, CL_TRUE, 0, map.size, bytes, 0, NULL, NULL),
      CL_SUCCESS);
  gst_buffer_unmap (buf, &map);
  return bytes;
}

GST_START_TEST (test_pool_layout)
{
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstVideoInfo info;
  GstVideoAlignment align;
  GstStructure *config;
  GstBuffer *buf;
  GstVideoMeta *vmeta;
  GstCaps *caps = gst_caps_from_string (SYS_CAPS);

  /* Default layout: the caps' (rows of 33 bytes padded to 36). */
  buf = acquire (pool);
  cl_memory (buf);
  vmeta = gst_buffer_get_video_meta (buf);
  fail_unless (vmeta != NULL);
  fail_unless_equals_int (vmeta->stride[0], 36);
  fail_unless_equals_int (vmeta->offset[0], 0);
  fail_unless_equals_int (gst_buffer_get_size (buf), 36 * 7);
  gst_buffer_unref (buf);

  /* Alignment: 7 pixels right, 2 rows on top. */
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT));
  gst_video_alignment_reset (&align);
  align.padding_right = 7;
  align.padding_top = 2;
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_buffer_pool_config_set_video_alignment (config, &align);
  gst_buffer_pool_config_set_params (config, caps, 0, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  buf = acquire (pool);
  vmeta = gst_buffer_get_video_meta (buf);
  gst_video_info_from_caps (&info, caps);
  gst_video_info_align (&info, &align);
  fail_unless_equals_int (vmeta->stride[0], 40);
  fail_unless_equals_int (vmeta->offset[0], 2 * 40);
  fail_unless_equals_int (vmeta->alignment.padding_top, 2);
  fail_unless (gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_unref (buf);

  gst_caps_unref (caps);
  teardown (h, pool);
}

GST_END_TEST;

/* Each map brings its side up to date once, and only when the other side
 * was written. */
GST_START_TEST (test_transfers_follow_writes)
{
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstBuffer *buf = acquire (pool);
  GstClvMemory *mem = cl_memory (buf);
  ClvCounts c0, c1;
  GstMapInfo map;
  guint8 *bytes, pattern[36 * 7];

  /* CPU write, then device reads see it: one upload. */
  clv_check_counts (&c0);
  fill (buf, 3);
  bytes = device_bytes (buf);
  for (gsize i = 0; i < sizeof (pattern); i++)
    fail_unless_equals_int (bytes[i], (guint8) (i * 7 + 3));
  g_free (bytes);
  g_free (device_bytes (buf));
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.uploads - c0.uploads, 1);
  fail_unless_equals_int (c1.downloads - c0.downloads, 0);

  /* Device write (as a kernel would), then CPU reads see it: one
   * download. */
  for (gsize i = 0; i < sizeof (pattern); i++)
    pattern[i] = (guint8) (255 - i);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_OPENCL));
  fail_unless_equals_int (clEnqueueWriteBuffer (gst_clv_device_get_cl_queue
          (mem->device),
          (cl_mem) map.data, CL_TRUE, 0, sizeof (pattern), pattern, 0, NULL,
          NULL), CL_SUCCESS);
  gst_buffer_unmap (buf, &map);
  for (int pass = 0; pass < 2; pass++) {
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless (memcmp (map.data, pattern, sizeof (pattern)) == 0);
    gst_buffer_unmap (buf, &map);
  }
  clv_check_counts (&c0);
  fail_unless_equals_int (c0.uploads - c1.uploads, 0);
  fail_unless_equals_int (c0.downloads - c1.downloads, 1);

  /* A CPU read-modify-write of that frame reaches the device. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READWRITE));
  map.data[40] ^= 0xff;
  gst_buffer_unmap (buf, &map);
  pattern[40] ^= 0xff;
  bytes = device_bytes (buf);
  fail_unless (memcmp (bytes, pattern, sizeof (pattern)) == 0);
  g_free (bytes);
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.uploads - c0.uploads, 1);
  fail_unless_equals_int (c1.downloads - c0.downloads, 0);

  gst_buffer_unref (buf);
  teardown (h, pool);
}

GST_END_TEST;

/* A buffer back in the pool has no contents worth moving. */
GST_START_TEST (test_released_buffer_needs_no_transfer)
{
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstBuffer *buf;
  GstMemory *first_mem;
  GstMapInfo map;
  GstStructure *config;
  GstCaps *caps = gst_caps_from_string (SYS_CAPS);
  ClvCounts c0, c1;

  /* One buffer, so the same memory comes back. */
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 36 * 7, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  buf = acquire (pool);
  first_mem = gst_buffer_peek_memory (buf, 0);
  fill (buf, 1);
  gst_buffer_unref (buf);
  clv_check_counts (&c0);
  buf = acquire (pool);
  fail_unless (gst_buffer_peek_memory (buf, 0) == first_mem);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_OPENCL));
  gst_buffer_unmap (buf, &map);
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.uploads - c0.uploads, 0);
  fail_unless_equals_int (c1.allocations - c0.allocations, 0);

  gst_buffer_unref (buf);
  gst_caps_unref (caps);
  teardown (h, pool);
}

GST_END_TEST;

/* Copies stay on the side that is current; regions are copied, not
 * shared. */
GST_START_TEST (test_copies)
{
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstBuffer *buf = acquire (pool), *copy;
  guint8 *bytes;
  GstMapInfo map;
  ClvCounts c0, c1;

  /* Host side current: the copy needs no transfer to be read there. */
  fill (buf, 9);
  clv_check_counts (&c0);
  copy = gst_buffer_copy_deep (buf);
  cl_memory (copy);
  fail_unless (gst_buffer_map (copy, &map, GST_MAP_READ));
  for (gsize i = 0; i < map.size; i++)
    fail_unless_equals_int (map.data[i], (guint8) (i * 7 + 9));
  gst_buffer_unmap (copy, &map);
  clv_check_counts (&c1);
  fail_unless_equals_int (c1.uploads - c0.uploads, 0);
  fail_unless_equals_int (c1.downloads - c0.downloads, 0);
  gst_buffer_unref (copy);

  /* Device side current: copied on the device. */
  g_free (device_bytes (buf));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_OPENCL));
  gst_buffer_unmap (buf, &map);
  copy = gst_buffer_copy_deep (buf);
  bytes = device_bytes (copy);
  for (gsize i = 0; i < 36 * 7; i++)
    fail_unless_equals_int (bytes[i], (guint8) (i * 7 + 9));
  g_free (bytes);
  gst_buffer_unref (copy);

  /* A region: a new memory of that size with those bytes. */
  copy = gst_buffer_copy_region (buf, GST_BUFFER_COPY_MEMORY, 10, 20);
  fail_unless (gst_buffer_peek_memory (copy, 0) !=
      gst_buffer_peek_memory (buf, 0));
  fail_unless (gst_buffer_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 20);
  for (gsize i = 0; i < 20; i++)
    fail_unless_equals_int (map.data[i], (guint8) ((i + 10) * 7 + 9));
  gst_buffer_unmap (copy, &map);
  gst_buffer_unref (copy);

  gst_buffer_unref (buf);
  teardown (h, pool);
}

GST_END_TEST;

/* A memory trimmed at the front can't be handed out as its cl_mem (which
 * starts elsewhere): GStreamer's map falls back to a copy, which must hold
 * just the trimmed bytes. */
GST_START_TEST (test_offset_memory)
{
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstBuffer *buf = acquire (pool);
  GstMemory *trimmed;
  GstMapInfo map;
  guint8 *bytes;

  fill (buf, 5);
  gst_buffer_resize (buf, 4, -1);
  trimmed = gst_buffer_peek_memory (buf, 0);
  fail_unless_equals_int (trimmed->offset, 4);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], (guint8) (4 * 7 + 5));
  gst_buffer_unmap (buf, &map);

  bytes = device_bytes (buf);
  fail_unless (gst_buffer_peek_memory (buf, 0) != trimmed);
  fail_unless_equals_int (gst_buffer_get_size (buf), 36 * 7 - 4);
  for (gsize i = 0; i < 36 * 7 - 4; i++)
    fail_unless_equals_int (bytes[i], (guint8) ((i + 4) * 7 + 5));
  g_free (bytes);

  gst_buffer_unref (buf);
  teardown (h, pool);
}

GST_END_TEST;

/* gst_clv_memory_upload and _download copy ranges both ways with every
 * flag, keep bytes outside the range from whichever side is newer, count
 * one transfer each, and refuse ranges past the end. */
GST_START_TEST (test_upload_download_ranges)
{
  static const GstClvTransferFlags flags[] = { GST_CLV_TRANSFER_FLAG_NONE,
    GST_CLV_TRANSFER_FLAG_UNORDERED, GST_CLV_TRANSFER_FLAG_STAGED,
    GST_CLV_TRANSFER_FLAG_STAGED | GST_CLV_TRANSFER_FLAG_UNORDERED
  };
  GstBufferPool *pool;
  GstHarness *h = upload_harness (&pool);
  GstBuffer *buf = acquire (pool);
  GstClvMemory *mem = cl_memory (buf);
  const gsize n = gst_buffer_get_size (buf);
  guint8 *expect = g_malloc (n), *got = g_malloc (n), *bytes;
  GError *error = NULL;
  ClvCounts c0, c1;
  GstMapInfo map;

  for (guint f = 0; f < G_N_ELEMENTS (flags); f++) {
    const gsize at = 5 + f, len = n / 2 - f;

    /* The host copy is newer: its bytes stay around the range. */
    fill (buf, (guint8) f);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    memcpy (expect, map.data, n);
    gst_buffer_unmap (buf, &map);
    for (gsize i = 0; i < len; i++)
      expect[at + i] = (guint8) (200 - i - f);
    clv_check_counts (&c0);
    fail_unless (gst_clv_memory_upload (mem, at, expect + at, len, flags[f],
            &error));
    g_assert_no_error (error);
    fail_unless (gst_clv_memory_download (mem, 0, got, n, flags[f], &error));
    g_assert_no_error (error);
    clv_check_counts (&c1);
    fail_unless (memcmp (got, expect, n) == 0, "flags %d", flags[f]);
    /* The host copy's upload, ours, and our download. */
    fail_unless_equals_int (c1.uploads - c0.uploads, 2);
    fail_unless_equals_int (c1.downloads - c0.downloads, 1);
    bytes = device_bytes (buf);
    fail_unless (memcmp (bytes, expect, n) == 0);
    g_free (bytes);
    /* And a CPU map sees it. */
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless (memcmp (map.data, expect, n) == 0);
    gst_buffer_unmap (buf, &map);
  }
  fail_if (gst_clv_memory_upload (mem, n - 3, expect, 4,
          GST_CLV_TRANSFER_FLAG_NONE, &error));
  g_assert_error (error, GST_CLV_ERROR, GST_CLV_ERROR_INVALID);
  g_clear_error (&error);
  fail_if (gst_clv_memory_download (mem, n + 1, got, 0,
          GST_CLV_TRANSFER_FLAG_NONE, &error));
  g_assert_error (error, GST_CLV_ERROR, GST_CLV_ERROR_INVALID);
  g_clear_error (&error);

  g_free (expect);
  g_free (got);
  gst_buffer_unref (buf);
  teardown (h, pool);
}

GST_END_TEST;

static Suite *
clmemory_suite (void)
{
  Suite *s = suite_create ("clmemory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pool_layout);
  tcase_add_test (tc, test_transfers_follow_writes);
  tcase_add_test (tc, test_released_buffer_needs_no_transfer);
  tcase_add_test (tc, test_copies);
  tcase_add_test (tc, test_offset_memory);
  tcase_add_test (tc, test_upload_download_ranges);
  return s;
}

GST_CHECK_MAIN (clmemory);
