#!/usr/bin/env bash
# Fewer detection work-groups per SM (local-pad.diff: unused local memory
# through CLVISION_CL_OPTIONS=-DVJ_DIAG_LOCAL_PAD=N uints), so that more of
# the SM's unified L1 is left for the cooperative stages' nodes: does the
# kernel gain from the cache more than it loses in resident warps?
# call3.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
bench_vj $dir vj-def1 .device/build
for p in 2048 4096 6000; do
  CLVISION_CL_OPTIONS=-DVJ_DIAG_LOCAL_PAD=$p bench_vj $dir vj-pad$p .device/build
done
bench_vj $dir vj-def2 .device/build
python3 - $dir <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+"/vj-*.json")):
  for fr in json.load(open(f))["frames"]:
    print(os.path.basename(f), fr["width"], fr["height"], fr["uber"]["variant"], fr["batches"][0]["implementation"])
PY
tar -C $out -czf $dir.tgz $1; rm -rf $dir
