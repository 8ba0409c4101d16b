#!/usr/bin/env bash
# How many registers the detection kernel takes (ptxas' report through
# -cl-nv-verbose, a fresh program cache) and the kernel under register caps
# of 56, 48 and 40 (VJ_MAX_REGISTERS), where the default's count bounds the
# resident work-groups of an SM: call4.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
XDG_CACHE_HOME=$(mktemp -d) G_MESSAGES_DEBUG=clvision CLVISION_CL_OPTIONS=-cl-nv-verbose \
  .device/build/tests/bench/bench-vj --repeat 3 --no-native --size 640x480 \
  --tune VJ_MAX_REGISTERS=56 --tune VJ_MAX_REGISTERS=48 --tune VJ_MAX_REGISTERS=40 \
  tests/data/cache/astronaut.pgm > $dir/ptxas.json 2> $dir/ptxas.log
grep -a -E "Compiling|registers|spill|smem" $dir/ptxas.log | grep -a -B1 -A1 vj_detect_tiled | head -40
bench_vj $dir vj-def1 .device/build
for r in 56 48 40; do
  CLVISION_TUNE=VJ_MAX_REGISTERS=$r bench_vj $dir vj-r$r .device/build
done
bench_vj $dir vj-def2 .device/build
tar -C $out -czf $dir.tgz $1; rm -rf $dir
