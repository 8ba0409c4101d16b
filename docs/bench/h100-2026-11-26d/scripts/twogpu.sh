#!/usr/bin/env bash
# Two GPUs: 16 and 64 pipelines all on the first GPU against device=auto (spread).
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/" 2>/dev/null
out=${OUT:-/tmp/out}
b=.device/build
export CLVISION_AUTOTUNE=0
clinfo -l
for rep in 1 2; do
GST_PLUGIN_PATH_1_0=$PWD/$b/gst timeout 250 $b/tests/bench/bench-streams \
  --image tests/data/cache/astronaut.png --sizes 640x480,1920x1280 --streams 16,64 \
  --batching on --frames 150 --devices first,auto --out "$out/two-gpu-$rep.json" > "$out/two-gpu-$rep.log" 2>&1
python3 - "$out/two-gpu-$rep.json" $rep <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
print(d.get("device"), d.get("driver"))
for r in d["runs"]:
  print("run%s %4dx%-4d %2d %-5s fps %7.1f p50 %6.2f p99 %6.2f busy %s %s" % (sys.argv[2], r["width"], r["height"], r["streams"], r["device"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["busy"], r.get("devices")))
PY
done
