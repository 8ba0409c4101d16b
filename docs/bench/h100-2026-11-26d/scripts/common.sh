# Sourced by the scripts here (on the GPU machine, from this folder or a
# copy in .device/): goes to the checkout's root, sets up the runtime
# (.device/setup.sh, OpenCV's cascades, the extra GStreamer plugins the
# streams' pipelines use), no stored tuning, results under $out.
set -u
root=$(dirname "${BASH_SOURCE[0]}")
while [ ! -d "$root/.device" ]; do root=$root/..; done
cd "$root"
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades CLVISION_AUTOTUNE=0
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/" 2>/dev/null
out=${OUT:-/tmp/out}
python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm 2048 /tmp/faces >/dev/null

# bench_vj DIR NAME BUILD: the detection per frame in batches of 16 (the
# photograph at two sizes, the crowded canvas) with CLVISION_TUNE as set,
# into DIR/NAME.json and DIR/NAME-faces.json, and a line per frame.
bench_vj () {
  $3/tests/bench/bench-vj --repeat 10 --no-native --size 1920x1280 --size 640x480 --batch 16 tests/data/cache/astronaut.pgm > $1/$2.json 2>/dev/null
  $3/tests/bench/bench-vj --repeat 5 --batch 16 /tmp/faces/faces-16.pgm > $1/$2-faces.json 2>/dev/null
  python3 - $1/$2.json $1/$2-faces.json "$2 [${CLVISION_TUNE:-}]" <<'PY'
import json,sys
for a in sys.argv[1:3]:
  for f in json.load(open(a))["frames"]:
    b=f["batches"][0]; u=f["uber"]
    print("%-30s %4dx%-4d b16/frame pyr %.3f det %.3f | one frame wall %.3f det %.3f | eq %s %s" % (sys.argv[3], f["width"], f["height"], b["pyramid_kernels_ms_median"]/16, b["detect_kernels_ms_median"]/16, u["ms_median"], u["detect_kernels_ms_median"], u.get("equal_to_reference"), b.get("equal_to_reference")))
PY
}

# bench_streams FILE BUILD SIZES COUNTS DEVICES: bench-streams with batching
# on into FILE, and a line per run.
bench_streams () {
  GST_PLUGIN_PATH_1_0=$PWD/$2/gst timeout 250 $2/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes $3 --streams $4 \
    --batching on --frames 150 --devices $5 --out "$1" > "${1%.json}.log" 2>&1
  python3 - "$1" <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("%-24s %4dx%-4d %2d %-5s fps %7.1f p50 %6.2f p99 %6.2f busy %s" % (sys.argv[1].split("/")[-1], r["width"], r["height"], r["streams"], r["device"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["busy"]))
PY
}
