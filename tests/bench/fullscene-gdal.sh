#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gdalsrc and gdalsink at full Sentinel-1 GRD size (25,000 x 16,700 UInt16)
# on this machine's OpenCL device (PoCL without a GPU).  Not in CI: it needs
# ~3 GB of disk and memory and minutes on two cores.  Where GDAL is
# missing, bench-fullscene feeds the same size through filesrc !
# rawvideoparse.
#
#   tests/bench/fullscene-gdal.sh [BUILD] [WORKDIR]
#
# 1. makes a tiled 25,000 x 16,700 UInt16 GeoTIFF (10 m pixels, UTM 31N) from
#    the ERS scene with gdal_translate;
# 2. gdalsrc ! gdalsink copies it: GDAL's checksum must be the input's;
# 3. gdalsrc ! sarmultilook looks=4 ! gdalsink, in system memory and
#    memory:OpenCL, must equal gdal_translate -r average: checksum and
#    geotransform.
# Each run prints its wall time and peak memory (GNU time): with
# GDAL_CACHEMAX=64 (MB) the peak stays near one input frame plus one output
# frame, as gdalsrc reads block strips straight into the frame.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=$(realpath "${1:-build}")
work=${2:-${TMPDIR:-/tmp}/clv-fullscene-gdal}
W=25000 H=16700 LOOKS=4
mkdir -p "$work"
export GST_PLUGIN_PATH_1_0=$build/gst/elements:$build/gst/gdal
export GST_REGISTRY_1_0=$work/registry.bin
export GDAL_CACHEMAX=64
fail=0

checksum () { gdalinfo -checksum "$1" | sed -n 's/.*Checksum=//p'; }
geotransform () { gdalinfo "$1" | grep -E '^(Size is|Origin|Pixel Size)' | paste -sd ' '; }
run () {  # run NAME PIPELINE...
  local name=$1; shift
  /usr/bin/time -f "$name: %e s wall, peak memory %M KiB" \
    gst-launch-1.0 -q "$@"
}

gdal_translate -q -b 1 -ot UInt16 -scale 0 255 0 65280 -outsize $W $H \
  -r bilinear -a_srs EPSG:32631 -a_ullr 600000 5400000 850000 5233000 \
  -co TILED=YES examples/data/ERSBefore.png "$work/scene.tif"
echo "input: $(geotransform "$work/scene.tif"), checksum $(checksum "$work/scene.tif")"

run "gdalsrc ! gdalsink ($W x $H)" gdalsrc location="$work/scene.tif" ! \
  gdalsink location="$work/copy.tif" creation-options=TILED=YES
if [ "$(checksum "$work/copy.tif")" = "$(checksum "$work/scene.tif")" ] \
   && [ "$(geotransform "$work/copy.tif")" = "$(geotransform "$work/scene.tif")" ]; then
  echo "copy: equal to the input"
else
  echo "copy: DIFFERS from the input"; fail=1
fi

gdal_translate -q -r average -outsize $((W / LOOKS)) $((H / LOOKS)) \
  "$work/scene.tif" "$work/reference.tif"
echo "gdal_translate -r average: $(geotransform "$work/reference.tif"), checksum $(checksum "$work/reference.tif")"
for memory in system opencl; do
  up=() down=()
  if [ $memory = opencl ]; then up=(clupload !); down=(cldownload !); fi
  run "gdalsrc ! sarmultilook looks=$LOOKS ! gdalsink, $memory memory" \
    gdalsrc location="$work/scene.tif" ! "${up[@]}" sarmultilook looks=$LOOKS ! \
    "${down[@]}" gdalsink location="$work/ml-$memory.tif"
  if [ "$(checksum "$work/ml-$memory.tif")" = "$(checksum "$work/reference.tif")" ] \
     && [ "$(geotransform "$work/ml-$memory.tif")" = "$(geotransform "$work/reference.tif")" ]; then
    echo "$memory memory: equal to gdal_translate -r average (checksum and geotransform)"
  else
    echo "$memory memory: DIFFERS from gdal_translate -r average"; fail=1
  fi
done
rm -rf "$work"
exit $fail
