#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# sarspeckle against Orfeo ToolBox on this machine's CPU, with two threads
# each: Lee, radius 2, 4 looks, on a 4096 x 4096 Float32 GeoTIFF of
# speckle (exponential, on blocks of reflectivity from 1e-3 to 1e3), file to
# file:
#   otbcli_Despeckle (ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS=2)
#   gdalsrc ! sarspeckle ! gdalsink on PoCL (POCL_MAX_PTHREAD_COUNT=2)
# run in turns, RUNS times each (after one run of ours that builds the
# kernel into the program cache), and the two outputs compared pixel for
# pixel.  Also the kernel alone (bench-speckle) on two threads.
#
#   tests/bench/speckle-otb.sh BUILD_DIR OUT_DIR
#
# Writes OUT_DIR/speckle-otb.json.  Needs otb-bin, gdal-bin and Debian's python3-numpy (/usr/bin/python3).
set -euo pipefail
build=$(realpath "${1:?usage: speckle-otb.sh BUILD_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: speckle-otb.sh BUILD_DIR OUT_DIR}")
runs=${RUNS:-3}
size=${SIZE:-4096}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH_1_0=$build/gst/elements:$build/gst/gdal
export POCL_MAX_PTHREAD_COUNT=2 ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS=2
export OTB_LOGGER_LEVEL=WARNING

/usr/bin/python3 - "$tmp/in.raw" "$size" <<'PY'
import sys, numpy as np
n = int(sys.argv[2])
y, x = np.mgrid[0:n, 0:n]
refl = 10.0 ** (((x // 64 * 7 + y // 64 * 13) % 61) / 10.0 - 3)
rng = np.random.default_rng(1980)
(refl * rng.exponential(1.0, (n, n))).astype('<f4').tofile(sys.argv[1])
PY
cat > "$tmp/in.vrt" <<VRT
<VRTDataset rasterXSize="$size" rasterYSize="$size">
  <VRTRasterBand dataType="Float32" band="1" subClass="VRTRawRasterBand">
    <SourceFilename relativeToVRT="1">in.raw</SourceFilename>
    <ByteOrder>LSB</ByteOrder>
  </VRTRasterBand>
</VRTDataset>
VRT
gdal_translate -q "$tmp/in.vrt" "$tmp/in.tif"

ours () {
  gst-launch-1.0 -q gdalsrc location="$tmp/in.tif" ! \
    sarspeckle filter=lee radius=2 looks=4 ! gdalsink location="$tmp/ours.tif"
}
otb () {
  otbcli_Despeckle -in "$tmp/in.tif" -out "$tmp/otb.tif" float -filter lee \
    -filter.lee.rad 2 -filter.lee.nblooks 4 -ram 4096 >/dev/null
}
seconds () { local t0; t0=$(date +%s.%N); "$@"; echo "$(date +%s.%N) - $t0" | bc; }

ours  # builds the kernel into the program cache
ours_s=() otb_s=()
for i in $(seq "$runs"); do
  otb_s+=("$(seconds otb)")
  ours_s+=("$(seconds ours)")
done
kernel_json=$("$build/tests/bench/bench-speckle" --size "$size" --filters lee \
  --radii 2 --iterations 5)

for f in ours otb; do
  gdal_translate -q -of ENVI "$tmp/$f.tif" "$tmp/$f.bin"
done
/usr/bin/python3 - "$tmp" "$size" "$out/speckle-otb.json" "$kernel_json" \
  "${otb_s[*]}" "${ours_s[*]}" <<'PY'
import json, statistics, subprocess, sys, numpy as np
tmp, n, path, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
otb_s = [float(v) for v in sys.argv[5].split()]
ours_s = [float(v) for v in sys.argv[6].split()]
a = np.fromfile(f"{tmp}/ours.bin", "<f4").astype(np.float64)
b = np.fromfile(f"{tmp}/otb.bin", "<f4").astype(np.float64)
d = np.abs(a - b)
close = (d <= 1e-6) | (d <= 1e-4 * np.abs(b))
cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"],
                     capture_output=True, text=True).stdout.strip()
r = {
    "machine": cpu, "threads": 2, "size": n,
    "filter": "lee", "radius": 2, "looks": 4,
    "otb_s": otb_s, "ours_s": ours_s,
    "otb_median_s": statistics.median(otb_s),
    "ours_median_s": statistics.median(ours_s),
    "speed_up": statistics.median(otb_s) / statistics.median(ours_s),
    "kernel_ms": kernel["speckle"][0]["kernel_ms"],
    "pixels": int(a.size), "pixels_within_1e-4": int(close.sum()),
    "pixels_bit_equal": int((a == b).sum()),
    "max_relative_difference": float(np.max(d / np.maximum(np.abs(b), 1e-30))),
    "device": kernel["device"],
}
json.dump(r, open(path, "w"), indent=2)
print(json.dumps(r, indent=2))
PY
