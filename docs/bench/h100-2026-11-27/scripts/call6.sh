#!/usr/bin/env bash
# Waiting for events by polling their status (CLVISION_POLL=N: every N µs,
# an experiment in .device/build-tl, instrumented as in call5.sh) instead of
# clWaitForEvents and blocking reads: call6.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for p in 0 20; do
  for run in 1920x1280:16 640x480:64; do
    CLVISION_POLL=$p GST_PLUGIN_PATH_1_0=$PWD/.device/build-tl/gst timeout 250 .device/build-tl/tests/bench/bench-streams \
      --image tests/data/cache/astronaut.png --sizes ${run%%:*} --streams ${run#*:} --batching on \
      --frames 150 --devices auto --out $dir/tl-p$p-${run%%:*}-${run#*:}.json 2> $dir/tl-p$p-${run%%:*}-${run#*:}.log >/dev/null
  done
done
for r in p20a:20 p0a:0 p5a:5 p20b:20 p0b:0 p5b:5; do
  CLVISION_POLL=${r#*:} bench_streams $dir/streams-${r%%:*}.json .device/build-tl 640x480,1920x1280 1,16,64 auto
  rm -f $dir/streams-${r%%:*}.log
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
