#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# valgrind memcheck of real pipelines on the default OpenCL device (PoCL
# here): detect -> recognise [-> roioverlay] on a real video, and the SAR
# chain in memory:OpenCL.  Fails on any memory error and on any definite
# or indirect leak; tests/valgrind.supp names the GLib/GStreamer/PoCL
# internals it suppresses, and why.  Minutes; not part of CI:
#   nice -n 19 tests/valgrind.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${CLV_BUILD_DIR:-build}
export GST_PLUGIN_PATH_1_0=$PWD/$build/gst/elements
export GST_REGISTRY_1_0=$PWD/$build/valgrind-registry.bin
export G_SLICE=always-malloc G_DEBUG=gc-friendly
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v valgrind >/dev/null || { echo "apt-get install valgrind" >&2; exit 1; }

"$build/examples/clvision-eigen-train" -q -i tests/data/cache/lfw/faces \
  -s 32x32 -o "$tmp/model.yml"
overlay=
gst-inspect-1.0 roioverlay >/dev/null 2>&1 && overlay="! roioverlay"
# Registry and program cache filled outside valgrind: the runs measure the
# pipelines, not the plugin scan or PoCL's compiler.
gst-inspect-1.0 vjfacedetect >/dev/null

run () {
  local name=$1 pipeline=$2 status=0
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $pipeline >/dev/null   # warms the program cache
  echo "== $name: $pipeline"
  # shellcheck disable=SC2086
  valgrind --tool=memcheck --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=1 --num-callers=40 --suppressions=tests/valgrind.supp \
    --gen-suppressions=all --log-file="$build/valgrind-$name.log" \
    gst-launch-1.0 -q $pipeline >/dev/null || status=$?
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable" \
    "$build/valgrind-$name.log" | sed "s/^==[0-9]*==/$name:/"
  return $status
}

status=0
run faces "filesrc location=tests/data/cache/franck.webm ! parsebin ! \
  identity eos-after=9 ! decodebin ! videoconvert ! video/x-raw,format=I420 ! \
  vjfacedetect ! eigenrecognise model=$tmp/model.yml $overlay ! fakesink" || status=1
run sar "videotestsrc pattern=snow num-buffers=20 ! \
  video/x-raw,format=GRAY16_LE,width=320,height=240 ! clupload ! \
  sarmultilook range-looks=2 azimuth-looks=3 ! sarrotscale angle=30 ! \
  sarquantize ! cldownload ! fakesink" || status=1
exit $status
