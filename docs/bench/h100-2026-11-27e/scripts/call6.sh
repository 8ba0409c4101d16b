#!/bin/bash
# Call 6: check-vjfacedetect on the H100 with test_pool_frame_waits_for_upload
# (the lone analyser's barrier held to a DMA that a user event delays).
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call6
python3 tests/run-built.py .device/build check-vjfacedetect check-clchain \
  --log $out/call6/logs --map /usr/share/opencv4=$PWD/.device/opencv4 \
  | tee $out/call6/tests.txt | tail -4
grep -h "Checks:" $out/call6/logs/*.txt 2>/dev/null | head
tar -C $out -czf $out/call6.tgz call6
