#!/usr/bin/env bash
# Tiles coarse levels first (CLVISION_CL_OPTIONS=-DVJ_COARSE_FIRST=1, `cf`)
# and batch buffers that double (.device/build, `new`) against 9ac7c26
# (.device/build-base, `base`): call1.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bench_vj $dir vj-base .device/build-base
bench_vj $dir vj-new .device/build
CLVISION_CL_OPTIONS=-DVJ_COARSE_FIRST=1 bench_vj $dir vj-cf .device/build
for r in 1 2; do
  bench_streams $dir/streams-base$r.json .device/build-base 640x480,1920x1280 1,16,64 auto
  bench_streams $dir/streams-new$r.json .device/build 640x480,1920x1280 1,16,64 auto
  CLVISION_CL_OPTIONS=-DVJ_COARSE_FIRST=1 bench_streams $dir/streams-cf$r.json .device/build 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
