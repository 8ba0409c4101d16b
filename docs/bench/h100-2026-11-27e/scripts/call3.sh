#!/bin/bash
# Call 3: 2fd0477 (stage 0 in the variance pass, a queue after each of
# stages 1-3, constant-stride tile copy) in .device/build against
# 6eb8e3b (.device/build-prev, the session before's HEAD): detection per
# frame, alternating, twice; then 2fd0477 around its tuning (tile shape,
# windows per cooperative round); one crowded frame at a time (library,
# pinned), through vjfacedetect (pool and pageable) and the streams.
# .device/build-prev: 6eb8e3b configured like .device/build (release).
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call3
for k in 1 2; do
  bench_vj $out/call3 prev-$k .device/build-prev
  bench_vj $out/call3 new-$k .device/build
done
for t in VJ_TILE_Y=16 VJ_TILE_X=64 VJ_TILE_Y=16,VJ_WG=256 VJ_COOP_WINDOWS=4 VJ_COOP_WINDOWS=16; do
  CLVISION_TUNE=$t bench_vj $out/call3 tune-${t//[=,]/-} .device/build
done
for k in 1 2; do
  for v in prev new; do
    b=.device/build; [ $v = prev ] && b=.device/build-prev
    $b/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $out/call3/one-$v-$k.json 2>/dev/null
    python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; print('one crowded frame pinned', sys.argv[2], '%.3f' % f['uber']['ms_median'], 'det %.3f' % f['uber']['detect_kernels_ms_median'])" $out/call3/one-$v-$k.json $v-$k
    for m in convert pageable; do
      a=; [ $m = convert ] && a=--convert
      GST_REGISTRY=/tmp/registry-$v.bin GST_PLUGIN_PATH_1_0=$PWD/$b/gst timeout 120 $b/tests/bench/bench-streams \
        --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 \
        --frames 300 $a --out $out/call3/crowded-$m-$v-$k.json > $out/call3/crowded-$m-$v-$k.log 2>&1
      python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('crowded element', sys.argv[2], x['streams'], 'fps %.1f p50 %.3f' % (x['fps'], x['latency_ms_p50'])) for x in r]" $out/call3/crowded-$m-$v-$k.json $m-$v-$k
    done
  done
done
for k in 1 2; do
  bench_streams $out/call3/streams-new-$k.json .device/build 1920x1280,640x480 1,16,64 auto
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call3.tgz call3
