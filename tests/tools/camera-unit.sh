#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The camera unit: `systemd-analyze verify` on an instance of
# clvision-camera@.service says nothing (it prints problems but exits 0 for
# many), and catches a broken copy; its ExecStart, with a PIPELINE as an
# /etc/clvision/cameras/*.conf gives it, runs and writes the records.
#
#   tests/tools/camera-unit.sh SOURCE/tools/systemd/clvision-camera@.service
set -euo pipefail
unit=${1:?usage: camera-unit.sh UNIT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing: install Debian's systemd"

verify () {
  local out status=0
  out=$(systemd-analyze verify "$1" 2>&1) || status=$?
  [ -z "$out" ] || echo "$out"
  [ $status -eq 0 ] && [ -z "$out" ]
}
cp "$unit" "$tmp/clvision-camera@front-door.service"
verify "$tmp/clvision-camera@front-door.service" || fail "systemd-analyze verify complained"
sed 's/^Restart=always/Restart=sometimes/' "$unit" > "$tmp/broken@x.service"
verify "$tmp/broken@x.service" > /dev/null && fail "verify did not catch a broken unit"

# ExecStart as systemd runs it: the conf's PIPELINE (systemd's
# EnvironmentFile syntax, unquoted) split at blanks where $PIPELINE stands.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$exec_start" ] || fail "no ExecStart"
cat > "$tmp/front-door.conf" <<CONF
PIPELINE=videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240 ! vjfacedetect ! roiexport location=$tmp/records.jsonl ! fakesink
CONF
pipeline=$(sed -n 's/^PIPELINE=//p' "$tmp/front-door.conf")
set -f
read -r -a words <<< "$exec_start"
argv=()
for w in "${words[@]}"; do
  # shellcheck disable=SC2206  # split at blanks, as systemd does
  if [ "$w" = '$PIPELINE' ]; then argv+=($pipeline); else argv+=("$w"); fi
done
set +f
# Under tests/sanitize.sh the sanitizers' runtimes come first, so that the
# uninstrumented gst-launch-1.0 can load the sanitized plugin.
LD_PRELOAD="${CLV_SANITIZER_PRELOAD:+$CLV_SANITIZER_PRELOAD }${LD_PRELOAD:-}" \
  "${argv[@]}" > "$tmp/log" 2>&1 || fail "ExecStart failed: $(cat "$tmp/log")"
[ "$(wc -l < "$tmp/records.jsonl")" -eq 5 ] || fail "not one record per frame"
echo PASS
