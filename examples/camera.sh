#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live faces from a camera, drawn on screen:
#   v4l2src -> vjfacedetect -> [eigenrecognise] -> roioverlay -> autovideosink
#
#   examples/camera.sh [--model MODEL.yml] [DEVICE]    (DEVICE: /dev/video0)
#
# With a model (clvision-eigen-train) every face is named.  Without a camera
# it says so and shows a video file instead ($CLV_FALLBACK_VIDEO, default the
# test video of tests/fetch-data.sh).  GST_PLUGIN_PATH_1_0 must reach the
# clvision plugin unless it is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
model=
if [ "${1:-}" = --model ]; then
  model=${2:?"--model needs a file"}
  [ -r "$model" ] || { echo "$0: cannot read the model '$model'" >&2; exit 1; }
  shift 2
fi
device=${1:-/dev/video0}

recognise=
[ -z "$model" ] || recognise="! eigenrecognise model=$model"
if [ -c "$device" ]; then
  source="v4l2src device=$device ! videoconvert"
else
  fallback=${CLV_FALLBACK_VIDEO:-tests/data/cache/franck.webm}
  echo "No camera at $device (plug one in, or name its device: $0 /dev/videoN)." >&2
  [ -r "$fallback" ] || tests/fetch-data.sh >/dev/null
  echo "Showing the video file $fallback instead." >&2
  source="filesrc location=$fallback ! decodebin ! videoconvert"
fi
# shellcheck disable=SC2086  # pipeline fragments
exec gst-launch-1.0 $source ! vjfacedetect $recognise ! roioverlay ! \
  videoconvert ! autovideosink
