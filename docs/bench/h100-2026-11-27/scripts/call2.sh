#!/usr/bin/env bash
# Each detector with its own queue (.device/build) against
# .device/build-base (b3085ea): unit-vj-gpu, detection per frame, streams
# alternating, then both with 600 frames a stream: call2.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
python3 tests/run-built.py .device/build unit-vj-gpu --log $dir/unit-vj-gpu.log \
  --map /usr/share/opencv4=$PWD/.device/opencv4 2>&1 | tail -2
bench_vj $dir vj-new .device/build
bench_vj $dir vj-base .device/build-base
for b in new1:build base1:build-base new2:build base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
TIMEFORMAT='  (process: user %U s, system %S s, wall %R s)'
for b in new:build base:build-base; do
  for run in 1920x1280:16 640x480:64; do
    time GST_PLUGIN_PATH_1_0=$PWD/.device/${b#*:}/gst timeout 250 .device/${b#*:}/tests/bench/bench-streams \
      --image tests/data/cache/astronaut.png --sizes ${run%%:*} --streams ${run#*:} --batching on \
      --frames 600 --devices auto --out $dir/long-${b%%:*}-${run%%:*}.json 2>&1 | grep frames/s
  done
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
