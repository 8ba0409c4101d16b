#!/usr/bin/env bash
# 372aef0 (waits outside the driver, .device/build) and the same with
# batches that wait beside a running one until as many frames gather
# (.device/build-p1, call1.sh's policy), against .device/build-base
# (b3085ea): call8.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-new .device/build
bench_vj $dir vj-base .device/build-base
for b in new1:build p1-1:build-p1 base1:build-base new2:build p1-2:build-p1 base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
