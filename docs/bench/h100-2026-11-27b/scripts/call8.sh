#!/usr/bin/env bash
# Start-up tails: batch buffers that double (scripts/buffer-doubling.diff on
# 1dfcfdb, .device/build-dbl, `dbl`) against 1dfcfdb (.device/build, `new`),
# 16 streams, alternating three times: call8.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for r in 1 2 3; do
  bench_streams $dir/streams-new$r.json .device/build 640x480,1920x1280 16 auto
  bench_streams $dir/streams-dbl$r.json .device/build-dbl 640x480,1920x1280 16 auto
done
for f in $dir/streams-*.json; do
  python3 - $f <<'PY'
import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
  print("%-18s %4dx%-4d fps %7.1f p99/p50 %.2f max %.1f ms, over p99 in first tenth %.2f" % (sys.argv[1].split("/")[-1], r["width"], r["height"], r["fps"], r["latency_ms_p99"]/r["latency_ms_p50"], r["latency_ms_max"], r["over_p99_in_first_tenth"]))
PY
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
