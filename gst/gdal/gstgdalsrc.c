/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-gdalsrc
 * @title: gdalsrc
 *
 * Reads one band of any raster GDAL opens (GeoTIFF, CEOS, ENVI, VRT, …)
 * and pushes it as one frame, then EOS, with its georeferencing as a
 * GstClvGeoMeta (geotransform and WKT spatial reference).
 *
 * Time series: `band=0` pushes every band of the raster, one frame each, in
 * order; a `location` with a printf pattern (`scene-%03d.tif`, as
 * multifilesrc) reads the files `start-index`, `start-index` + 1, … up to
 * `stop-index` (-1: until a file is missing), each one frame per band.  Frame
 * n has offset n and timestamp n seconds; the caps change between frames
 * only when the size or type does.
 *
 * Byte bands become GRAY8 and UInt16 bands GRAY16_LE, value for value.
 * Every other type (Int16, Int32, UInt32, Float32, Float64 and the complex
 * CInt16, CInt32, CFloat32, CFloat64) becomes GRAY16_LE by this rule:
 *
 * 1. complex pixels are detected first: `detection=amplitude` gives |z|,
 *    `intensity` gives |z|²; real pixels are taken as they are;
 * 2. `scaling=linear`: out = v × `scale`;
 *    `scaling=db`: out = (10 log10 v − `db-min`) / (`db-max` − `db-min`) ×
 *    65535 (so `db-min` maps to 0 and `db-max` to 65535; use
 *    `detection=intensity` for power dB);
 * 3. rounded to nearest (halves up) and clipped to 0 … 65535.
 *
 * Clipping is never silent: pixels below 0 or above 65535 before
 * clipping, NaN, and (for dB) values ≤ 0 are counted.  The count is the
 * `clipped-pixels` property, an element message `gdalsrc-conversion`
 * (`clipped-pixels`, `total-pixels`, guint64) after every converted frame,
 * and a warning on the bus when it is not 0.
 *
 * The band is read strip by strip of GDAL blocks through GDAL's block cache,
 * straight into the output buffer for GRAY8 / GRAY16_LE bands; converted
 * types go through one strip of doubles, never a full-size copy.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=scene.tif ! sarmultilook looks=4 ! \
 *     gdalsink location=multilooked.tif
 * ]|
 */
/* GDAL's VSIStatBufL is glibc's struct stat64. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gdal.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gst/clvision/clvision.h>

#include "gstgdalsrc.h"

GST_DEBUG_CATEGORY_STATIC (gst_gdal_src_debug);
#define GST_CAT_DEFAULT gst_gdal_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_BAND 1
#define DEFAULT_SCALING GST_GDAL_SRC_SCALING_LINEAR
#define DEFAULT_SCALE 1.0
#define DEFAULT_DB_MIN -25.0
#define DEFAULT_DB_MAX 5.0
#define DEFAULT_DETECTION GST_GDAL_SRC_DETECTION_AMPLITUDE
#define DEFAULT_START_INDEX 0
#define DEFAULT_STOP_INDEX -1

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_BAND,
  PROP_SCALING,
  PROP_SCALE,
  PROP_DB_MIN,
  PROP_DB_MAX,
  PROP_DETECTION,
  PROP_CLIPPED_PIXELS,
  PROP_START_INDEX,
  PROP_STOP_INDEX,
};

struct _GstGdalSrc
{
  GstBaseSrc parent;

  /* properties, under the object lock */
  gchar *location;
  gint band;
  GstGdalSrcScaling scaling;
  gdouble scale;
  gdouble db_min, db_max;
  GstGdalSrcDetection detection;
  guint64 clipped;
  gint start_index, stop_index;

  /* streaming */
  gchar *pattern;               /* location; a printf pattern if is_pattern */
  gboolean is_pattern;
  gint all_bands;               /* band=0 */
  gint file_index;              /* the file being read */
  gint band_index;              /* the band of the next frame */
  guint64 frame_index;
  GDALDatasetH dataset;
  GDALRasterBandH raster_band;
  GDALDataType type;
  GstVideoInfo info;             /* of the next frame */
  GstVideoInfo caps_info;        /* of the current caps */
};

