#!/usr/bin/env bash
# The GPU suite on this build (.device/build), then bench-vj, and streams
# against 9ac7c26 (.device/build-base) and with three batches in flight
# (CLVISION_TUNE=VJ_BATCH_INFLIGHT=3, `i3`), alternating: final.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
rm -f /opt/gstcl/.done
OUT=$out bash tests/bench/gpu-run.sh tests > $dir/tests.log 2>&1
tail -8 $dir/tests.log
bench_vj $dir vj-new .device/build
for r in 1 2; do
  bench_streams $dir/streams-new$r.json .device/build 640x480,1920x1280 1,16,64 auto
  bench_streams $dir/streams-base$r.json .device/build-base 640x480,1920x1280 1,16,64 auto
  CLVISION_TUNE=VJ_BATCH_INFLIGHT=3 bench_streams $dir/streams-i3$r.json .device/build 640x480,1920x1280 1,16,64 auto
done
for f in $dir/streams-*.json; do
  python3 - $f <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  if r["streams"] == 16:
    print("%-18s %4dx%-4d p99/p50 %.2f max %.1f ms, over p99 in first tenth %.2f" % (sys.argv[1].split("/")[-1], r["width"], r["height"], r["latency_ms_p99"]/r["latency_ms_p50"], r["latency_ms_max"], r["over_p99_in_first_tenth"]))
PY
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
