#!/bin/bash
# Call 7: aa2f8f4 (the code of cef651f): the streams, batching on.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call7
mkdir -p $d
bench_streams $d/streams.json .device/build 1920x1280,640x480 1,16,64 auto
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call7.tgz call7
