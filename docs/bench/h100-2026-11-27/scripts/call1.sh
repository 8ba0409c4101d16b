#!/usr/bin/env bash
# The pyramid's rows unrolled (.device/build-pyr) and, on top, batches that
# wait beside a running one until as many frames gather (.device/build),
# against .device/build-base (b3085ea): call1.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
python3 tests/run-built.py .device/build unit-vj-gpu --log $dir/unit-vj-gpu.log \
  --map /usr/share/opencv4=$PWD/.device/opencv4 2>&1 | tail -2
bench_vj $dir vj-pyr1 .device/build-pyr
bench_vj $dir vj-base1 .device/build-base
bench_vj $dir vj-pyr2 .device/build-pyr
for b in pyr1:build-pyr new1:build base1:build-base new2:build pyr2:build-pyr base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
# The batches' sizes (vjfacedetect logs each frame's): 16 x 1920x1280 and
# 64 x 640x480.
for b in pyr:build-pyr new:build; do
  for run in 1920x1280:16 640x480:64; do
    log=/tmp/log-${b%%:*}-${run%%:*}
    GST_DEBUG=vjfacedetect:6 GST_DEBUG_FILE=$log GST_DEBUG_NO_COLOR=1 \
      bench_streams $dir/batches-${b%%:*}-${run%%:*}.json .device/${b#*:} ${run%%:*} ${run#*:} auto
    grep -o "batch of [0-9]* frames" $log | sort | uniq -c | sort -k4n > $dir/batches-${b%%:*}-${run%%:*}.txt
  done
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
