#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live faces from a camera, drawn on screen:
#   v4l2src | clvurisrc -> vjfacedetect -> [eigenrecognise] -> roioverlay
#     -> autovideosink | SINK
#
#   examples/camera.sh [--model MODEL.yml] [--sink SINK] [DEVICE | URI]
#
# DEVICE is a V4L2 camera (/dev/video0 by default); a URI (rtsp://,
# rtspt:// for RTSP over TCP, http://, file://) is read by clvurisrc, which
# reconnects when the camera drops.  SINK is where the annotated frames go,
# as a gst-launch-1.0 description: autovideosink by default; fakesink, or
# "jpegenc ! multifilesink location=frame%05d.jpg", to run without a screen.
# With a model (clvision-eigen-train) every face is named.  Without a camera
# it says so and shows a video file instead ($CLV_FALLBACK_VIDEO, default the
# test video of tests/fetch-data.sh).  Ctrl-C ends the stream cleanly (EOS).
# GST_PLUGIN_PATH_1_0 must reach the clvision plugin unless it is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
model=
sink=autovideosink
while [ $# -gt 0 ]; do
  case "$1" in
    --model)
      model=${2:?"--model needs a file"}
      [ -r "$model" ] || { echo "$0: cannot read the model '$model'" >&2; exit 1; }
      shift 2 ;;
    --sink)
      sink=${2:?"--sink needs a sink, e.g. fakesink"}
      shift 2 ;;
    *) break ;;
  esac
done
camera=${1:-/dev/video0}

recognise=
[ -z "$model" ] || recognise="! eigenrecognise model=$model"
if [[ "$camera" == *://* ]]; then
  source="clvurisrc uri=$camera ! videoconvert"
elif [ -c "$camera" ]; then
  source="v4l2src device=$camera ! videoconvert"
else
  fallback=${CLV_FALLBACK_VIDEO:-tests/data/cache/franck.webm}
  echo "No camera at $camera (plug one in, or name its device: $0 /dev/videoN, or a URI: $0 rtsp://HOST/PATH)." >&2
  [ -r "$fallback" ] || tests/fetch-data.sh >/dev/null
  echo "Showing the video file $fallback instead." >&2
  source="filesrc location=$fallback ! decodebin ! videoconvert"
fi
# shellcheck disable=SC2086  # pipeline fragments
exec gst-launch-1.0 -e $source ! vjfacedetect $recognise ! roioverlay ! \
  videoconvert ! $sink
