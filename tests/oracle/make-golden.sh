#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerates tests/data/golden/: OpenCV 4.6's detections (the oracle) for
# every test image x cascade x scale factor x min-neighbors (the Haar face
# cascades and three LBP ones), the face cascades' scores (reject levels and
# level weights), eyes inside the faces, and the sha256 of the gray images
# they were made from.  Needs a build with OpenCV found.
#
#   tests/oracle/make-golden.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
oracle=$build/tests/oracle/oracle-detect
[ -x "$oracle" ] || { echo "$oracle is missing: install libopencv-dev and rebuild" >&2; exit 1; }
tests/fetch-data.sh "$build/tests/oracle/clv-gray-pgm"

cache=tests/data/cache
golden=tests/data/golden
cascades=/usr/share/opencv4
images=(astronaut grace_hopper franck-1000 franck-2500 franck-4000)
haar=(frontalface_default frontalface_alt frontalface_alt2 frontalface_alt_tree)
lbp=(lbp_frontalface lbp_frontalface_improved lbp_profileface)
mkdir -p "$golden"
for image in "${images[@]}"; do
  rm -f "$golden/$image".*.txt
done
(cd "$cache" && sha256sum "${images[@]/%/.pgm}") > "$golden/images.sha256"
# The file of a cascade's short name: lbp_NAME is lbpcascade_NAME.
cascade_file () {
  case $1 in
    lbp_*) echo "$cascades/lbpcascades/lbpcascade_${1#lbp_}.xml" ;;
    *) echo "$cascades/haarcascades/haarcascade_$1.xml" ;;
  esac
}
for image in "${images[@]}"; do
  for cascade in "${haar[@]}" "${lbp[@]}"; do
    for scale in 1.1 1.2; do
      for neighbors in 0 3; do
        "$oracle" --cascade "$(cascade_file "$cascade")" \
          --image "$cache/$image.pgm" --scale-factor "$scale" \
          --min-neighbors "$neighbors" --threads 1 \
          > "$golden/$image.$cascade.s$scale.n$neighbors.txt"
      done
    done
  done
  for cascade in "${haar[@]}" lbp_frontalface; do
    for neighbors in 0 3; do
      "$oracle" --cascade "$(cascade_file "$cascade")" \
        --image "$cache/$image.pgm" --min-neighbors "$neighbors" \
        --reject-levels --threads 1 \
        > "$golden/$image.$cascade.s1.1.n$neighbors.levels.txt"
    done
  done
  "$oracle" --cascade "$(cascade_file eye)" \
    --parent-cascade "$(cascade_file frontalface_default)" \
    --image "$cache/$image.pgm" --threads 1 \
    > "$golden/$image.eye-in-frontalface_default.txt"
done
echo "wrote $(ls "$golden"/*.txt | wc -l) golden files in $golden"
