#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's picture, made by clvision's own elements from the real test
# data: Grace Hopper's portrait with the face vjfacedetect finds drawn by
# roioverlay, beside the ERS scene of examples/data through the SAR chain
# (sarmultilook, sarrotscale, sarquantize; coef=100, brighter than the
# paper's 35 for a small picture).  One frame each, composed side
# by side into one small JPEG.
#   examples/readme-picture.sh [OUTPUT.jpg]      (default docs/clvision.jpg)
# Needs a build (build/, or CLV_BUILD_DIR) and tests/fetch-data.sh's photo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${CLV_BUILD_DIR:-build}
export GST_PLUGIN_PATH_1_0=$PWD/$build/gst
photo=tests/data/cache/grace_hopper_512x512.jpg
[ -f "$photo" ] || { echo "$photo is missing: run tests/fetch-data.sh" >&2; exit 1; }
out=${1:-docs/clvision.jpg}
side=320
gst-launch-1.0 -q compositor name=mix background=white \
    sink_1::xpos=$((side + 12)) ! video/x-raw,format=I420 ! \
    jpegenc quality=80 snapshot=true ! filesink location="$out" \
  filesrc location="$photo" ! jpegdec ! videoconvert ! video/x-raw,format=RGBx ! \
    imagefreeze num-buffers=1 ! vjfacedetect ! \
    roioverlay thickness=4 color=0xffffd700 font-desc="Sans Bold 18" ! videoconvert ! \
    videoscale ! video/x-raw,width=$side,height=$side ! mix.sink_0 \
  filesrc location=examples/data/ERSBefore.png ! pngdec ! videoconvert ! \
    video/x-raw,format=GRAY8 ! imagefreeze num-buffers=1 ! \
    sarmultilook looks=2 ! sarrotscale angle=30 scale=1.5 ! \
    sarquantize coef=100 ! videoconvert ! videoscale ! \
    video/x-raw,height=$side,pixel-aspect-ratio=1/1 ! mix.sink_1
echo "$out"
