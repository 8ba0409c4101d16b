#!/usr/bin/env bash
# Streams with stages compiled in (default) and without (VJ_UNROLL=0,VJ_COOP_STAGE=3:
# the previous commit's kernels), same build, alternating.
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/" 2>/dev/null
out=${OUT:-/tmp/out}
b=.device/build
export CLVISION_AUTOTUNE=0
run () { # name tune
  CLVISION_TUNE=$2 GST_PLUGIN_PATH_1_0=$PWD/$b/gst timeout 250 $b/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes ${SIZES:-640x480,1920x1280} --streams ${COUNTS:-1,16,64} \
    --batching on --frames 150 --devices auto --out "$out/streams-$1.json" > "$out/streams-$1.log" 2>&1
  python3 - "$out/streams-$1.json" "$1" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d.get("runs", d if isinstance(d,list) else []):
  print(sys.argv[2], r["width"], r["height"], r["streams"], "fps", r["fps"], "p50", r["latency_ms_p50"], "p99", r["latency_ms_p99"], "busy", r["busy"])
PY
}
run new1 ""
run old1 "VJ_UNROLL=0,VJ_COOP_STAGE=3"
run new2 ""
run old2 "VJ_UNROLL=0,VJ_COOP_STAGE=3"
