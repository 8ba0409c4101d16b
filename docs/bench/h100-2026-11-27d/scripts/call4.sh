#!/bin/bash
# Call 4: one frame at a time (batches of 1 and the single-frame path) at
# 29d3f45 (.device/build, radix sorts, pool for analysers, bench-vj
# --pinned) against the session before's HEAD 4661810 (.device/build-head,
# with scripts/host-diag.diff's four clock reads, no DIAG_* set), frames from
# pageable and from pinned memory; alternating, twice.  Then the streams at
# 29d3f45 (batching on).
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call4
summ () {
  python3 - "$@" <<'PY'
import json,sys
for a in sys.argv[1:]:
  d=json.load(open(a))
  for f in d["frames"]:
    b=f["batches"][0]; u=f["uber"]
    print("%-26s %-8s %-24s one frame %.3f | b1 %.3f: pyr %.3f det %.3f host %.3f group %.3f | eq %s %s" % (a.split("/")[-1], d.get("frames_memory","pageable"), f["frame"], u["ms_median"], b["ms_per_frame"], b["pyramid_kernels_ms_median"], b["detect_kernels_ms_median"], b["upload_readback_routing_ms_median"], b["group_ms_median"], u.get("equal_to_reference"), b.get("equal_to_reference")))
PY
}
for k in 1 2; do
  for v in head new pinned; do
    b=.device/build; a=
    [ $v = head ] && b=.device/build-head
    [ $v = pinned ] && a=--pinned
    $b/tests/bench/bench-vj --repeat 20 --batch 1 $a /tmp/faces/faces-16.pgm /tmp/faces/faces-00.pgm > $out/call4/vj-faces-$v-$k.json 2>/dev/null
    $b/tests/bench/bench-vj --repeat 20 --batch 1 $a --no-native --size 1920x1280 --size 640x480 tests/data/cache/astronaut.pgm > $out/call4/vj-$v-$k.json 2>/dev/null
    summ $out/call4/vj-faces-$v-$k.json $out/call4/vj-$v-$k.json
  done
done
bench_streams $out/call4/streams-1.json .device/build 1920x1280,640x480 1,16,64 auto
bench_streams $out/call4/streams-2.json .device/build 1920x1280 16 auto
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call4.tgz call4
