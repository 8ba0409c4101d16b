/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-gdalsrc
 * @title: gdalsrc
 *
 * Reads a raster that GDAL opens (GeoTIFF, CEOS, ENVI, VRT, a Sentinel-1
 * SAFE, …) and pushes it as one frame, then EOS, with its georeferencing
 * as a GstClvGeoMeta: geotransform, ground control points (GCPs) and their
 * spatial reference systems.
 *
 * Samples keep their type, value for value: one band of Byte is GRAY8 and
 * one of UInt16 GRAY16_LE video; every other type (Int16, Int32, UInt32,
 * Float32, Float64, CInt16, CInt32, CFloat32, CFloat64) is an
 * application/x-raster frame of that format, with the band's no-data value
 * as its `nodata` field.  Nothing is converted, clipped or rounded.
 *
 * `band=N` reads band N (from 1).  `band=0` reads every band into one frame,
 * interleaved by pixel, in the smallest type that holds all of them
 * (GDALDataTypeUnion: no value changes); two real bands described as I and
 * Q (band descriptions "I" and "Q", or SNAP's "i_…" and "q_…") become one
 * band of complex samples (Float32 pairs as CFloat32, Int16 pairs as
 * CInt16, …).  Types that clvision does not carry (64-bit integers) are
 * refused with a message that says so.
 *
 * Time series: a `location` with a printf pattern (`scene-%03d.tif`, as
 * multifilesrc) reads the files `start-index`, `start-index` + 1, … up to
 * `stop-index` (-1: until a file is missing), one frame each.  Frame n has
 * offset n and timestamp n seconds; the caps change between frames only
 * when the size or type does.
 *
 * The raster is read strip by strip of GDAL blocks through GDAL's block
 * cache, straight into the output buffer.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=sigma0.tif ! sarspeckle filter=lee ! \
 *     sardb ! gdalsink location=sigma0-db.tif
 * ]|
 */
/* GDAL's VSIStatBufL is glibc's struct stat64. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gdal.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gst/clvision/clvision.h>

#include "gstgdalsrc.h"
#include "gstgdalraster.h"

GST_DEBUG_CATEGORY_STATIC (gst_gdal_src_debug);
#define GST_CAT_DEFAULT gst_gdal_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_BAND 1
#define DEFAULT_START_INDEX 0
#define DEFAULT_STOP_INDEX -1

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_BAND,
  PROP_START_INDEX,
  PROP_STOP_INDEX,
};

struct _GstGdalSrc
{
  GstBaseSrc parent;

  /* properties, under the object lock */
  gchar *location;
  gint band;
  gint start_index, stop_index;

  /* streaming */
  gchar *pattern;               /* location; a printf pattern if is_pattern */
  gboolean is_pattern;
  gint file_index;              /* the file being read */
  guint64 frame_index;
  GDALDatasetH dataset;
  gint bands[2];                /* the bands read (band=0: all, or I and Q) */
  gint n_bands;                 /* into one frame of `info` */
  gboolean all_bands;           /* band=0: every band of the dataset */
  GDALDataType read_type;       /* the type GDAL writes into the frame */
  GstClvRasterInfo info;        /* of the next frame */
  GstCaps *caps;                /* the current caps */
  GstVideoInfo layout;          /* their frames' bytes */
};

G_DEFINE_TYPE_WITH_CODE (GstGdalSrc, gst_gdal_src, GST_TYPE_BASE_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_gdal_src_debug, "gdalsrc", 0,
        "GDAL raster source"));
GST_ELEMENT_REGISTER_DEFINE (gdalsrc, "gdalsrc", GST_RANK_NONE,
    GST_TYPE_GDAL_SRC);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ GRAY8, GRAY16_LE }") "; "
        GST_CLV_RASTER_CAPS_MAKE (GST_CLV_RASTER_FORMATS_ALL)));

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
  VSIStatBufL file_stat;
  gint bands;

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
  if (bands == 0 || self->band > bands)
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
            location, self->band, bands,
            bands == 1 ? "" : "s"), (NULL));
    g_clear_pointer (&self->dataset, GDALClose);
    return FALSE;
  }
}

