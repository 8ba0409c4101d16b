#!/bin/bash
# Call 4: where vjfacedetect's time goes on the crowded canvas, one stream,
# with scripts/element-diag.diff (clocks read in the element; grouping run
# a second time at once, to show it hot): frames from its pool
# (--convert) and pageable, twice each; medians of the frames.
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call4
mkdir -p $d
for k in 1 2; do
  for m in convert pageable; do
    a=; [ $m = convert ] && a=--convert
    DIAG_ELEMENT=1 GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 .device/build/tests/bench/bench-streams \
      --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 \
      --frames 300 $a --out $d/crowded-$m-$k.json > $d/crowded-$m-$k.log 2>&1
    python3 - $d/crowded-$m-$k.log $d/crowded-$m-$k.json $m-$k <<'PY'
import json, re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("DIAG"):
        for k, v in re.findall(r"([a-z+\-]+) ([0-9.]+)", line):
            rows.setdefault(k, []).append(float(v))
r = json.load(open(sys.argv[2]))["runs"][0]
print("%-12s p50 %.3f |" % (sys.argv[3], r["latency_ms_p50"]),
      " ".join("%s %.3f" % (k, statistics.median(v[20:])) for k, v in rows.items() if k != "pool"))
PY
  done
done
tar -C $out -czf $out/call4.tgz call4
