#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vjfacedetect's detector on a CPU (PoCL) against OpenCV 4.6's
# detectMultiScale with the same number of threads, in one run: every test
# photograph at its own size, the device's default variant (cpu), the
# simple variant, and OpenCV through the oracle; the faces of each variant
# compared with the C reference's (OpenCV's, tests/unit/test-vj-ref.c).
# One JSON document on stdout (bench-vj's) with a "cpu_summary" added:
# per frame, OpenCV's median over ours.
#
#   tests/bench/bench-cpu.sh [BUILD_DIR] [IMAGE.pgm...] > docs/bench/pocl/bench-cpu.json
#
# Environment: THREADS (2: PoCL's worker threads, POCL_MAX_PTHREAD_COUNT,
# and OpenCV's), REPEAT (15), DEVICE (a CLVISION_DEVICE naming the CPU
# device; default: PoCL's "pthread" device), CASCADE, ORACLE, LARGE (sizes
# that astronaut is also scaled to, marked synthetic; default 1920x1280,
# empty: none).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
[ $# -gt 0 ] && shift
images=("$@")
if [ ${#images[@]} -eq 0 ]; then
  for i in astronaut grace_hopper franck-1000 franck-2500 franck-4000; do
    images+=("tests/data/cache/$i.pgm")
  done
fi
for i in "${images[@]}"; do
  [ -f "$i" ] || { echo "bench-cpu.sh: $i is missing (tests/fetch-data.sh $build/tests/oracle/clv-gray-pgm)" >&2; exit 1; }
done
threads=${THREADS:-2}
oracle=${ORACLE:-$build/tests/oracle/oracle-detect}
[ -x "$oracle" ] || { echo "bench-cpu.sh: $oracle is missing (OpenCV not found at build time)" >&2; exit 1; }
args=(--repeat "${REPEAT:-15}" --threads "$threads" --oracle "$oracle")
[ -n "${CASCADE:-}" ] && args+=(--cascade "$CASCADE")
run() {
  POCL_MAX_PTHREAD_COUNT=$threads CLVISION_DEVICE=${DEVICE:-pthread} \
    "$build/tests/bench/bench-vj" "${args[@]}" "$@"
}
json=$(run "${images[@]}")
# Larger frames than the test photographs: astronaut scaled (synthetic).
large='{"frames": []}'
if [ -n "${LARGE-1920x1280}" ]; then
  sizes=()
  for s in ${LARGE-1920x1280}; do sizes+=(--size "$s"); done
  large=$(run --no-native "${sizes[@]}" tests/data/cache/astronaut.pgm)
fi
python3 - "$json" "$threads" "$large" <<'EOF'
import json, sys
doc = json.loads(sys.argv[1])
doc["frames"] += json.loads(sys.argv[3])["frames"]
summary = []
for f in doc["frames"]:
    ours, opencv = f["uber"], f["opencv"]
    summary.append({
        "frame": f["frame"], "width": f["width"], "height": f["height"],
        "synthetic": f.get("synthetic", False),
        "variant": ours["variant"], "ms_median": ours["ms_median"],
        "opencv_ms_median": opencv["ms_median"],
        "faces": ours["faces"], "opencv_faces": opencv["faces"],
        "equal_to_reference": ours.get("equal_to_reference"),
        "speedup": round(opencv["ms_median"] / ours["ms_median"], 2)})
doc["cpu_summary"] = {"threads": int(sys.argv[2]),
                      "cpu": next((l.split(":", 1)[1].strip()
                                   for l in open("/proc/cpuinfo")
                                   if l.startswith("model name")), ""),
                      "frames": summary,
                      "min_speedup": min(s["speedup"] for s in summary)}
print(json.dumps(doc, indent=1))
EOF
