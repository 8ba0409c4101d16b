#!/bin/bash
# Call 8: vjfacedetect alone with frames from its pool (bench-streams
# --convert, its own latency p50): the DMA on the transfer queue with a
# barrier on the device's queue (.device/build-prev: the plugin of e45047f)
# against the DMA on the device's queue itself (.device/build: 427de21 with
# scripts/dma-on-device-queue.diff, not kept); alternating, three times;
# the crowded canvas and 1920x1280, one stream; then 16 streams of
# 1920x1280 (several analysers: unchanged path).
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call8
show () {
  python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s %dx%d %2d streams fps %7.1f p50 %.3f p99 %.3f busy %s' % (sys.argv[1].split('/')[-1], r['width'], r['height'], r['streams'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99'], r['busy']))" $1
}
for k in 1 2 3; do
  for b in build-prev build; do
    GST_PLUGIN_PATH_1_0=$PWD/.device/$b/gst timeout 200 .device/$b/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 --convert --out $out/call8/crowded-$b-$k.json > $out/call8/crowded-$b-$k.log 2>&1
    show $out/call8/crowded-$b-$k.json
    GST_PLUGIN_PATH_1_0=$PWD/.device/$b/gst timeout 200 .device/$b/tests/bench/bench-streams --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1 --frames 300 --convert --out $out/call8/one-$b-$k.json > $out/call8/one-$b-$k.log 2>&1
    show $out/call8/one-$b-$k.json
  done
done
GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 200 .device/build/tests/bench/bench-streams --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 16 --frames 150 --convert --out $out/call8/streams16.json > $out/call8/streams16.log 2>&1
show $out/call8/streams16.json
tar -C $out -czf $out/call8.tgz call8
