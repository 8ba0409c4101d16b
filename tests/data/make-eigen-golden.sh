#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerates the Eigenfaces golden files from OpenCV through the oracle, so
# machines without OpenCV still test equivalence:
#
#   tests/data/make-eigen-golden.sh build/tests/oracle/oracle-eigen
#
# golden/eigen-lfw-k<K>.txt  OpenCV's EigenFaceRecognizer (num_components K)
#                            trained on cache/lfw/train.txt: its eigenvalues,
#                            and label + distance for every image of
#                            cache/lfw/test.txt, without and with a threshold
# golden/eigen-resize.txt    cv::resize (INTER_LINEAR_EXACT) of crops of an
#                            LFW face, the output bytes in hex
# eigen-opencv-small.yml     a small model written by OpenCV (8 × 6 images,
#                            label names that need quoting) for the file tests
set -euo pipefail

oracle=$(realpath "$1")
data=$(cd "$(dirname "$0")" && pwd)
cache=$data/cache/lfw
golden=$data/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$data/make-lfw.py" "$cache"
mkdir -p "$golden"
version=$("$oracle" version)

# Thresholds near the median distance: some test faces known, some not.
declare -A thresholds=([5]=500 [20]=800 [69]=1000)
for k in 5 20 69; do
  out=$golden/eigen-lfw-k$k.txt
  "$oracle" train "$cache/train.txt" "$tmp/model.yml" --components "$k"
  {
    echo "# OpenCV $version EigenFaceRecognizer::create($k), trained on"
    echo "# cache/lfw/train.txt (tests/data/make-lfw.py); made by"
    echo "# tests/data/make-eigen-golden.sh.  Lines: eigenvalue INDEX VALUE,"
    echo "# predict THRESHOLD PATH LABEL DISTANCE (PATH under cache/lfw)."
    "$oracle" eigenvalues "$tmp/model.yml" | awk '{print "eigenvalue", NR - 1, $1}'
    for threshold in inf "${thresholds[$k]}"; do
      args=()
      [ "$threshold" = inf ] || args=(--threshold "$threshold")
      "$oracle" predict "$tmp/model.yml" "${args[@]}" --list "$cache/test.txt" |
        sed "s|^$cache/|predict $threshold |"
    done
  } > "$out"
done

# Crops of one face (25 x 25): inside, at the edges, up- and down-scaled,
# 1 x 1, and the halving case OpenCV routes through INTER_AREA.
face=$cache/faces/3/05.pgm
{
  echo "# cv::resize (INTER_LINEAR_EXACT) of crops of cache/lfw/faces/3/05.pgm"
  echo "# (OpenCV $version); lines: X Y W H OUT_W OUT_H HEX_BYTES"
  while read -r x y w h ow oh; do
    "$oracle" crop-resize "$face" "$x" "$y" "$w" "$h" "$ow" "$oh" "$tmp/c.pgm"
    # The last OUT_W * OUT_H bytes of the PGM are the pixels.
    hex=$(tail -c $((ow * oh)) "$tmp/c.pgm" | od -An -v -tx1 | tr -d ' \n')
    echo "$x $y $w $h $ow $oh $hex"
  done <<'EOF'
0 0 25 25 25 25
0 0 25 25 16 16
0 0 25 25 12 12
3 2 20 20 10 10
5 5 10 10 16 16
0 0 25 25 7 13
20 20 5 5 9 9
24 24 1 1 3 3
0 0 1 25 4 8
10 3 13 17 32 32
1 1 23 11 6 2
0 12 25 13 1 1
EOF
} > "$golden/eigen-resize.txt"

# The small model: 12 faces shrunk to 8 x 6, names that need quoting.
: > "$tmp/small.txt"
names=("Ada Lovelace" "O'Brien \"Bob\"" "x: y #1" "3rd")
for i in $(seq 0 11); do
  label=$((i % 4))
  src=$cache/faces/$((i / 2))/0$((i % 2)).pgm
  "$oracle" crop-resize "$src" 0 0 25 25 8 6 "$tmp/s$i.pgm"
  echo "$tmp/s$i.pgm $label ${names[$label]}" >> "$tmp/small.txt"
done
"$oracle" train "$tmp/small.txt" "$data/eigen-opencv-small.yml" --components 4 \
  --threshold 2500
