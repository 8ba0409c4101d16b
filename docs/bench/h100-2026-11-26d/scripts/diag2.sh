#!/usr/bin/env bash
# Diagnostic (not committed): detection without the cooperative stages, against the default.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
for o in "" "-DVJ_DIAG_SKIP_COOP=1"; do
  CLVISION_CL_OPTIONS=$o .device/build/tests/bench/bench-vj --repeat 10 --no-native --no-check --size 1920x1280 --size 640x480 --batch 16 tests/data/cache/astronaut.pgm > /tmp/d.json 2>/dev/null
  CLVISION_CL_OPTIONS=$o .device/build/tests/bench/bench-vj --repeat 5 --no-check --batch 16 /tmp/faces/faces-16.pgm > /tmp/f.json 2>/dev/null
  python3 - /tmp/d.json /tmp/f.json "[$o]" <<'PY'
import json,sys
for a in sys.argv[1:3]:
  for f in json.load(open(a))["frames"]:
    b=f["batches"][0]
    print("%-24s %4dx%-4d det/frame %.3f" % (sys.argv[3], f["width"], f["height"], b["detect_kernels_ms_median"]/16))
PY
done
done
