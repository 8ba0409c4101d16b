#!/usr/bin/env bash
# One stream of a large frame through vjfacedetect (element latency): the
# upload from pageable memory (default for a lone stream) against the
# staged pinned upload (CLVISION_TUNE=UPLOAD_PINNED=1), alternating twice,
# on the crowded canvas and the photograph at 1920x1280 and 3840x2160;
# then one frame of the canvas in bench-vj: call1.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lone () {   # FILE IMAGE SIZES
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 200 .device/build/tests/bench/bench-streams \
    --image $2 --sizes $3 --streams 1 --batching on --frames 300 --devices auto \
    --out $1 > ${1%.json}.log 2>&1
  python3 - "$1" "${CLVISION_TUNE:-default}" <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("%-14s %-18s %4dx%-4d fps %7.1f p50 %6.3f p99 %6.3f" % (sys.argv[1].split("/")[-1], sys.argv[2], r["width"], r["height"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"]))
PY
}
for r in 1 2; do
  lone $dir/canvas-def$r.json /tmp/faces/faces-16.pgm 2048x2048
  CLVISION_TUNE=UPLOAD_PINNED=1 lone $dir/canvas-pin$r.json /tmp/faces/faces-16.pgm 2048x2048
  lone $dir/photo-def$r.json tests/data/cache/astronaut.png 1920x1280,3840x2160
  CLVISION_TUNE=UPLOAD_PINNED=1 lone $dir/photo-pin$r.json tests/data/cache/astronaut.png 1920x1280,3840x2160
done
bench_vj $dir vj-new .device/build
tar -C $out -czf $dir.tgz $1; rm -rf $dir
