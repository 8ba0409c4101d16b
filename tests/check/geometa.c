/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClvGeoMeta through the elements that change (or keep) a frame's
 * geometry: sarmultilook, sarrotscale, sarquantize and videoscale, in
 * system memory and memory:OpenCL. */
#include <math.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/clvision/clvision.h>

#define W 12
#define H 8
#define WKT "PROJCS[\"test\"]"

static const gdouble in_gt[6] = { 1000, 10, 0, 2000, 0, -10 };

/* Ground control points of the input frame, in its edge coordinates. */
#define GCP_WKT "GEOGCS[\"test\"]"
static const GstClvGcp in_gcps[2] = {
  {(gchar *) "1", 2.5, 1.5, 12.0, 41.0, 5},
  {(gchar *) "2", 11, 7, 12.1, 40.9, 6},
};

/* Pushes a W x H GRAY16_LE frame with in_gt through `pipeline` and returns
 * the output buffer, asserting that it carries exactly one geo meta with
 * the WKT. */
static GstBuffer *
push_geo_frame (const gchar * pipeline)
{
  GstHarness *h = gst_harness_new_parse (pipeline);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstClvGeoMeta *geo;
  guint metas = 0;
  gpointer state = NULL;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, W, H);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (in, 0, 0x40, GST_VIDEO_INFO_SIZE (&info));
  geo = gst_buffer_add_clv_geo_meta (in, in_gt, WKT);
  gst_clv_geo_meta_set_gcps (geo, in_gcps, 2, GCP_WKT);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  while (gst_buffer_iterate_meta_filtered (out, &state,
          GST_CLV_GEO_META_API_TYPE))
    metas++;
  fail_unless_equals_int (metas, 1);
  geo = gst_buffer_get_clv_geo_meta (out);
  fail_unless_equals_string (geo->wkt, WKT);
  fail_unless_equals_string (geo->gcp_wkt, GCP_WKT);
  fail_unless_equals_int (geo->n_gcps, 2);
  for (int i = 0; i < 2; i++) {
    fail_unless_equals_string (geo->gcps[i].id, in_gcps[i].id);
    fail_unless_equals_float (geo->gcps[i].x, in_gcps[i].x);
    fail_unless_equals_float (geo->gcps[i].y, in_gcps[i].y);
    fail_unless_equals_float (geo->gcps[i].z, in_gcps[i].z);
  }
  gst_harness_teardown (h);
  return out;
}

/* GCP i of `buf` is at (pixel, line) of the output frame. */
static void
assert_gcp_at (GstBuffer * buf, int i, double pixel, double line)
{
  const GstClvGcp *gcp = &gst_buffer_get_clv_geo_meta (buf)->gcps[i];

  fail_unless (fabs (gcp->pixel - pixel) < 1e-9
      && fabs (gcp->line - line) < 1e-9, "GCP %d at (%.17g, %.17g), expected "
      "(%.17g, %.17g)", i, gcp->pixel, gcp->line, pixel, line);
}

static void
assert_geotransform (GstBuffer * buf, const gdouble expected[6])
{
  GstClvGeoMeta *geo = gst_buffer_get_clv_geo_meta (buf);

  for (int i = 0; i < 6; i++)
    fail_unless (fabs (geo->geotransform[i] - expected[i]) < 1e-9,
        "geotransform[%d] is %.17g, expected %.17g", i, geo->geotransform[i],
        expected[i]);
}

/* The looks multiply the pixel size; the origin stays; GCPs' pixel and
 * line are divided by the looks. */
