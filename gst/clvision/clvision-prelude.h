/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Export macro of libgstclvision-1.0, as GST_CUDA_API is for libgstcuda. */
#pragma once

#include <gst/gst.h>

#ifndef GST_CLVISION_API
#define GST_CLVISION_API __attribute__ ((visibility ("default"))) extern
#endif