G_DEFINE_TYPE_WITH_CODE (GstGdalSrc, gst_gdal_src, GST_TYPE_BASE_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_gdal_src_debug, "gdalsrc", 0,
        "GDAL raster source"));
GST_ELEMENT_REGISTER_DEFINE (gdalsrc, "gdalsrc", GST_RANK_NONE,
    GST_TYPE_GDAL_SRC);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ GRAY8, GRAY16_LE }")));

GType
gst_gdal_src_scaling_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GDAL_SRC_SCALING_LINEAR, "value x scale", "linear"},
    {GST_GDAL_SRC_SCALING_DB, "10 log10 value from db-min (0) to db-max "
          "(65535)", "db"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstGdalSrcScaling", values));
  return type;
}

GType
gst_gdal_src_detection_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GDAL_SRC_DETECTION_AMPLITUDE, "|z|", "amplitude"},
    {GST_GDAL_SRC_DETECTION_INTENSITY, "|z| squared", "intensity"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstGdalSrcDetection", values));
  return type;
}

/* The conversion rule of the properties, fixed for one frame. */
typedef struct
{
  GstGdalSrcScaling scaling;
  gdouble scale, db_min, db_max;
  GstGdalSrcDetection detection;
} Conversion;

/* One value by the rule; *clipped counts what did not fit. */
static inline guint16
convert_value (const Conversion * c, gdouble v, guint64 * clipped)
{
  gdouble out;

  if (c->scaling == GST_GDAL_SRC_SCALING_DB)
    out = v > 0 ? (10.0 * log10 (v) - c->db_min) / (c->db_max - c->db_min)
        * 65535.0 : -1.0;
  else
    out = v * c->scale;
  out = floor (out + 0.5);
  if (!(out >= 0.0 && out <= 65535.0)) {
    (*clipped)++;
    return out > 65535.0 ? 65535 : 0;
  }
  return (guint16) out;
}

/* Converts `n` values of a strip (doubles, or pairs for complex). */
static void
convert_strip (const Conversion * c, const gdouble * in, gboolean complex,
    guint16 * out, gsize n, guint64 * clipped)
{
  for (gsize i = 0; i < n; i++) {
    gdouble v = in[i];

    if (complex) {
      const gdouble re = in[2 * i], im = in[2 * i + 1];
      v = re * re + im * im;
      if (c->detection == GST_GDAL_SRC_DETECTION_AMPLITUDE)
        v = sqrt (v);
    }
    out[i] = convert_value (c, v, clipped);
  }
}

/* Whether `location` is a printf pattern of one integer (multifilesrc's
 * rule): a '%' that is not "%%". */
static gboolean
is_printf_pattern (const gchar * location)
{
  for (const gchar * p = strchr (location, '%'); p; p = strchr (p + 2, '%'))
    if (p[1] != '%')
      return TRUE;
  return FALSE;
}

/* The file of `index` in the list (g_free it). */
static gchar *
file_name (GstGdalSrc * self, gint index)
{
  if (!self->is_pattern)
    return g_strdup (self->pattern);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return g_strdup_printf (self->pattern, index);
#pragma GCC diagnostic pop
}

/* Opens `location` for reading; FALSE after posting the error. */
static gboolean
open_dataset (GstGdalSrc * self, const gchar * location)
{
  gint bands;

  VSIStatBufL file_stat;

  /* GDAL's reason goes to the error's debug part, not to stderr. */
  CPLErrorReset ();
  CPLPushErrorHandler (CPLQuietErrorHandler);
  self->dataset = GDALOpenEx (location, GDAL_OF_RASTER | GDAL_OF_READONLY |
      GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
  CPLPopErrorHandler ();
  /* Names that are not files (NETCDF:f.nc:var) can open; a file can't
   * open if it is not there. */
  if (self->dataset == NULL && VSIStatL (location, &file_stat) != 0)
    goto no_such_file;
  if (self->dataset == NULL)
    goto not_raster;
  bands = GDALGetRasterCount (self->dataset);
  if (bands == 0 || self->band_index > bands)
    goto no_band;
  return TRUE;

  /* ERRORS */
no_such_file:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No such file: \"%s\"", location),
        ("GDAL: %s", CPLGetLastErrorMsg ()));
    return FALSE;
  }
