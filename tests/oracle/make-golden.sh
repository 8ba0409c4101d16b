#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerates tests/data/golden/: OpenCV 4.6's detections (the oracle) for
# every test image x cascade x scale factor x min-neighbors, and the sha256
# of the gray images they were made from.  Needs a build with OpenCV found.
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
cascades=/usr/share/opencv4/haarcascades
images=(astronaut grace_hopper franck-1000 franck-2500 franck-4000)
mkdir -p "$golden"
rm -f "$golden"/*.txt
(cd "$cache" && sha256sum "${images[@]/%/.pgm}") > "$golden/images.sha256"
for image in "${images[@]}"; do
  for cascade in frontalface_default frontalface_alt frontalface_alt2 \
      frontalface_alt_tree; do
    for scale in 1.1 1.2; do
      for neighbors in 0 3; do
        "$oracle" --cascade "$cascades/haarcascade_$cascade.xml" \
          --image "$cache/$image.pgm" --scale-factor "$scale" \
          --min-neighbors "$neighbors" --threads 1 \
          > "$golden/$image.$cascade.s$scale.n$neighbors.txt"
      done
    done
  done
done
echo "wrote $(ls "$golden"/*.txt | wc -l) golden files in $golden"
