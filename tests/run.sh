#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds clvision and runs every test
# on the default OpenCL device (PoCL on a machine without a GPU).
#   tests/run.sh [extra meson test arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tests/install-deps.sh
clv_install_deps

build=${CLV_BUILD_DIR:-build}
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" -Dtests=enabled >/dev/null
else
  meson setup "$build" -Dtests=enabled -Dbuildtype=debugoptimized
fi
ninja -C "$build"
echo "OpenCL devices: $(clinfo -l 2>/dev/null | tr '\n' ' ')"
status=0
meson test -C "$build" --print-errorlogs --num-processes "$(nproc)" "$@" || status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
exit $status