not_raster:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("\"%s\" is not a raster that GDAL can open", location),
        ("GDAL: %s", CPLGetLastErrorMsg ()));
    return FALSE;
  }
no_band:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("\"%s\" has no band %d: it has %d band%s (band counts from 1)",
            location, MAX (self->band_index, 1), bands,
            bands == 1 ? "" : "s"), (NULL));
    g_clear_pointer (&self->dataset, GDALClose);
    return FALSE;
  }
}

/* Selects band `band_index` of the open dataset for the next frame: its
 * type and frame info.  FALSE after posting the error. */
static gboolean
select_band (GstGdalSrc * self)
{
  const gint width = GDALGetRasterXSize (self->dataset);
  const gint height = GDALGetRasterYSize (self->dataset);
  GstVideoFormat format;

  self->raster_band = GDALGetRasterBand (self->dataset, self->band_index);
  self->type = GDALGetRasterDataType (self->raster_band);
  format = self->type == GDT_Byte ? GST_VIDEO_FORMAT_GRAY8 :
      GST_VIDEO_FORMAT_GRAY16_LE;
  if (!gst_video_info_set_format (&self->info, format, width, height))
    goto too_large;
  GST_VIDEO_INFO_FPS_N (&self->info) = 0;
  GST_VIDEO_INFO_FPS_D (&self->info) = 1;
  GST_INFO_OBJECT (self, "band %d: %dx%d %s -> %s", self->band_index, width,
      height, GDALGetDataTypeName (self->type),
      GST_VIDEO_INFO_NAME (&self->info));
  return TRUE;

  /* ERRORS */
too_large:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The %dx%d raster is too large for one video frame", width, height),
        (NULL));
    return FALSE;
  }
}

/* Opens the first file of the list at its first band to read.  FALSE
 * after posting the error. */
static gboolean
open_first (GstGdalSrc * self)
{
  gchar *first = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  g_free (self->pattern);
  self->pattern = g_strdup (self->location);
  self->all_bands = self->band == 0;
  self->band_index = MAX (self->band, 1);
  self->file_index = self->start_index;
  self->clipped = 0;
  GST_OBJECT_UNLOCK (self);

  if (self->pattern == NULL || self->pattern[0] == '\0')
    goto no_location;
  self->is_pattern = is_printf_pattern (self->pattern);
  self->frame_index = 0;
  first = file_name (self, self->file_index);
  ok = open_dataset (self, first) && select_band (self);
  g_free (first);
  if (!ok)
    g_clear_pointer (&self->dataset, GDALClose);
  return ok;

  /* ERRORS */
no_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name given: set the location property"), (NULL));
    return FALSE;
  }
}

static gboolean
gst_gdal_src_start (GstBaseSrc * src)
{
  return open_first (GST_GDAL_SRC (src));
}

/* GstBaseSrc posts a generic error of its own after any failed start: the
 * first file is opened in NULL->READY too, so that a bad location fails
 * there with one error, ours. */
static GstStateChangeReturn
gst_gdal_src_change_state (GstElement * element, GstStateChange transition)
{
  GstGdalSrc *self = GST_GDAL_SRC (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    if (!open_first (self))
      return GST_STATE_CHANGE_FAILURE;
    g_clear_pointer (&self->dataset, GDALClose);
  }
  return GST_ELEMENT_CLASS (gst_gdal_src_parent_class)->change_state (element,
      transition);
}

/* Moves to the band of the next frame, opening the next file of the list
 * where the last one is done.  FALSE at the end of the list, or after
 * posting an error (then *error_posted). */
