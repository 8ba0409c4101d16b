/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cl-check-util.h"

#include <string.h>

void
clv_check_counts (ClvCounts * counts)
{
  GstAllocator *allocator = gst_allocator_find (GST_CLV_MEMORY_TYPE_NAME);

  fail_unless (allocator != NULL, "the OpenCL allocator is not registered");
  g_object_get (allocator, "uploads", &counts->uploads, "downloads",
      &counts->downloads, "allocations", &counts->allocations, NULL);
  gst_object_unref (allocator);
}

GstBuffer *
clv_check_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

GstBufferPool *
clv_check_proposed_pool (GstHarness * h, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless_equals_string (G_OBJECT_TYPE_NAME (pool), "GstClvBufferPool");
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_query_unref (query);
  gst_caps_unref (caps);
  return pool;
}

GstBuffer *
clv_check_pool_copy (GstBufferPool * pool, GstBuffer * frame)
{
  GstBuffer *buf = NULL;
  GstMapInfo src, dst;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_map (frame, &src, GST_MAP_READ));
  fail_unless (gst_buffer_map (buf, &dst, GST_MAP_WRITE));
  memcpy (dst.data, src.data, src.size);
  gst_buffer_unmap (buf, &dst);
  gst_buffer_unmap (frame, &src);
  return buf;
}

GstClvDevice *
clv_check_element_device (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CLV_CONTEXT_TYPE);
  GstPad *pad = gst_element_get_static_pad (element, "sink");
  GstContext *context = NULL;
  GstClvDevice *dev = NULL;

  if (gst_pad_query (pad, query)) {
    gst_query_parse_context (query, &context);
    dev = gst_clv_context_get_device (context);
    fail_unless (dev != NULL);
  }
  gst_object_unref (pad);
  gst_query_unref (query);
  return dev;
}

void
clv_check_frames_equal (const GstVideoFrame * a, const GstVideoFrame * b)
{
  fail_unless_equals_int (GST_VIDEO_FRAME_N_PLANES (a),
      GST_VIDEO_FRAME_N_PLANES (b));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (a); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows, row_bytes;

    gst_video_format_info_component (a->info.finfo, p, comp);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (a, comp[0]);
    row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (a, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (a, comp[0]);
    for (guint y = 0; y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (a, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (a, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (b, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (b, p);
      if (memcmp (ra, rb, row_bytes) != 0)
        fail ("plane %u differs in row %u", p, y);
    }
  }
}
