#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SAR chain on a georeferenced product, GeoTIFF in and GeoTIFF out:
#
#   examples/sar-chain.sh [--speckle FILTER] [--db] [--looks N] [IMAGE [OUTPUT]]
#
# Without options, the display chain: gdalsrc reads band 1 of IMAGE (any
# raster GDAL opens), the frame goes to the OpenCL device once
# (memory:OpenCL) for multilook -> rotate/scale -> quantize to 8 bits, and
# gdalsink writes OUTPUT.
#
# With --speckle FILTER (lee, frost, gammamap, kuan, refined-lee, boxcar,
# median) and/or --db, the analysis chain on the values themselves, in
# Float32: multilook -> speckle filter -> dB, e.g. a calibrated sigma0
# GeoTIFF of a Sentinel-1 GRD to a despeckled sigma0 in dB.  A complex
# IMAGE (an SLC: CInt16, CFloat32, or I and Q bands) is detected first
# (sarintensity).
#
# The georeferencing goes through the chain, ground control points
# included, so that gdalinfo and QGIS place OUTPUT (default sar-chain.tif)
# where the scene is.
#
# Without IMAGE, a Float32 intensity GeoTIFF is made from the real ERS scene
# of examples/data (ERSBefore.png, 869 x 550) and georeferenced, as
# Sentinel-1 products are, by a 4 x 4 grid of ground control points
# (gdal_translate -gcp: the PNG carries no coordinates, these are for the
# demonstration).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
speckle="" db=0 looks=2
while [ $# -gt 0 ]; do
  case "$1" in
    --speckle) speckle=$2; shift 2 ;;
    --db) db=1; shift ;;
    --looks) looks=$2; shift 2 ;;
    -h|--help) sed -n '3,6p' "$0"; exit 0 ;;
    -*) echo "sar-chain.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
image=${1:-}
output=$(realpath -m "${2:-sar-chain.tif}")

command -v gdal_translate >/dev/null \
  || { echo "sar-chain.sh: gdal_translate is missing: install Debian's gdal-bin" >&2; exit 1; }
build=${CLV_BUILD_DIR:-$here/build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$here" -Dbuildtype=release -Dgdal=enabled
fi
ninja -C "$build" >/dev/null
[ -f "$build/gst/gdal/libgstclvisiongdal.so" ] || { echo "sar-chain.sh:" \
  "$build was configured without GDAL: install libgdal-dev and run" \
  "'meson configure $build -Dgdal=enabled'" >&2; exit 1; }
export GST_PLUGIN_PATH_1_0=$build/gst/elements:$build/gst/gdal

if [ -z "$image" ]; then
  image=$(dirname "$output")/ERSBefore-gcps.tif
  gcps=()
  for j in 0 1 2 3; do
    for i in 0 1 2 3; do
      p=$((i * 868 / 3)) l=$((j * 549 / 3))
      gcps+=(-gcp "$p" "$l" \
        "$(awk -v p="$p" -v l="$l" 'BEGIN { printf "%.7f %.7f", 2.1 + 1.5e-4 * p + 3e-5 * l, 48.9 - 1.1e-4 * l + 2e-5 * p }')")
    done
  done
  # Intensity from the 8-bit amplitudes: (v / 255)^2, in 0..1 as sigma0 is.
  gdal_translate -q -b 1 -ot Float32 -scale 0 255 0 1 -exponent 2 \
    -a_srs EPSG:4326 ${gcps[*]} "$here/examples/data/ERSBefore.png" "$image"
  echo "Made $image from examples/data/ERSBefore.png"
fi

# A complex product is detected to intensity first.
detect=""
if gdalinfo "$image" | grep -qE 'Type=C(Int|Float)'; then
  detect="sarintensity ! "
fi
if [ -n "$speckle" ] || [ "$db" = 1 ]; then
  chain="${detect}sarmultilook looks=$looks"
  [ -n "$speckle" ] && chain="$chain ! sarspeckle filter=$speckle radius=2 looks=$((looks * looks))"
  [ "$db" = 1 ] && chain="$chain ! sardb"
  what="multilook $looks${speckle:+, $speckle speckle filter}$([ "$db" = 1 ] && echo ", dB"), Float32"
else
  chain="${detect}sarmultilook looks=$looks ! sarrotscale angle=30 scale=1.5 ! sarquantize coef=35"
  what="multilook $looks, rotated 30 degrees, scaled 1.5, quantized to GRAY8"
fi
# shellcheck disable=SC2086
gst-launch-1.0 -q gdalsrc location="$image" ! clupload ! $chain ! \
  cldownload ! gdalsink location="$output" creation-options=COMPRESS=DEFLATE

for f in "$image" "$output"; do
  echo "== $f"
  # The size, the type, and where it lies: the origin, or the first
  # ground control point, (pixel,line) -> (longitude,latitude,height).
  gdalinfo "$f" | awk '/^Size is|Type=|^Origin/ { sub(/^ */, ""); print }
    /^GCP\[ *0\]/ { gcp = 1; next } gcp { sub(/^ */, ""); print "GCP " $0; gcp = 0 }'
done
echo "$what -> $output"
