/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LLVMFuzzerInitialize of every fuzz target and of the corpus replay. */
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_log_set_always_fatal (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  return 0;
}
