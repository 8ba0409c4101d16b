#!/usr/bin/env bash
# What the double-precision stage sums cost: stage sums in float
# (float-sums.diff, CLVISION_CL_OPTIONS=-DVJ_DIAG_FLOAT_SUMS; not OpenCV's
# arithmetic, so results may differ, only the kernel times count; the
# variance stays in double) against the default, alternating twice:
# call8.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for r in 1 2; do
  bench_vj $dir vj-def$r .device/build
  CLVISION_CL_OPTIONS=-DVJ_DIAG_FLOAT_SUMS bench_vj $dir vj-f32-$r .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
