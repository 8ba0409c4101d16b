#!/bin/bash
# Call 2: one crowded frame at a time, HEAD of the session before (4661810,
# .device/build-head, scripts/host-diag.diff) against the radix sorts
# (cd8dcd5, .device/build, scripts/host-diag-cd8dcd5.diff), the latter also
# with the device's queue flushed once the pyramid's first pass is queued
# (DIAG_FLUSH=1); alternating, twice.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call2
summ () {
  python3 - "$@" <<'PY'
import sys,re,statistics as st
for a in sys.argv[1:]:
  rows={}
  for l in open(a):
    if not l.startswith("DIAG"): continue
    name=l.split()[1]
    vals=dict((k,float(v)) for k,v in re.findall(r"([a-z+-]+) ([0-9.]+)",l))
    rows.setdefault(name,[]).append(vals)
  for name,r in rows.items():
    r=r[2:]
    print("%-28s %-14s" % (a.split("/")[-1], name), " ".join("%s %.3f" % (k, st.median(x[k] for x in r)) for k in ("prep+enq","wait-read","route","group","total")))
PY
}
for k in 1 2; do
  for v in head new flush; do
    b=.device/build; f=""
    [ $v = head ] && b=.device/build-head
    [ $v = flush ] && f=1
    DIAG_TIMES=1 DIAG_FLUSH=$f $b/tests/bench/bench-vj --repeat 20 --batch 1 --no-native --size 1920x1280 --size 640x480 tests/data/cache/astronaut.pgm > $out/call2/vj-$v-$k.json 2> $out/call2/diag-$v-$k.txt
    DIAG_TIMES=1 DIAG_FLUSH=$f $b/tests/bench/bench-vj --repeat 20 --batch 1 /tmp/faces/faces-16.pgm /tmp/faces/faces-00.pgm > $out/call2/vj-faces-$v-$k.json 2> $out/call2/diag-faces-$v-$k.txt
    summ $out/call2/diag-$v-$k.txt $out/call2/diag-faces-$v-$k.txt
  done
done
.device/build/tests/bench/bench-group /tmp/faces/faces-16.pgm > $out/call2/bench-group-new.txt
.device/build-head/tests/bench/bench-vj --help >/dev/null 2>&1
tail -2 $out/call2/bench-group-new.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call2.tgz call2
