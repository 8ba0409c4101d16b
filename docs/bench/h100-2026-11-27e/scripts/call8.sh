#!/bin/bash
# Call 8: what overlapping the frame's DMA with the pyramid's first pass
# would give (scripts/split-upload-diag.diff on ca0c36e): one crowded
# canvas at a time from pinned memory, uploaded on the transfer queue in
# two DMAs (rows [0, DIAG_SPLIT) and the rest), the sums pass in two
# launches each waiting on its DMA (tiles by their last source row);
# DIAG_SPLIT=0 puts every tile behind the whole frame (the same queues,
# no overlap); unset: the upload on the device's queue as committed.
# Alternating, three times.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call8
for k in 1 2 3; do
  for s in none 0 512 1024 1536; do
    if [ $s = none ]; then unset DIAG_SPLIT; else export DIAG_SPLIT=$s; fi
    .device/build/tests/bench/bench-vj --repeat 30 --batch 1 --pinned /tmp/faces/faces-16.pgm > $out/call8/split-$s-$k.json 2>/dev/null
    python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]['uber']; print('split %-5s %s one frame %.3f det %.3f eq %s' % (sys.argv[2], sys.argv[3], f['ms_median'], f['detect_kernels_ms_median'], f['equal_to_reference']))" $out/call8/split-$s-$k.json $s $k
  done
done
unset DIAG_SPLIT
tar -C $out -czf $out/call8.tgz call8
