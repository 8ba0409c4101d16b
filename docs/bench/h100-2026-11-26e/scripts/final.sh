#!/usr/bin/env bash
# The GPU suite, then this build against .device/build-base (b3db86a):
# detection per frame (and the cooperative stages' windows at a time),
# streams alternating: final.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
rm -f /opt/gstcl/.done
OUT=$out bash tests/bench/gpu-run.sh tests 2>&1 | tail -8
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-new .device/build
bench_vj $dir vj-base .device/build-base
for run in cw16:VJ_COOP_WINDOWS=16 cw4:VJ_COOP_WINDOWS=4; do
  CLVISION_TUNE=${run#*:} bench_vj $dir "${run%%:*}" .device/build
done
for b in new1:build base1:build-base new2:build; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