/* Whether `desc`, a band's description, marks an I (`part` 'i') or Q band:
 * "I" / "Q", or SNAP's "i_VV" / "q_VV". */
static gboolean
describes_part (const gchar * desc, gchar part)
{
  return g_ascii_tolower (desc[0]) == part && (desc[1] == '\0'
      || desc[1] == '_');
}

/* The complex type of I/Q bands of `type`, or GDT_Unknown if they are not
 * a real pair. */
static GDALDataType
iq_complex_type (GDALDatasetH ds)
{
  GDALRasterBandH i, q;
  GDALDataType t;

  if (GDALGetRasterCount (ds) != 2)
    return GDT_Unknown;
  i = GDALGetRasterBand (ds, 1);
  q = GDALGetRasterBand (ds, 2);
  t = GDALDataTypeUnion (GDALGetRasterDataType (i),
      GDALGetRasterDataType (q));
  if (GDALDataTypeIsComplex (t)
      || !describes_part (GDALGetDescription (i), 'i')
      || !describes_part (GDALGetDescription (q), 'q'))
    return GDT_Unknown;
  /* The smallest complex type holding both parts (Byte: CInt16). */
  return GDALDataTypeUnion (t, GDT_CInt16);
}

/* The type all of the bands read hold: their union. */
static GDALDataType
bands_union_type (GstGdalSrc * self)
{
  GDALDataType t = GDT_Unknown;

  for (gint b = 1; b <= GDALGetRasterCount (self->dataset); b++)
    if (self->all_bands || b == self->band)
      t = t == GDT_Unknown ? GDALGetRasterDataType (GDALGetRasterBand
          (self->dataset, b)) : GDALDataTypeUnion (t, GDALGetRasterDataType
          (GDALGetRasterBand (self->dataset, b)));
  return t;
}

/* The no-data value of the bands read into info, if they share one. */
static void
read_nodata (GstGdalSrc * self)
{
  const gint first = self->all_bands ? 1 : self->band;
  const gint last = self->all_bands ? GDALGetRasterCount (self->dataset) :
      self->band;
  int has;
  gdouble v = GDALGetRasterNoDataValue (GDALGetRasterBand (self->dataset,
          first), &has);

  for (gint b = first + 1; has && b <= last; b++) {
    int has_b;
    gdouble vb = GDALGetRasterNoDataValue (GDALGetRasterBand (self->dataset,
            b), &has_b);
    /* NaN marks no data as well as NaN does. */
    has = has_b && (vb == v || (vb != vb && v != v));
  }
  self->info.has_nodata = has;
  self->info.nodata = v;
}

/* Whether GStreamer can describe a frame holding `info`: GstVideoInfo
 * takes no frame of 4 GiB or more, nor a row of more than G_MAXINT bytes. */
static gboolean
frame_describable (const GstClvRasterInfo * info)
{
  GstCaps *caps = gst_gdal_frame_caps (info);
  GstVideoInfo layout;
  gboolean ok = gst_clv_raster_info_size (info) > 0
      && gst_clv_frame_layout_from_caps (&layout, caps);

  gst_caps_unref (caps);
  return ok;
}

/* The frame of the open dataset: its type, bands and size.  FALSE after
 * posting the error. */
static gboolean
describe_frame (GstGdalSrc * self)
{
  const gint width = GDALGetRasterXSize (self->dataset);
  const gint height = GDALGetRasterYSize (self->dataset);
  const GDALDataType iq = self->all_bands ? iq_complex_type (self->dataset) :
      GDT_Unknown;
  GDALDataType type;
  GstClvRasterFormat format;
  gint bands;

  if (iq != GDT_Unknown) {
    type = iq;
    bands = 1;
    /* The parts are read as the real type into pairs. */
    self->read_type = GDALGetNonComplexDataType (iq);
    self->n_bands = 2;
  } else {
    type = self->read_type = bands_union_type (self);
    bands = self->n_bands = self->all_bands ?
        GDALGetRasterCount (self->dataset) : 1;
  }
  format = gst_gdal_raster_format (type);
  if (format == GST_CLV_RASTER_FORMAT_UNKNOWN)
    goto unsupported_type;
  gst_clv_raster_info_init (&self->info, format, width, height, bands);
  read_nodata (self);
  if (!frame_describable (&self->info))
    goto too_large;
  GST_INFO_OBJECT (self, "%dx%d, %d band(s) of %s, %d band(s) read as %s",
      width, height, bands, GDALGetDataTypeName (type), self->n_bands,
      GDALGetDataTypeName (self->read_type));
  return TRUE;

  /* ERRORS */
unsupported_type:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s samples are not supported; convert them with gdal_translate "
            "-ot Float64 (or another type) first", GDALGetDataTypeName (type)),
        (NULL));
    return FALSE;
  }
