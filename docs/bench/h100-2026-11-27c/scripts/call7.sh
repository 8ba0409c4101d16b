#!/usr/bin/env bash
# One stream, batching on against off (VJ_BATCH=0) in the same process, at
# three sizes, three times: is the lone stream's latency with batching on
# within 5% of off at 1280x720 (the report's run gave 0.57 against 0.48 ms)?
# call7.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for r in 1 2 3; do
  GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst .device/build/tests/bench/bench-streams \
    --image tests/data/cache/astronaut.png --sizes 640x480,1280x720,1920x1280 \
    --streams 1 --batching on,off --frames 300 --devices auto \
    --out $dir/lone$r.json 2>&1 | grep -a "streams, device"
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
