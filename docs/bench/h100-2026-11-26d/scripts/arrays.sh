#!/usr/bin/env bash
# Stump arrays for the cooperative stages (build) against cd3df6c (build-base),
# alternating: detection per frame, then streams.
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades CLVISION_AUTOTUNE=0
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/" 2>/dev/null
out=${OUT:-/tmp/out}
mkdir -p $out/arrays
python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm 2048 /tmp/faces >/dev/null
vj () { # name build
  $2/tests/bench/bench-vj --repeat 10 --no-native --size 1920x1280 --size 640x480 --batch 16 tests/data/cache/astronaut.pgm > $out/arrays/vj-$1.json 2>/dev/null
  $2/tests/bench/bench-vj --repeat 5 --batch 16 /tmp/faces/faces-16.pgm > $out/arrays/vj-$1-faces.json 2>/dev/null
  python3 - $out/arrays/vj-$1.json $out/arrays/vj-$1-faces.json $1 <<'PY'
import json,sys
for a in sys.argv[1:3]:
  for f in json.load(open(a))["frames"]:
    b=f["batches"][0]; u=f["uber"]
    print("%-8s %4dx%-4d b16/frame pyr %.3f det %.3f | one frame wall %.3f det %.3f | eq %s %s" % (sys.argv[3], f["width"], f["height"], b["pyramid_kernels_ms_median"]/16, b["detect_kernels_ms_median"]/16, u["ms_median"], u["detect_kernels_ms_median"], u.get("equal_to_reference"), b.get("equal_to_reference")))
PY
}
st () { # name build
  GST_PLUGIN_PATH_1_0=$PWD/$2/gst timeout 250 $2/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes 640x480,1920x1280 --streams 1,16,64 \
    --batching on --frames 150 --devices auto --out "$out/arrays/streams-$1.json" > /dev/null 2>&1
  python3 - "$out/arrays/streams-$1.json" "$1" <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("%-8s %4dx%-4d %2d fps %7.1f p50 %6.2f p99 %6.2f busy %s" % (sys.argv[2], r["width"], r["height"], r["streams"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["busy"]))
PY
}
vj new1 .device/build; vj base1 .device/build-base; vj new2 .device/build; vj base2 .device/build-base
st new1 .device/build; st base1 .device/build-base; st new2 .device/build; st base2 .device/build-base
tar -C $out -czf $out/arrays.tgz arrays; rm -rf $out/arrays
