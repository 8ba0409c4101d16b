#!/bin/bash
# Call 1: where the host time of one crowded frame goes (diagnostic build
# with scripts/host-diag.diff), frames in pageable and in pinned memory.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call1
for k in 1 2; do
  for pin in "" 1; do
    DIAG_TIMES=1 DIAG_PINNED=$pin .device/build/tests/bench/bench-vj --repeat 10 --batch 1 /tmp/faces/faces-16.pgm /tmp/faces/faces-00.pgm > $out/call1/vj-pin$pin-$k.json 2> $out/call1/diag-pin$pin-$k.txt
    grep DIAG $out/call1/diag-pin$pin-$k.txt | tail -12 | sed "s/^/pin=$pin run $k: /"
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call1.tgz call1
