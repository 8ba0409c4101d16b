#!/bin/bash
# Call 1: grouping on the device (vj_group).  The GPU's tests of detection
# and of vjfacedetect; then the same build with grouping on the device
# (default) and on the host (CLVISION_TUNE=VJ_DEVICE_GROUPING=0),
# alternating: one crowded canvas at a time (library, pinned), the canvas
# through vjfacedetect (pool with --convert, and pageable), batches of 16,
# and the streams.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call1
mkdir -p $d
python3 tests/run-built.py .device/build unit-vj-gpu check-vjfacedetect \
  --log $d/logs --map /usr/share/opencv4=$PWD/.device/opencv4 > $d/tests.txt 2>&1
tail -1 $d/tests.txt
mode () { [ $1 = host ] && echo VJ_DEVICE_GROUPING=0 || echo ""; }
for k in 1 2 3; do
  for g in device host; do
    CLVISION_TUNE=$(mode $g) .device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $d/one-$g-$k.json 2>/dev/null
    python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; b=f['batches'][0]; print('one crowded frame pinned %-6s %.3f det %.3f eq %s | batch of 1 %.3f host %.3f group %.3f %s' % (sys.argv[2], u['ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference'), b['ms_per_frame'], b['upload_readback_routing_ms_median'], b['group_ms_median'], b['kernels_ms_last'].get('vj_group')))" $d/one-$g-$k.json $g-$k
    for m in convert pageable; do
      a=; [ $m = convert ] && a=--convert
      CLVISION_TUNE=$(mode $g) GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
        --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 \
        --frames 300 $a --out $d/crowded-$m-$g-$k.json > $d/crowded-$m-$g-$k.log 2>&1
      python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('crowded element', sys.argv[2], 'fps %.1f p50 %.3f p99 %.3f' % (x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $d/crowded-$m-$g-$k.json $m-$g-$k
    done
  done
done
for g in device host; do
  CLVISION_TUNE=$(mode $g) bench_vj $d b16-$g .device/build
done
for g in device host; do
  CLVISION_TUNE=$(mode $g) bench_streams $d/streams-$g.json .device/build 1920x1280,640x480 1,16,64 auto
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call1.tgz call1
