#!/usr/bin/env bash
# Tile shapes, groups and the first cooperative stage with stages compiled in.
set -u
cd "$(dirname "$0")/.."
source .device/setup.sh >/dev/null
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades CLVISION_AUTOTUNE=0
out=${OUT:-/tmp/out}
mkdir -p $out/tiles
python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm 2048 /tmp/faces >/dev/null
bin=.device/build/tests/bench/bench-vj
run () { # name tune
  local name=$1 tune=$2
  local t0=$(date +%s.%N)
  CLVISION_TUNE=$tune timeout 150 $bin --repeat 10 --no-native --size 1920x1280 --size 640x480 --batch 16 tests/data/cache/astronaut.pgm > $out/tiles/$name.json 2>$out/tiles/$name.err
  CLVISION_TUNE=$tune timeout 150 $bin --repeat 5 --batch 16 /tmp/faces/faces-16.pgm > $out/tiles/$name-faces.json 2>$out/tiles/$name-faces.err
  local t1=$(date +%s.%N)
  python3 - $out/tiles/$name.json $out/tiles/$name-faces.json "$name [$tune]" "$t0" "$t1" <<'PY'
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
run d1 ""
for t in ${TUNES:-"VJ_TILE_Y=16" "VJ_TILE_Y=16,VJ_COOP_STAGE=5" "VJ_TILE_Y=16,VJ_COOP_STAGE=6" "VJ_TILE_X=64" "VJ_TILE_X=64,VJ_COOP_STAGE=5" "VJ_TILE_Y=16,VJ_WG=256" "VJ_TILE_Y=16,VJ_WG=256,VJ_COOP_STAGE=5" "VJ_COOP_WINDOWS=8" "VJ_COOP_WINDOWS=32" "VJ_TILE_X=16,VJ_TILE_Y=16"}; do
  run "t-${t//[=,]/_}" "$t"
done
run d2 ""
tar -C $out -czf $out/tiles.tgz tiles; rm -rf $out/tiles
