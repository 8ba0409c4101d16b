#!/bin/bash
# Call 7: a frame in flight counts as a second analyser only while another
# is in flight (frames from a live source meet none: the driver's upload
# and waits, as alone).  One stream from a live source at 30 frames/s and
# back to back, the crowded canvas and 1920x1280, in-flight 0 against 1,
# twice; then the streams of the report at the top of docs/PERFORMANCE.md
# (gpu-run.sh streams, CLVISION_AUTOTUNE=0).
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call7
mkdir -p $d
show () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-12s %4dx%-4d %2d in-flight %s fps %7.1f ms/frame %.3f p50 %.3f p99 %.3f max %.3f busy %s' % (sys.argv[2], x['width'], x['height'], x['streams'], x['in_flight'], x['fps'], 1000 / x['fps'], x['latency_ms_p50'], x['latency_ms_p99'], x['latency_ms_max'], x['busy'])) for x in r]" $1 $2
}
bs () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 100 .device/build/tests/bench/bench-streams "$@"
}
for k in 1 2; do
  bs --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 150 --live 30 --in-flight 0,1 --out $d/live-canvas-$k.json > $d/live-canvas-$k.log 2>&1
  show $d/live-canvas-$k.json live-canvas
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1 --frames 150 --live 30 --in-flight 0,1 --out $d/live-$k.json > $d/live-$k.log 2>&1
  show $d/live-$k.json live
  bs --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 --in-flight 0,1 --out $d/canvas-$k.json > $d/canvas-$k.log 2>&1
  show $d/canvas-$k.json canvas
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1 --frames 300 --in-flight 0,1 --out $d/lone-$k.json > $d/lone-$k.log 2>&1
  show $d/lone-$k.json lone
done
tar -C $out -czf $out/call7.tgz call7
pack=/tmp/pack/report-h100
mkdir -p $pack
OUT=$pack tests/bench/gpu-run.sh streams > /tmp/pack/streams.log 2>&1
tail -n 5 /tmp/pack/streams.log
cp /tmp/pack/streams.log $pack/
tar -C /tmp/pack -czf $out/report-streams.tgz report-h100