static gboolean
next_frame_band (GstGdalSrc * self, gboolean * error_posted)
{
  gchar *next;
  gint stop_index;
  gboolean ok;

  *error_posted = FALSE;
  if (self->all_bands
      && self->band_index < GDALGetRasterCount (self->dataset)) {
    self->band_index++;
    return (*error_posted = !select_band (self)) == FALSE;
  }
  g_clear_pointer (&self->dataset, GDALClose);
  GST_OBJECT_LOCK (self);
  stop_index = self->stop_index;
  GST_OBJECT_UNLOCK (self);
  if (!self->is_pattern || (stop_index >= 0
          && self->file_index >= stop_index))
    return FALSE;
  self->file_index++;
  next = file_name (self, self->file_index);
  /* Without a stop-index, the first missing file ends the list. */
  if (stop_index < 0 && !g_file_test (next, G_FILE_TEST_EXISTS)) {
    g_free (next);
    return FALSE;
  }
  self->band_index = self->all_bands ? 1 : self->band_index;
  ok = open_dataset (self, next) && select_band (self);
  g_free (next);
  *error_posted = !ok;
  return ok;
}

static gboolean
gst_gdal_src_stop (GstBaseSrc * src)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);

  g_clear_pointer (&self->dataset, GDALClose);
  self->raster_band = NULL;
  g_clear_pointer (&self->pattern, g_free);
  return TRUE;
}

static GstCaps *
gst_gdal_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);
  GstCaps *caps;

  if (self->dataset)
    caps = gst_video_info_to_caps (&self->info);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

/* Reads rows [y0, y0 + rows) of the band into `frame`: GDAL blocks through
 * its cache, in the output type or through `strip` for converted types. */
static CPLErr
read_rows (GstGdalSrc * self, GstVideoFrame * frame, gint y0, gint rows,
    gdouble * strip, const Conversion * conv, guint64 * clipped)
{
  const gint width = GST_VIDEO_FRAME_WIDTH (frame);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  guint8 *dst = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0) +
      (gsize) y0 * stride;
  const gboolean complex = GDALDataTypeIsComplex (self->type);
  CPLErr err;

  if (self->type == GDT_Byte || self->type == GDT_UInt16)
    return GDALRasterIO (self->raster_band, GF_Read, 0, y0, width, rows, dst,
        width, rows, self->type, 0, stride);
  err = GDALRasterIO (self->raster_band, GF_Read, 0, y0, width, rows, strip,
      width, rows, complex ? GDT_CFloat64 : GDT_Float64, 0, 0);
  if (err != CE_None)
    return err;
  for (gint r = 0; r < rows; r++)
    convert_strip (conv, strip + (gsize) r * width * (complex ? 2 : 1),
        complex, (guint16 *) (dst + (gsize) r * stride), width, clipped);
  return CE_None;
}

static void
post_conversion (GstGdalSrc * self, guint64 clipped, guint64 total)
{
  GST_OBJECT_LOCK (self);
  self->clipped = clipped;
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "clipped-pixels");
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("gdalsrc-conversion", "clipped-pixels",
              G_TYPE_UINT64, clipped, "total-pixels", G_TYPE_UINT64, total,
              NULL)));
  if (clipped > 0)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " pixels were outside "
            "0..65535 after conversion and were clipped; adjust scale or "
            "db-min/db-max", clipped, total), (NULL));
}

