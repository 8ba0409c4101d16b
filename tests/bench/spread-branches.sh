#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One gst-launch-1.0 of BRANCHES (16) independent branches
#   filesrc ! pngdec ! videoconvert ! GRAY8 ! imagefreeze num-buffers=450 !
#   vjfacedetect device=D post-messages=false ! fakesink sync=false
# on a real photograph at 1920x1280 (tests/data/cache/astronaut.png,
# scaled), with device=first (every branch on the first GPU) and
# device=auto (the branches spread over the GPUs), alternately, RUNS times
# each (3) after one warm-up run; the best of each counts.  Two rates:
# streaming frames/s, the frames after preroll (BRANCHES x (FRAMES - 1))
# over the time gst-launch-1.0 reports from PLAYING to EOS ("Execution
# ended after"), and wall frames/s, BRANCHES x FRAMES over the whole
# process's run, start-up included (opening the devices, loading each
# branch's cascade).  Writes OUT_DIR/spread-branches.json:
#   {"branches", "frames", "runs": [{"device", "seconds", "fps",
#    "playing_seconds", "playing_fps", "cores_busy" (CPU seconds over wall
#    seconds), "devices": {name: branches}}...], "fps_first", "fps_auto",
#    "speedup" (streaming), "wall_fps_first", "wall_fps_auto",
#    "wall_speedup"}
# The target on two GPUs: speedup >= 1.9.
#   tests/bench/spread-branches.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?"the build directory"} out=${2:?"the output directory"}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$PWD/$build/gst}
branches=${BRANCHES:-16} frames=${FRAMES:-450} runs=${RUNS:-3}
photo=$out/photo-1920x1280.png
gst-launch-1.0 -q filesrc location=tests/data/cache/astronaut.png ! pngdec ! \
  videoconvert ! videoscale ! video/x-raw,width=1920,height=1280 ! pngenc ! \
  filesink location="$photo"

source tests/bench/children-cpu.sh

# One run: DEVICE; prints "seconds playing-seconds cpu-seconds" and leaves
# the devices' log in LOG.
run () {
  local device=$1 log=$2 desc="" start end cpu playing
  for _ in $(seq "$branches"); do
    desc+=" filesrc location=$photo ! pngdec ! videoconvert ! "
    desc+="video/x-raw,format=GRAY8 ! imagefreeze num-buffers=$frames ! "
    desc+="vjfacedetect device=$device post-messages=false ! fakesink sync=false"
  done
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  GST_DEBUG=clvcontext:5 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 $desc \
    2> "$log" > "$log.out"
  end=$(date +%s.%N)
  children_cpu cpu
  playing=$(sed -n 's/^Execution ended after \([0-9:.]*\).*/\1/p' "$log.out" \
    | awk -F: '{ print $1 * 3600 + $2 * 60 + $3 }')
  [ -n "$playing" ] || { echo "no execution time in $log.out" >&2; exit 1; }
  printf '%s %s %s' "$(python3 -c "print($end - $start)")" "$playing" "$cpu"
}
run auto "$out/spread-warmup.log" > /dev/null
results=()
for r in $(seq "$runs"); do
  for device in first auto; do
    log=$out/spread-$device-$r.log
    s=$(run $device "$log")
    results+=("$device ${s// /,} $log")
  done
done
python3 - "$out/spread-branches.json" "$branches" "$frames" "${results[@]}" <<'PY'
import collections, json, re, sys
out, branches, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = []
for item in sys.argv[4:]:
    device, times, log = item.split(" ")
    seconds, playing, cpu = times.split(",")
    used = collections.Counter()
    for line in open(log, errors="replace"):
        m = re.search(r"(?:opened OpenCL device|using the pipeline's OpenCL "
                      r"device|using shared OpenCL device) (.*?)(?:, the pipeline|$)",
                      line.rstrip())
        if m and "vjfacedetect" in line:
            used[m.group(1)] += 1
    runs.append({"device": device, "seconds": float(seconds),
                 "fps": branches * frames / float(seconds),
                 "playing_seconds": float(playing),
                 "playing_fps": branches * (frames - 1) / float(playing),
                 "cores_busy": round(float(cpu) / float(seconds), 2),
                 "devices": dict(used)})
def best(key):
    return {d: max(r[key] for r in runs if r["device"] == d)
            for d in ("first", "auto")}
playing, wall = best("playing_fps"), best("fps")
res = {"branches": branches, "frames": frames, "runs": runs,
       "fps_first": playing["first"], "fps_auto": playing["auto"],
       "speedup": playing["auto"] / playing["first"],
       "wall_fps_first": wall["first"], "wall_fps_auto": wall["auto"],
       "wall_speedup": wall["auto"] / wall["first"]}
json.dump(res, open(out, "w"), indent=2)
print(json.dumps(res, indent=2))
PY
