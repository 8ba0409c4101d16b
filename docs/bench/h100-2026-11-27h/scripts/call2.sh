#!/bin/bash
# Call 2: each frame in flight counted as an analyser of the device (pinned
# stages, waits outside the driver), and in-flight 0 (the default: 2 frames
# while the element is the device's only analyser, else 1).  Lone streams
# of the crowded canvas (pageable, --convert) and of 1920x1280 and 640x480
# with in-flight 1, 2 and 0, alternating, twice; the old code's canvas
# beside them; then 16 x 1920x1280 and 64 x 640x480 with in-flight 0 and 1.
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call2
mkdir -p $d
canvas=/tmp/faces/faces-16.pgm
show () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-14s %4dx%-4d %2d in-flight %s fps %7.1f ms/frame %.3f p50 %.3f p99 %.3f' % (sys.argv[2], x['width'], x['height'], x['streams'], x.get('in_flight', '-'), x['fps'], 1000 / x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $1 $2
}
bs () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 150 .device/build/tests/bench/bench-streams "$@"
}
for k in 1 2; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build-old/gst timeout 120 .device/build-old/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $d/old-pageable-$k.json > $d/old-pageable-$k.log 2>&1
  show $d/old-pageable-$k.json old-pageable
  bs --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --in-flight 1,2,0 --out $d/canvas-$k.json > $d/canvas-$k.log 2>&1
  show $d/canvas-$k.json canvas
  bs --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --in-flight 1,2,0 --convert --out $d/canvas-convert-$k.json > $d/canvas-convert-$k.log 2>&1
  show $d/canvas-convert-$k.json canvas-convert
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 1 --frames 300 --in-flight 1,2,0 --out $d/lone-$k.json > $d/lone-$k.log 2>&1
  show $d/lone-$k.json lone
done
tar -C $out -czf $out/call2.tgz call2
for k in 1 2; do
  bs --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 16,64 --frames 150 --in-flight 0,1 --out $d/streams-$k.json > $d/streams-$k.log 2>&1
  python3 - $d/streams-$k.json <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("streams %4dx%-4d %2d in-flight %d fps %7.1f p50 %6.2f p99 %6.2f (%.2fx) busy %s" % (r["width"], r["height"], r["streams"], r["in_flight"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["latency_ms_p99"]/r["latency_ms_p50"], r["busy"]))
PY
  tar -C $out -czf $out/call2.tgz call2
done
