#!/usr/bin/env bash
# The GPU suite, then the crowded canvas one frame at a time (stages compiled in against the node loop).
source "$(dirname "$0")/common.sh"
rm -f /opt/gstcl/.done
OUT=$out bash tests/bench/gpu-run.sh tests 2>&1 | tail -8
for rep in 1 2; do
for t in "" "VJ_UNROLL=0,VJ_COOP_STAGE=3"; do
  name=crowded-${t:+node-loop-}$rep
  CLVISION_TUNE=$t timeout 150 .device/build/tests/bench/bench-vj --repeat 20 --batch 1 /tmp/faces/faces-16.pgm > $out/$name.json 2>/dev/null
  python3 - $out/$name.json "$name" <<'PY'
import json,sys
f=json.load(open(sys.argv[1]))["frames"][0]
u=f["uber"]
print("%-24s %dx%d faces %s wall %.3f pyr %.3f det %.3f host %.3f eq %s" % (sys.argv[2], f["width"], f["height"], u["faces"], u["ms_median"], u["pyramid_kernels_ms_median"], u["detect_kernels_ms_median"], u["ms_median"]-u["pyramid_kernels_ms_median"]-u["detect_kernels_ms_median"], u.get("equal_to_reference")))
PY
done
done
