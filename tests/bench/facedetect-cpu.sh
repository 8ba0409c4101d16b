#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GStreamer's own `facedetect` (gst-plugins-bad, OpenCV on the CPU) as a
# whole pipeline, for the report's peer table: frames per second of
#   filesrc ! pnmdec ! imagefreeze ! videoscale ! videoconvert
#     ! facedetect scale-factor=1.1 min-neighbors=3 display=false ! fakesink
# at each size, one JSON object on stdout.  It runs where the
# gstreamer1.0-opencv package is installed (not on a GPU server without
# OpenCV), so the report marks it as measured on this machine's CPU.
#
#   tests/bench/facedetect-cpu.sh [IMAGE.pgm] > facedetect-cpu.json
# Environment: SIZES (640x480 1920x1400), FRAMES (10, at least 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
image=${1:-tests/data/cache/astronaut.pgm}
frames=${FRAMES:-10}
gst-inspect-1.0 facedetect >/dev/null 2>&1 ||
  { echo "facedetect-cpu.sh: no facedetect element: apt-get install gstreamer1.0-opencv" >&2; exit 1; }
printf '{"element": "facedetect (gst-plugins-bad %s, OpenCV %s)", "cpu": "%s", "cpu_threads": %d, "date": "%s", "image": "%s", "frames": %d, "runs": [' \
  "$(gst-inspect-1.0 --version | sed -n 's/.*GStreamer \([0-9.]*\).*/\1/p')" \
  "$(pkg-config --modversion opencv4 2>/dev/null || echo unknown)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
  "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(basename "$image")" "$frames"
run_ms() {                      # WIDTH HEIGHT FRAMES: wall ms of the pipeline
  local t0 t1
  t0=$(date +%s%N)
  gst-launch-1.0 -q filesrc location="$image" ! pnmdec ! \
    imagefreeze num-buffers="$3" ! videoscale ! \
    "video/x-raw,width=$1,height=$2" ! videoconvert ! \
    facedetect scale-factor=1.1 min-neighbors=3 display=false ! \
    fakesink sync=false 2>/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
# Per frame: the difference between FRAMES frames and one, so that starting
# the pipeline and loading the cascades are not counted.
sep=""
for s in ${SIZES:-640x480 1920x1400}; do
  w=${s%x*} h=${s#*x}
  one=$(run_ms "$w" "$h" 1)
  ms=$(run_ms "$w" "$h" "$frames")
  per=$(( (ms - one) * 1000 / (frames - 1) ))
  printf '%s{"width": %d, "height": %d, "wall_ms": %d, "one_frame_wall_ms": %d, "ms_per_frame": %d.%03d}' \
    "$sep" "$w" "$h" "$ms" "$one" $((per / 1000)) $((per % 1000))
  sep=", "
done
echo "]}"
