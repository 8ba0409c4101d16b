#!/usr/bin/env bash
# Stages compiled in (VJ_UNROLL) against the node loop, and VJ_COOP_STAGE with both.
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades CLVISION_AUTOTUNE=0
out=${OUT:-/tmp/out}
mkdir -p $out/unroll
python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm 2048 /tmp/faces >/dev/null
bin=.device/build/tests/bench/bench-vj
run () { # name tune
  local name=$1 tune=$2
  local t0=$(date +%s.%N)
  CLVISION_TUNE=$tune timeout 150 $bin --repeat 10 --no-native --size 1920x1280 --size 640x480 --batch 16 tests/data/cache/astronaut.pgm > $out/unroll/$name.json 2>$out/unroll/$name.err
  CLVISION_TUNE=$tune timeout 150 $bin --repeat 5 --batch 16 /tmp/faces/faces-16.pgm > $out/unroll/$name-faces.json 2>$out/unroll/$name-faces.err
  local t1=$(date +%s.%N)
  python3 - $out/unroll/$name.json $out/unroll/$name-faces.json "$name [$tune]" "$t0" "$t1" <<'PY'
import json,sys
fr=[]
for a in sys.argv[1:3]:
  try: fr+=json.load(open(a))["frames"]
  except Exception as e: print(a, "failed", e)
for f in fr:
  u=f["uber"]; b=f["batches"][0]
  print("%-30s %4dx%-4d b16/frame pyr %.3f det %.3f all %.3f eq %s %s" % (sys.argv[3], f["width"], f["height"], b["pyramid_kernels_ms_median"]/16, b["detect_kernels_ms_median"]/16, b["ms_per_frame"], u.get("equal_to_reference"), b.get("equal_to_reference")))
print("  (%.1f s)" % (float(sys.argv[5])-float(sys.argv[4])))
PY
}
run on1 ""
run off1 "VJ_UNROLL=0"
run on2 ""
run off2 "VJ_UNROLL=0"
for t in ${TUNES:-VJ_COOP_STAGE=2 VJ_COOP_STAGE=4 VJ_COOP_STAGE=5 VJ_COOP_STAGE=6 VJ_COOP_STAGE=8 "VJ_UNROLL=0,VJ_COOP_STAGE=2" "VJ_UNROLL=0,VJ_COOP_STAGE=4"}; do
  run "t-${t//[=,]/_}" "$t"
done
tar -C $out -czf $out/unroll.tgz unroll; rm -rf $out/unroll
