#!/bin/bash
# Call 6: latency from a live source.  One stream from a live imagefreeze
# at 30 frames/s (bench-streams --live 30), as a camera's frames come: the
# crowded canvas, 1920x1280 and 640x480, vjfacedetect's default (in-flight
# 0) against in-flight=1, twice.  Then the report at the top of
# docs/PERFORMANCE.md (report.sh; its streams in call 7).
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call6
mkdir -p $d
show () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-8s %4dx%-4d %2d in-flight %s fps %6.1f p50 %.3f p99 %.3f max %.3f' % (sys.argv[2], x['width'], x['height'], x['streams'], x['in_flight'], x['fps'], x['latency_ms_p50'], x['latency_ms_p99'], x['latency_ms_max'])) for x in r]" $1 $2
}
bs () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 100 .device/build/tests/bench/bench-streams "$@"
}
for k in 1 2; do
  bs --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 150 --live 30 --in-flight 0,1 --out $d/live-canvas-$k.json > $d/live-canvas-$k.log 2>&1
  show $d/live-canvas-$k.json canvas
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 1 --frames 150 --live 30 --in-flight 0,1 --out $d/live-$k.json > $d/live-$k.log 2>&1
  show $d/live-$k.json photo
done
tar -C $out -czf $out/call6.tgz call6
pack=/tmp/pack/report-h100
mkdir -p $pack
CLV_COMMIT=$CLV_COMMIT tests/bench/report.sh .device/build $pack > /tmp/pack/report.log 2>&1
tail -n 12 /tmp/pack/report.log
cp /tmp/pack/report.log $pack/
tar -C /tmp/pack -czf $out/report-h100.tgz report-h100
