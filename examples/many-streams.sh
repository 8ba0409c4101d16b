#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many videos (recordings, or camera streams that GStreamer can open) analysed
# at once in one process, as a camera fleet's host runs them: one
# `filesrc ! decodebin ! videoconvert ! vjfacedetect ! roiexport` chain per
# input, all in one pipeline.  Every vjfacedetect of the process on one GPU
# hands its frames to the same detection service, so frames of different
# streams are detected together in shared batches (docs/design.md).
#
#   examples/many-streams.sh [--min-neighbors N] [--out DIR] FILE...
#
# Writes DIR/K-NAME.jsonl for the K-th input (DIR: the current directory),
# then prints each stream's frames and faces, the total frames/s, and the
# largest batch of frames the detector ran.  GST_PLUGIN_PATH_1_0 must reach
# the clvision plugin unless it is installed.
set -euo pipefail
usage () {
  echo "usage: $0 [--min-neighbors N] [--out DIR] FILE..." >&2
  exit 2
}
outdir=. neighbors=''
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || usage; outdir=$2; shift 2 ;;
    --min-neighbors) [ $# -ge 2 ] || usage; neighbors="min-neighbors=$2"; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
mkdir -p "$outdir"

chains=() records=()
k=0
for file in "$@"; do
  [ -r "$file" ] || { echo "$0: cannot read the video file '$file'" >&2; exit 1; }
  k=$((k + 1))
  name=$(basename "${file%.*}")
  records+=("$outdir/$k-$name.jsonl")
  # shellcheck disable=SC2206  # $neighbors: an optional property
  chains+=(filesrc location="$file" ! decodebin ! videoconvert ! \
    vjfacedetect $neighbors ! roiexport location="${records[-1]}" ! \
    fakesink sync=false)
done

# vjfacedetect logs the size of every frame's batch at LOG level.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
GST_DEBUG="${GST_DEBUG:+$GST_DEBUG,}vjfacedetect:6" GST_DEBUG_FILE=$log \
  GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q "${chains[@]}"
end=$(date +%s.%N)

total=0
for r in "${records[@]}"; do
  frames=$(wc -l < "$r")
  faces=$(grep -o '"roi_type":"face"' "$r" | wc -l || true)
  total=$((total + frames))
  echo "$r: $frames frames, $faces faces"
done
largest=$(grep -o 'batch of [0-9]* frames' "$log" | awk '$3 > m { m = $3 } END { print m + 0 }')
awk -v f="$total" -v n="${#records[@]}" -v s="$start" -v e="$end" -v b="$largest" 'BEGIN {
  t = e - s
  printf "%d streams, %d frames in %.1f s (%.1f frames/s in all)\n", n, f, t, (t > 0 ? f / t : 0)
  printf "largest batch: %d frames detected together\n", b
}'
