/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clinject: makes one chosen OpenCL call fail, for the failure-injection
 * sweep (tests/inject/sweep.py).  Preloaded ahead of the ICD loader
 * (LD_PRELOAD), it defines the cl* functions clvision calls, counts each
 * call by its call site (the caller's return address, as module+offset)
 * and forwards it to the loader.
 *
 *   CLINJECT_LOG=FILE    at exit, one line per call site:
 *                          site FUNCTION MODULE+0xOFFSET CALLS PATH
 *                        (PATH: the module's file, for addr2line)
 *                        and, if a call was made to fail:
 *                          fired FUNCTION MODULE+0xOFFSET N ERROR
 *   CLINJECT_SITE=MODULE+0xOFFSET   the call site to fail, or
 *   CLINJECT_FUNC=NAME   any call of that function;
 *   CLINJECT_N=N         its Nth call (from 1);
 *   CLINJECT_ERROR=E     the status: a name (CL_OUT_OF_RESOURCES) or a
 *                        number.
 *
 * The failing call does nothing, as a driver refusing it would: calls that
 * return an object return NULL and set errcode_ret.  Release and retain
 * calls are the exception: they are made, then report the error, since
 * nobody can do anything about a failed release and the sweep also looks
 * for leaks.  Plain C and pthreads, so that it works under any program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define MAX_SITES 4096

typedef struct
{
  const char *func;
  void *ret;                    /* the return address in the caller */
  char where[256];              /* MODULE+0xOFFSET */
  char path[512];               /* the module's file */
  unsigned long calls;
} Site;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Site sites[MAX_SITES];
static int n_sites;
static int configured;
static const char *target_site, *target_func, *log_path;
static unsigned long target_n, func_calls;
static cl_int target_error;
static int fired;
static char fired_line[512];

static const struct
{
  const char *name;
  cl_int value;
} names[] = {
  {"CL_OUT_OF_RESOURCES", CL_OUT_OF_RESOURCES},
  {"CL_OUT_OF_HOST_MEMORY", CL_OUT_OF_HOST_MEMORY},
  {"CL_MEM_OBJECT_ALLOCATION_FAILURE", CL_MEM_OBJECT_ALLOCATION_FAILURE},
  {"CL_INVALID_COMMAND_QUEUE", CL_INVALID_COMMAND_QUEUE},
  {"CL_BUILD_PROGRAM_FAILURE", CL_BUILD_PROGRAM_FAILURE},
  {"CL_DEVICE_NOT_AVAILABLE", CL_DEVICE_NOT_AVAILABLE},
  {"CL_INVALID_VALUE", CL_INVALID_VALUE},
};

static void
configure (void)
{
  const char *e = getenv ("CLINJECT_ERROR"), *n = getenv ("CLINJECT_N");

  configured = 1;
  log_path = getenv ("CLINJECT_LOG");
  target_site = getenv ("CLINJECT_SITE");
  target_func = getenv ("CLINJECT_FUNC");
  target_n = n ? strtoul (n, NULL, 10) : 1;
  target_error = CL_OUT_OF_RESOURCES;
  if (e != NULL) {
    char *end;
    long v = strtol (e, &end, 10);
    if (*end == '\0' && end != e)
      target_error = (cl_int) v;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strcmp (e, names[i].name) == 0)
        target_error = names[i].value;
  }
}

static const char *
error_name (cl_int e)
{
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].value == e)
      return names[i].name;
  return "?";
}

/* MODULE+0xOFFSET of the call that returns to `ret`: the module's file
 * name and the offset from its base, the same in every run of a build. */
