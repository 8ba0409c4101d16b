#!/usr/bin/env bash
# Work-items to a window doubled as the windows run out (adaptive) against
# fixed (-DVJ_COOP_ADAPT=0 through CLVISION_CL_OPTIONS, an experiment), and
# VJ_COOP_WINDOWS with it: adapt.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
python3 tests/run-built.py .device/build unit-vj-gpu --log /tmp/tl \
  --map /usr/share/opencv4=$PWD/.device/opencv4 | tail -3
dir=$out/$1
mkdir -p $dir
for run in a1:: f1::-DVJ_COOP_ADAPT=0 a2:: f2::-DVJ_COOP_ADAPT=0 \
    cw4:VJ_COOP_WINDOWS=4: cw16:VJ_COOP_WINDOWS=16: \
    cw16f:VJ_COOP_WINDOWS=16:-DVJ_COOP_ADAPT=0 cw32:VJ_COOP_WINDOWS=32: \
    cs3:VJ_COOP_STAGE=3: cs5:VJ_COOP_STAGE=5:; do
  IFS=: read name tune opts <<< "$run"
  CLVISION_TUNE=$tune CLVISION_CL_OPTIONS=$opts bench_vj $dir $name .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
