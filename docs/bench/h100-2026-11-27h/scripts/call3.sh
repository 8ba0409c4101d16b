#!/bin/bash
# Call 3: in-flight 0 as committed (two frames in flight only for frames of
# 1 MiB or more while the element is the device's only analyser, each
# frame in flight counted as an analyser only while it is; else one frame,
# analysed in the streaming thread).  The same runs as call 2, in-flight 0
# against 1, with the old code's canvas beside them, twice.
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call3
mkdir -p $d
canvas=/tmp/faces/faces-16.pgm
show () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-14s %4dx%-4d %2d in-flight %s fps %7.1f ms/frame %.3f p50 %.3f p99 %.3f (%.2fx)' % (sys.argv[2], x['width'], x['height'], x['streams'], x.get('in_flight', '-'), x['fps'], 1000 / x['fps'], x['latency_ms_p50'], x['latency_ms_p99'], x['latency_ms_p99'] / x['latency_ms_p50'])) for x in r]" $1 $2
}
bs () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 150 .device/build/tests/bench/bench-streams "$@"
}
for k in 1 2; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build-old/gst timeout 120 .device/build-old/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $d/old-pageable-$k.json > $d/old-pageable-$k.log 2>&1
  show $d/old-pageable-$k.json old-pageable
  bs --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --in-flight 0,1 --out $d/canvas-$k.json > $d/canvas-$k.log 2>&1
  show $d/canvas-$k.json canvas
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280,1280x720,640x480 --streams 1 --frames 300 --in-flight 0,1 --out $d/lone-$k.json > $d/lone-$k.log 2>&1
  show $d/lone-$k.json lone
done
tar -C $out -czf $out/call3.tgz call3
for k in 1 2; do
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 16,64 --frames 150 --in-flight 0,1 --out $d/streams-$k.json > $d/streams-$k.log 2>&1
  show $d/streams-$k.json streams
  tar -C $out -czf $out/call3.tgz call3
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
