#!/bin/bash
# Call 3: lone streams from imagefreeze's pageable buffer: the driver's
# upload (a lone analyser's default) against our staged upload
# (CLVISION_TUNE=UPLOAD_PINNED=1: copies into pinned memory by the pool's
# threads, each chunk's DMA enqueued once copied) with chunks of 2048 (as
# committed), 1024, 512 and 256 KiB (scripts/stage-chunk-diag.diff:
# DIAG_STAGE_CHUNK_KB).  The crowded canvas, 1920x1280 and 640x480, twice,
# alternating.  Then 16 x 1920x1280 (staged by default) at 2048 and 512.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call3
mkdir -p $d
export GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst
one () {  # NAME IMAGE SIZE
  timeout 120 .device/build/tests/bench/bench-streams --image $2 --sizes $3 \
    --streams 1 --frames 300 --out $d/$1.json > $d/$1.log 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('%-28s %4dx%-4d fps %7.1f p50 %.3f p99 %.3f' % (sys.argv[2], x['width'], x['height'], x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $d/$1.json $1
}
for k in 1 2; do
  for c in driver 2048 1024 512 256; do
    if [ $c = driver ]; then unset CLVISION_TUNE DIAG_STAGE_CHUNK_KB
    else export CLVISION_TUNE=UPLOAD_PINNED=1 DIAG_STAGE_CHUNK_KB=$c; fi
    one canvas-$c-$k /tmp/faces/faces-16.pgm 2048x2048
    one 1920-$c-$k tests/data/cache/astronaut.png 1920x1280
    one 640-$c-$k tests/data/cache/astronaut.png 640x480
  done
done
unset CLVISION_TUNE
for k in 1 2; do
  for c in 2048 512; do
    export DIAG_STAGE_CHUNK_KB=$c
    timeout 200 .device/build/tests/bench/bench-streams --image tests/data/cache/astronaut.png \
      --sizes 1920x1280 --streams 16 --frames 150 --out $d/streams-$c-$k.json > $d/streams-$c-$k.log 2>&1
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('streams chunk %-5s %4dx%-4d %2d fps %7.1f p50 %.2f p99 %.2f' % (sys.argv[2], x['width'], x['height'], x['streams'], x['fps'], x['latency_ms_p50'], x['latency_ms_p99'])) for x in r]" $d/streams-$c-$k.json $c
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call3.tgz call3
