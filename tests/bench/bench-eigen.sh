#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Eigenface benchmark in one run, one JSON object on stdout:
#   clvision_double, clvision_float  bench-eigen on the OpenCL device
#   opencv                           OpenCV's EigenFaceRecognizer, 16 threads
#                                    (tests/oracle/oracle-eigen bench), on
#                                    the same faces (--write-faces / --raw)
# Run from the source root after a build with -Dtests=enabled:
#   tests/bench/bench-eigen.sh [BUILD_DIR]
# EIG_BENCH_FACES (default 320,640,960,1280,1600,1920) sets the training
# sizes; EIG_BENCH_OPENCV_FACES the ones OpenCV is timed on (its training of
# 1920 faces takes minutes); ORACLE_EIGEN the oracle (default
# BUILD_DIR/tests/oracle/oracle-eigen; on a machine without OpenCV the one
# tests/oracle/bundle-oracle.sh packs).  Progress goes to stderr.
set -euo pipefail
build=${1:-build}
faces=${EIG_BENCH_FACES:-320,640,960,1280,1600,1920}
cv_faces=${EIG_BENCH_OPENCV_FACES:-$faces}
oracle=${ORACLE_EIGEN:-$build/tests/oracle/oracle-eigen}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

echo '{"clvision_double":'
"$build/tests/bench/bench-eigen" --faces "$faces" --precision double \
  --write-faces "$raw"
echo ', "clvision_float":'
"$build/tests/bench/bench-eigen" --faces "$faces" --precision float
echo ', "opencv":'
if [ -x "$oracle" ]; then
  "$oracle" bench --threads 16 --size 128 --faces "$cv_faces" --predict 100 \
    --raw "$raw"
else
  echo "null"
  echo "bench-eigen.sh: $oracle was not built (OpenCV contrib missing)" >&2
fi
echo '}'
