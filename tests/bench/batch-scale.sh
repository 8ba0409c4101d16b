#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clvision-batch over an archive of COPIES copies of a real video through
# vjfacedetect ! roiexport, against the hand-written gst-launch-1.0 runs of
# the same files, in one go; raw figures into OUT_DIR/batch-scale.json:
#
#   tests/bench/batch-scale.sh BUILD_DIR OUT_DIR
#
# (on a GPU server through tests/bench/gpu-run.sh batch, which sets up the
# carried runtime and cascades).  Runs, each timed from start to exit, the
# frames counted in the JSON Lines written, with the CPU seconds of its
# processes (cores_busy: their share of the run's wall time):
#   batch-1gpu-jN   clvision-batch on the first GPU, -j N (N in JOBS)
#   batch-all-jN    clvision-batch on every GPU, -j N per GPU (N in ALL_JOBS)
#   procs-all-kK    K clvision-batch processes per GPU, each on its GPU with
#                   its share of the files (worker processes, against the
#                   pipelines-in-one-process above)
#   launch-one      one gst-launch-1.0 of COPIES branches on the first GPU
#   launch-pP       P gst-launch-1.0 at once, a file each (xargs -P P), on
#                   the first GPU
# and the ratios: the best run on every GPU over the best on one, and
# clvision-batch on one GPU over the best hand-written gst-launch.
# Environment: VIDEO (tests/data/cache/franck.webm), COPIES (64), JOBS
# ("8 16 32"), ALL_JOBS ("8 16"), PROCS ("1"), JOBS_PROCS (16: pipelines
# per GPU, shared by its processes), LAUNCH_P ("16 64"), PIPELINE (the
# detection part, "decodebin ! vjfacedetect").  Nine runs by default.  On a machine without a GPU its first device
# stands for the GPUs (a plumbing check).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
b=$(realpath "${1:?usage: batch-scale.sh BUILD_DIR OUT_DIR}")
out=${2:?usage: batch-scale.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
out=$(realpath "$out")
video=$(realpath "${VIDEO:-tests/data/cache/franck.webm}")
copies=${COPIES:-64}
detect=${PIPELINE:-decodebin ! vjfacedetect}
batch=$b/tools/batch/clvision-batch
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$b/gst}
work=$(mktemp -d /tmp/clv-batch-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT

[ -x "$batch" ] || { echo "batch-scale.sh: $batch is not built" >&2; exit 1; }
mkdir -p "$work/archive"
for i in $(seq -w 1 "$copies"); do
  ln "$video" "$work/archive/copy-$i.webm" 2>/dev/null \
    || cp "$video" "$work/archive/copy-$i.webm"
done
# The GPUs ("P:D gpu NAME (PLATFORM)"); a machine without one measures its
# first device (a CPU) as "every GPU".
"$batch" --list-devices | tee "$work/devices.txt"
grep -q '^[0-9]*:[0-9]* gpu ' "$work/devices.txt" \
  && grep '^[0-9]*:[0-9]* gpu ' "$work/devices.txt" > "$work/gpus.txt" \
  || head -n 1 "$work/devices.txt" > "$work/gpus.txt"
first=$(head -n 1 "$work/gpus.txt")
gpus=$(wc -l < "$work/gpus.txt")
all=$(cut -d' ' -f1 "$work/gpus.txt" | paste -sd, -)
one=$(cut -d' ' -f1 <<< "$first")
template="filesrc location={input} ! $detect device={device} ! roiexport location={output} ! fakesink"
: > "$work/runs.txt"

source tests/bench/children-cpu.sh

# Runs "NAME GPUS JOBS" with the command after it; records seconds, the
# frames of the JSON Lines under $work/NAME and the CPU seconds it took
# (whether the host's cores or the devices bound the run).
run () {
  local name=$1 gpus=$2 jobs=$3 start end frames cpu0 cpu1
  shift 3
  rm -rf "$work/$name"
  mkdir -p "$work/$name"
  children_cpu cpu0
  start=$(date +%s.%N)
  "$@" > "$work/$name.log" 2>&1 || { echo "$name failed: $(tail -3 "$work/$name.log")" >&2; return 0; }
  end=$(date +%s.%N)
  children_cpu cpu1
  frames=$(find "$work/$name" -name '*.jsonl' -exec cat {} + | wc -l)
  echo "$name $gpus $jobs $start $end $frames $cpu0 $cpu1" >> "$work/runs.txt"
  awk -v n="$name" -v s="$start" -v e="$end" -v f="$frames" -v c0="$cpu0" -v c1="$cpu1" \
    'BEGIN { printf "%-16s %8.2f s %9d frames %9.0f frames/s %6.1f cores busy\n",
             n, e - s, f, f / (e - s), (c1 - c0) / (e - s) }'
}