static GstFlowReturn
gst_gdal_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);
  gint width, height;
  gboolean converted;
  Conversion conv;
  GstBuffer *buf;
  GstVideoFrame frame;
  gdouble *strip = NULL;
  gdouble gt[6];
  gint block_w, block_h;
  guint64 clipped = 0;
  GstCaps *caps;
  gboolean error_posted, ok;

  if (self->dataset == NULL)
    return GST_FLOW_EOS;
  if (self->frame_index > 0 && !next_frame_band (self, &error_posted))
    return error_posted ? GST_FLOW_ERROR : GST_FLOW_EOS;
  /* A frame of another size or type than the last one: new caps. */
  if (self->frame_index > 0
      && !gst_video_info_is_equal (&self->info, &self->caps_info)) {
    caps = gst_video_info_to_caps (&self->info);
    ok = gst_base_src_set_caps (src, caps);
    gst_caps_unref (caps);
    if (!ok)
      goto not_negotiated;
  }
  self->caps_info = self->info;
  width = GST_VIDEO_INFO_WIDTH (&self->info);
  height = GST_VIDEO_INFO_HEIGHT (&self->info);
  converted = self->type != GDT_Byte && self->type != GDT_UInt16;

  GST_OBJECT_LOCK (self);
  conv.scaling = self->scaling;
  conv.scale = self->scale;
  conv.db_min = self->db_min;
  conv.db_max = self->db_max;
  conv.detection = self->detection;
  GST_OBJECT_UNLOCK (self);

  /* From downstream's pool where it offers one (clupload's pinned memory):
   * the blocks are then read straight into what is uploaded. */
  if (GST_BASE_SRC_CLASS (gst_gdal_src_parent_class)->alloc (src, offset,
          GST_VIDEO_INFO_SIZE (&self->info), &buf) != GST_FLOW_OK)
    goto no_memory;
  if (!gst_video_frame_map (&frame, &self->info, buf, GST_MAP_WRITE))
    goto map_failed;

  /* Whole rows of blocks: each block is decoded once, into its place. */
  GDALGetBlockSize (self->raster_band, &block_w, &block_h);
  block_h = CLAMP (block_h, 1, height);
  if (converted)
    strip = g_try_malloc_n ((gsize) width * block_h,
        GDALDataTypeIsComplex (self->type) ? 2 * sizeof (gdouble) :
        sizeof (gdouble));
  if (converted && strip == NULL)
    goto no_memory_mapped;
  CPLErrorReset ();
  for (gint y = 0; y < height; y += block_h)
    if (read_rows (self, &frame, y, MIN (block_h, height - y), strip, &conv,
            &clipped) != CE_None)
      goto read_failed;
  g_free (strip);
  gst_video_frame_unmap (&frame);

  if (GDALGetGeoTransform (self->dataset, gt) == CE_None)
    gst_buffer_add_clv_geo_meta (buf, gt,
        GDALGetProjectionRef (self->dataset));
  GST_BUFFER_PTS (buf) = self->frame_index * GST_SECOND;
  GST_BUFFER_OFFSET (buf) = self->frame_index;
  self->frame_index++;
  if (converted)
    post_conversion (self, clipped, (guint64) width * height);
  *out = buf;
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the %dx%d %s frames of band %d of file "
            "%d", GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info),
            GST_VIDEO_INFO_NAME (&self->info),
            self->band_index, self->file_index), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a %dx%d %s frame (%" G_GSIZE_FORMAT " bytes)",
            width, height, GST_VIDEO_INFO_NAME (&self->info),
            GST_VIDEO_INFO_SIZE (&self->info)), (NULL));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map a frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
no_memory_mapped:
  {
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a strip of %d x %d pixels", width, block_h),
        (NULL));
    return GST_FLOW_ERROR;
  }
read_failed:
  {
    g_free (strip);
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not read the raster"), ("GDAL: %s", CPLGetLastErrorMsg ()));
    return GST_FLOW_ERROR;
  }
}

static void
gst_gdal_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGdalSrc *self = GST_GDAL_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_BAND:
      self->band = g_value_get_int (value);
      break;
    case PROP_SCALING:
      self->scaling = g_value_get_enum (value);
      break;
    case PROP_SCALE:
      self->scale = g_value_get_double (value);
      break;
    case PROP_DB_MIN:
      self->db_min = g_value_get_double (value);
      break;
    case PROP_DB_MAX:
      self->db_max = g_value_get_double (value);
      break;
    case PROP_DETECTION:
      self->detection = g_value_get_enum (value);
      break;
    case PROP_START_INDEX:
      self->start_index = g_value_get_int (value);
      break;
    case PROP_STOP_INDEX:
      self->stop_index = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gdal_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstGdalSrc *self = GST_GDAL_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_BAND:
      g_value_set_int (value, self->band);
      break;
    case PROP_SCALING:
      g_value_set_enum (value, self->scaling);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_DB_MIN:
      g_value_set_double (value, self->db_min);
      break;
    case PROP_DB_MAX:
      g_value_set_double (value, self->db_max);
      break;
    case PROP_DETECTION:
      g_value_set_enum (value, self->detection);
      break;
    case PROP_CLIPPED_PIXELS:
      g_value_set_uint64 (value, self->clipped);
      break;
    case PROP_START_INDEX:
      g_value_set_int (value, self->start_index);
      break;
    case PROP_STOP_INDEX:
      g_value_set_int (value, self->stop_index);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gdal_src_finalize (GObject * object)
{
  GstGdalSrc *self = GST_GDAL_SRC (object);

  g_free (self->location);
  g_free (self->pattern);
  G_OBJECT_CLASS (gst_gdal_src_parent_class)->finalize (object);
}

