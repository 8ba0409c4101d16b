#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# README's quick start for a tracked, redacted camera published as DL
# Streamer JSON over MQTT: its gst-launch-1.0 line, taken from README.md,
# runs on the first second of franck.webm (file:// for the camera's URI,
# fakesink for the screen) against a mosquitto broker of its own; every
# frame's record arrives, valid under tests/export/gvametaconvert.schema.json,
# with one tracked face.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
tmp=$(mktemp -d)
pids=()
cleanup () { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

# The line, its continuations joined.
line=$(awk '/^gst-launch-1.0 -e clvurisrc/ {p = 1} p {print} p && !/\\$/ {exit}' \
  "$src/README.md" | sed 's/\\$//' | tr '\n' ' ')
[ -n "$line" ] || fail "no gst-launch-1.0 -e clvurisrc line in README.md"
topic=$(grep -o 'mqtt-topic=[^ ]*' <<< "$line" | cut -d= -f2)

# 25 frames, cut before decoding (see tests/examples/analyse-video.sh).
frames=25
gst-launch-1.0 -q filesrc location="$cache/franck.webm" ! parsebin ! \
  identity eos-after=$((frames + 1)) ! webmmux ! \
  filesink location="$tmp/clip.webm" || fail "cannot cut the test clip"

mosquitto=$(PATH=$PATH:/usr/sbin command -v mosquitto) || fail "no mosquitto"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser %s\nmax_queued_messages 0\n' \
  "$port" "$(id -un)" > "$tmp/mosquitto.conf"
"$mosquitto" -c "$tmp/mosquitto.conf" 2> "$tmp/broker.log" &
pids+=($!)
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
# A persistent session first, so that the broker keeps every record for it.
mosquitto_sub -h 127.0.0.1 -p "$port" -c -i readme -q 1 -t "$topic" -E \
  || fail "cannot subscribe"
mosquitto_sub -h 127.0.0.1 -p "$port" -c -i readme -q 1 -t "$topic" \
  -C $frames -W 60 > "$tmp/records.jsonl" &
sub=$!
pids+=($sub)

line=${line/rtsp:\/\/camera.local\/stream/file:\/\/$tmp\/clip.webm}
line=${line/localhost:1883/127.0.0.1:$port}
line=${line/autovideosink/fakesink}
echo "$line"
eval "$line" > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; fail "the pipeline failed"; }
wait "$sub" || fail "not $frames records at the broker"
/usr/bin/python3 - "$tmp/records.jsonl" "$src/tests/export/gvametaconvert.schema.json" $frames <<'PY'
import json, sys
import jsonschema
records = [json.loads(l) for l in open(sys.argv[1])]
validator = jsonschema.Draft7Validator(json.load(open(sys.argv[2])))
assert len(records) == int(sys.argv[3]), len(records)
for r in records:
    validator.validate(r)
    assert r["source"] == "door"
    assert len(r["objects"]) == 1 and r["objects"][0]["id"] == 1, r
times = [r["timestamp"] for r in records]
assert times == sorted(times) and len(set(times)) == len(times)
print("PASS: %d records, valid DL Streamer JSON, one tracked face" % len(records))
PY
