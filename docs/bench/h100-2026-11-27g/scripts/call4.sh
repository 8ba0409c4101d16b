#!/bin/bash
# Call 4: the report at the top of docs/PERFORMANCE.md, regenerated at
# f298662 (the kernels and host code of 0bad0db): report.sh, then the
# streams (gpu-run.sh streams, CLVISION_AUTOTUNE=0), packed for the tool.
source .device/setup.sh >/dev/null
# The cascades travel packed (the checkout and .device must stay under 64 MiB).
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
pack=/tmp/pack/report-h100
mkdir -p $pack
CLV_COMMIT=f298662ad653eb56b1a57256d955fe498e6a4d91 tests/bench/report.sh .device/build $pack > /tmp/pack/report.log 2>&1
tail -n 12 /tmp/pack/report.log
CLVISION_AUTOTUNE=0 OUT=$pack tests/bench/gpu-run.sh streams > /tmp/pack/streams.log 2>&1
tail -n 5 /tmp/pack/streams.log
cp /tmp/pack/report.log /tmp/pack/streams.log $pack/
tar -C /tmp/pack -czf $OUT/report-h100.tgz report-h100
