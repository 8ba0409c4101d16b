/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* What a lost MQTT record does. */
typedef enum
{
  GST_ROI_EXPORT_ON_LOSS_WARN,
  GST_ROI_EXPORT_ON_LOSS_ERROR,
} GstRoiExportOnLoss;

#define GST_TYPE_ROI_EXPORT_ON_LOSS (gst_roi_export_on_loss_get_type ())
GType gst_roi_export_on_loss_get_type (void);

/* The records' format. */
typedef enum
{
  GST_ROI_EXPORT_SCHEMA_CLVISION,
  GST_ROI_EXPORT_SCHEMA_GVA,
} GstRoiExportSchema;

#define GST_TYPE_ROI_EXPORT_SCHEMA (gst_roi_export_schema_get_type ())
GType gst_roi_export_schema_get_type (void);

#define GST_TYPE_ROI_EXPORT (gst_roi_export_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiExport, gst_roi_export, GST, ROI_EXPORT,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (roiexport);

G_END_DECLS
