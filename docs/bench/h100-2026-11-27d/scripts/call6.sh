#!/bin/bash
# Call 6: the crowded canvas through vjfacedetect, one stream, with the
# conversion on 4 threads (bench-streams --convert as committed after call
# 5), against imagefreeze's pageable buffer, alternating, twice; then the
# GPU suite (gpu-run.sh tests) at this build.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call6
export GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst
for k in 1 2; do
  for c in "" --convert; do
    timeout 200 .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 $c --out $out/call6/crowded${c#--}-$k.json > $out/call6/crowded${c#--}-$k.log 2>&1
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s convert %-5s %dx%d %2d streams fps %7.1f p50 %.3f p99 %.3f' % (sys.argv[1].split('/')[-1], d['convert'], r['width'], r['height'], r['streams'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99']))" $out/call6/crowded${c#--}-$k.json
  done
done
timeout 200 .device/build/tests/bench/bench-streams --image tests/data/cache/astronaut.png --sizes 1920x1280,640x480 --streams 1,16,64 --frames 150 --convert --out $out/call6/streamsconvert.json > $out/call6/streamsconvert.log 2>&1
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s convert %-5s %dx%d %2d streams fps %7.1f p50 %.3f p99 %.3f busy %s' % (sys.argv[1].split('/')[-1], d['convert'], r['width'], r['height'], r['streams'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99'], r['busy']))" $out/call6/streamsconvert.json
tar -C $out -czf $out/call6.tgz call6
rm -f /opt/gstcl/.done
OUT=$out bash tests/bench/gpu-run.sh tests > /dev/null 2>&1
tail -3 $out/tests.txt
cp $out/tests.txt $out/call6/tests.txt
tar -C $out -czf $out/call6.tgz call6
