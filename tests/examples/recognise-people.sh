#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/recognise-people.sh on the first 300 frames of each video: the
# model is trained on faces of one recording and names those of another
# (audun) or of a later part (franck); every test face must be named, and
# at least 95% of each person's faces named right.
set -euo pipefail
build=$(realpath "$1")
src=${CLV_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

CLV_BUILD_DIR=$build "$src/examples/recognise-people.sh" --frames 300 \
  --min-accuracy 0.95 --out "$tmp/out" | tee "$tmp/log" \
  || fail "recognise-people.sh exited with $? (accuracy below 95%?)"
[ "$(ls "$tmp/out/train/audun" | wc -l)" -ge 25 ] || fail "too few audun training faces"
[ "$(ls "$tmp/out/train/franck" | wc -l)" -ge 10 ] || fail "too few franck training faces"
grep -q '^audun   cap13_edit2.webm frames 0 on: [0-9]* of 300 faces' "$tmp/log" \
  || fail "not one audun face per test frame of cap13_edit2.webm"
grep -q '^franck  franck.webm frames 150 on: [0-9]* of 150 faces' "$tmp/log" \
  || fail "not one franck face per test frame of the second half"
# Every face of the test runs carries a recognition (a name from the model).
for who in audun franck; do
  [ "$(grep -c '^  face ' "$tmp/out/$who-test.txt")" \
    -eq "$(grep -c '^  face .* name=\(audun\|franck\) ' "$tmp/out/$who-test.txt")" ] \
    || fail "a face of $who's test has no name from the model"
done
# A bar nothing reaches makes the script fail, and say why.
CLV_BUILD_DIR=$build "$src/examples/recognise-people.sh" --frames 40 \
  --min-accuracy 1.01 --out "$tmp/strict" > /dev/null 2> "$tmp/err" \
  && fail "an accuracy bar above 100% passed"
grep -q "accuracy is below 1.01" "$tmp/err" || fail "no message for a missed bar"
echo PASS
