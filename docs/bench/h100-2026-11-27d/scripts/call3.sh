#!/bin/bash
# Call 3: one frame at a time with the radix sorts and the insertion sort
# (.device/build, b2062e5 + scripts/host-diag-variants.diff), four variants
# alternating frame by frame in one process (DIAG_VARIANTS=4): v0 as
# committed, v1 the device's queue flushed once the pyramid's first pass is
# queued, v2 the read-back's event polled in a tight loop instead of a
# blocking read, v3 both; and the session before's HEAD (.device/build-head)
# alternating with it, twice.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call3
summ () {
  python3 - "$@" <<'PY'
import sys,re,statistics as st
for a in sys.argv[1:]:
  rows={}
  for l in open(a):
    if not l.startswith("DIAG"): continue
    f=l.split()
    name=f[1]+" "+(f[2] if f[2].startswith("v") else "")
    vals=dict((k,float(v)) for k,v in re.findall(r"([a-z+-]+) ([0-9.]+)",l))
    rows.setdefault(name,[]).append(vals)
  for name,r in sorted(rows.items()):
    r=r[2:]
    print("%-26s %-28s" % (a.split("/")[-1], name), " ".join("%s %.3f" % (k, st.median(x[k] for x in r)) for k in ("prep+enq","wait-read","route","group","total")))
PY
}
for k in 1 2; do
  for v in head new; do
    b=.device/build; e="DIAG_VARIANTS=4"
    [ $v = head ] && { b=.device/build-head; e=; }
    env DIAG_TIMES=1 $e $b/tests/bench/bench-vj --repeat 40 --batch 1 --no-native --size 1920x1280 --size 640x480 tests/data/cache/astronaut.pgm > $out/call3/vj-$v-$k.json 2> $out/call3/diag-$v-$k.txt
    env DIAG_TIMES=1 $e $b/tests/bench/bench-vj --repeat 40 --batch 1 /tmp/faces/faces-16.pgm /tmp/faces/faces-00.pgm > $out/call3/vj-faces-$v-$k.json 2> $out/call3/diag-faces-$v-$k.txt
    summ $out/call3/diag-$v-$k.txt $out/call3/diag-faces-$v-$k.txt
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call3.tgz call3
