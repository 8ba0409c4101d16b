/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the OpenCL runtime's files share and nobody else uses. */
#pragma once

#include "clv-device.h"

G_BEGIN_DECLS

/* A checksum started with what names a device and its driver, for the
 * names of its program cache and tuning files (clv-device.c). */
G_GNUC_INTERNAL
GChecksum *clv_device_checksum (ClvDevice * dev);

/* The tuning file of `dev`, read when the device opens: MACRO -> value,
 * or NULL (clv-tune.c). */
G_GNUC_INTERNAL
GHashTable *clv_tuning_load (ClvDevice * dev);

G_END_DECLS
