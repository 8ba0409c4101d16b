#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The speckle filters' kernels against the device's copy bandwidth, radius
# 1-3 on a 4096 x 4096 Float32 frame, and the float chain (sarintensity !
# sarmultilook ! sarspeckle ! sardb) on a 4096 x 4096 CFloat32 frame:
#
#   tests/bench/speckle.sh BUILD_DIR OUT_DIR [bench-speckle options]
#
# Writes OUT_DIR/speckle.json (see tests/bench/bench-speckle.c for the
# fields; kernel_vs_copy is the share of the copy bandwidth each kernel
# reaches, equals_reference whether its output matched the C reference).
# On a GPU server, from a checkout prepared by tests/bench/gpu-prepare.sh,
# after `source .device/setup.sh` (tests/bench/gpu-run.sh speckle does it).
set -euo pipefail
build=${1:?usage: speckle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: speckle.sh BUILD_DIR OUT_DIR}
shift 2
mkdir -p "$out"
# Column strips of outputs per work-item (SAR_SPECKLE_ROWS), from a local
# tile and straight from the image (SAR_SPECKLE_LOCAL=0); the statistics in
# double, in float with the doubtful windows redone in double (the
# defaults: float on GPUs, double elsewhere), and in float alone (what the
# guard costs).
fp="SAR_SPECKLE_FP64=1;SAR_SPECKLE_FP64=0;SAR_SPECKLE_FP64=0,SAR_SPECKLE_GUARD=0"
strips="SAR_SPECKLE_ROWS=8;SAR_SPECKLE_ROWS=16;SAR_SPECKLE_ROWS=16,SAR_SPECKLE_LY=4"
strips+=";SAR_SPECKLE_ROWS=16,SAR_SPECKLE_LX=64,SAR_SPECKLE_LY=2;SAR_SPECKLE_ROWS=16,SAR_SPECKLE_FP64=0"
for rows in 8 16; do
  l="SAR_SPECKLE_ROWS=$rows,SAR_SPECKLE_LOCAL=0"
  strips+=";$l;$l,SAR_SPECKLE_FP64=0;$l,SAR_SPECKLE_FP64=0,SAR_SPECKLE_GUARD=0"
done
export GST_PLUGIN_PATH_1_0=$build/gst/elements${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
"$build/tests/bench/bench-speckle" --size 4096 --iterations 100 \
  --tunes "SAR_SPECKLE_LX=64,SAR_SPECKLE_LY=4;SAR_SPECKLE_LX=16,SAR_SPECKLE_LY=16;$fp;$strips" \
  --out "$out/speckle.json" "$@" >/dev/null
# A summary; the JSON is what counts.
/usr/bin/python3 - "$out/speckle.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in r["speckle"]:
    print(f'{k["filter"]:12} r={k["radius"]}  {k["kernel_ms"]:8.3f} ms  '
          f'{k["kernel_vs_copy"] * 100:5.1f}% of copy  '
          f'reference {"ok" if k["equals_reference"] else "DIFFERS"}')
    for t in k["tunings"]:
        print(f'{"":12}      {t["kernel_ms"]:8.3f} ms  {t["kernel_vs_copy"] * 100:5.1f}% of copy  '
              f'reference {"ok" if t["equals_reference"] else "DIFFERS"}  {t["CLVISION_TUNE"]}')
c = r["float_chain"]
print(f'float chain: kernels {c["kernels_ms"]:.3f} ms ({c["kernels_vs_copy"] * 100:.1f}% of copy), '
      f'elements {c["element_ms"]:.2f} ms ({c["element_frames_per_s"]:.0f} frames/s)')
PY
