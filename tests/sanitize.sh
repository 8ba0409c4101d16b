#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds clvision with AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc, build-asan/ or CLV_ASAN_BUILD_DIR) and runs the unit tests, the
# element tests and the fuzz corpus replays under them on the default
# OpenCL device (PoCL here).  Any report fails the test that caused it.
# Leak reports from GLib/GStreamer/PoCL internals are suppressed by
# tests/lsan.supp (each entry says why); nothing of ours is.
#   nice -n 19 tests/sanitize.sh [TEST...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${CLV_ASAN_BUILD_DIR:-build-asan}
# No introspection: g-ir-scanner runs the sanitized library's dump program,
# whose GLib type registrations LeakSanitizer reports and fail the build.
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dtests=enabled -Dexamples=disabled -Dbuildtype=debug \
    -Db_sanitize=address,undefined -Db_lundef=false -Dintrospection=disabled
fi
ninja -C "$build"
tests/fetch-data.sh "$build/tests/oracle/clv-gray-pgm"

# The plugin is scanned in-process: gst-plugin-scanner is not built with
# ASan and could not load it.  So that the scan loads only what the tests
# use (and not every installed plugin with its own leaks), the system
# plugins are those below.  PoCL's LLVM registers globals twice (odr),
# harmless; its JIT'd kernels are not instrumented.
export GST_REGISTRY_FORK=no
system_plugins=$build/system-plugins
mkdir -p "$system_plugins"
gst_plugins=/usr/lib/$(gcc -print-multiarch)/gstreamer-1.0
for p in coreelements app videotestsrc videoconvertscale videorate playback \
    typefindfunctions matroska vpx opus vorbis audioconvert audioresample \
    jpeg png pnm imagefreeze multifile rawparse pbtypes rtsp rtp \
    rtpmanager udp tcp; do
  [ -f "$gst_plugins/libgst$p.so" ] && ln -sf "$gst_plugins/libgst$p.so" "$system_plugins/"
done
export GST_PLUGIN_SYSTEM_PATH_1_0=$PWD/$system_plugins
# Full stacks for every allocation (GLib and GStreamer have no frame
# pointers): without them the leak suppressions cannot match.
export ASAN_OPTIONS=detect_leaks=1:detect_odr_violation=0:abort_on_error=1:allocator_may_return_null=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# No GLib slice allocator, so every block is visible to ASan.
export G_SLICE=always-malloc
# gst-launch-1.0 and gst-inspect-1.0 are not built with ASan, and could
# not load the sanitized plugin: the tests that run them find first in PATH
# wrappers that preload the sanitizers' runtimes, so that the plugin's
# errors and leaks in them are reported too.
sanitized_bin=$build/sanitized-bin
mkdir -p "$sanitized_bin"
# A test that runs one by its full path (tools/systemd's unit) preloads
# CLV_SANITIZER_PRELOAD itself.
CLV_SANITIZER_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export CLV_SANITIZER_PRELOAD
for prog in gst-launch-1.0 gst-inspect-1.0; do
  real=$(command -v "$prog")
  # shellcheck disable=SC2016
  printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" exec %s "$@"\n' \
    "$CLV_SANITIZER_PRELOAD" "$real" > "$sanitized_bin/$prog"
  chmod +x "$sanitized_bin/$prog"
done
export PATH=$PWD/$sanitized_bin:$PATH
# The oracle (OpenCV itself) is not ours; everything else runs (or the
# tests named on the command line).
tests="$*"
[ -n "$tests" ] || tests=$(meson test -C "$build" --list 2>/dev/null \
  | grep -v -E '^oracle-' | grep -v '^ninja')
# shellcheck disable=SC2086
meson test -C "$build" --print-errorlogs --num-processes 1 \
  --timeout-multiplier 4 $tests
