#!/bin/bash
# Call 9: where vjfacedetect's own time goes on the crowded canvas, one
# stream, frames from its pool (--convert) and from imagefreeze's pageable
# buffer: scripts/element-diag.diff on 9517a19 prints, per frame, the map
# and upload, the analysis (the batching service with the batch, the
# grouping, the metas and message) and the wait for the DMA after it.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call9
export GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst
for c in --convert "" --convert; do
  DIAG_ELEMENT=1 timeout 200 .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm --sizes 2048x2048 --streams 1 --frames 300 $c --out $out/call9/crowded${c#--}.json > $out/call9/crowded${c#--}.log 2>&1
  python3 - $out/call9/crowded${c#--}.log $out/call9/crowded${c#--}.json <<'PY'
import re,sys,json,statistics as st
rows=[dict((k,float(v)) for k,v in re.findall(r"([a-z+]+) ([0-9.]+)",l)) for l in open(sys.argv[1]) if l.startswith("DIAGEL")]
rows=rows[20:]
d=json.load(open(sys.argv[2])); r=d['runs'][0]
print("convert %s frames %d p50 %.3f |" % (d['convert'], len(rows), r['latency_ms_p50']), " ".join("%s %.3f" % (k, st.median(x[k] for x in rows)) for k in ("pool","map+upload","analyse","service","group","finish","tail","total")))
PY
done
tar -C $out -czf $out/call9.tgz call9
