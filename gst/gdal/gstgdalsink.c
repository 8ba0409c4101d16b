/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-gdalsink
 * @title: gdalsink
 *
 * Writes each frame as a raster of the type it holds, with any GDAL driver
 * (`driver`, GTiff by default): GRAY8 and GRAY16_LE video as one band of
 * Byte and UInt16, application/x-raster frames as their bands of their
 * format (Float32, CFloat32, …).  The georeferencing of the frame's
 * GstClvGeoMeta goes with it: geotransform, ground control points and
 * their spatial reference systems, so that QGIS or gdalinfo place it where
 * the scene is.  `creation-options` are the driver's (`gdal_translate
 * -co`), separated by spaces or commas.  The bands' no-data value is
 * `nodata`, or by default the frame caps' `nodata` field, if any.
 *
 * Like multifilesink, a `location` with a printf pattern (`out-%05d.tif`)
 * gets the frame index; without one, every frame rewrites the same file.
 * Drivers that can only copy (PNG, JPEG) write through an in-memory raster.
 *
 * Each raster is written under a temporary name in the same directory
 * (`.NAME.partial.EXT`, or `NAME-partial` without an extension) and
 * renamed, side-car files included, once GDAL has closed it: a pipeline
 * killed mid-frame leaves no truncated raster under the final name (at
 * most a `.partial` file, which the next write of that name replaces).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 gdalsrc location=sigma0.tif ! sarmultilook looks=4 ! \
 *     gdalsink location=multilooked.tif creation-options="COMPRESS=DEFLATE"
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gst/clvision/clvision.h>

#include "gstgdalsink.h"
#include "gstgdalraster.h"

GST_DEBUG_CATEGORY_STATIC (gst_gdal_sink_debug);
#define GST_CAT_DEFAULT gst_gdal_sink_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_DRIVER "GTiff"
#define DEFAULT_CREATION_OPTIONS NULL
#define DEFAULT_NODATA NULL

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_DRIVER,
  PROP_CREATION_OPTIONS,
  PROP_NODATA,
};

typedef struct
{
  gchar *location;
  GDALDriverH driver;
  char **options;
  gchar *nodata;                /* NULL: the caps' */
} Settings;

static void
settings_clear (Settings * settings)
{
  g_clear_pointer (&settings->location, g_free);
  g_clear_pointer (&settings->options, CSLDestroy);
  g_clear_pointer (&settings->nodata, g_free);
  settings->driver = NULL;
}

struct _GstGdalSink
{
  GstBaseSink parent;

  /* properties, under the object lock */
  gchar *location;
  gchar *driver;
  gchar *creation_options;
  gchar *nodata;

  /* streaming */
  Settings settings;            /* taken in start */
  GstClvRasterInfo info;
  GstVideoInfo layout;
  guint index;
};

G_DEFINE_TYPE_WITH_CODE (GstGdalSink, gst_gdal_sink, GST_TYPE_BASE_SINK,
    GST_DEBUG_CATEGORY_INIT (gst_gdal_sink_debug, "gdalsink", 0,
        "GDAL raster sink"));
GST_ELEMENT_REGISTER_DEFINE (gdalsink, "gdalsink", GST_RANK_NONE,
    GST_TYPE_GDAL_SINK);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ GRAY8, GRAY16_LE }") "; "
        GST_CLV_RASTER_CAPS_MAKE (GST_CLV_RASTER_FORMATS_ALL)));


/* The driver called `name` if it can write rasters, else NULL. */
static GDALDriverH
writing_driver (const gchar * name)
{
  GDALDriverH driver = GDALGetDriverByName (name);

  if (driver == NULL || (GDALGetMetadataItem (driver, GDAL_DCAP_CREATE, NULL)
          == NULL && GDALGetMetadataItem (driver, GDAL_DCAP_CREATECOPY,
              NULL) == NULL))
    return NULL;
  return driver;
}

/* `text` as a no-data value: a number, "nan", "inf" or "-inf". */
static gboolean
parse_nodata (const gchar * text, gdouble * value)
{
  gchar *end;
  gdouble v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    return FALSE;
  if (value)
    *value = v;
  return TRUE;
}

/* The location, driver and creation options, checked before any frame
 * comes, into `settings` (nullable).  FALSE after posting the error. */
static gboolean
take_settings (GstGdalSink * self, Settings * settings)
{
  Settings got = { NULL, NULL, NULL, NULL };
  gchar *driver_name;

  GST_OBJECT_LOCK (self);
  got.location = g_strdup (self->location);
  driver_name = g_strdup (self->driver);
  got.options = CSLTokenizeString2 (self->creation_options ?
      self->creation_options : "", " ,", 0);
  got.nodata = g_strdup (self->nodata);
  GST_OBJECT_UNLOCK (self);
  if (got.location == NULL || got.location[0] == '\0')
    goto no_location;
  got.driver = writing_driver (driver_name);
  if (got.driver == NULL)
    goto no_driver;
  if (got.nodata && g_ascii_strcasecmp (got.nodata, "none") != 0
      && !parse_nodata (got.nodata, NULL))
    goto bad_nodata;
  g_free (driver_name);
  if (settings)
    *settings = got;
  else
    settings_clear (&got);
  return TRUE;

  /* ERRORS */
no_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name given: set the location property"), (NULL));
    goto fail;
  }
no_driver:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("\"%s\" is not a GDAL driver that can write rasters (see "
            "gdalinfo --formats)", driver_name), (NULL));
    goto fail;
  }
bad_nodata:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("nodata \"%s\" is not a number, \"nan\" or \"none\"",
            got.nodata), (NULL));
    goto fail;
  }
fail:
  g_free (driver_name);
  settings_clear (&got);
  return FALSE;
}

/* GstBaseSink posts a generic error of its own after any failed start: the
 * settings are checked in NULL->READY too, so that a bad one is one error,
 * ours. */
static GstStateChangeReturn
gst_gdal_sink_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY
      && !take_settings (GST_GDAL_SINK (element), NULL))
    return GST_STATE_CHANGE_FAILURE;
  return GST_ELEMENT_CLASS (gst_gdal_sink_parent_class)->change_state
      (element, transition);
}

static gboolean
gst_gdal_sink_start (GstBaseSink * sink)
{
  GstGdalSink *self = GST_GDAL_SINK (sink);

  self->index = 0;
  settings_clear (&self->settings);
  return take_settings (self, &self->settings);
}

static gboolean
gst_gdal_sink_stop (GstBaseSink * sink)
{
  settings_clear (&GST_GDAL_SINK (sink)->settings);
  return TRUE;
}

static gboolean
gst_gdal_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstGdalSink *self = GST_GDAL_SINK (sink);

  if (!gst_clv_raster_info_from_caps (&self->info, caps)
      || !gst_clv_frame_layout_from_caps (&self->layout, caps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  return TRUE;
}

/* Sets the no-data value of every band of `ds`: `nodata` if it is set,
 * else the caps' if they have one. */
static gboolean
set_nodata (GDALDatasetH ds, const gchar * nodata,
    const GstClvRasterInfo * info)
{
  gdouble v = info->nodata;

  if (nodata ? g_ascii_strcasecmp (nodata, "none") == 0 : !info->has_nodata)
    return TRUE;
  if (nodata)
    parse_nodata (nodata, &v);
  for (int b = 1; b <= GDALGetRasterCount (ds); b++)
    if (GDALSetRasterNoDataValue (GDALGetRasterBand (ds, b), v) != CE_None)
      return FALSE;
  return TRUE;
}

/* A new raster of `settings`' driver at `filename`, filled from `frame`
 * (holding `info`), with the buffer's georeferencing.  FALSE: GDAL's error
 * is in CPLGetLastErrorMsg. */
static gboolean
write_raster (const Settings * settings, const gchar * filename,
    const GstClvRasterInfo * info, GstVideoFrame * frame, GstClvGeoMeta * geo)
{
  const gint w = info->width, h = info->height, bands = info->bands;
  const GDALDataType type = gst_gdal_data_type (info->format);
  const gint sample = GDALGetDataTypeSizeBytes (type);
  /* Copy-only drivers get an in-memory raster to copy. */
  const gboolean direct = GDALGetMetadataItem (settings->driver,
      GDAL_DCAP_CREATE, NULL) != NULL;
  GDALDatasetH ds, copy;
  gboolean ok;

  ds = direct ? GDALCreate (settings->driver, filename, w, h, bands, type,
      settings->options) : GDALCreate (GDALGetDriverByName ("MEM"), "", w, h,
      bands, type, NULL);
  if (ds == NULL)
    return FALSE;
  /* Bands interleaved by pixel. */
  ok = GDALDatasetRasterIO (ds, GF_Write, 0, 0, w, h,
      GST_VIDEO_FRAME_PLANE_DATA (frame, 0), w, h, type, bands, NULL,
      (GSpacing) sample * bands, GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0),
      sample) == CE_None;
  ok = ok && set_nodata (ds, settings->nodata, info);
  if (ok && geo)
    ok = gst_gdal_set_georeferencing (ds, geo);
  if (ok && !direct) {
    copy = GDALCreateCopy (settings->driver, filename, ds, FALSE,
        settings->options, NULL, NULL);
    ok = copy != NULL;
    if (copy)
      GDALClose (copy);
  }
  GDALClose (ds);
  /* Errors of the final flush are reported, not returned (GDAL 3.6). */
  return ok && CPLGetLastErrorType () < CE_Failure;
}

/* The name `filename` is written under until complete.  The stem changes,
 * not the extension, so that GDAL's rename maps the side-car files by the
 * driver's own rule (ENVI's .hdr follows the extension). */
static gchar *
partial_name (const gchar * filename)
{
  const gchar *slash = strrchr (filename, '/');
  const gchar *base = slash ? slash + 1 : filename;
  const gchar *dot = strrchr (base, '.');

  if (dot == NULL || dot == base)
    return g_strconcat (filename, "-partial", NULL);
  return g_strdup_printf ("%.*s.%.*s.partial%s", (int) (base - filename),
      filename, (int) (dot - base), base, dot);
}

/* The files of the raster at `filename` (NULL if none or not a raster). */
static char **
raster_files (const gchar * filename)
{
  GDALDatasetH ds = GDALOpenEx (filename, GDAL_OF_RASTER, NULL, NULL, NULL);
  char **files = NULL;

  if (ds != NULL) {
    files = GDALGetFileList (ds);
    GDALClose (ds);
  }
  CPLErrorReset ();
  return files;
}

/* Renames the complete raster at `partial` to `filename`, replacing the
 * raster there; files of the old raster that the new one lacks (a
 * .aux.xml) are deleted, as GDALCreate does when it replaces a raster. */
static gboolean
move_into_place (GDALDriverH driver, const gchar * partial,
    const gchar * filename)
{
  char **old_files = raster_files (filename);
  char **partial_files = raster_files (partial);
  char **new_files = CPLCorrespondingPaths (partial, filename, partial_files);
  gboolean ok = GDALRenameDataset (driver, filename, partial) == CE_None;

  for (char **f = old_files; ok && f != NULL && *f != NULL; f++)
    if (CSLFindString (new_files, *f) < 0)
      VSIUnlink (*f);
  CSLDestroy (new_files);
  CSLDestroy (partial_files);
  CSLDestroy (old_files);
  return ok;
}

/* write_raster under a temporary name, renamed once complete. */
static gboolean
write_raster_whole (const Settings * settings, const gchar * filename,
    const GstClvRasterInfo * info, GstVideoFrame * frame, GstClvGeoMeta * geo)
{
  GDALDriverH driver = settings->driver;
  gchar *partial = partial_name (filename);
  gboolean ok = write_raster (settings, partial, info, frame, geo)
      && move_into_place (driver, partial, filename);

  if (!ok) {
    gchar *msg = g_strdup (CPLGetLastErrorMsg ());
    /* Whatever the failed write left. */
    GDALDeleteDataset (driver, partial);
    VSIUnlink (partial);
    CPLError (CE_Failure, CPLE_AppDefined, "%s", msg);
    g_free (msg);
  }
  g_free (partial);
  return ok;
}

static GstFlowReturn
gst_gdal_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstGdalSink *self = GST_GDAL_SINK (sink);
  const Settings *settings = &self->settings;
  gchar *filename;
  GstVideoFrame frame;
  gboolean ok;

  if (!gst_video_frame_map (&frame, &self->layout, buf, GST_MAP_READ))
    goto map_failed;
  /* multifilesink's rule: the location is a printf pattern of the index. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  filename = g_strdup_printf (settings->location, self->index);
#pragma GCC diagnostic pop
  CPLErrorReset ();
  ok = write_raster_whole (settings, filename, &self->info, &frame,
      gst_buffer_get_clv_geo_meta (buf));
  gst_video_frame_unmap (&frame);
  if (!ok)
    goto write_failed;
  GST_INFO_OBJECT (self, "wrote %s", filename);
  self->index++;
  g_free (filename);
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map a frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
write_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not write \"%s\" with the %s driver", filename,
            GDALGetDriverShortName (settings->driver)),
        ("GDAL: %s", CPLGetLastErrorMsg ()));
    g_free (filename);
    return GST_FLOW_ERROR;
  }
}

static void
gst_gdal_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGdalSink *self = GST_GDAL_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_DRIVER:
      g_free (self->driver);
      self->driver = g_value_dup_string (value);
      break;
    case PROP_CREATION_OPTIONS:
      g_free (self->creation_options);
      self->creation_options = g_value_dup_string (value);
      break;
    case PROP_NODATA:
      g_free (self->nodata);
      self->nodata = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gdal_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstGdalSink *self = GST_GDAL_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_DRIVER:
      g_value_set_string (value, self->driver);
      break;
    case PROP_CREATION_OPTIONS:
      g_value_set_string (value, self->creation_options);
      break;
    case PROP_NODATA:
      g_value_set_string (value, self->nodata);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gdal_sink_finalize (GObject * object)
{
  GstGdalSink *self = GST_GDAL_SINK (object);

  g_free (self->location);
  g_free (self->driver);
  g_free (self->creation_options);
  g_free (self->nodata);
  settings_clear (&self->settings);
  G_OBJECT_CLASS (gst_gdal_sink_parent_class)->finalize (object);
}

static void
gst_gdal_sink_class_init (GstGdalSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_gdal_sink_set_property;
  gobject_class->get_property = gst_gdal_sink_get_property;
  gobject_class->finalize = gst_gdal_sink_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "The file to write; a printf pattern (%05d) gets the frame index",
          DEFAULT_LOCATION, ready));
  g_object_class_install_property (gobject_class, PROP_DRIVER,
      g_param_spec_string ("driver", "Driver",
          "The GDAL driver's short name (GTiff, PNG, ENVI, ...)",
          DEFAULT_DRIVER, ready));
  g_object_class_install_property (gobject_class, PROP_CREATION_OPTIONS,
      g_param_spec_string ("creation-options", "Creation options",
          "The driver's KEY=VALUE creation options, separated by spaces or "
          "commas (gdal_translate -co)", DEFAULT_CREATION_OPTIONS, ready));
  g_object_class_install_property (gobject_class, PROP_NODATA,
      g_param_spec_string ("nodata", "No-data value",
          "The bands' no-data value: a number, \"nan\", or \"none\" for "
          "none; NULL (the default): the caps' nodata field, if any",
          DEFAULT_NODATA, ready));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "GDAL raster sink",
      "Sink/Video", "Writes frames as georeferenced rasters of their own "
      "sample type with GDAL",
      "clvision developers");

  element_class->change_state = gst_gdal_sink_change_state;
  sink_class->start = gst_gdal_sink_start;
  sink_class->stop = gst_gdal_sink_stop;
  sink_class->set_caps = gst_gdal_sink_set_caps;
  sink_class->render = gst_gdal_sink_render;
}

static void
gst_gdal_sink_init (GstGdalSink * self)
{
  self->driver = g_strdup (DEFAULT_DRIVER);
  /* A file writer: no clock to wait for (as filesink). */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}
