#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The float SAR chain on a full Sentinel-1-sized scene (25,000 x 16,700
# complex samples, CFloat32: 3.3 GB) against Orfeo ToolBox's chain of
# applications on the same scene and machine, file to file:
#
#   ours: gdalsrc ! sarintensity ! sarmultilook looks=4 !
#         sarspeckle filter=lee radius=2 looks=16 ! sardb ! gdalsink, one
#         gst-launch-1.0, in system memory (on PoCL faster than keeping
#         the frames in memory:OpenCL with clupload ... cldownload: a
#         quarter scene took 4.4 s against 6.2 s)
#   OTB:  otbcli_BandMath (|z|^2) -> otbcli_RigidTransformResample (scale
#         1/4, linear: OTB has no multilook application) ->
#         otbcli_Despeckle (lee, radius 2, 16 looks) -> otbcli_BandMath
#         (10 log10), each writing its GeoTIFF as a command-line user's
#         chain does
#
#   tests/bench/fullscene-float.sh BUILD_DIR OUT_DIR
#
# The scene is synthetic circular Gaussian speckle (|z|^2 exponential) on
# blocks of reflectivity from 1e-3 to 1e3.  Every step's wall time goes to
# OUT_DIR/fullscene-float.json, with the outputs' sizes and mean dB.
# Threads: OTB's and PoCL's defaults (all cores), or THREADS.  Needs
# otb-bin, gdal-bin, Debian's python3-numpy and about 20 GB of disk in
# TMPDIR.
set -euo pipefail
build=$(realpath "${1:?usage: fullscene-float.sh BUILD_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: fullscene-float.sh BUILD_DIR OUT_DIR}")
w=${WIDTH:-25000} h=${HEIGHT:-16700}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH_1_0=$build/gst/elements:$build/gst/gdal
export OTB_LOGGER_LEVEL=WARNING
if [ -n "${THREADS:-}" ]; then
  export POCL_MAX_PTHREAD_COUNT=$THREADS ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS=$THREADS
fi

/usr/bin/python3 - "$tmp/slc.raw" "$w" "$h" <<'PY'
import sys, numpy as np
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = np.memmap(path, dtype='<c8', mode='w+', shape=(h, w))
rng = np.random.default_rng(2014)
x = np.arange(w)
for y0 in range(0, h, 500):
    y = np.arange(y0, min(y0 + 500, h))[:, None]
    refl = 10.0 ** (((x // 64 * 7 + y // 64 * 13) % 61) / 10.0 - 3)
    n = (len(y), w)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * np.sqrt(refl / 2)
    out[y0:y0 + len(y)] = z.astype('<c8')
out.flush()
PY
cat > "$tmp/slc.vrt" <<VRT
<VRTDataset rasterXSize="$w" rasterYSize="$h">
  <VRTRasterBand dataType="CFloat32" band="1" subClass="VRTRawRasterBand">
    <SourceFilename relativeToVRT="1">slc.raw</SourceFilename>
    <ByteOrder>LSB</ByteOrder>
  </VRTRasterBand>
</VRTDataset>
VRT
gdal_translate -q -co BIGTIFF=YES -co TILED=YES "$tmp/slc.vrt" "$tmp/slc.tif"
rm "$tmp/slc.raw"

seconds () { local t0; t0=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $t0" | bc; }
ours=$(seconds gst-launch-1.0 -q gdalsrc location="$tmp/slc.tif" ! \
  sarintensity ! sarmultilook looks=4 ! \
  sarspeckle filter=lee radius=2 looks=16 ! sardb ! \
  gdalsink location="$tmp/ours.tif")
otb_int=$(seconds otbcli_BandMath -il "$tmp/slc.tif" -out "$tmp/otb-int.tif" float \
  -exp "im1b1*im1b1+im1b2*im1b2")
otb_ml=$(seconds otbcli_RigidTransformResample -in "$tmp/otb-int.tif" \
  -out "$tmp/otb-ml.tif" float -transform.type id \
  -transform.type.id.scalex 0.25 -transform.type.id.scaley 0.25 \
  -interpolator linear)
otb_lee=$(seconds otbcli_Despeckle -in "$tmp/otb-ml.tif" -out "$tmp/otb-lee.tif" \
  float -filter lee -filter.lee.rad 2 -filter.lee.nblooks 16)
otb_db=$(seconds otbcli_BandMath -il "$tmp/otb-lee.tif" -out "$tmp/otb-db.tif" \
  float -exp "10*log10(im1b1)")

stats () { gdalinfo -stats "$1" | sed -n 's/.*Size is \(.*\)/size \1/p; s/.*Mean=\([-0-9.]*\).*/mean \1/p' | tr '\n' ' '; }
/usr/bin/python3 - "$out/fullscene-float.json" "$w" "$h" "$ours" "$otb_int" \
  "$otb_ml" "$otb_lee" "$otb_db" "$(stats "$tmp/ours.tif")" \
  "$(stats "$tmp/otb-db.tif")" "${THREADS:-all}" <<'PY'
import json, subprocess, sys
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ours, i, m, l, d = (float(v) for v in sys.argv[4:9])
cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'; nproc"],
                     capture_output=True, text=True).stdout.split("\n")
r = {"machine": cpu[0], "cores": int(cpu[1]), "threads": sys.argv[11],
     "width": w, "height": h, "input": "CFloat32 GeoTIFF, %.2f GB" % (w * h * 8 / 1e9),
     "ours_s": ours,
     "otb_s": {"bandmath_intensity": i, "rigidtransformresample": m,
               "despeckle_lee": l, "bandmath_db": d, "total": i + m + l + d},
     "speed_up": (i + m + l + d) / ours,
     "ours_output": sys.argv[9].strip(), "otb_output": sys.argv[10].strip()}
json.dump(r, open(path, "w"), indent=2)
print(json.dumps(r, indent=2))
PY
