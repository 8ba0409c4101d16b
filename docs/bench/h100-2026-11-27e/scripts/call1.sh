#!/bin/bash
# Call 1: the tiled kernel's compiled-in stages compacted every
# VJ_PASS_STAGES stages (3: the one pass of before; 1: a local queue after
# every stage), with the first cooperative stage at 4 (default), 5 and 6;
# the detection per frame in batches of 16 and one frame at a time;
# alternating, twice.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call1
for k in 1 2; do
  for cfg in 3:4 1:4 2:4 1:5 1:6 2:6; do
    p=${cfg%:*} c=${cfg#*:}
    CLVISION_CL_OPTIONS=-DVJ_PASS_STAGES=$p CLVISION_TUNE=VJ_COOP_STAGE=$c \
      bench_vj $out/call1 p$p-c$c-$k .device/build
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call1.tgz call1
