#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/sar-chain.sh --speckle lee --db on its own demonstration scene
# (the ERS scene as Float32 intensity with 16 ground control points): a
# Float32 dB GeoTIFF of the multilooked size, its ground control points at
# half the input's pixel and line, values in a dB range; and the display
# chain's GRAY8 output.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
export CLV_BUILD_DIR=${1:?usage: sar-chain.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

cd "$tmp"
"$src/examples/sar-chain.sh" --speckle lee --db | tee log \
  || fail "sar-chain.sh exited with $?"
info=$(gdalinfo -stats sar-chain.tif)
grep -q "Size is 434, 275" <<<"$info" || fail "sar-chain.tif is not 434 x 275"
grep -q "Type=Float32" <<<"$info" || fail "sar-chain.tif is not Float32"
[ "$(grep -c '^GCP\[' <<<"$info")" -eq 16 ] || fail "sar-chain.tif lost its GCPs"
in_gcp=$(gdalinfo ERSBefore-gcps.tif | grep -A1 '^GCP\[ *5\]' | tail -1)
out_gcp=$(grep -A1 '^GCP\[ *5\]' <<<"$info" | tail -1)
# (289,183) -> (lon,lat) in, (144.5,91.5) -> the same lon,lat out.
[ "${in_gcp#*->}" = "${out_gcp#*->}" ] || fail "GCP 5 moved: $in_gcp / $out_gcp"
grep -q "(144.5,91.5)" <<<"$out_gcp" || fail "GCP 5 is not at half: $out_gcp"
max=$(sed -n 's/.*Maximum=\([-0-9.]*\).*/\1/p' <<<"$info")
min=$(sed -n 's/.*Minimum=\([-0-9.]*\).*/\1/p' <<<"$info")
awk -v a="$min" -v b="$max" 'BEGIN { exit !(a > -101 && b <= 0.001 && a < b) }' \
  || fail "dB values from $min to $max, not in -100..0"

"$src/examples/sar-chain.sh" ERSBefore-gcps.tif display.tif >/dev/null \
  || fail "the display chain exited with $?"
gdalinfo display.tif | grep -q "Type=Byte" || fail "display.tif is not 8-bit"
echo "sar-chain.sh: dB GeoTIFF and display GeoTIFF as expected"
