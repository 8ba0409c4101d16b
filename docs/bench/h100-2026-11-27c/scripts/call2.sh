#!/usr/bin/env bash
# Where the pyramid's time goes (diagnostic macros of pyramid-diag.diff,
# through CLVISION_CL_OPTIONS; their results are wrong on purpose, only
# the kernels' times count): without the pixels' store (NOPIX), without
# the carries from the left (NOLEFT), without the squared integral's
# store (NOSQ); and the level found by the whole work-group (GS, exact);
# each against the default, alternating: call2.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for r in 1 2; do
  bench_vj $dir vj-def$r .device/build
  CLVISION_CL_OPTIONS=-DPYR_GROUP_SEARCH bench_vj $dir vj-gs$r .device/build
done
CLVISION_CL_OPTIONS=-DPYR_DIAG_NO_PIXELS bench_vj $dir vj-nopix .device/build
CLVISION_CL_OPTIONS=-DPYR_DIAG_NO_LEFT bench_vj $dir vj-noleft .device/build
CLVISION_CL_OPTIONS=-DPYR_DIAG_NO_SQ bench_vj $dir vj-nosq .device/build
python3 - $dir <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+"/vj-*.json")):
  for fr in json.load(open(f))["frames"]:
    b=fr["batches"][0]; k=b["kernels_ms_last"]; u=fr["uber"]["kernels_ms_last"]
    print("%-22s %4dx%-4d b16/frame sums %.4f carry %.4f integrals %.4f | one frame sums %.4f carry %.4f integrals %.4f" % (os.path.basename(f), fr["width"], fr["height"], k["vj_band_sums"]/16, k["vj_band_carry"]/16, k["vj_band_integrals"]/16, u["vj_band_sums"], u["vj_band_carry"], u["vj_band_integrals"]))
PY
tar -C $out -czf $dir.tgz $1; rm -rf $dir
