#!/usr/bin/env bash
# 520e894 (.device/build) under batching tunings, alternating, twice:
# inflight.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for rep in 1 2; do
  for t in d: i3:VJ_BATCH_INFLIGHT=3 i1:VJ_BATCH_INFLIGHT=1 m8:VJ_MAX_BATCH=8; do
    CLVISION_TUNE=${t#*:} bench_streams $dir/streams-${t%%:*}$rep.json .device/build 640x480,1920x1280 16,64 auto
  done
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
