#!/usr/bin/env bash
# The GPU suite on 90771f5 (.device/build), then streams against
# .device/build-base (b3085ea) once more: final.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
rm -f /opt/gstcl/.done
OUT=$out bash tests/bench/gpu-run.sh tests 2>&1 | tail -8
dir=$out/$1
mkdir -p $dir
for b in new:build base:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
