/* Typed access to clvision's ROI parameter structures; see the header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclvmeta.h"

/* The named structure of `roi`, created and attached if it has none. */
static GstStructure *
roi_param_for_writing (GstVideoRegionOfInterestMeta * roi, const gchar * name)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, name);

  if (s == NULL) {
    s = gst_structure_new_empty (name);
    /* The meta takes the structure and keeps it where it was given. */
    gst_video_region_of_interest_meta_add_param (roi, s);
  }
  return s;
}

gboolean
gst_clv_roi_meta_get_detection (GstVideoRegionOfInterestMeta * roi,
    GstClvDetection * det)
{
  GstStructure *s;

  g_return_val_if_fail (roi != NULL && det != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_DETECTION_NAME);
  if (s == NULL)
    return FALSE;
  det->label = gst_structure_get_string (s, "label");
  return det->label != NULL
      && gst_structure_get_int (s, "label_id", &det->label_id)
      && gst_structure_get_double (s, "confidence", &det->confidence)
      && gst_structure_get_int (s, "neighbors", &det->neighbors)
      && gst_structure_get_double (s, "x_min", &det->x_min)
      && gst_structure_get_double (s, "y_min", &det->y_min)
      && gst_structure_get_double (s, "x_max", &det->x_max)
      && gst_structure_get_double (s, "y_max", &det->y_max);
}

void
gst_clv_roi_meta_set_detection (GstVideoRegionOfInterestMeta * roi,
    const GstClvDetection * det)
{
  g_return_if_fail (roi != NULL && det != NULL && det->label != NULL);
  gst_structure_set (roi_param_for_writing (roi, GST_CLV_DETECTION_NAME),
      "label", G_TYPE_STRING, det->label,
      "label_id", G_TYPE_INT, det->label_id,
      "confidence", G_TYPE_DOUBLE, det->confidence,
      "neighbors", G_TYPE_INT, det->neighbors,
      "x_min", G_TYPE_DOUBLE, det->x_min,
      "y_min", G_TYPE_DOUBLE, det->y_min,
      "x_max", G_TYPE_DOUBLE, det->x_max,
      "y_max", G_TYPE_DOUBLE, det->y_max, NULL);
}

gboolean
gst_clv_roi_meta_get_recognition (GstVideoRegionOfInterestMeta * roi,
    GstClvRecognition * rec)
{
  GstStructure *s;

  g_return_val_if_fail (roi != NULL && rec != NULL, FALSE);
  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_CLV_RECOGNITION_NAME);
  if (s == NULL)
    return FALSE;
  rec->label = gst_structure_get_string (s, "label");
  return rec->label != NULL
      && gst_structure_get_int (s, "label_id", &rec->label_id)
      && gst_structure_get_double (s, "distance", &rec->distance)
      && gst_structure_get_double (s, "confidence", &rec->confidence);
}

void
gst_clv_roi_meta_set_recognition (GstVideoRegionOfInterestMeta * roi,
    const GstClvRecognition * rec)
{
  g_return_if_fail (roi != NULL && rec != NULL && rec->label != NULL);
  gst_structure_set (roi_param_for_writing (roi, GST_CLV_RECOGNITION_NAME),
      "label", G_TYPE_STRING, rec->label,
      "label_id", G_TYPE_INT, rec->label_id,
      "distance", G_TYPE_DOUBLE, rec->distance,
      "confidence", G_TYPE_DOUBLE, rec->confidence, NULL);
}
