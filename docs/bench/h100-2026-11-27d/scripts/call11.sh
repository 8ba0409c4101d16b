#!/bin/bash
# Call 11: check-vjfacedetect on the H100 at 43e1055 (pool frames in GRAY8
# and NV12 as well), and unit-vj-ref, which needs the OpenCV oracle: this
# call ran without it (oracle.tar.xz was set aside to fit the carry).
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call11
python3 tests/run-built.py .device/build check-vjfacedetect unit-vj-ref \
  --log $out/call11/logs --map /usr/share/opencv4=$PWD/.device/opencv4 \
  | tee $out/call11/tests.txt | tail -4
tar -C $out -czf $out/call11.tgz call11
