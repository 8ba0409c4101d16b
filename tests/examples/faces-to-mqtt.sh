#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/faces-to-mqtt.sh through its own broker: every frame's record
# arrives once, in order, equal to the record roiexport wrote to its file.
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CLV_SKIP_SETUP=1 "$src/examples/faces-to-mqtt.sh" --frames 10 \
  --out "$tmp/mqtt.jsonl" --json "$tmp/sent.jsonl" "${CLV_DATA_CACHE:?}/franck.webm"
python3 - "$tmp/mqtt.jsonl" "$tmp/sent.jsonl" <<'PY'
import json, sys
mqtt = [json.loads(l) for l in open(sys.argv[1])]
sent = [json.loads(l) for l in open(sys.argv[2])]
assert len(sent) == 10, "%d records for 10 frames" % len(sent)
assert mqtt == sent, "the records received differ from those sent"
assert [r["frame"] for r in mqtt] == list(range(len(mqtt)))
assert all(r["source"] == "faces-to-mqtt" for r in mqtt)
assert all(len(r["rois"]) == 1 for r in mqtt[:10]), "franck's face missed"
print("PASS: %d records over MQTT, in order, equal to those sent" % len(mqtt))
PY
