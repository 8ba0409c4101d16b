#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/analyse-video.sh on the first second of a real video (franck.webm):
# one JSON record per frame, in order, faces found, an annotated video, and
# the end summary.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

# The first 25 frames, cut before decoding: identity eos-after (GStreamer
# 1.22) lets everything through once a buffer arrives after its EOS, as one
# can from decodebin's queue (CI once got the whole video); parsebin's
# demuxer stops at the EOS.
frames=25
gst-launch-1.0 -q filesrc location="$cache/franck.webm" ! parsebin ! \
  identity eos-after=$((frames + 1)) ! webmmux ! \
  filesink location="$tmp/clip.webm" || fail "cannot cut the test clip"
frames=$(gst-launch-1.0 -v filesrc location="$tmp/clip.webm" ! matroskademux ! \
  fakesink silent=false 2>&1 | grep -c 'chain   \*') || fail "cannot read the test clip"
[ "$frames" -eq 25 ] || fail "the test clip has $frames frames, not 25"
"$src/examples/analyse-video.sh" --out "$tmp/out" "$tmp/clip.webm" | tee "$tmp/log" \
  || fail "analyse-video.sh exited with $?"
records=$tmp/out/clip.jsonl
[ "$(wc -l < "$records")" -eq $frames ] || fail "not one record per frame"
[ "$(grep -o '^{"frame":[0-9]*' "$records" | cut -d: -f2 | paste -sd,)" \
  = "$(seq -s, 0 $((frames - 1)))" ] || fail "frame numbers are not 0..$((frames - 1))"
faces=$(grep -o '"roi_type":"face"' "$records" | wc -l)
[ "$faces" -ge $frames ] || fail "only $faces faces in $frames frames of a face video"
grep -q "^$frames frames, $faces faces in [0-9.]* s ([0-9.]* frames/s)$" "$tmp/log" \
  || fail "no end summary with frames, faces, time and frames/s"
[ -s "$tmp/out/clip-annotated.webm" ] || fail "no annotated video"
"$src/examples/analyse-video.sh" "$tmp/missing.webm" 2> "$tmp/err" && fail "a missing file passed"
grep -q "cannot read the video file" "$tmp/err" || fail "no clear message for a missing file"
echo PASS
