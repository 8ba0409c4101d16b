#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The detector against OpenCV 4.6 on every test photograph at its own size,
# in one run on one device: wall time per frame (upload, pyramid,
# detection, read-back, grouping) of the device's default variant and of
# the simple one, OpenCV's detectMultiScale with THREADS threads (the
# oracle), the faces of each checked against the C reference (OpenCV's); a
# Haar face cascade and an LBP one.  On a GPU server after
# tests/bench/gpu-prepare.sh here, or on any machine with a build:
#
#   tests/bench/bench-photos.sh [BUILD_DIR [OUT_DIR]]
#
# Writes OUT_DIR/bench-photos.json: {"haar": bench-vj's document, "lbp":
# the same with lbpcascade_frontalface_improved, "summary": per cascade
# and photograph our median ms, OpenCV's and its ratio to ours, whether
# the faces equal the reference, the kernels' and the host's share and the
# launches per frame; "small_frames": photographs of 500x375 pixels or
# fewer, their median ms against 0.2; "batches": per photograph (Haar)
# one frame at a time and batches of 16, bench-vj's per-batch medians:
# kernels, upload + read-back + routing, grouping}.  Environment: THREADS
# (16), REPEAT (200), IMAGES (the test photographs of tests/fetch-data.sh
# in tests/data/cache), ORACLE, CASCADE_ROOT (.device/opencv4 where
# gpu-prepare.sh put the cascades, else /usr/share/opencv4).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tests/bench/photos-env.sh "$@"
oracle=${ORACLE:-}
if [ -z "$oracle" ]; then
  if [ -f .device/oracle.tar.xz ] && [ "$build" = .device/build ]; then
    [ -d /tmp/oracle-bundle ] || tar -C /tmp -xJf .device/oracle.tar.xz
    oracle=/tmp/oracle-bundle/oracle-detect
  else
    oracle=$build/tests/oracle/oracle-detect
  fi
fi
images=(${IMAGES:-})
if [ ${#images[@]} -eq 0 ]; then
  for i in astronaut grace_hopper franck-1000 franck-2500 franck-4000; do
    images+=("tests/data/cache/$i.pgm")
  done
fi
args=(--repeat "${REPEAT:-200}" --warmup 20 --threads "${THREADS:-16}"
      --oracle "$oracle")
"$build/tests/bench/bench-vj" "${args[@]}" "${images[@]}" > "$out/haar.json"
"$build/tests/bench/bench-vj" "${args[@]}" \
  --cascade "$root/lbpcascades/lbpcascade_frontalface_improved.xml" \
  "${images[@]}" > "$out/lbp.json"
# Where a frame's time goes, alone and in batches of 16 (Haar).
"$build/tests/bench/bench-vj" --repeat "${REPEAT:-200}" --warmup 20 --no-check \
  --batch 1,16 "${images[@]}" > "$out/batches.json"
python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
doc = {}
for name in ("haar", "lbp"):
    with open(os.path.join(out, name + ".json")) as f:
        doc[name] = json.load(f)
    os.unlink(os.path.join(out, name + ".json"))
summary, small = [], []
for name in ("haar", "lbp"):
    for f in doc[name]["frames"]:
        ours, opencv = f["uber"], f["opencv"]
        row = {"cascade": name, "frame": f["frame"], "width": f["width"],
               "height": f["height"], "variant": ours["variant"],
               "ms_median": ours["ms_median"],
               "simple_ms_median": f["simple"]["ms_median"],
               "pyramid_kernels_ms_median": ours["pyramid_kernels_ms_median"],
               "detect_kernels_ms_median": ours["detect_kernels_ms_median"],
               "host_ms_median": round(ours["ms_median"]
                                       - ours["pyramid_kernels_ms_median"]
                                       - ours["detect_kernels_ms_median"], 3),
               "launches": ours.get("launches"),
               "opencv_ms_median": opencv["ms_median"],
               "opencv_threads": opencv["threads"],
               "vs_opencv": round(opencv["ms_median"] / ours["ms_median"], 1),
               "faces": ours["faces"],
               "equal_to_reference": ours.get("equal_to_reference")}
        summary.append(row)
        if name == "haar" and f["width"] * f["height"] <= 500 * 375:
            small.append({"frame": f["frame"], "ms_median": ours["ms_median"],
                          "at_most_0.2_ms": ours["ms_median"] <= 0.2})
with open(os.path.join(out, "batches.json")) as f:
    batches = json.load(f)
os.unlink(os.path.join(out, "batches.json"))
doc["device"] = doc["haar"]["device"]
doc["summary"] = summary
doc["small_frames"] = small
doc["batches"] = [{"frame": f["frame"], "width": f["width"],
                   "height": f["height"], **b}
                  for f in batches["frames"] for b in f["batches"]]
with open(os.path.join(out, "bench-photos.json"), "w") as f:
    json.dump(doc, f, indent=1)
for r in summary:
    print("%-5s %-16s %4dx%-4d %-6s %8.3f ms (kernels %.3f + %.3f, %d launches)"
          "  OpenCV-%d %8.2f ms  %6.1fx  %s"
          % (r["cascade"], r["frame"], r["width"], r["height"], r["variant"],
             r["ms_median"], r["pyramid_kernels_ms_median"],
             r["detect_kernels_ms_median"], r["launches"] or 0,
             r["opencv_threads"], r["opencv_ms_median"], r["vs_opencv"],
             "equal" if r["equal_to_reference"] else "DIFFERENT"))
print("lowest vs OpenCV: %.1fx; small frames at most 0.2 ms: %s"
      % (min(r["vs_opencv"] for r in summary if r["cascade"] == "haar"),
         all(f["at_most_0.2_ms"] for f in small)))
EOF
