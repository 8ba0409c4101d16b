#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every benchmark of one device in one go, raw JSON into OUT_DIR, for the
# report that tests/bench/report-generate.py turns into docs/performance.md:
#
#   tests/bench/report.sh [BUILD_DIR [OUT_DIR]]      (defaults: build, $OUT or report-out)
#   /usr/bin/python3 tests/bench/report-generate.py GPU_OUT_DIR [POCL_OUT_DIR]
#
# On a GPU server without GStreamer: from a checkout carrying .device/
# (tests/bench/gpu-prepare.sh) and the test images (tests/data/cache or
# IMAGES_DIR), after `source .device/setup.sh`.  Every step takes about 7
# minutes on an H100; where a command may run at most 10 minutes, run the
# steps in two calls into the same OUT_DIR (STEPS="tests tune sar chain
# sarpeers eigen", then STEPS="vj streams"): the steps already recorded
# there are kept.
#
# Steps (each timed, its exit status recorded in OUT_DIR/report-meta.json; a
# failed step leaves a gap in the report, never a made-up figure):
#   tests     the kernels' equivalence tests (GPU output == C reference)
#   tune      clvision-tune on this device (stored in a fresh cache, used by
#             every later step except those run with CLVISION_AUTOTUNE=0)
#   sar       bench-sar and bench-sar3 at every SAR_SIZES, defaults; at 4096
#             also with the tuned values
#   chain     bench-chain (transfers vs kernels), defaults and tuned
#   sarpeers  OpenCV cv::resize INTER_AREA and cv::warpAffine (oracle-sar),
#             and whether our elements' outputs equal OpenCV's
#   speckle   tests/bench/speckle.sh: every speckle filter at radius 1-3
#             against the copy bandwidth, and the float SAR chain
#   vj        bench-vj.sh (uber, simple, OpenCV 16 threads, ablation tunes)
#             over VJ_SIZES, defaults; the tuned detector at two sizes; frames
#             with 0..16 faces on one canvas; batches of VJ_BATCHES frames
#   photos    bench-photos.sh: every test photograph at its own size, a Haar
#             and an LBP cascade, against OpenCV with 16 threads; the
#             kernels', the host's share and launches per frame
#   floor     bench-floor.sh: a small frame's fixed cost, on flat and tiny
#             frames
#   cpu       bench-cpu.sh (not in the default STEPS: for a CPU device):
#             the cpu variant against OpenCV with 2 threads each
#   track     bench-track (not in the default STEPS: the host CPU's): the
#             tracker's cost a box, alone and as the roitrack element
#   eigen     bench-eigen.sh (training vs faces, recognition; OpenCV on
#             EIG_OPENCV_FACES)
#   streams   bench-streams: 1 to 64 pipelines of a photograph in one
#             process at three sizes, cross-stream batching on and off
#   facedetect  GStreamer's facedetect (gstreamer1.0-opencv) on this
#             machine's CPU, where it is installed (skipped elsewhere)
# Environment: STEPS (all of the above), QUICK=1 (tiny sizes: checks the
# plumbing in seconds), ORACLE_DIR (the bundle of tests/oracle/
# bundle-oracle.sh; default /tmp/oracle-bundle, unpacked from
# .device/oracle.tar.xz), IMAGES_DIR (tests/data/cache), SAR_SIZES,
# SAR_ITERATIONS, SAR_PEER_SIZE, CHAIN_FRAMES, TUNE_ARGS, TUNE_VJ_SIZE,
# VJ_SIZES, VJ_IMAGES, VJ_REPEAT, VJ_TUNES, VJ_TUNED_SIZES, VJ_BATCHES
# (1,4,16: frames per batch of the cross-stream runs), FACES_CANVAS (0:
# no faces-per-frame run), EIG_FACES, EIG_OPENCV_FACES, STREAM_SIZES,
# STREAM_COUNTS, CLV_COMMIT (recorded; default `git rev-parse HEAD`).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
b=${1:-build}
out=${2:-${OUT:-report-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/clv-report-XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "${QUICK:-0}" = 1 ]; then
  : "${SAR_SIZES:=512 1024}" "${SAR_ITERATIONS:=10}" "${VJ_SIZES:=640x480}"
  : "${VJ_REPEAT:=3}" "${EIG_FACES:=64,128}" "${EIG_OPENCV_FACES:=64}"
  : "${TUNE_ARGS:=--size 1024 --iterations 3}" "${CHAIN_FRAMES:=30}"
  : "${SAR_PEER_SIZE:=1024}" "${FACES_CANVAS:=512}" "${VJ_IMAGES:=astronaut}"
  : "${TUNE_VJ_SIZE:=640x480}" "${VJ_TUNED_SIZES:=640x480}"
  : "${STREAM_SIZES:=640x480}" "${STREAM_COUNTS:=1,4}"
fi
SAR_SIZES=${SAR_SIZES:-512 2048 4096 8192}
SAR_ITERATIONS=${SAR_ITERATIONS:-20}
SAR_PEER_SIZE=${SAR_PEER_SIZE:-4096}
CHAIN_FRAMES=${CHAIN_FRAMES:-200}
VJ_SIZES=${VJ_SIZES:-640x480 1920x1080 1920x1400 3840x2160}
VJ_REPEAT=${VJ_REPEAT:-5}
VJ_IMAGES=${VJ_IMAGES:-astronaut franck-2500}
FACES_CANVAS=${FACES_CANVAS:-2048}
VJ_BATCHES=${VJ_BATCHES-1,4,16}
EIG_FACES=${EIG_FACES:-320,960,1920}
EIG_OPENCV_FACES=${EIG_OPENCV_FACES:-320}
TUNE_ARGS=${TUNE_ARGS:---iterations 10}
TUNE_VJ_SIZE=${TUNE_VJ_SIZE:-1920x1400}
VJ_TUNED_SIZES=${VJ_TUNED_SIZES:-1920x1400 3840x2160}
STREAM_SIZES=${STREAM_SIZES:-640x480,1280x720,1920x1280}
STREAM_COUNTS=${STREAM_COUNTS:-1,4,16,64}
STEPS=${STEPS:-tests tune sar chain sarpeers speckle eigen vj photos floor streams facedetect}
images=${IMAGES_DIR:-tests/data/cache}
oracle=${ORACLE_DIR:-/tmp/oracle-bundle}
if [ ! -d "$oracle" ] && [ -f .device/oracle.tar.xz ]; then
  tar -C "$(dirname "$oracle")" -xJf .device/oracle.tar.xz
fi
# On a GPU server without opencv-data the Haar cascades are those
# tests/bench/gpu-prepare.sh carried.
if [ -z "${CLVISION_CASCADE_DIR:-}" ] && [ -d .device/opencv4/haarcascades ] \
    && [ ! -d /usr/share/opencv4/haarcascades ]; then
  export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
fi
# The runs' own program cache: the tuning file is this run's.
export XDG_CACHE_HOME=$work/cache
# The ablation of the load-balancing framework of Jia, Zhang, Yuan and Li
# ("Performance optimization of the Viola-Jones face detection algorithm
# with OpenCL", figure 13) as tuning values of
# the uberkernel over chunks: static schedule without local queue, + dynamic
# mapping, + local queue; the default (over tiles on GPUs) adds tiles in
# local memory; and, to see the scheduler's share, the default kernel's
# static schedule and few groups per CU.
VJ_TUNES=${VJ_TUNES-VJ_VARIANT=uber,VJ_STATIC=1,VJ_COOP_STAGE=99 \
  VJ_VARIANT=uber,VJ_COOP_STAGE=99 VJ_VARIANT=uber VJ_STATIC=1 \
  VJ_GROUPS_PER_CU=4 VJ_STATIC=1,VJ_GROUPS_PER_CU=4 VJ_GROUPS_PER_CU=12}

log() { echo "report.sh: $*" >&2; }
# The steps of every run into this OUT_DIR, one JSON object a line.
steps_file=$out/steps.jsonl
run_step() {                    # NAME COMMAND...: timed, status recorded
  local name=$1 t0 t1 rc ms
  shift
  log "== $name"
  t0=$(date +%s%N)
  "$@"
  rc=$?
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  log "   $name: rc=$rc, $ms ms"
  echo "{\"step\": \"$name\", \"rc\": $rc, \"seconds\": $((ms / 1000)).$(printf %03d $((ms % 1000)))}" >> "$steps_file"
  write_meta                    # after every step: a cut-off run says how far it got
}

write_meta() {
  local gpu="" driver="" commit=${CLV_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
  if command -v nvidia-smi >/dev/null; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
  fi
  cat > "$out/report-meta.json" <<EOF
{"date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "host": "$(uname -srm)",
 "cpu": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')",
 "cpu_threads": $(nproc), "gpu": "$gpu", "nvidia_driver": "$driver",
 "opencl_devices": "$(clinfo -l 2>/dev/null | tr '\n"' ' ' | sed 's/  */ /g')",
 "commit": "$commit", "command": "tests/bench/report.sh $b",
 "settings": "STEPS='$STEPS' SAR_SIZES='$SAR_SIZES' SAR_ITERATIONS=$SAR_ITERATIONS SAR_PEER_SIZE=$SAR_PEER_SIZE CHAIN_FRAMES=$CHAIN_FRAMES TUNE_ARGS='$TUNE_ARGS' TUNE_VJ_SIZE=$TUNE_VJ_SIZE VJ_SIZES='$VJ_SIZES' VJ_IMAGES='$VJ_IMAGES' VJ_REPEAT=$VJ_REPEAT VJ_TUNED_SIZES='$VJ_TUNED_SIZES' VJ_BATCHES='$VJ_BATCHES' FACES_CANVAS=$FACES_CANVAS EIG_FACES=$EIG_FACES EIG_OPENCV_FACES=$EIG_OPENCV_FACES",
 "quick": ${QUICK:-0}, "steps": [$(paste -sd, "$steps_file" 2>/dev/null)]}
EOF
}

step_tests() {
  python3 tests/run-built.py "$b" unit-multilook unit-quantize unit-rotscale \
    unit-vj-gpu unit-eigen-gpu check-sarchain --log "$work/test-logs" \
    --env CLV_ORACLE_DETECT="$oracle/oracle-detect" \
    --env CLV_ORACLE_EIGEN="$oracle/oracle-eigen" | tee "$out/tests.txt"
}

step_tune() {
  # shellcheck disable=SC2086
  "$b/tools/clvision-tune" $TUNE_ARGS --image "$images/astronaut.pgm" \
    --vj-size "$TUNE_VJ_SIZE" --json "$out/tune.json" > /dev/null
}

step_speckle() {
  local args=()
  [ "${QUICK:-0}" = 1 ] && args=(--size 512 --iterations 5)
  tests/bench/speckle.sh "$b" "$out" "${args[@]}" >/dev/null
}

step_sar() {
  local rc=0 s
  for s in $SAR_SIZES; do
    CLVISION_AUTOTUNE=0 "$b/tests/bench/bench-sar" --size "$s" --looks 2,4,16 \
      --iterations "$SAR_ITERATIONS" --out "$out/sar-default-$s.json" >/dev/null || rc=1
    CLVISION_AUTOTUNE=0 "$b/tests/bench/bench-sar3" --size "$s" --angle 30 \
      --scale 1.5 --coef 35 --iterations "$SAR_ITERATIONS" \
      --out "$out/sar3-default-$s.json" >/dev/null || rc=1
  done
  s=$(echo $SAR_SIZES | tr ' ' '\n' | grep -x 4096 || echo $SAR_SIZES | awk '{print $NF}')
  "$b/tests/bench/bench-sar" --size "$s" --looks 2,4,16 \
    --iterations "$SAR_ITERATIONS" --out "$out/sar-tuned-$s.json" >/dev/null || rc=1
  "$b/tests/bench/bench-sar3" --size "$s" --angle 30 --scale 1.5 --coef 35 \
    --iterations "$SAR_ITERATIONS" --out "$out/sar3-tuned-$s.json" >/dev/null || rc=1
  return $rc
}

step_chain() {
  local s=$SAR_PEER_SIZE
  CLVISION_AUTOTUNE=0 "$b/tests/bench/bench-chain" --size "$s" \
    --frames "$CHAIN_FRAMES" --out "$out/chain-default.json" >/dev/null &&
  "$b/tests/bench/bench-chain" --size "$s" --frames "$CHAIN_FRAMES" \
    --out "$out/chain-tuned.json" >/dev/null
}

# oracle-sar from the bundle, or the build's run with the bundle's libraries
# (a bundle packed before oracle-sar existed has OpenCV's core and imgproc).
oracle_sar() {
  local loader
  if [ -x "$oracle/oracle-sar" ]; then
    "$oracle/oracle-sar" "$@"
  else
    loader=$(ls "$oracle"/lib/ld-linux* | head -1)
    "$loader" --library-path "$oracle/lib" "$b/tests/oracle/oracle-sar" "$@"
  fi
}

# OpenCV's SAR peers, and our elements on the same frame for equality.
step_sarpeers() {
  local s=$SAR_PEER_SIZE d=$work/sar l caps
  mkdir -p "$d"
  oracle_sar bench --size "$s" --looks 2,4,16 --angle 30 \
    --scale 1.5 --threads 16 --repeat 10 --write-dir "$d" > "$d/opencv.json" || return 1
  caps="filesrc location=$d/in.raw blocksize=$((s * s * 2)) ! rawvideoparse format=gray16-le width=$s height=$s framerate=1/1"
  for l in 2 4 16; do
    gst-launch-1.0 -q $caps ! sarmultilook looks=$l ! filesink location="$d/ours-$l.raw" || return 1
  done
  gst-launch-1.0 -q $caps ! sarrotscale angle=30 scale=1.5 ! filesink location="$d/ours-warp.raw" || return 1
  python3 - "$d" "$out/sar-peers.json" <<'PY'
import json, struct, sys
d, path = sys.argv[1], sys.argv[2]
res = json.load(open(d + "/opencv.json"))
def compare(ours, theirs, src=None, looks=None):
    a, b = open(ours, "rb").read(), open(theirs, "rb").read()
    if len(a) != len(b):
        return {"equal": False, "size_mismatch": [len(a), len(b)]}
    n = len(a) // 2
    x, y = struct.unpack("<%dH" % n, a), struct.unpack("<%dH" % n, b)
    diff = [i for i in range(n) if x[i] != y[i]]
    r = {"pixels": n, "pixels_unequal": len(diff), "equal": not diff,
         "max_abs_difference": max((abs(x[i] - y[i]) for i in diff), default=0)}
    if diff and src is not None:
        # Are the differences ties (block mean exactly k + 0.5)?
        side = int((len(src) // 2) ** 0.5)
        s = struct.unpack("<%dH" % (side * side), src)
        ow = side // looks
        ties = 0
        for i in diff[:2000]:
            oy, ox = divmod(i, ow)
            tot = sum(s[(oy * looks + j) * side + ox * looks + k]
                      for j in range(looks) for k in range(looks))
            ties += (2 * tot) % (looks * looks) == 0 and tot % (looks * looks) != 0
        r["unequal_checked"] = min(len(diff), 2000)
        r["unequal_that_are_ties"] = ties
    return r
src = open(d + "/in.raw", "rb").read()
for e in res["resize_area"]:
    e["ours_vs_opencv"] = compare("%s/ours-%d.raw" % (d, e["looks"]),
                                  "%s/area-%d.raw" % (d, e["looks"]), src, e["looks"])
res["warp_affine"]["ours_vs_opencv"] = compare(d + "/ours-warp.raw", d + "/warp.raw")
json.dump(res, open(path, "w"), indent=1)
PY
}


step_vj() {
  local rc=0 imgs=() i sizes=()
  for i in $VJ_IMAGES; do imgs+=("$images/$i.pgm"); done
  CLVISION_AUTOTUNE=0 REPEAT=$VJ_REPEAT SIZES=$VJ_SIZES TUNES=$VJ_TUNES \
    BATCHES=$VJ_BATCHES ORACLE=$oracle/oracle-detect \
    tests/bench/bench-vj.sh "$b" "${imgs[@]}" \
    > "$out/vj-default.json" || rc=1
  for i in $VJ_TUNED_SIZES; do sizes+=(--size "$i"); done
  "$b/tests/bench/bench-vj" --repeat "$VJ_REPEAT" --no-native "${sizes[@]}" \
    "$images/astronaut.pgm" > "$out/vj-tuned.json" || rc=1
  [ "$FACES_CANVAS" = 0 ] && return $rc
  mkdir -p "$work/faces"
  python3 tests/bench/face-canvases.py "$images/astronaut.pgm" \
    "$FACES_CANVAS" "$work/faces" || return 1
  CLVISION_AUTOTUNE=0 "$b/tests/bench/bench-vj" --repeat "$VJ_REPEAT" \
    ${VJ_BATCHES:+--batch "$VJ_BATCHES"} \
    --oracle "$oracle/oracle-detect" "$work"/faces/faces-*.pgm \
    > "$out/vj-faces.json" || rc=1
  return $rc
}

step_photos() {
  CLVISION_AUTOTUNE=0 ORACLE=$oracle/oracle-detect \
    tests/bench/bench-photos.sh "$b" "$out" > /dev/null
}

step_floor() {
  CLVISION_AUTOTUNE=0 tests/bench/bench-floor.sh "$b" "$out" > /dev/null
}

step_cpu() {
  ORACLE=$oracle/oracle-detect tests/bench/bench-cpu.sh "$b" \
    > "$out/bench-cpu.json"
}

step_track() {
  GST_PLUGIN_PATH_1_0=$(cd "$b" && pwd)/gst "$b/tests/bench/bench-track" \
    --out "$out/track.json" > /dev/null
}

step_eigen() {
  CLVISION_AUTOTUNE=0 EIG_BENCH_FACES=$EIG_FACES \
    EIG_BENCH_OPENCV_FACES=$EIG_OPENCV_FACES \
    ORACLE_EIGEN=$oracle/oracle-eigen tests/bench/bench-eigen.sh "$b" \
    > "$out/eigen.json"
}

step_streams() {
  GST_PLUGIN_PATH_1_0=$(cd "$b" && pwd)/gst "$b/tests/bench/bench-streams" \
    --image "$images/astronaut.png" --sizes "$STREAM_SIZES" \
    --streams "$STREAM_COUNTS" --batching on,off --frames 150 \
    --devices auto --out "$out/bench-streams.json" > /dev/null
}

step_facedetect() {
  if ! gst-inspect-1.0 facedetect > /dev/null 2>&1; then
    log "   no facedetect element here (gstreamer1.0-opencv): skipped"
    return 0
  fi
  tests/bench/facedetect-cpu.sh "$images/astronaut.pgm" > "$out/facedetect-cpu.json"
}

status=0
for step in $STEPS; do
  case $step in
    tests|tune|sar|chain|sarpeers|speckle|vj|photos|floor|cpu|track|eigen|streams|facedetect)
      run_step "$step" "step_$step" ;;
    *) log "unknown step $step"; status=2 ;;
  esac
done
write_meta
grep -q '"rc": [1-9]' "$out/report-meta.json" && status=1
log "results in $out (exit $status)"
exit $status
