#!/usr/bin/env bash
# After the review (599d57e): unit-opencl, unit-batch, unit-vj-gpu and
# check-vjfacedetect on the GPU, then 16 streams once: recheck.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
python3 tests/run-built.py .device/build unit-opencl unit-batch unit-vj-gpu check-vjfacedetect \
  --log $dir/tests.log --map /usr/share/opencv4=$PWD/.device/opencv4 2>&1 | tail -5
bench_streams $dir/streams-new.json .device/build 640x480,1920x1280 16 auto
tar -C $out -czf $dir.tgz $1; rm -rf $dir
