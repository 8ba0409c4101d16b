#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two builds of clvision on the same device, in one run: whether a change
# kept the speed.  Four measures, each taken on build A, then B, then A,
# then B (the better of each build's two rounds counts, so that a warm-up
# or a neighbour's burst does not decide):
#
#   photographs  the test photographs at their own size (bench-vj, median
#                wall ms per frame: upload, pyramid, detection, read-back,
#                grouping);
#   streams      16 pipelines of 1920x1280 in one process on one device,
#                cross-stream batching on (bench-streams, frames/s);
#   crowded      16 faces on a 2048x2048 canvas, and the empty canvas
#                (bench-vj, median ms);
#   sar-system   the SAR chain on 4096x4096 GRAY16_LE frames in system
#                memory (bench-chain's "system" mode, ms per frame).
#
#   tests/bench/compare-builds.sh BUILD_A BUILD_B [OUT_DIR]
#
# Each build's plugin is the one its benchmarks load (GST_PLUGIN_PATH_1_0
# set to BUILD/gst).  Writes OUT_DIR/compare-builds.json: per measure, A's
# and B's figure and B's speed relative to A's (above 1: B is faster).
# Environment: REPEAT (30), FRAMES (150, per stream), IMAGES (the test
# photographs in tests/data/cache), CHAIN_FRAMES (200).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[ $# -ge 2 ] || { echo "usage: $0 BUILD_A BUILD_B [OUT_DIR]" >&2; exit 2; }
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
out=${3:-${OUT:-compare-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/clv-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "${CLVISION_CASCADE_DIR:-}" ] && [ -d .device/opencv4/haarcascades ]; then
  export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
fi
# No tuning pass inside a measure: both builds run their defaults.
export CLVISION_AUTOTUNE=0 XDG_CACHE_HOME=$work/cache
read -r -a images <<< "${IMAGES:-$(ls tests/data/cache/*.pgm | tr '\n' ' ')}"
python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm 2048 \
  "$work/faces" > /dev/null

measure() {                     # BUILD TAG ROUND
  local build=$1 tag=$2 round=$3
  # A registry per build: both register a plugin named clvision.
  export GST_PLUGIN_PATH_1_0=$build/gst GST_REGISTRY=$work/registry-$tag.bin
  "$build/tests/bench/bench-vj" --repeat "${REPEAT:-30}" "${images[@]}" \
    > "$out/$tag-$round-photographs.json"
  "$build/tests/bench/bench-vj" --repeat "${REPEAT:-30}" --batch 1 \
    "$work/faces/faces-16.pgm" "$work/faces/faces-00.pgm" \
    > "$out/$tag-$round-crowded.json"
  "$build/tests/bench/bench-streams" --image tests/data/cache/astronaut.png \
    --sizes 1920x1280 --streams 16 --batching on --frames "${FRAMES:-150}" \
    --devices first --out "$out/$tag-$round-streams.json" > /dev/null
  "$build/tests/bench/bench-chain" --size 4096 \
    --frames "${CHAIN_FRAMES:-200}" --out "$out/$tag-$round-sar.json" > /dev/null
}

for round in 1 2; do
  measure "$a" a "$round"
  measure "$b" b "$round"
done

python3 - "$out" "$a" "$b" <<'PY'
import glob, json, os, sys
out, build_a, build_b = sys.argv[1:4]

def load(tag, what):
    return [json.load(open(p)) for p in sorted(glob.glob(f"{out}/{tag}-*-{what}.json"))]

def frames_ms(docs):
    """Each frame's best median over the rounds (uber: the default variant)."""
    best = {}
    for d in docs:
        for f in d["frames"]:
            ms = f["uber"]["ms_median"]
            best[f["frame"]] = min(ms, best.get(f["frame"], ms))
    return best

def streams_fps(docs):
    return max(r["fps"] for d in docs for r in d["runs"])

def sar_ms(docs):
    return min(d["modes"]["system"]["ms_per_frame"] for d in docs)

result = {"build_a": build_a, "build_b": build_b,
          "device": load("b", "photographs")[0]["device"], "measures": []}
for what in ("photographs", "crowded"):
    fa, fb = frames_ms(load("a", what)), frames_ms(load("b", what))
    for name in fa:
        result["measures"].append({"measure": what, "frame": name, "unit": "ms",
                                   "a": fa[name], "b": fb[name],
                                   "b_speed_over_a": round(fa[name] / fb[name], 3)})
fa, fb = streams_fps(load("a", "streams")), streams_fps(load("b", "streams"))
result["measures"].append({"measure": "streams", "frame": "16 x 1920x1280",
                           "unit": "frames/s", "a": fa, "b": fb,
                           "b_speed_over_a": round(fb / fa, 3)})
fa, fb = sar_ms(load("a", "sar")), sar_ms(load("b", "sar"))
result["measures"].append({"measure": "sar-system", "frame": "4096x4096 GRAY16_LE",
                           "unit": "ms", "a": fa, "b": fb,
                           "b_speed_over_a": round(fa / fb, 3)})
json.dump(result, open(f"{out}/compare-builds.json", "w"), indent=1)
for m in result["measures"]:
    print(f'{m["measure"]:12} {m["frame"]:24} A {m["a"]:>9} B {m["b"]:>9} {m["unit"]:9} B/A speed {m["b_speed_over_a"]}')
PY