too_large:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The %dx%d raster of %d band(s) of %s needs %" G_GUINT64_FORMAT
            " bytes, more than one frame holds (under 4 GiB): read one band "
            "(band=N) or a part of it (gdal_translate -srcwin, a VRT)",
            width, height, bands, GDALGetDataTypeName (type),
            (guint64) width * height * bands *
            gst_clv_raster_format_sample_size (format)), (NULL));
    return FALSE;
  }
}

/* Opens the first file of the list and describes its frame.  FALSE after
 * posting the error. */
static gboolean
open_first (GstGdalSrc * self)
{
  gchar *first = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  g_free (self->pattern);
  self->pattern = g_strdup (self->location);
  self->all_bands = self->band == 0;
  self->file_index = self->start_index;
  GST_OBJECT_UNLOCK (self);

  if (self->pattern == NULL || self->pattern[0] == '\0')
    goto no_location;
  self->is_pattern = gst_gdal_is_printf_pattern (self->pattern);
  self->frame_index = 0;
  first = file_name (self, self->file_index);
  ok = open_dataset (self, first) && describe_frame (self);
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

/* Opens the next file of the list.  FALSE at the end of the list, or after
 * posting an error (then *error_posted). */
static gboolean
next_file (GstGdalSrc * self, gboolean * error_posted)
{
  gchar *next;
  gint stop_index;
  gboolean ok;

  *error_posted = FALSE;
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
  ok = open_dataset (self, next) && describe_frame (self);
  g_free (next);
  *error_posted = !ok;
  return ok;
}

static gboolean
gst_gdal_src_stop (GstBaseSrc * src)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);

  g_clear_pointer (&self->dataset, GDALClose);
  g_clear_pointer (&self->pattern, g_free);
  gst_clear_caps (&self->caps);
  return TRUE;
}

static GstCaps *
gst_gdal_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);
  GstCaps *caps;

  if (self->dataset)
    caps = gst_gdal_frame_caps (&self->info);
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

/* Reads rows [y0, y0 + rows) of the bands into `dst` (rows `stride` bytes
 * apart), GDAL blocks through its cache. */
static CPLErr
read_rows (GstGdalSrc * self, guint8 * dst, gsize stride, gint y0, gint rows)
{
  const gint width = self->info.width;
  const gint sample = GDALGetDataTypeSizeBytes (self->read_type);
  int band_list[2];
  int *bands = NULL;

  if (!self->all_bands) {
    band_list[0] = self->band;
    bands = band_list;
  }
  /* Pixel-interleaved: the bands' samples of a pixel follow each other. */
  return GDALDatasetRasterIO (self->dataset, GF_Read, 0, y0, width, rows,
      dst + (gsize) y0 * stride, width, rows, self->read_type,
      self->n_bands, bands, (GSpacing) sample * self->n_bands, stride,
      sample);
}

/* Sets the caps of the next frame where they change.  FALSE after posting
 * the error. */
static gboolean
update_caps (GstGdalSrc * self)
{
  GstCaps *caps = gst_gdal_frame_caps (&self->info);

  if (self->caps && gst_caps_is_equal (caps, self->caps)) {
    gst_caps_unref (caps);
    return TRUE;
  }
  gst_caps_replace (&self->caps, caps);
  gst_caps_unref (caps);
  if (!gst_clv_frame_layout_from_caps (&self->layout, self->caps))
    g_return_val_if_reached (FALSE);
  if (self->frame_index == 0
      || gst_base_src_set_caps (GST_BASE_SRC (self), self->caps))
    return TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Downstream does not accept the %dx%d frames of %d band(s) of %s of "
          "file %d", self->info.width, self->info.height, self->info.bands,
          gst_clv_raster_format_to_string (self->info.format),
          self->file_index), ("caps %" GST_PTR_FORMAT, self->caps));
  return FALSE;
}

