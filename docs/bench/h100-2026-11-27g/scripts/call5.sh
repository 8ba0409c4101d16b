#!/bin/bash
# Call 5: does the gap between a pipeline's frames slow the next one?  The
# library, one crowded canvas at a time from pinned memory (bench-vj's
# single-frame path, scripts/gap-diag.diff on f298662): back to back, after
# 6 ms of sleep (DIAG_GAP_MS=6), and after 6 ms of the CPU touching 16 MB
# (DIAG_GAP_MODE=busy, as a conversion does); against vjfacedetect from its
# pool (bench-streams --convert).  Three times, alternating.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call5
mkdir -p $d
canvas=/tmp/faces/faces-16.pgm
lib () {
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; print('%-12s library one frame %.3f (min %.3f) pyr %.3f det %.3f eq %s' % (sys.argv[2], u['ms_median'], u['ms_min'], u['pyramid_kernels_ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference')))" $1 $2
}
for k in 1 2 3; do
  .device/build/tests/bench/bench-vj --repeat 30 --batch 1 --pinned $canvas > $d/b2b-$k.json 2>/dev/null
  lib $d/b2b-$k.json back-to-back
  DIAG_GAP_MS=6 .device/build/tests/bench/bench-vj --repeat 30 --batch 1 --pinned $canvas > $d/sleep-$k.json 2>/dev/null
  lib $d/sleep-$k.json sleep-6ms
  DIAG_GAP_MS=6 DIAG_GAP_MODE=busy .device/build/tests/bench/bench-vj --repeat 30 --batch 1 --pinned $canvas > $d/busy-$k.json 2>/dev/null
  lib $d/busy-$k.json busy-6ms
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --convert --out $d/element-$k.json > $d/element-$k.log 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('element      vjfacedetect from its pool fps %.1f p50 %.3f p99 %.3f' % (x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $d/element-$k.json
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call5.tgz call5
