#!/usr/bin/env bash
# Tiles of windows 2 apart with their columns split by parity
# (.device/build, `new`) against e2c5e56 (.device/build-cq, `cq`) and
# 9ac7c26 (.device/build-base, `base`), alternating: call6.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-new1 .device/build
bench_vj $dir vj-cq1 .device/build-cq
bench_vj $dir vj-new2 .device/build
for r in 1 2; do
  bench_streams $dir/streams-new$r.json .device/build 640x480,1920x1280 1,16,64 auto
  bench_streams $dir/streams-cq$r.json .device/build-cq 640x480,1920x1280 1,16,64 auto
done
bench_streams $dir/streams-base1.json .device/build-base 640x480,1920x1280 1,16,64 auto
tar -C $out -czf $dir.tgz $1; rm -rf $dir
