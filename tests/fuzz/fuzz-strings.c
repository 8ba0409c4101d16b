/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target: the string parsers users type: the `device` property and
 * CLVISION_DEVICE (clv_device_spec_parse), CLVISION_TUNE
 * (clv_tune_lookup) and vjfacedetect's min-size/max-size
 * (clv_vj_parse_size).  The first byte picks the parser, the rest is the
 * string.  Each parse is checked against what it promises. */
#include "clv-opencl.h"
#include "clv-vj-ref.h"
#include "fuzz-target.h"

#include <string.h>

static void
fuzz_size (const char *s)
{
  int w = -1, h = -1, w2, h2;
  char *again;

  if (!clv_vj_parse_size (s, &w, &h)) {
    if (w != -1 || h != -1)
      abort ();
    return;
  }
  if (w < 0 || h < 0)
    abort ();
  again = g_strdup_printf ("%dx%d", w, h);
  if (!clv_vj_parse_size (again, &w2, &h2) || w2 != w || h2 != h)
    abort ();
  g_free (again);
}

static void
fuzz_device (const char *s)
{
  guint p = 0, d = 0, p2, d2;
  char *again;

  switch (clv_device_spec_parse (s, &p, &d)) {
    case CLV_DEVICE_SPEC_AUTO:
      if (*s != '\0' && g_ascii_strcasecmp (s, "auto") != 0)
        abort ();
      break;
    case CLV_DEVICE_SPEC_FIRST:
      if (g_ascii_strcasecmp (s, "first") != 0)
        abort ();
      break;
    case CLV_DEVICE_SPEC_INDEX:
      again = g_strdup_printf ("%u:%u", p, d);
      if (clv_device_spec_parse (again, &p2, &d2) != CLV_DEVICE_SPEC_INDEX
          || p2 != p || d2 != d)
        abort ();
      g_free (again);
      break;
    case CLV_DEVICE_SPEC_NAME:
      if (*s == '\0')
        abort ();
      break;
    default:
      abort ();
  }
}

/* "NAME\nLIST", or the whole input as the list for the name VJ_VARIANT. */
static void
fuzz_tune (const char *s)
{
  const char *nl = strchr (s, '\n');
  char *name = nl ? g_strndup (s, nl - s) : g_strdup ("VJ_VARIANT");
  char *value = clv_tune_lookup (nl ? nl + 1 : s, name);

  /* A value ends at the next ',' and has no blanks around it. */
  if (value != NULL && (strchr (value, ',') != NULL
          || (value[0] && (g_ascii_isspace (value[0])
                  || g_ascii_isspace (value[strlen (value) - 1])))))
    abort ();
  g_free (value);
  g_free (name);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  char *s;

  if (size < 1)
    return 0;
  s = g_strndup ((const char *) data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      fuzz_size (s);
      break;
    case 1:
      fuzz_device (s);
      break;
    default:
      fuzz_tune (s);
      break;
  }
  g_free (s);
  return 0;
}
