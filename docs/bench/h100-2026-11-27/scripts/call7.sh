#!/usr/bin/env bash
# Waits outside the driver: the completion callback wakes the waiting
# thread (.device/build) or the thread polls the event's status every
# 20 µs (.device/build-poll), against blocking reads and clWaitForEvents
# (.device/build-base, b3085ea): call7.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-cb .device/build
bench_vj $dir vj-base .device/build-base
for b in cb1:build poll1:build-poll base1:build-base cb2:build poll2:build-poll base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
