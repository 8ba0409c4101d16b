#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Analyses a recorded video: finds the faces of every frame (vjfacedetect),
# names them if a model is given (eigenrecognise), draws them (roioverlay)
# into an annotated copy and writes one JSON record per frame (roiexport).
#
#   examples/analyse-video.sh [--model MODEL.yml] [--min-neighbors N]
#                             [--out DIR] FILE
#
# Writes DIR/NAME-annotated.webm and DIR/NAME.jsonl (DIR: the current
# directory), reports progress, and ends with frames, faces, time and
# frames per second.  GST_PLUGIN_PATH_1_0 must reach the clvision plugin
# unless it is installed.
set -euo pipefail
usage () {
  echo "usage: $0 [--model MODEL.yml] [--min-neighbors N] [--out DIR] FILE" >&2
  exit 2
}
model='' outdir=. neighbors=''
while [ $# -gt 1 ]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --out) outdir=$2; shift 2 ;;
    # vjfacedetect's min-neighbors: higher keeps fewer, surer faces.
    --min-neighbors) neighbors="min-neighbors=$2"; shift 2 ;;
    *) usage ;;
  esac
done
[ $# -eq 1 ] || usage
file=$1
[ -r "$file" ] || { echo "$0: cannot read the video file '$file'" >&2; exit 1; }
[ -z "$model" ] || [ -r "$model" ] \
  || { echo "$0: cannot read the model '$model'" >&2; exit 1; }
mkdir -p "$outdir"
name=$(basename "${file%.*}")
video=$outdir/$name-annotated.webm
records=$outdir/$name.jsonl

recognise=
[ -z "$model" ] || recognise="! eigenrecognise model=$model"
start=$(date +%s.%N)
# shellcheck disable=SC2086  # $neighbors, $recognise: pipeline fragments
gst-launch-1.0 -q filesrc location="$file" ! decodebin ! videoconvert ! \
  vjfacedetect $neighbors $recognise ! roioverlay ! roiexport location="$records" ! \
  progressreport update-freq=5 ! videoconvert ! vp8enc deadline=1 ! webmmux ! \
  filesink location="$video"
end=$(date +%s.%N)

frames=$(wc -l < "$records")
faces=$(grep -o '"roi_type":"face"' "$records" | wc -l || true)
awk -v f="$frames" -v n="$faces" -v s="$start" -v e="$end" \
    -v video="$video" -v records="$records" 'BEGIN {
  t = e - s
  printf "%d frames, %d faces in %.1f s (%.1f frames/s)\n", f, n, t, (t > 0 ? f / t : 0)
  printf "annotated video: %s\nJSON Lines (one record per frame): %s\n", video, records
}'
