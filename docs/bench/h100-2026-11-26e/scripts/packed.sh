#!/usr/bin/env bash
# The cooperative stages' nodes in three planes (16-bit offsets) instead
# of five: unit-vj-gpu on the GPU, then this build against
# .device/build-shfl (e0a6bb0) alternating: packed.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
python3 tests/run-built.py .device/build unit-vj-gpu --log /tmp/tl \
  --map /usr/share/opencv4=$PWD/.device/opencv4 | tail -3
dir=$out/$1
mkdir -p $dir
for b in new1:build base1:build-shfl new2:build base2:build-shfl; do
  bench_vj $dir vj-${b%%:*} .device/${b#*:}
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
