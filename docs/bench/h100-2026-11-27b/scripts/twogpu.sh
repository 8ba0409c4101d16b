#!/usr/bin/env bash
# Two H200s: unit-opencl and unit-batch on .device/build (this build: 1dfcfdb), then
# 16 and 64 pipelines all on the first GPU against device=auto (spread),
# twice: twogpu.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 tests/run-built.py .device/build unit-opencl unit-batch --log $dir/tests.log \
  --map /usr/share/opencv4=$PWD/.device/opencv4 2>&1 | tail -3
for rep in 1 2; do
  bench_streams $dir/two-gpu-$rep.json .device/build 640x480,1920x1280 16,64 first,auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