GST_START_TEST (test_multilook)
{
  const gdouble expected[6] = { 1000, 30, 0, 2000, 0, -20 };
  const gchar *pipelines[] = {
    "sarmultilook range-looks=3 azimuth-looks=2",
    "clupload ! sarmultilook range-looks=3 azimuth-looks=2 ! cldownload",
    NULL
  };

  for (int i = 0; pipelines[i]; i++) {
    GstBuffer *out = push_geo_frame (pipelines[i]);

    assert_geotransform (out, expected);
    for (int g = 0; g < 2; g++)
      assert_gcp_at (out, g, in_gcps[g].pixel / 3, in_gcps[g].line / 2);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* Quantization keeps the geometry, in both memory kinds. */
GST_START_TEST (test_quantize_keeps)
{
  const gchar *pipelines[] = { "sarquantize",
    "clupload ! sarquantize ! cldownload", NULL
  };

  for (int i = 0; pipelines[i]; i++) {
    GstBuffer *out = push_geo_frame (pipelines[i]);

    assert_geotransform (out, in_gt);
    for (int g = 0; g < 2; g++)
      assert_gcp_at (out, g, in_gcps[g].pixel, in_gcps[g].line);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* After sarrotscale, the centre of output pixel (xo, yo) is on the ground
 * where the sampling point (xs, ys) of element-sarrotscale is in the
 * input; a GCP moves to the output point whose sampling point it is. */
GST_START_TEST (test_rotscale)
{
  const double angle = 90, scale = 2;
  const int ow = 20, oh = 30;
  gchar *pipeline = g_strdup_printf ("sarrotscale angle=%g scale=%g "
      "width=%d height=%d", angle, scale, ow, oh);
  GstBuffer *out = push_geo_frame (pipeline);
  const gdouble *g = gst_buffer_get_clv_geo_meta (out)->geotransform;
  const double a = angle * G_PI / 180;

  for (int yo = 0; yo < oh; yo += 29) {
    for (int xo = 0; xo < ow; xo += 19) {
      const double u = (xo - (ow - 1) / 2.0) / scale;
      const double v = (yo - (oh - 1) / 2.0) / scale;
      const double xs = u * cos (a) - v * sin (a) + (W - 1) / 2.0 + 0.5;
      const double ys = u * sin (a) + v * cos (a) + (H - 1) / 2.0 + 0.5;
      const double gx = g[0] + (xo + 0.5) * g[1] + (yo + 0.5) * g[2];
      const double gy = g[3] + (xo + 0.5) * g[4] + (yo + 0.5) * g[5];

      fail_unless (fabs (gx - (in_gt[0] + xs * in_gt[1])) < 1e-6
          && fabs (gy - (in_gt[3] + ys * in_gt[5])) < 1e-6,
          "output (%d, %d) at (%g, %g), input sample at (%g, %g)", xo, yo,
          gx, gy, in_gt[0] + xs * in_gt[1], in_gt[3] + ys * in_gt[5]);
    }
  }
  for (int i = 0; i < 2; i++) {
    const double du = in_gcps[i].pixel - 0.5 - (W - 1) / 2.0;
    const double dv = in_gcps[i].line - 0.5 - (H - 1) / 2.0;
    const double u = du * cos (a) + dv * sin (a);
    const double v = -du * sin (a) + dv * cos (a);

    assert_gcp_at (out, i, u * scale + (ow - 1) / 2.0 + 0.5,
        v * scale + (oh - 1) / 2.0 + 0.5);
  }
  gst_buffer_unref (out);
  g_free (pipeline);
}

GST_END_TEST;

/* videoscale maps it through GstVideoMetaTransform ("gst-video-scale"). */
GST_START_TEST (test_videoscale)
{
  const gdouble expected[6] = { 1000, 20, 0, 2000, 0, -40 };
  GstBuffer *out = push_geo_frame ("videoscale ! "
      "capsfilter caps=video/x-raw,width=6,height=2");

  assert_geotransform (out, expected);
  for (int g = 0; g < 2; g++)
    assert_gcp_at (out, g, in_gcps[g].pixel / 2, in_gcps[g].line * 2 / 8);
  gst_buffer_unref (out);
}

GST_END_TEST;

static Suite *
geometa_suite (void)
{
  Suite *s = suite_create ("geometa");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_multilook);
  tcase_add_test (tc, test_quantize_keeps);
  tcase_add_test (tc, test_rotscale);
  tcase_add_test (tc, test_videoscale);
  return s;
}

GST_CHECK_MAIN (geometa);
