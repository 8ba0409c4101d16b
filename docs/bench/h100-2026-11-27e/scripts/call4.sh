#!/bin/bash
# Call 4: the GPU suite at 2fd0477 (.device/build); then tiles of 32 x 16
# windows against the default 32 x 8 (alternating, twice), and the crowded
# canvas through vjfacedetect from its pool, twice.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call4
rm -f /opt/gstcl/.done
OUT=$out/call4 bash tests/bench/gpu-run.sh tests > $out/call4/suite.log 2>&1
tail -5 $out/call4/tests.txt
for k in 1 2; do
  bench_vj $out/call4 default-$k .device/build
  CLVISION_TUNE=VJ_TILE_Y=16 bench_vj $out/call4 tile-y16-$k .device/build
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 \
    .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm \
    --sizes 2048x2048 --streams 1 --frames 300 --convert \
    --out $out/call4/crowded-$k.json > $out/call4/crowded-$k.log 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('crowded element', sys.argv[2], x['streams'], 'fps %.1f p50 %.3f' % (x['fps'], x['latency_ms_p50'])) for x in r]" $out/call4/crowded-$k.json $k
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call4.tgz call4
