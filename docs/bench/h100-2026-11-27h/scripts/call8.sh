#!/bin/bash
# Call 8: the second analyser counted only while another frame is in flight
# (dynamic) against whenever two may be in flight (static, call 3's rule:
# DIAG_STATIC_EXTRA=1 with scripts/static-extra-diag.diff on 5e51f95),
# in-flight 0 both.  One stream back to back (the crowded canvas,
# 1920x1280) and from a live source at 30 frames/s (1920x1280), three
# times, alternating, after a warm-up run.
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call8
mkdir -p $d
show () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-22s %4dx%-4d fps %7.1f ms/frame %.3f p50 %.3f p99 %.3f busy %s' % (sys.argv[2], x['width'], x['height'], x['fps'], 1000 / x['fps'], x['latency_ms_p50'], x['latency_ms_p99'], x['busy'])) for x in r]" $1 $2
}
bs () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 100 .device/build/tests/bench/bench-streams "$@"
}
bs --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 --out $d/warmup.json > $d/warmup.log 2>&1
for k in 1 2 3; do
  for mode in dynamic static; do
    if [ $mode = static ]; then export DIAG_STATIC_EXTRA=1; else unset DIAG_STATIC_EXTRA; fi
    bs --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 --out $d/canvas-$mode-$k.json > $d/canvas-$mode-$k.log 2>&1
    show $d/canvas-$mode-$k.json canvas-$mode
    bs --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1 --frames 300 --out $d/lone-$mode-$k.json > $d/lone-$mode-$k.log 2>&1
    show $d/lone-$mode-$k.json lone-$mode
    bs --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1 --frames 90 --live 30 --out $d/live-$mode-$k.json > $d/live-$mode-$k.log 2>&1
    show $d/live-$mode-$k.json live-$mode
  done
done
unset DIAG_STATIC_EXTRA
tar -C $out -czf $out/call8.tgz call8
