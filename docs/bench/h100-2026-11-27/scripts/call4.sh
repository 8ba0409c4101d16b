#!/usr/bin/env bash
# Frames uploaded on the device's queue, in order before the batch's
# kernels, so that no stream waits for its DMA (.device/build-ord), against
# the transfer queue (.device/build-tl); both instrumented as in call3.sh:
# call4.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for b in ord1:build-ord tl1:build-tl ord2:build-ord tl2:build-tl; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
  rm -f $dir/streams-${b%%:*}.log
done
for b in ord:build-ord tl:build-tl; do
  for run in 1920x1280:16 640x480:64; do
    GST_PLUGIN_PATH_1_0=$PWD/.device/${b#*:}/gst timeout 250 .device/${b#*:}/tests/bench/bench-streams \
      --image tests/data/cache/astronaut.png --sizes ${run%%:*} --streams ${run#*:} --batching on \
      --frames 150 --devices auto --out $dir/tl-${b%%:*}-${run%%:*}-${run#*:}.json 2> $dir/tl-${b%%:*}-${run%%:*}-${run#*:}.log >/dev/null
  done
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
