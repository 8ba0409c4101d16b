#!/bin/bash
# Call 7: does an idle GPU between frames slow the next one?  bench-vj's
# single-frame path on the crowded canvas from pinned memory, back to back
# and with 8 ms of sleep before each frame (scripts/sleep-diag.diff, a
# diagnostic build of e45047f), alternating, twice.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call7
for k in 1 2; do
  for z in 0 8; do
    DIAG_SLEEP_MS=$z .device/build/tests/bench/bench-vj --repeat 20 --pinned /tmp/faces/faces-16.pgm > $out/call7/vj-sleep$z-$k.json 2>/dev/null
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); u=d['frames'][0]['uber']
print('%-20s one frame %.3f (min %.3f) pyr %.3f det %.3f eq %s' % (sys.argv[1].split('/')[-1], u['ms_median'], u['ms_min'], u['pyramid_kernels_ms_median'], u['detect_kernels_ms_median'], u['equal_to_reference']))" $out/call7/vj-sleep$z-$k.json
  done
done
tar -C $out -czf $out/call7.tgz call7
