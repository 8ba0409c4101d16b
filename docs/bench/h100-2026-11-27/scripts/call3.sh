#!/usr/bin/env bash
# A timeline of the batches: .device/build-tl, a build of b3085ea that
# prints, per batch, the host's times (frames' uploads, submissions, the
# batch's start, its first enqueue, read-back, end) and its kernels' device
# start and end mapped to the host's clock (an instrumented build, not
# kept): call3.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for run in 1920x1280:16 640x480:64 640x480:16; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build-tl/gst timeout 250 .device/build-tl/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes ${run%%:*} --streams ${run#*:} --batching on \
    --frames 150 --devices auto --out $dir/tl-${run%%:*}-${run#*:}.json 2> $dir/tl-${run%%:*}-${run#*:}.log | grep frames/s
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
