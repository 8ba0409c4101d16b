#!/usr/bin/env bash
# Uploads over 1 or 4 transfer queues (CLVISION_XFER_QUEUES, an experiment
# in .device/build-tl, instrumented as in call3.sh and also printing each
# DMA chunk's device times): call5.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for x in 1 4; do
  for run in 1920x1280:16 640x480:64; do
    CLVISION_XFER_QUEUES=$x GST_PLUGIN_PATH_1_0=$PWD/.device/build-tl/gst timeout 250 .device/build-tl/tests/bench/bench-streams \
      --image tests/data/cache/astronaut.png --sizes ${run%%:*} --streams ${run#*:} --batching on \
      --frames 150 --devices auto --out $dir/tl-x$x-${run%%:*}-${run#*:}.json 2> $dir/tl-x$x-${run%%:*}-${run#*:}.log | grep frames/s
  done
done
for r in x4a:4 x1a:1 x4b:4 x1b:1; do
  CLVISION_XFER_QUEUES=${r#*:} bench_streams $dir/streams-${r%%:*}.json .device/build-tl 640x480,1920x1280 16,64 auto
  rm -f $dir/streams-${r%%:*}.log
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
