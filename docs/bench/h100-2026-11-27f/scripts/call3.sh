#!/bin/bash
# Call 3: the cooperative stages summing every tree's third rectangle,
# whatever its weight (0 for two-rectangle features: exact), instead of
# branching on it (CLVISION_CL_OPTIONS=-DVJ_RECT3_ALWAYS=1, the
# experiment's switch), against the default; alternating, twice; then one
# crowded canvas at a time (library, pinned).
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call3
mkdir -p $d
for k in 1 2; do
  bench_vj $d base-$k .device/build
  CLVISION_CL_OPTIONS=-DVJ_RECT3_ALWAYS=1 bench_vj $d rect3-$k .device/build
done
for k in 1 2; do
  for v in base rect3; do
    o=; [ $v = rect3 ] && o=-DVJ_RECT3_ALWAYS=1
    CLVISION_CL_OPTIONS=$o .device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $d/one-$v-$k.json 2>/dev/null
    python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; print('one crowded frame pinned %-8s %.3f det %.3f eq %s' % (sys.argv[2], f['uber']['ms_median'], f['uber']['detect_kernels_ms_median'], f['uber'].get('equal_to_reference')))" $d/one-$v-$k.json $v-$k
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call3.tgz call3
