#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SAR chain on a georeferenced product, GeoTIFF in and GeoTIFF out:
#
#   examples/sar-chain.sh [IMAGE [OUTPUT]]
#
# gdalsrc reads band 1 of IMAGE (any raster GDAL opens: GeoTIFF, CEOS, ...)
# as it is (UInt16 amplitudes here; Float32 and complex rasters come as
# application/x-raster frames of their own type), the
# frame goes to the OpenCL device once (memory:OpenCL) for multilook ->
# rotate/scale -> quantize, and gdalsink writes OUTPUT (default
# sar-chain.tif) with the georeferencing carried through the chain, so that
# gdalinfo and QGIS place it where the scene is.
#
# Without IMAGE, a GeoTIFF is made from the real ERS scene of examples/data
# (ERSBefore.png, 869 x 550): as UInt16 amplitudes (Sentinel-1 GRD's type),
# with 12.5 m pixels in UTM zone 31N given by gdal_translate -a_ullr -a_srs
# (the PNG carries no coordinates: these are for the demonstration).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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
  image=$(dirname "$output")/ERSBefore-utm31n.tif
  gdal_translate -q -b 1 -ot UInt16 -scale 0 255 0 65280 \
    -a_srs EPSG:32631 -a_ullr 600000 5400000 610862.5 5393125 \
    -co COMPRESS=DEFLATE "$here/examples/data/ERSBefore.png" "$image"
  echo "Made $image from examples/data/ERSBefore.png"
fi

gst-launch-1.0 -q gdalsrc location="$image" ! clupload ! \
  sarmultilook looks=2 ! sarrotscale angle=30 scale=1.5 ! \
  sarquantize coef=35 ! cldownload ! \
  gdalsink location="$output" creation-options=COMPRESS=DEFLATE

for f in "$image" "$output"; do
  echo "== $f"
  gdalinfo "$f" | grep -E '^(Size is|Origin|Pixel Size|GeoTransform)|^ +[-0-9.e]+, [-0-9.e]+, [-0-9.e]+$|^    ID\["EPSG"' \
    | tail -n 6
done
echo "Multilook 2, rotated 30 degrees, scaled 1.5, quantized to GRAY8 -> $output"
