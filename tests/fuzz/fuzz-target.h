/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every fuzz target defines: libFuzzer's entry point.  Built with
 * clang -fsanitize=fuzzer by tests/fuzz/run.sh, and with replay.c (any
 * compiler) for the corpus replay in the normal test suite. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Called once before the first input (by libFuzzer, and by replay.c):
 * GLib warnings and criticals (a GError set twice, a failed precondition)
 * abort, so that they are findings too. */
int LLVMFuzzerInitialize (int *argc, char ***argv);
