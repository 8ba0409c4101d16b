#!/usr/bin/env bash
# Batching tunables with stages compiled in: in-flight batches and batch cap.
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/" 2>/dev/null
out=${OUT:-/tmp/out}
b=.device/build
export CLVISION_AUTOTUNE=0
run () { # name tune sizes counts
  CLVISION_TUNE=$2 GST_PLUGIN_PATH_1_0=$PWD/$b/gst timeout 200 $b/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes $3 --streams $4 \
    --batching on --frames 150 --devices auto --out "$out/sweep-$1.json" > "$out/sweep-$1.log" 2>&1
  python3 - "$out/sweep-$1.json" "$1" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d["runs"]:
  print("%-22s %4dx%-4d %2d fps %7.1f p50 %6.2f p99 %6.2f busy %s" % (sys.argv[2], r["width"], r["height"], r["streams"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["busy"]))
PY
}
for rep in 1 2; do
for t in "" VJ_BATCH_INFLIGHT=3 VJ_MAX_BATCH=64 "VJ_BATCH_INFLIGHT=3,VJ_MAX_BATCH=64" VJ_MAX_BATCH=16; do
  run "${t:-default}$rep" "$t" 640x480,1920x1280 16,64
done
done
