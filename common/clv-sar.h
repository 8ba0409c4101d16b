/* SAR image operations: plain C references and their OpenCL versions. */
#pragma once

#include "clv-image.h"
#include "clv-opencl.h"

G_BEGIN_DECLS

typedef enum
{
  CLV_MULTILOOK_INTENSITY,      /* plain block mean */
  CLV_MULTILOOK_AMPLITUDE,      /* sqrt of the block mean of squares */
} ClvMultilookDomain;

/* Output size of a multilook: partial blocks are dropped. */
static inline void
clv_multilook_out_size (int width, int height, int range_looks,
    int azimuth_looks, int *out_width, int *out_height)
{
  *out_width = width / range_looks;
  *out_height = height / azimuth_looks;
}

void clv_multilook_ref (const guint8 * src, const ClvImage * src_im,
    guint8 * dst, const ClvImage * dst_im, int range_looks, int azimuth_looks,
    ClvMultilookDomain domain);

typedef struct _ClvMultilook ClvMultilook;

/* The output size lets the launch shape give the device enough work-items. */
ClvMultilook *clv_multilook_new (ClvDevice * dev, int bpp, int range_looks,
    int azimuth_looks, ClvMultilookDomain domain, int out_width,
    int out_height, GError ** error);
/* Enqueues the kernel; `event` (nullable) receives its event. */
gboolean clv_multilook_enqueue (ClvMultilook * ml, cl_mem src,
    const ClvImage * src_im, cl_mem dst, const ClvImage * dst_im,
    cl_event * event, GError ** error);
void clv_multilook_free (ClvMultilook * ml);

G_END_DECLS
