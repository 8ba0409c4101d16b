#!/bin/bash
# Call 5: 9a9ac10 (the host's grouping of bcd8cd0).  check-vjfacedetect on
# the GPU; bench-group on this machine's CPU (three runs); one crowded
# canvas at a time (library, pinned) and through vjfacedetect from its
# pool, three times.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call5
mkdir -p $d
python3 tests/run-built.py .device/build check-vjfacedetect \
  --log $d/logs --map /usr/share/opencv4=$PWD/.device/opencv4 > $d/tests.txt 2>&1
tail -1 $d/tests.txt
for k in 1 2 3; do
  .device/build/tests/bench/bench-group /tmp/faces/faces-16.pgm > $d/group-$k.txt 2>&1
  grep "faces-16.pgm: sweep" $d/group-$k.txt
done
for k in 1 2 3; do
  .device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $d/one-$k.json 2>/dev/null
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; b=f['batches'][0]; print('one crowded frame pinned %.3f det %.3f eq %s | batch of 1 %.3f group %.3f' % (u['ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference'), b['ms_per_frame'], b['group_ms_median']))" $d/one-$k.json
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
    --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 \
    --frames 300 --convert --out $d/crowded-convert-$k.json > $d/crowded-convert-$k.log 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('crowded element from its pool fps %.1f p50 %.3f p99 %.3f' % (x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $d/crowded-convert-$k.json
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call5.tgz call5