static void
gst_gdal_src_class_init (GstGdalSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *src_class = GST_BASE_SRC_CLASS (klass);
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_gdal_src_set_property;
  gobject_class->get_property = gst_gdal_src_get_property;
  gobject_class->finalize = gst_gdal_src_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "The raster to read (any name GDAL opens)", DEFAULT_LOCATION,
          ready));
  g_object_class_install_property (gobject_class, PROP_BAND,
      g_param_spec_int ("band", "Band", "The band to read, from 1; 0: "
          "every band, one frame each", 0, G_MAXINT, DEFAULT_BAND, ready));
  g_object_class_install_property (gobject_class, PROP_START_INDEX,
      g_param_spec_int ("start-index", "Start index",
          "A printf-pattern location: the index of the first file", 0,
          G_MAXINT, DEFAULT_START_INDEX, ready));
  g_object_class_install_property (gobject_class, PROP_STOP_INDEX,
      g_param_spec_int ("stop-index", "Stop index",
          "A printf-pattern location: the index of the last file (-1: "
          "until a file is missing)", -1, G_MAXINT, DEFAULT_STOP_INDEX,
          ready));
  g_object_class_install_property (gobject_class, PROP_SCALING,
      g_param_spec_enum ("scaling", "Scaling",
          "How types other than Byte and UInt16 map to GRAY16_LE",
          GST_TYPE_GDAL_SRC_SCALING, DEFAULT_SCALING, ready));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "scaling=linear: output = value x scale", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_SCALE, ready));
  g_object_class_install_property (gobject_class, PROP_DB_MIN,
      g_param_spec_double ("db-min", "dB minimum",
          "scaling=db: the dB value that maps to 0", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_DB_MIN, ready));
  g_object_class_install_property (gobject_class, PROP_DB_MAX,
      g_param_spec_double ("db-max", "dB maximum",
          "scaling=db: the dB value that maps to 65535", -G_MAXDOUBLE,
          G_MAXDOUBLE, DEFAULT_DB_MAX, ready));
  g_object_class_install_property (gobject_class, PROP_DETECTION,
      g_param_spec_enum ("detection", "Detection",
          "Complex pixels: amplitude |z| or intensity |z|^2",
          GST_TYPE_GDAL_SRC_DETECTION, DEFAULT_DETECTION, ready));
  g_object_class_install_property (gobject_class, PROP_CLIPPED_PIXELS,
      g_param_spec_uint64 ("clipped-pixels", "Clipped pixels",
          "Pixels of the last converted frame outside 0..65535 (or NaN, or "
          "<= 0 in dB), clipped", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "GDAL raster source",
      "Source/Video", "Reads one band of a GDAL raster as one georeferenced "
      "GRAY8 or GRAY16_LE frame", "clvision developers");

  element_class->change_state = gst_gdal_src_change_state;
  src_class->start = gst_gdal_src_start;
  src_class->stop = gst_gdal_src_stop;
  src_class->get_caps = gst_gdal_src_get_caps;
  src_class->create = gst_gdal_src_create;

  gst_type_mark_as_plugin_api (GST_TYPE_GDAL_SRC_SCALING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GDAL_SRC_DETECTION, 0);
}

static void
gst_gdal_src_init (GstGdalSrc * self)
{
  self->band = DEFAULT_BAND;
  self->scaling = DEFAULT_SCALING;
  self->scale = DEFAULT_SCALE;
  self->db_min = DEFAULT_DB_MIN;
  self->db_max = DEFAULT_DB_MAX;
  self->detection = DEFAULT_DETECTION;
  self->start_index = DEFAULT_START_INDEX;
  self->stop_index = DEFAULT_STOP_INDEX;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
