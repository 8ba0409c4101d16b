/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clvision OpenCL runtime: device choice, one context and queue per device per
 * process, program builds with tuning macros and an on-disk binary cache,
 * transfers and waits.  No GStreamer here; GLib only.  One header for all
 * of it: */
#pragma once

#include "clv-error.h"
#include "clv-device.h"
#include "clv-tune.h"
#include "clv-program.h"
#include "clv-events.h"
#include "clv-transfer.h"
