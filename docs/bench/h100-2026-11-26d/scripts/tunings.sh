#!/usr/bin/env bash
# Detection per frame with one build under several CLVISION_TUNE values, in
# the order given: tunings.sh DIR NAME:TUNE ...  (an empty TUNE: defaults).
# unroll/:       tunings.sh unroll on1: off1:VJ_UNROLL=0 on2: off2:VJ_UNROLL=0
#                  t-VJ_COOP_STAGE_2:VJ_COOP_STAGE=2 ... (stages 2 4 5 6 8,
#                  then VJ_UNROLL=0 with 2 and 4)
# tiles-sweep/:  tunings.sh tiles d1: t-VJ_TILE_Y_16:VJ_TILE_Y=16 ... d2:
#                  (the tunings named by the files there)
source "$(dirname "$0")/common.sh"
dir=$out/$1; shift
mkdir -p $dir
for run in "$@"; do
  CLVISION_TUNE=${run#*:} bench_vj $dir "${run%%:*}" .device/build
done
tar -C $out -czf $dir.tgz $(basename $dir); rm -rf $dir
