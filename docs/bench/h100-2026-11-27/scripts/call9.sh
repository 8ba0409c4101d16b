#!/usr/bin/env bash
# 90771f5 (.device/build) and the same with a queue per detector
# (.device/build-dq, call2.sh's experiment, now that the GPU is the
# bottleneck), against .device/build-base (b3085ea); then 600 frames a
# stream: call9.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-new .device/build
for b in new1:build dq1:build-dq base1:build-base new2:build dq2:build-dq base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
for b in new:build base:build-base; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/${b#*:}/gst timeout 250 .device/${b#*:}/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 16 --batching on \
    --frames 600 --devices auto --out $dir/long-${b%%:*}.json 2>&1 | grep frames/s
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
