#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/eyes-in-faces.sh on Grace Hopper's portrait: one record, one
# face, eyes inside it that name it as their parent, the annotated picture
# and the printed summary; with --cascade a smile cascade instead; a
# missing photograph fails with a message.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
"$src/tests/fetch-data.sh" >/dev/null
photo=${CLV_DATA_CACHE:?}/grace_hopper_512x512.jpg
"$src/examples/eyes-in-faces.sh" --out "$tmp" "$photo" > "$tmp/log" \
  || fail "eyes-in-faces.sh exited with $?"
records=$tmp/grace_hopper_512x512.jsonl
[ "$(wc -l < "$records")" -eq 1 ] || fail "not one record"
python3 - "$records" <<'PY' || fail "the records do not nest eyes in the face"
import json, sys
rois = json.loads(open(sys.argv[1]).readline())["rois"]
faces = [r for r in rois if r["roi_type"] == "face"]
eyes = [r for r in rois if r["roi_type"] == "eye"]
assert len(faces) == 1 and faces[0]["parent_id"] == -1
assert eyes and all(e["parent_id"] == faces[0]["id"] for e in eyes)
f = faces[0]["box"]
for e in eyes:
    b = e["box"]
    assert f["x"] <= b["x"] and b["x"] + b["w"] <= f["x"] + f["w"]
    assert f["y"] <= b["y"] and b["y"] + b["h"] <= f["y"] + f["h"]
PY
grep -q "^face 0: x=[0-9]* y=[0-9]* w=[0-9]* h=[0-9]*, [1-9][0-9]* inside$" "$tmp/log" \
  || fail "no summary line for the face"
grep -q "^  eye [0-9]*: " "$tmp/log" || fail "no summary line for an eye"
[ -s "$tmp/grace_hopper_512x512-annotated.png" ] || fail "no annotated picture"
"$src/examples/eyes-in-faces.sh" --out "$tmp/smile" \
  --cascade "${CLVISION_CASCADE_DIR:-/usr/share/opencv4/haarcascades}/haarcascade_smile.xml" "$photo" \
  > "$tmp/smile.log" || fail "with a smile cascade: exited with $?"
grep -q '"roi_type":"smile"' "$tmp/smile/grace_hopper_512x512.jsonl" \
  || fail "no smile in the face"
"$src/examples/eyes-in-faces.sh" --out "$tmp" "$tmp/missing.jpg" 2> "$tmp/err" \
  && fail "a missing photograph passed"
grep -q "cannot read the photograph" "$tmp/err" || fail "no clear message for a missing photograph"
echo PASS
