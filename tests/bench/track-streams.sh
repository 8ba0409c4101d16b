#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What roitrack costs many streams on the GPU: bench-streams with 64
# pipelines of 640x480 (a real photograph, tests/data/cache/astronaut.png),
# each `... ! vjfacedetect ! fakesink` against `... ! vjfacedetect !
# roitrack ! fakesink`, alternately, RUNS times each (3); the best run of
# each counts.  Writes OUT_DIR/track-streams.json:
#   {"streams", "size", "runs": [{"after", "fps"}...], "fps_without",
#    "fps_with", "loss"}   (loss = 1 - fps_with / fps_without)
# The target: loss <= 0.03.
#   tests/bench/track-streams.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?"the build directory"} out=${2:?"the output directory"}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$PWD/$build/gst}
streams=${TRACK_STREAMS:-64} size=${TRACK_SIZE:-640x480}
frames=${TRACK_FRAMES:-300} runs=${RUNS:-3}
files=()
for r in $(seq "$runs"); do
  for after in none roitrack; do
    f=$out/track-streams-$after-$r.json
    opt=()
    [ $after = none ] || opt=(--after roitrack)
    "$build/tests/bench/bench-streams" --image tests/data/cache/astronaut.png \
      --sizes "$size" --streams "$streams" --frames "$frames" "${opt[@]}" \
      --out "$f"
    files+=("$f")
  done
done
python3 - "$out/track-streams.json" "$streams" "$size" "${files[@]}" <<'PY'
import json, sys
out, streams, size, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
runs = []
for f in files:
    d = json.load(open(f))
    runs.append({"after": d["after"] or "none", "fps": d["runs"][0]["fps"]})
best = {a: max(r["fps"] for r in runs if r["after"] == a)
        for a in ("none", "roitrack")}
res = {"streams": streams, "size": size, "runs": runs,
       "fps_without": best["none"], "fps_with": best["roitrack"],
       "loss": 1 - best["roitrack"] / best["none"]}
json.dump(res, open(out, "w"), indent=2)
print(json.dumps(res, indent=2))
PY
