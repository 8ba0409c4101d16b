#!/usr/bin/env bash
# GStreamer's own `facedetect` (gst-plugins-bad, OpenCV on the CPU) as a
# whole pipeline, for the report's peer table: frames per second of
#   filesrc ! pnmdec ! imagefreeze ! videoscale ! videoconvert
#     ! facedetect scale-factor=1.1 min-neighbors=3 display=false ! fakesink
# at each size, one JSON object on stdout.  It runs where the
# gstreamer1.0-opencv package is installed (not the GPU machine, which has no
# OpenCV), so the report marks it as measured on this machine's CPU.
#
#   tests/bench/facedetect-cpu.sh [IMAGE.pgm] > docs/bench/facedetect-cpu.json
# Environment: SIZES (640x480 1920x1400), FRAMES (10).
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
sep=""
for s in ${SIZES:-640x480 1920x1400}; do
  w=${s%x*} h=${s#*x}
  t0=$(date +%s%N)
  gst-launch-1.0 -q filesrc location="$image" ! pnmdec ! \
    imagefreeze num-buffers="$frames" ! videoscale ! \
    "video/x-raw,width=$w,height=$h" ! videoconvert ! \
    facedetect scale-factor=1.1 min-neighbors=3 display=false ! \
    fakesink sync=false
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  printf '%s{"width": %d, "height": %d, "wall_ms": %d, "ms_per_frame": %d.%03d}' \
    "$sep" "$w" "$h" "$ms" $((ms / frames)) $(( (ms * 1000 / frames) % 1000 ))
  sep=", "
done
echo "]}"