/* Fills `buf` with the frame.  FALSE after posting the error. */
static gboolean
fill_frame (GstGdalSrc * self, GstBuffer * buf)
{
  const gint height = self->info.height;
  GstVideoFrame frame;
  gint block_w, block_h;
  gboolean ok = TRUE;

  /* Video rows may be padded, a pool's buffers carry a video meta. */
  if (!gst_video_frame_map (&frame, &self->layout, buf, GST_MAP_WRITE))
    goto map_failed;
  /* Whole rows of blocks: each block is decoded once, into its place. */
  GDALGetBlockSize (GDALGetRasterBand (self->dataset, self->all_bands ? 1 :
          self->band), &block_w, &block_h);
  block_h = CLAMP (block_h, 1, height);
  CPLErrorReset ();
  for (gint y = 0; ok && y < height; y += block_h)
    ok = read_rows (self, GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), y,
        MIN (block_h, height - y)) == CE_None;
  gst_video_frame_unmap (&frame);
  if (!ok)
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not read the raster"), ("GDAL: %s", CPLGetLastErrorMsg ()));
  return ok;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map a frame"),
        (NULL));
    return FALSE;
  }
}

static GstFlowReturn
gst_gdal_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstGdalSrc *self = GST_GDAL_SRC (src);
  GstBuffer *buf;
  gboolean error_posted;

  if (self->dataset == NULL)
    return GST_FLOW_EOS;
  if (self->frame_index > 0 && !next_file (self, &error_posted))
    return error_posted ? GST_FLOW_ERROR : GST_FLOW_EOS;
  if (!update_caps (self))
    return GST_FLOW_NOT_NEGOTIATED;

  /* From downstream's pool where it offers one (clupload's pinned memory):
   * the blocks are then read straight into what is uploaded. */
  if (GST_BASE_SRC_CLASS (gst_gdal_src_parent_class)->alloc (src, offset,
          GST_VIDEO_INFO_SIZE (&self->layout), &buf) != GST_FLOW_OK)
    goto no_memory;
  if (!fill_frame (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  gst_gdal_add_geo_meta (buf, self->dataset);
  GST_BUFFER_PTS (buf) = self->frame_index * GST_SECOND;
  GST_BUFFER_OFFSET (buf) = self->frame_index;
  self->frame_index++;
  *out = buf;
  return GST_FLOW_OK;

  /* ERRORS */
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a %dx%d frame of %d band(s) of %s (%"
            G_GSIZE_FORMAT " bytes)", self->info.width, self->info.height,
            self->info.bands,
            gst_clv_raster_format_to_string (self->info.format),
            GST_VIDEO_INFO_SIZE (&self->layout)),
        (NULL));
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
  gst_clear_caps (&self->caps);
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
          "every band in one frame (I and Q bands as complex samples)", 0,
          G_MAXINT, DEFAULT_BAND, ready));
  g_object_class_install_property (gobject_class, PROP_START_INDEX,
      g_param_spec_int ("start-index", "Start index",
          "A printf-pattern location: the index of the first file", 0,
          G_MAXINT, DEFAULT_START_INDEX, ready));
  g_object_class_install_property (gobject_class, PROP_STOP_INDEX,
      g_param_spec_int ("stop-index", "Stop index",
          "A printf-pattern location: the index of the last file (-1: "
          "until a file is missing)", -1, G_MAXINT, DEFAULT_STOP_INDEX,
          ready));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "GDAL raster source",
      "Source/Video", "Reads a GDAL raster as one georeferenced frame of its "
      "own sample type", "clvision developers");

  element_class->change_state = gst_gdal_src_change_state;
  src_class->start = gst_gdal_src_start;
  src_class->stop = gst_gdal_src_stop;
  src_class->get_caps = gst_gdal_src_get_caps;
  src_class->create = gst_gdal_src_create;
}

static void
gst_gdal_src_init (GstGdalSrc * self)
{
  self->band = DEFAULT_BAND;
  self->start_index = DEFAULT_START_INDEX;
  self->stop_index = DEFAULT_STOP_INDEX;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
