#!/usr/bin/env bash
# The cooperative stages' tree loop unrolled by the compiler (-DVJ_COOP_UNROLL
# through CLVISION_CL_OPTIONS, an experiment), then this build against
# .device/build-base alternating: unroll-streams.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for run in d1: u2:-DVJ_COOP_UNROLL=2 u4:-DVJ_COOP_UNROLL=4 d2:; do
  CLVISION_CL_OPTIONS=${run#*:} bench_vj $dir "${run%%:*}" .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
bash "$(dirname "$0")/../../h100-2026-11-26d/scripts/against-base.sh" $1-base