batch_run () {
  "$batch" -p "$template" --progress none --summary "$work/$1.json" -o "$work/$1" "${@:2}" \
    "$work/archive"
}

# K processes per GPU: each its GPU and a share of the files (a list file).
procs_run () {
  local name=$1 k=$2 i=0 pids=() d p
  local n=$((gpus * k))
  ls "$work/archive"/*.webm > "$work/all.txt"
  for d in $(cut -d' ' -f1 "$work/gpus.txt"); do
    for _ in $(seq "$k"); do
      awk -v n=$n -v i=$i 'NR % n == i' "$work/all.txt" > "$work/$name-$i.txt"
      "$batch" -p "$template" --progress none --devices "$d" \
        -j "$(( (${JOBS_PROCS:-16} + k - 1) / k ))" -l "$work/$name-$i.txt" \
        -o "$work/$name" --summary "$work/$name-$i.json" &
      pids+=($!)
      i=$((i + 1))
    done
  done
  p=0
  for pid in "${pids[@]}"; do wait "$pid" || p=1; done
  return $p
}

launch_one () {
  local args=() f
  for f in "$work/archive"/*.webm; do
    args+=(filesrc location="$f" ! $detect device="$one" ! \
      roiexport location="$work/launch-one/$(basename "$f" .webm).jsonl" ! \
      fakesink sync=false)
  done
  gst-launch-1.0 -q "${args[@]}"
}

launch_p () {
  ls "$work/archive"/*.webm | xargs -P "$1" -I{} sh -c \
    "gst-launch-1.0 -q filesrc location={} ! $detect device=$one ! roiexport location=$work/launch-p$1/\$(basename {} .webm).jsonl ! fakesink sync=false"
}

# Kernels built and cached before anything is timed.
ln "$video" "$work/warm.webm" 2>/dev/null || cp "$video" "$work/warm.webm"
"$batch" -p "$template" --progress none -o "$work/warm" "$work/warm.webm" >/dev/null 2>&1

for j in ${JOBS:-8 16 32}; do
  run "batch-1gpu-j$j" 1 "$j" batch_run "batch-1gpu-j$j" --devices "$one" -j "$j"
done
for j in ${ALL_JOBS:-8 16}; do
  run "batch-all-j$j" "$gpus" "$j" batch_run "batch-all-j$j" --devices "$all" -j "$j"
done
for k in ${PROCS:-1}; do
  run "procs-all-k$k" "$gpus" "$k" procs_run "procs-all-k$k" "$k"
done
run launch-one 1 "$copies" launch_one
for p in ${LAUNCH_P:-16 64}; do
  run "launch-p$p" 1 "$p" launch_p "$p"
done

python3 - "$work/runs.txt" "$out/batch-scale.json" "$copies" "$video" "$first" "$gpus" <<'PY'
import json, os, subprocess, sys
runs_txt, out, copies, video, first, gpus = sys.argv[1:]
runs = []
for line in open(runs_txt):
    name, g, jobs, start, end, frames, cpu0, cpu1 = line.split()
    s = float(end) - float(start)
    cpu = float(cpu1) - float(cpu0)
    runs.append({"name": name, "gpus": int(g), "jobs": int(jobs),
                 "seconds": round(s, 3), "frames": int(frames),
                 "fps": round(int(frames) / s, 1), "cpu_seconds": round(cpu, 2),
                 "cores_busy": round(cpu / s, 2)})
def best(prefix):
    c = [r for r in runs if r["name"].startswith(prefix)]
    return max(c, key=lambda r: r["fps"]) if c else None
b1, ball = best("batch-1gpu"), best("batch-all")
pall = best("procs-all")
launch = max([r for r in runs if r["name"].startswith("launch")],
             key=lambda r: r["fps"], default=None)
res = {
    "video": os.path.basename(video), "copies": int(copies),
    "first_device": first.strip(), "gpus": int(gpus),
    "cores": os.cpu_count(), "runs": runs,
    "best": {"batch_one_gpu": b1, "batch_every_gpu": ball,
             "processes_every_gpu": pall, "gst_launch_one_gpu": launch},
    "ratios": {
        "every_gpu_over_one": round(ball["fps"] / b1["fps"], 3) if ball and b1 else None,
        "batch_over_gst_launch": round(b1["fps"] / launch["fps"], 3) if b1 and launch else None,
        "one_process_over_processes": round(ball["fps"] / pall["fps"], 3) if ball and pall else None,
    },
}
try:
    res["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                   text=True).stdout.strip() or None
except OSError:
    res["commit"] = None
json.dump(res, open(out, "w"), indent=1)
print(json.dumps(res["ratios"]))
PY
