/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OpenCL devices a run spreads its pipelines over, and how many
 * pipelines each runs at once by default. */
#include "clv-opencl.h"

#include "batch.h"

/* Pipelines per GPU by default: the host's cores shared out (demuxing and
 * decoding are the pipelines' CPU work), at least 2 so that one pipeline's
 * decoding overlaps another's detection, at most 16. */
#define MIN_JOBS 2
#define MAX_JOBS 16

static void
add_unique (GPtrArray * out, const char *index)
{
  for (guint i = 0; i < out->len; i++)
    if (g_strcmp0 (out->pdata[i], index) == 0)
      return;
  g_ptr_array_add (out, g_strdup (index));
}

static gboolean
add_type (GPtrArray * out, cl_device_type type, GError ** error)
{
  char **indices = clv_device_indices (type, error);

  if (indices == NULL)
    return FALSE;
  for (char **i = indices; *i; i++)
    add_unique (out, *i);
  g_strfreev (indices);
  return TRUE;
}

static gboolean
add_item (GPtrArray * out, const char *item, GError ** error)
{
  static const struct
  {
    const char *name;
    cl_device_type type;
  } kinds[] = {
    {"all", 0}, {"gpu", CL_DEVICE_TYPE_GPU}, {"cpu", CL_DEVICE_TYPE_CPU},
    {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
  };
  ClvDevice *dev;
  char *index;

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    if (g_ascii_strcasecmp (item, kinds[k].name) == 0)
      return add_type (out, kinds[k].type, error);
  dev = clv_device_open (item, error);
  if (dev == NULL)
    return FALSE;
  index = g_strdup_printf ("%u:%u", dev->platform_index, dev->device_index);
  add_unique (out, index);
  g_free (index);
  clv_device_unref (dev);
  return TRUE;
}

/* Whether every device is a CPU: PoCL already spreads each kernel over
 * every core, so two pipelines keep it busy. */
static gboolean
all_cpus (GPtrArray * devices)
{
  for (guint i = 0; i < devices->len; i++) {
    ClvDevice *dev = clv_device_open (devices->pdata[i], NULL);
    gboolean cpu = dev && (dev->type & CL_DEVICE_TYPE_CPU);

    if (dev)
      clv_device_unref (dev);
    if (!cpu)
      return FALSE;
  }
  return TRUE;
}

char **
batch_devices_resolve (const char *list, guint * jobs, GError ** error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  char **items = g_strsplit (list ? list : "all", ",", -1);
  gboolean ok = TRUE;

  for (char **i = items; ok && *i; i++) {
    char *item = g_strstrip (*i);
    if (*item)
      ok = add_item (out, item, error);
  }
  g_strfreev (items);
  if (ok && out->len == 0) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "No OpenCL device is a '%s' here (clvision-batch --list-devices "
        "lists them)", list);
    ok = FALSE;
  }
  if (!ok) {
    g_ptr_array_unref (out);
    return NULL;
  }
  *jobs = all_cpus (out) ? MIN_JOBS
      : CLAMP (g_get_num_processors () / out->len, MIN_JOBS, MAX_JOBS);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}
