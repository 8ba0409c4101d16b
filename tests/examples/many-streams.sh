#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/many-streams.sh on four streams of real video at once (two clips
# of franck.webm, of two sizes, each twice): every stream gets one JSON record per frame
# with exactly the faces the same clip gets alone, frames of different
# streams shared batches, and the summary is printed.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

# Two different clips: the first frames of the video, and the same cropped
# (other size, faces elsewhere).
# Cut before decoding, as in analyse-video.sh.
gst-launch-1.0 -q filesrc location="$cache/franck.webm" ! parsebin ! \
  identity eos-after=21 ! webmmux ! filesink location="$tmp/a.webm" \
  || fail "cannot cut clip a"
gst-launch-1.0 -q filesrc location="$tmp/a.webm" ! decodebin ! videoconvert ! \
  videocrop left=40 bottom=16 ! vp8enc deadline=1 ! webmmux ! \
  filesink location="$tmp/b.webm" || fail "cannot cut clip b"

# What a record says about the faces, without the stream's own names.
faces_of () { sed -e 's/"stream_id":"[^"]*",//' -e 's/"source":"[^"]*",//' "$1"; }

# Alone: each clip in a process of its own.
for c in a b; do
  "$src/examples/many-streams.sh" --out "$tmp/alone-$c" "$tmp/$c.webm" > /dev/null \
    || fail "clip $c alone failed"
done
"$src/examples/many-streams.sh" --out "$tmp/out" "$tmp/a.webm" "$tmp/b.webm" \
  "$tmp/a.webm" "$tmp/b.webm" | tee "$tmp/log" || fail "exited with $?"

for k in 1 2 3 4; do
  c=$([ $((k % 2)) = 1 ] && echo a || echo b)
  r=$tmp/out/$k-$c.jsonl
  [ -s "$r" ] || fail "no records for stream $k"
  [ "$(wc -l < "$r")" -eq "$(wc -l < "$tmp/alone-$c/1-$c.jsonl")" ] \
    || fail "stream $k: not one record per frame"
  [ "$(faces_of "$r")" = "$(faces_of "$tmp/alone-$c/1-$c.jsonl")" ] \
    || fail "stream $k: faces differ from clip $c alone"
done
grep -q '"roi_type":"face"' "$tmp/out/1-a.jsonl" || fail "no faces in a face video"
[ "$(faces_of "$tmp/out/1-a.jsonl")" != "$(faces_of "$tmp/out/2-b.jsonl")" ] \
  || fail "the two clips gave the same records: the test cannot tell streams apart"
grep -q '^4 streams, [0-9]* frames in [0-9.]* s ([0-9.]* frames/s in all)$' "$tmp/log" \
  || fail "no summary line"
largest=$(sed -n 's/^largest batch: \([0-9]*\) frames.*/\1/p' "$tmp/log")
[ "${largest:-0}" -ge 2 ] || fail "frames of the streams never shared a batch (largest ${largest:-none})"
"$src/examples/many-streams.sh" "$tmp/missing.webm" 2> "$tmp/err" && fail "a missing file passed"
grep -q "cannot read the video file" "$tmp/err" || fail "no clear message for a missing file"
echo PASS
