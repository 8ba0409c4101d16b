#!/bin/bash
# Call 5, two GPUs (nvidia-h200-x2), the working tree of call 3: 16 and 64
# pipelines of 1920x1280 all on the first GPU against device=auto (spread),
# from imagefreeze's pageable buffer and with --convert, twice.
# vjfacedetect with its default in-flight (0).
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call5
mkdir -p $d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst
for k in 1 2; do
  for c in "" --convert; do
    f=$d/two-gpu${c#--}-$k.json
    timeout 250 .device/build/tests/bench/bench-streams --image tests/data/cache/astronaut.png --sizes 1920x1280 --streams 16,64 --frames 150 --devices first,auto $c --out $f > ${f%.json}.log 2>&1
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for r in d['runs']: print('%-22s convert %-5s %dx%d %2d %-5s fps %7.1f p50 %.2f p99 %.2f busy %s' % (sys.argv[1].split('/')[-1], d['convert'], r['width'], r['height'], r['streams'], r['device'], r['fps'], r['latency_ms_p50'], r['latency_ms_p99'], r['busy']))" $f
  done
done
tar -C $out -czf $out/call5.tgz call5
