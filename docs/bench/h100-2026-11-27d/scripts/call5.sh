#!/bin/bash
# Call 5, at 9d0569e (.device/build): the crowded canvas one frame at a time
# through bench-vj (frames from pageable and from pinned memory) and through
# vjfacedetect in a pipeline (bench-streams, one stream: imagefreeze pushing
# one pageable buffer, or --convert writing every frame into vjfacedetect's
# pool), alternating, twice; then 1 and 16 streams of 1920x1280 both ways.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call5
export GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst
for k in 1 2; do
  for a in "" --pinned; do
    .device/build/tests/bench/bench-vj --repeat 20 --batch 1 $a /tmp/faces/faces-16.pgm > $out/call5/vj-faces${a#--}-$k.json 2>/dev/null
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); f=d['frames'][0]; b=f['batches'][0]
print('%-22s %-8s one frame %.3f b1 %.3f (pyr %.3f det %.3f host %.3f group %.3f) eq %s' % (sys.argv[1].split('/')[-1], d['frames_memory'], f['uber']['ms_median'], b['ms_per_frame'], b['pyramid_kernels_ms_median'], b['detect_kernels_ms_median'], b['upload_readback_routing_ms_median'], b['group_ms_median'], f['uber']['equal_to_reference']))" $out/call5/vj-faces${a#--}-$k.json
  done
  for c in "" --convert; do
    timeout 200 .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 $c --out $out/call5/crowded${c#--}-$k.json > $out/call5/crowded${c#--}-$k.log 2>&1
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s convert %-5s %dx%d %2d streams fps %7.1f p50 %.3f p99 %.3f' % (sys.argv[1].split('/')[-1], d['convert'], r['width'], r['height'], r['streams'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99']))" $out/call5/crowded${c#--}-$k.json
  done
done
for c in "" --convert; do
  timeout 200 .device/build/tests/bench/bench-streams --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 1,16 --frames 150 $c --out $out/call5/streams${c#--}.json > $out/call5/streams${c#--}.log 2>&1
  python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s convert %-5s %dx%d %2d streams fps %7.1f p50 %.3f p99 %.3f busy %s' % (sys.argv[1].split('/')[-1], d['convert'], r['width'], r['height'], r['streams'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99'], r['busy']))" $out/call5/streams${c#--}.json
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call5.tgz call5
