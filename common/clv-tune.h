/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tuning values: CLVISION_TUNE and the tuning file clvision-tune stores
 * for a device, read as the kernels' -D macros. */
#pragma once

#include "clv-device.h"

G_BEGIN_DECLS

/* The value of `name` in a list "NAME=VALUE,NAME=VALUE,..." (the last one
 * wins; blanks around names and values ignored; items without '=' skipped),
 * newly allocated, or NULL when it is not there. */
CLV_API
char *clv_tune_lookup (const char *list, const char *name);

/* Tuning: the value of NAME in CLVISION_TUNE="NAME=VALUE,..." or the default. */
CLV_API
gint64 clv_tune_int (const char *name, gint64 default_value);
CLV_API
const char *clv_tune_string (const char *name, const char *default_value);

/* Tuning for a device: while CLVISION_TUNE is set, its values and
 * otherwise the defaults (an experiment against the defaults); else the
 * value clvision-tune stored for this device and driver (clv_tuning_path()),
 * then the default.  Every kernel's macros are read through these, so a
 * stored search result is used without being asked for. */
CLV_API
gint64 clv_device_tune_int (ClvDevice * dev, const char *name,
    gint64 default_value);
CLV_API
const char *clv_device_tune_string (ClvDevice * dev, const char *name,
    const char *default_value);

/* The tuning file of `dev`: clv_program_cache_dir()/tune-HASH.ini, HASH of
 * platform, device name and driver version, next to the program binaries.
 * A key file with a [device] group (name, platform, driver, for people) and
 * one group per kernel holding MACRO=integer lines; it is read when the
 * device is opened, and a file that does not parse or holds anything else
 * is ignored with a warning (defaults apply).  CLVISION_AUTOTUNE=0 ignores
 * the file (the defaults, as a benchmark's baseline). */
CLV_API
char *clv_tuning_path (ClvDevice * dev);

/* Writes `per_kernel` (group = kernel, keys = macros) as the tuning file of
 * `dev`, atomically.  Running processes keep the values they read; devices
 * opened later use the new ones. */
CLV_API
gboolean clv_tuning_save (ClvDevice * dev, GKeyFile * per_kernel,
    GError ** error);

G_END_DECLS
