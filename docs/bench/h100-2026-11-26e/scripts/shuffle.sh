#!/usr/bin/env bash
# Warp shuffles in the cooperative stages: unit-vj-gpu on the GPU, then the
# detection per frame with and without them (one build, alternating), the
# build before them (.device/build-base, b3db86a), and the cooperative
# stages' tunings with them: shuffle.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
python3 tests/run-built.py .device/build unit-vj-gpu --log /tmp/tl \
  --map /usr/share/opencv4=$PWD/.device/opencv4 | tail -3
dir=$out/$1
mkdir -p $dir
for run in on1: off1:VJ_SHUFFLE=0 on2: off2:VJ_SHUFFLE=0; do
  CLVISION_TUNE=${run#*:} bench_vj $dir "${run%%:*}" .device/build
done
bench_vj $dir base .device/build-base
for run in cw8:VJ_COOP_WINDOWS=8 cw32:VJ_COOP_WINDOWS=32 \
    cs3:VJ_COOP_STAGE=3 cs5:VJ_COOP_STAGE=5 cs6:VJ_COOP_STAGE=6; do
  CLVISION_TUNE=${run#*:} bench_vj $dir "${run%%:*}" .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
