#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The vjfacedetect benchmark as one command (on a GPU server, after
# `source .device/setup.sh`, or here): clvision's uberkernel, its simple
# variant and OpenCV 4.6 detectMultiScale (16 threads, the oracle) on the
# same frames, wall time per frame including upload and grouping, plus a
# small sweep of tuning values (VJ_STATIC=1: chunks dealt round-robin, no
# dynamic mapping; VJ_COOP_STAGE=99: no cooperative stages, i.e. dynamic
# mapping without the local queue); one JSON document on stdout.
#
#   tests/bench/bench-vj.sh [BUILD_DIR] [IMAGE.pgm...] > bench-vj.json
#
# Frames: every IMAGE (real photographs, gray PGMs; default: the test
# images of tests/fetch-data.sh, which must be in tests/data/cache) at its
# own size and scaled to 640x480, 1920x1400 and 3840x2160 (marked synthetic
# in the output).  OpenCV is timed with ORACLE (default: the bundle of
# tests/oracle/bundle-oracle.sh in BUILD_DIR/oracle-bundle, which runs
# without OpenCV installed, else BUILD_DIR/tests/oracle/oracle-detect).
# Environment: REPEAT (20), THREADS (16), SIZES, TUNES, ORACLE, BATCHES
# (frame counts: also time batches of that many copies of each frame, as
# the per-device service runs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
[ $# -gt 0 ] && shift
images=("$@")
if [ ${#images[@]} -eq 0 ]; then
  images=(tests/data/cache/astronaut.pgm tests/data/cache/grace_hopper.pgm
          tests/data/cache/franck-2500.pgm)
fi
for i in "${images[@]}"; do
  [ -f "$i" ] || { echo "bench-vj.sh: $i is missing (tests/fetch-data.sh $build/tests/oracle/clv-gray-pgm)" >&2; exit 1; }
done

args=(--repeat "${REPEAT:-20}" --threads "${THREADS:-16}")
for s in ${SIZES-640x480 1920x1400 3840x2160}; do
  args+=(--size "$s")
done
for t in ${TUNES-VJ_STATIC=1 VJ_COOP_STAGE=99 VJ_CHUNK=128 VJ_CHUNK=512 VJ_COOP_STAGE=2 VJ_COOP_STAGE=6 \
    VJ_COOP_WINDOWS=1 VJ_COOP_WINDOWS=4 VJ_GROUPS_PER_CU=4 VJ_GROUPS_PER_CU=12 \
    VJ_GROUPS_PER_CU=48}; do
  args+=(--tune "$t")
done
[ -n "${BATCHES:-}" ] && args+=(--batch "$BATCHES")
oracle=${ORACLE:-$build/oracle-bundle/oracle-detect}
[ -n "${ORACLE:-}" ] || [ -x "$oracle" ] || oracle=$build/tests/oracle/oracle-detect
if [ -x "$oracle" ]; then
  args+=(--oracle "$oracle")
else
  echo "bench-vj.sh: no OpenCV oracle ($oracle): OpenCV not timed" >&2
fi
exec "$build/tests/bench/bench-vj" "${args[@]}" "${images[@]}"