static void
describe (void *ret, char *where, size_t size, char *path, size_t path_size)
{
  Dl_info info;
  const char *base;

  if (dladdr (ret, &info) == 0 || info.dli_fname == NULL) {
    snprintf (where, size, "?+%p", ret);
    snprintf (path, path_size, "?");
    return;
  }
  snprintf (path, path_size, "%s", info.dli_fname[0] ? info.dli_fname :
      "/proc/self/exe");
  base = strrchr (info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  snprintf (where, size, "%s+0x%lx", base[0] ? base : "main",
      (unsigned long) ((char *) ret - (char *) info.dli_fbase));
}

/* Counts the call of `func` returning to `ret`; 1 when it is the one to
 * fail (`status` set). */
static int
clinject_call (const char *func, void *ret, cl_int * status)
{
  Site *s = NULL;
  int fail = 0;

  pthread_mutex_lock (&lock);
  if (!configured)
    configure ();
  for (int i = 0; i < n_sites && s == NULL; i++)
    if (sites[i].ret == ret && sites[i].func == func)
      s = &sites[i];
  if (s == NULL && n_sites < MAX_SITES) {
    s = &sites[n_sites++];
    s->func = func;
    s->ret = ret;
    describe (ret, s->where, sizeof s->where, s->path, sizeof s->path);
  }
  if (s != NULL)
    s->calls++;
  if (target_func != NULL && strcmp (func, target_func) == 0)
    func_calls++;
  if (!fired && s != NULL && ((target_site != NULL
              && strcmp (s->where, target_site) == 0 && s->calls == target_n)
          || (target_func != NULL && target_site == NULL
              && strcmp (func, target_func) == 0 && func_calls == target_n))) {
    fired = fail = 1;
    *status = target_error;
    snprintf (fired_line, sizeof fired_line, "fired %s %s %lu %s\n", func,
        s->where, s->calls, error_name (target_error));
    fprintf (stderr, "clinject: %s", fired_line);
  }
  pthread_mutex_unlock (&lock);
  return fail;
}

__attribute__((destructor))
     static void write_log (void)
{
  FILE *f;

  /* Programs this one starts inherit the preload: one that made no OpenCL
   * call (PoCL's linker) leaves the log to the process that did. */
  if (log_path == NULL || n_sites == 0 || (f = fopen (log_path, "w")) == NULL)
    return;
  pthread_mutex_lock (&lock);
  for (int i = 0; i < n_sites; i++)
    fprintf (f, "site %s %s %lu %s\n", sites[i].func, sites[i].where,
        sites[i].calls, sites[i].path);
  if (fired)
    fputs (fired_line, f);
  pthread_mutex_unlock (&lock);
  fclose (f);
}

/* The ICD loader's function: the plugins load the loader into their own
 * scope (RTLD_LOCAL), where RTLD_NEXT does not look. */
static void *
real (const char *name)
{
  static void *loader;
  void *f = dlsym (RTLD_NEXT, name);

  if (f == NULL && loader == NULL)
    loader = dlopen ("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (f == NULL && loader != NULL)
    f = dlsym (loader, name);
  if (f == NULL) {
    fprintf (stderr, "clinject: no %s in the OpenCL loader\n", name);
    abort ();
  }
  return f;
}

/* Exported whatever the build's default visibility. */
#define EXPORT __attribute__ ((visibility ("default")))

#define REAL(name) \
  static __typeof__ (name) *real_fn; \
  if (real_fn == NULL) real_fn = (__typeof__ (name) *) real (#name)

/* A call that returns its status. */
#define STATUS_CALL(name, params, args) \
  EXPORT CL_API_ENTRY cl_int CL_API_CALL name params \
  { \
    cl_int st; \
    REAL (name); \
    if (clinject_call (#name, __builtin_return_address (0), &st)) \
      return st; \
    return real_fn args; \
  }

/* A release or retain: made, then the error reported. */
#define REFCOUNT_CALL(type, name) \
  EXPORT CL_API_ENTRY cl_int CL_API_CALL name (type object) \
  { \
    cl_int st, rc; \
    REAL (name); \
    rc = real_fn (object); \
    if (clinject_call (#name, __builtin_return_address (0), &st)) \
      return st; \
    return rc; \
  }

/* A call that returns an object (or a pointer) and its status through
 * errcode_ret. */
#define OBJECT_CALL(type, name, params, args) \
  EXPORT CL_API_ENTRY type CL_API_CALL name params \
  { \
    cl_int st; \
    REAL (name); \
    if (clinject_call (#name, __builtin_return_address (0), &st)) { \
      if (errcode_ret != NULL) \
        *errcode_ret = st; \
      return NULL; \
    } \
    return real_fn args; \
  }

/* Platforms and devices */
STATUS_CALL (clGetPlatformIDs, (cl_uint num_entries,
        cl_platform_id * platforms, cl_uint * num_platforms),
    (num_entries, platforms, num_platforms))
STATUS_CALL (clGetPlatformInfo, (cl_platform_id platform,
        cl_platform_info param_name, size_t param_value_size,
        void *param_value, size_t *param_value_size_ret), (platform,
        param_name, param_value_size, param_value, param_value_size_ret))
STATUS_CALL (clGetDeviceIDs, (cl_platform_id platform,
        cl_device_type device_type, cl_uint num_entries,
        cl_device_id * devices, cl_uint * num_devices), (platform,
        device_type, num_entries, devices, num_devices))
STATUS_CALL (clGetDeviceInfo, (cl_device_id device, cl_device_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (device, param_name,
        param_value_size, param_value, param_value_size_ret))

/* Contexts and queues */
OBJECT_CALL (cl_context, clCreateContext,
    (const cl_context_properties * properties, cl_uint num_devices,
        const cl_device_id * devices, void (CL_CALLBACK * pfn_notify) (const
            char *errinfo, const void *private_info, size_t cb,
            void *user_data), void *user_data, cl_int * errcode_ret),
    (properties, num_devices, devices, pfn_notify, user_data, errcode_ret))
REFCOUNT_CALL (cl_context, clRetainContext)
REFCOUNT_CALL (cl_context, clReleaseContext)
STATUS_CALL (clGetContextInfo, (cl_context context, cl_context_info
        param_name, size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (context, param_name,
        param_value_size, param_value, param_value_size_ret))
OBJECT_CALL (cl_command_queue, clCreateCommandQueue, (cl_context context,
        cl_device_id device, cl_command_queue_properties properties,
        cl_int * errcode_ret), (context, device, properties, errcode_ret))
REFCOUNT_CALL (cl_command_queue, clRetainCommandQueue)
REFCOUNT_CALL (cl_command_queue, clReleaseCommandQueue)
STATUS_CALL (clFlush, (cl_command_queue q), (q))
STATUS_CALL (clFinish, (cl_command_queue q), (q))

/* Memory */
OBJECT_CALL (cl_mem, clCreateBuffer, (cl_context context, cl_mem_flags flags,
        size_t size, void *host_ptr, cl_int * errcode_ret), (context, flags,
        size, host_ptr, errcode_ret))
OBJECT_CALL (cl_mem, clCreateSubBuffer, (cl_mem buffer, cl_mem_flags flags,
        cl_buffer_create_type type, const void *info, cl_int * errcode_ret),
    (buffer, flags, type, info, errcode_ret))
REFCOUNT_CALL (cl_mem, clRetainMemObject)
REFCOUNT_CALL (cl_mem, clReleaseMemObject)
STATUS_CALL (clGetMemObjectInfo, (cl_mem memobj, cl_mem_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (memobj, param_name,
        param_value_size, param_value, param_value_size_ret))

/* Programs and kernels */
OBJECT_CALL (cl_program, clCreateProgramWithSource, (cl_context context,
        cl_uint count, const char **strings, const size_t *lengths,
        cl_int * errcode_ret), (context, count, strings, lengths,
        errcode_ret))
OBJECT_CALL (cl_program, clCreateProgramWithBinary, (cl_context context,
        cl_uint num_devices, const cl_device_id * device_list,
        const size_t *lengths, const unsigned char **binaries,
        cl_int * binary_status, cl_int * errcode_ret), (context,
        num_devices, device_list, lengths, binaries, binary_status,
        errcode_ret))
REFCOUNT_CALL (cl_program, clRetainProgram)
REFCOUNT_CALL (cl_program, clReleaseProgram)
STATUS_CALL (clBuildProgram, (cl_program program, cl_uint num_devices,
        const cl_device_id * device_list, const char *options,
        void (CL_CALLBACK * pfn_notify) (cl_program program,
            void *user_data), void *user_data), (program, num_devices,
        device_list, options, pfn_notify, user_data))
STATUS_CALL (clGetProgramInfo, (cl_program program, cl_program_info
        param_name, size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (program, param_name,
        param_value_size, param_value, param_value_size_ret))
STATUS_CALL (clGetProgramBuildInfo, (cl_program program, cl_device_id device,
        cl_program_build_info param_name, size_t param_value_size,
        void *param_value, size_t *param_value_size_ret), (program, device,
        param_name, param_value_size, param_value, param_value_size_ret))
OBJECT_CALL (cl_kernel, clCreateKernel, (cl_program program,
        const char *kernel_name, cl_int * errcode_ret), (program,
        kernel_name, errcode_ret))
REFCOUNT_CALL (cl_kernel, clRetainKernel)
REFCOUNT_CALL (cl_kernel, clReleaseKernel)
STATUS_CALL (clSetKernelArg, (cl_kernel kernel, cl_uint arg_index,
        size_t arg_size, const void *arg_value), (kernel, arg_index,
        arg_size, arg_value))
STATUS_CALL (clGetKernelInfo, (cl_kernel kernel, cl_kernel_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (kernel, param_name,
        param_value_size, param_value, param_value_size_ret))
STATUS_CALL (clGetKernelWorkGroupInfo, (cl_kernel kernel,
        cl_device_id device, cl_kernel_work_group_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (kernel, device, param_name,
        param_value_size, param_value, param_value_size_ret))

/* Events */
STATUS_CALL (clWaitForEvents, (cl_uint num_events,
        const cl_event * event_list), (num_events, event_list))
STATUS_CALL (clGetEventInfo, (cl_event event, cl_event_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret), (event, param_name, param_value_size,
        param_value, param_value_size_ret))
STATUS_CALL (clGetEventProfilingInfo, (cl_event event,
        cl_profiling_info param_name, size_t param_value_size,
        void *param_value, size_t *param_value_size_ret), (event,
        param_name, param_value_size, param_value, param_value_size_ret))
STATUS_CALL (clSetEventCallback, (cl_event event,
        cl_int command_exec_callback_type, void (CL_CALLBACK * pfn_notify)
        (cl_event event, cl_int event_command_status, void *user_data),
        void *user_data), (event, command_exec_callback_type, pfn_notify,
        user_data))
OBJECT_CALL (cl_event, clCreateUserEvent, (cl_context context,
        cl_int * errcode_ret), (context, errcode_ret))
STATUS_CALL (clSetUserEventStatus, (cl_event event, cl_int execution_status),
    (event, execution_status))
REFCOUNT_CALL (cl_event, clRetainEvent)
REFCOUNT_CALL (cl_event, clReleaseEvent)

/* Commands */
STATUS_CALL (clEnqueueReadBuffer, (cl_command_queue q, cl_mem buffer,
        cl_bool blocking, size_t offset, size_t size, void *ptr,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, buffer,
        blocking, offset, size, ptr, n_wait, wait, event))
STATUS_CALL (clEnqueueWriteBuffer, (cl_command_queue q, cl_mem buffer,
        cl_bool blocking, size_t offset, size_t size, const void *ptr,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, buffer,
        blocking, offset, size, ptr, n_wait, wait, event))
STATUS_CALL (clEnqueueReadBufferRect, (cl_command_queue q, cl_mem buffer,
        cl_bool blocking, const size_t *buffer_origin,
        const size_t *host_origin, const size_t *region,
        size_t buffer_row_pitch, size_t buffer_slice_pitch,
        size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, buffer,
        blocking, buffer_origin, host_origin, region, buffer_row_pitch,
        buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n_wait,
        wait, event))
STATUS_CALL (clEnqueueWriteBufferRect, (cl_command_queue q, cl_mem buffer,
        cl_bool blocking, const size_t *buffer_origin,
        const size_t *host_origin, const size_t *region,
        size_t buffer_row_pitch, size_t buffer_slice_pitch,
        size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, buffer,
        blocking, buffer_origin, host_origin, region, buffer_row_pitch,
        buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n_wait,
        wait, event))
STATUS_CALL (clEnqueueFillBuffer, (cl_command_queue q, cl_mem buffer,
        const void *pattern, size_t pattern_size, size_t offset, size_t size,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, buffer,
        pattern, pattern_size, offset, size, n_wait, wait, event))
STATUS_CALL (clEnqueueCopyBuffer, (cl_command_queue q, cl_mem src,
        cl_mem dst, size_t src_offset, size_t dst_offset, size_t size,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, src,
        dst, src_offset, dst_offset, size, n_wait, wait, event))
STATUS_CALL (clEnqueueCopyBufferRect, (cl_command_queue q, cl_mem src,
        cl_mem dst, const size_t *src_origin, const size_t *dst_origin,
        const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
        size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint n_wait,
        const cl_event * wait, cl_event * event), (q, src, dst, src_origin,
        dst_origin, region, src_row_pitch, src_slice_pitch, dst_row_pitch,
        dst_slice_pitch, n_wait, wait, event))
OBJECT_CALL (void *, clEnqueueMapBuffer, (cl_command_queue q, cl_mem buffer,
        cl_bool blocking, cl_map_flags flags, size_t offset, size_t size,
        cl_uint n_wait, const cl_event * wait, cl_event * event,
        cl_int * errcode_ret), (q, buffer, blocking, flags, offset, size,
        n_wait, wait, event, errcode_ret))
STATUS_CALL (clEnqueueUnmapMemObject, (cl_command_queue q, cl_mem memobj,
        void *mapped_ptr, cl_uint n_wait, const cl_event * wait,
        cl_event * event), (q, memobj, mapped_ptr, n_wait, wait, event))
STATUS_CALL (clEnqueueNDRangeKernel, (cl_command_queue q, cl_kernel kernel,
        cl_uint work_dim, const size_t *global_work_offset,
        const size_t *global_work_size, const size_t *local_work_size,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, kernel,
        work_dim, global_work_offset, global_work_size, local_work_size,
        n_wait, wait, event))
STATUS_CALL (clEnqueueMarkerWithWaitList, (cl_command_queue q,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, n_wait,
        wait, event))
STATUS_CALL (clEnqueueBarrierWithWaitList, (cl_command_queue q,
        cl_uint n_wait, const cl_event * wait, cl_event * event), (q, n_wait,
        wait, event))
