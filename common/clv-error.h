/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OpenCL runtime's export macro, error domain and the one check of
 * every cl* call. */
#pragma once

#include <glib.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* The runtime is the shared library libclvision-opencl-1.0 (one device table
 * per process for the plugin, libgstclvision-1.0 and the tools); its functions
 * are the ones exported. */
#ifndef CLV_API
#define CLV_API __attribute__ ((visibility ("default"))) extern
#endif

#define CLV_ERROR (clv_error_quark ())

typedef enum
{
  CLV_ERROR_NO_PLATFORM,        /* no OpenCL platform is installed */
  CLV_ERROR_NO_DEVICE,          /* the `device` string matches no device */
  CLV_ERROR_OPENCL,             /* an OpenCL call failed */
  CLV_ERROR_BUILD,              /* a program failed to build */
  CLV_ERROR_INVALID,            /* bad argument or data */
} ClvError;

CLV_API
GQuark clv_error_quark (void);

/* The symbolic name of an OpenCL status, such as "CL_OUT_OF_RESOURCES". */
CLV_API
const char *clv_cl_error_name (cl_int status);

CLV_API
void clv_set_cl_error (GError ** error, cl_int status, const char *call,
    const char *file, int line);

/* The one check for every cl* call: on failure it fills `error` with the error
 * name, the call text, file and line, and jumps to `label`.  Calls that return
 * their status through an out-argument are written as a comma expression:
 *   CLV_CHECK ((buf = clCreateBuffer (ctx, fl, n, NULL, &st), st), error, out);
 */
#define CLV_CHECK(call, error, label)                                    \
  G_STMT_START {                                                         \
    cl_int clv_check_status_ = (call);                                   \
    if (G_UNLIKELY (clv_check_status_ != CL_SUCCESS)) {                  \
      clv_set_cl_error ((error), clv_check_status_, #call, __FILE__,     \
          __LINE__);                                                     \
      goto label;                                                        \
    }                                                                    \
  } G_STMT_END

G_END_DECLS
