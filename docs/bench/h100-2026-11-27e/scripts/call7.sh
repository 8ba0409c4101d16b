#!/bin/bash
# Call 7: the crowded canvas through vjfacedetect from its pool, with the
# conversion as bench-streams --convert has it (4 threads, in the
# element's streaming thread: a frame every 8 ms or so) against a
# conversion on 12 threads with a queue before vjfacedetect
# (scripts/convert-queue-diag.diff: frames arrive back to back), and
# imagefreeze's pageable buffer; alternating, three times.  Then the
# library's one frame at a time from pinned memory.  At eedf26f's code
# plus the diff.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call7
crowded () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 \
    .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm \
    --sizes 2048x2048 --streams 1 --frames 300 $2 \
    --out $out/call7/$1.json > $out/call7/$1.log 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-16s fps %6.1f p50 %.3f p99 %.3f' % (sys.argv[2], x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $out/call7/$1.json $1
}
for k in 1 2 3; do
  crowded convert4-$k --convert
  DIAG_CONVERT_THREADS=12 DIAG_QUEUE=1 crowded queue12-$k --convert
  crowded pageable-$k ""
done
for k in 1 2; do
  .device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $out/call7/one-$k.json 2>/dev/null
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; print('library one frame pinned %.3f det %.3f' % (f['uber']['ms_median'], f['uber']['detect_kernels_ms_median']))" $out/call7/one-$k.json
done
tar -C $out -czf $out/call7.tgz call7
