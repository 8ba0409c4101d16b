#!/bin/bash
# Call 1: frames in flight (vjfacedetect in-flight).  The crowded 2048²
# canvas, one stream, at the start of issue 10 (.device/build-old: 2152338
# with ../h100-2026-11-27g/scripts/old-convert.diff) and now with 1 and 2
# frames in flight, alternating, three times: from imagefreeze's pageable
# buffer (the issue's pipeline) and after a videoconvert (--convert), with
# the library's one frame (bench-vj) beside them.  Then the streams (16 x
# 1920x1280, 64 x 640x480, lone streams) with 2 and 1 frames in flight,
# twice.  .device/opencv4 travels packed.
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call1
mkdir -p $d
canvas=/tmp/faces/faces-16.pgm
lib () {
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; print('%-10s library one frame %.3f det %.3f eq %s' % (sys.argv[2], u['ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference')))" $1 $2
}
elem () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-4s %-9s in-flight %s fps %6.1f ms/frame %.3f p50 %.3f p99 %.3f' % (sys.argv[2], sys.argv[3], x.get('in_flight', '-'), x['fps'], 1000 / x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $1 $2 $3
}
old_streams () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build-old/gst timeout 120 .device/build-old/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $1 > ${1%.json}.log 2>&1
}
new_streams () {
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --in-flight 1,2 ${2:-} --out $1 > ${1%.json}.log 2>&1
}
for k in 1 2 3; do
  .device/build-old/tests/bench/bench-vj --repeat 20 $canvas > $d/old-lib-$k.json 2>/dev/null
  lib $d/old-lib-$k.json old
  .device/build/tests/bench/bench-vj --repeat 20 --batch 1 $canvas > $d/new-lib-$k.json 2>/dev/null
  lib $d/new-lib-$k.json new
  old_streams $d/old-pageable-$k.json; elem $d/old-pageable-$k.json old pageable
  new_streams $d/new-pageable-$k.json; elem $d/new-pageable-$k.json new pageable
  BENCH_CONVERT=1 old_streams $d/old-convert-$k.json; elem $d/old-convert-$k.json old convert
  new_streams $d/new-convert-$k.json --convert; elem $d/new-convert-$k.json new convert
done
tar -C $out -czf $out/call1.tgz call1
for k in 1 2; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 200 .device/build/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 1,16,64 \
    --in-flight 2,1 --frames 150 --out $d/streams-$k.json > $d/streams-$k.log 2>&1
  python3 - $d/streams-$k.json <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("streams %4dx%-4d %2d in-flight %d fps %7.1f p50 %6.2f p99 %6.2f (%.2fx) busy %s" % (r["width"], r["height"], r["streams"], r["in_flight"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["latency_ms_p99"]/r["latency_ms_p50"], r["busy"]))
PY
  tar -C $out -czf $out/call1.tgz call1
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
