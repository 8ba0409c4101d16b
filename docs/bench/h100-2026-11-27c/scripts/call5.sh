#!/usr/bin/env bash
# What double-precision stage sums cost (diagnostic: CLVISION_CL_OPTIONS=
# -DVJ_FP64=0 sums in float, which is not OpenCV's arithmetic, so results
# may differ; only the kernel times count), against the default,
# alternating: call5.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for r in 1 2; do
  bench_vj $dir vj-def$r .device/build
  CLVISION_CL_OPTIONS=-DVJ_FP64=0 bench_vj $dir vj-f32-$r .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
