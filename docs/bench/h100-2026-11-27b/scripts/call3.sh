#!/usr/bin/env bash
# A batch's tables, counters and read-back through a queue of the
# detector's own, with tiles coarse levels first (.device/build, `new`),
# against 9ac7c26 (.device/build-base, `base`), alternating: call3.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-new .device/build
bench_vj $dir vj-base .device/build-base
for r in 1 2; do
  bench_streams $dir/streams-new$r.json .device/build 640x480,1920x1280 1,16,64 auto
  bench_streams $dir/streams-base$r.json .device/build-base 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
