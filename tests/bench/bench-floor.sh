#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a frame costs the detector where the cascade has little to do: the
# fixed part of a small frame's time.  bench-vj, one frame at a time
# (--batch 1), on a flat 360x288 frame (every window rejected at once),
# on franck-1000 at its own 360x288 and scaled down to 180x144, 96x96,
# 48x48 and 24x24 (one window; the face fills the smaller frames), each
# uploaded from pageable memory and, for the flat frame and franck-1000,
# from pinned memory too.  On a GPU server after tests/bench/gpu-prepare.sh
# here, or on any machine with a build:
#
#   tests/bench/bench-floor.sh [BUILD_DIR [OUT_DIR]]
#
# Writes OUT_DIR/vj-floor.json: {"device", "rows": per frame and memory,
# bench-vj's per-frame medians: wall ms, pyramid and detection kernels,
# upload + read-back + routing, grouping}.  Environment: REPEAT (200),
# CASCADE_ROOT (as bench-photos.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tests/bench/photos-env.sh "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flat=$tmp/flat-360x288.pgm
{ printf 'P5\n360 288\n255\n'; head -c $((360 * 288)) /dev/zero | tr '\0' '\200'; } > "$flat"
franck=tests/data/cache/franck-1000.pgm
args=(--repeat "${REPEAT:-200}" --warmup 20 --no-check --batch 1)
bench="$build/tests/bench/bench-vj"
"$bench" "${args[@]}" "$flat" "$franck" > "$tmp/pageable.json"
"$bench" "${args[@]}" --pinned "$flat" "$franck" > "$tmp/pinned.json"
"$bench" "${args[@]}" --no-native --size 180x144 --size 96x96 --size 48x48 \
  --size 24x24 "$franck" > "$tmp/scaled.json"
python3 - "$tmp" "$out" <<'PY'
import json, os, sys
tmp, out = sys.argv[1:]
rows, device = [], None
for name in ("pageable", "pinned", "scaled"):
    with open(os.path.join(tmp, name + ".json")) as f:
        doc = json.load(f)
    device = doc["device"]
    for fr in doc["frames"]:
        b = fr["batches"][0]
        rows.append({"frame": fr["frame"], "width": fr["width"],
                     "height": fr["height"], "memory": doc["frames_memory"],
                     "ms_per_frame": b["ms_per_frame"],
                     "pyramid_kernels_ms_median": b["pyramid_kernels_ms_median"],
                     "detect_kernels_ms_median": b["detect_kernels_ms_median"],
                     "upload_readback_routing_ms_median":
                         b["upload_readback_routing_ms_median"],
                     "group_ms_median": b["group_ms_median"]})
with open(os.path.join(out, "vj-floor.json"), "w") as f:
    json.dump({"device": device, "rows": rows}, f, indent=1)
for r in rows:
    print("%-26s %4dx%-4d %-8s %.3f ms (pyramid %.3f, detection %.3f, host %.3f)"
          % (r["frame"], r["width"], r["height"], r["memory"],
             r["ms_per_frame"], r["pyramid_kernels_ms_median"],
             r["detect_kernels_ms_median"],
             r["upload_readback_routing_ms_median"]))
PY
