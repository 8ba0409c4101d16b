#!/bin/bash
# Call 1: the crowded canvas at the start of issue 10 and now, in one call.
# .device/build-old is 2152338 (f3ca7b4^, the commit before the first of
# issue 10's work) with scripts/old-convert.diff (BENCH_CONVERT=1 gives its
# bench-streams today's --convert pipeline); .device/build is the working
# tree.  Alternating old and new: the library one frame at a time
# (bench-vj), vjfacedetect from imagefreeze's pageable buffer and from a
# videoconvert (into vjfacedetect's pool where it offers one).  Then the
# streams (16 x 1920x1280, 64 x 640x480) three times, with the latency of
# each tenth of the streams' frames (imagefreeze's pageable buffer, as in
# the issue).
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call1
mkdir -p $d
canvas=/tmp/faces/faces-16.pgm
lib () {
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; print('%-10s library one frame %.3f det %.3f eq %s' % (sys.argv[2], u['ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference')))" $1 $2
}
elem () {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-10s %-9s vjfacedetect fps %.1f p50 %.3f p99 %.3f' % (sys.argv[2], sys.argv[3], x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $1 $2 $3
}
for k in 1 2 3; do
  .device/build-old/tests/bench/bench-vj --repeat 20 $canvas > $d/old-lib-$k.json 2>/dev/null
  lib $d/old-lib-$k.json old
  .device/build/tests/bench/bench-vj --repeat 20 --batch 1 $canvas > $d/new-lib-$k.json 2>/dev/null
  lib $d/new-lib-$k.json new
  .device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned $canvas > $d/new-lib-pinned-$k.json 2>/dev/null
  lib $d/new-lib-pinned-$k.json new-pinned
  GST_PLUGIN_PATH_1_0=$PWD/.device/build-old/gst timeout 120 .device/build-old/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $d/old-pageable-$k.json > $d/old-pageable-$k.log 2>&1
  elem $d/old-pageable-$k.json old pageable
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $d/new-pageable-$k.json > $d/new-pageable-$k.log 2>&1
  elem $d/new-pageable-$k.json new pageable
  BENCH_CONVERT=1 GST_PLUGIN_PATH_1_0=$PWD/.device/build-old/gst timeout 120 .device/build-old/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --out $d/old-convert-$k.json > $d/old-convert-$k.log 2>&1
  elem $d/old-convert-$k.json old convert
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
    --image $canvas --sizes 2048x2048 --streams 1 --frames 300 --convert --out $d/new-convert-$k.json > $d/new-convert-$k.log 2>&1
  elem $d/new-convert-$k.json new convert
done
for k in 1 2 3; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 250 .device/build/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 1,16,64 \
    --batching on --frames 150 --out $d/streams-$k.json > $d/streams-$k.log 2>&1
  python3 - $d/streams-$k.json <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("streams %4dx%-4d %2d fps %7.1f p50 %6.2f p99 %6.2f (%.2fx) max %6.2f early %.2f tenths %s" % (r["width"], r["height"], r["streams"], r["fps"], r["latency_ms_p50"], r["latency_ms_p99"], r["latency_ms_p99"]/r["latency_ms_p50"], r["latency_ms_max"], r["over_p99_in_first_tenth"], " ".join("%.1f/%.1f" % tuple(t) for t in r["latency_ms_p50_max_by_tenth"])))
PY
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call1.tgz call1
