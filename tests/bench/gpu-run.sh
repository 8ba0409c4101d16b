#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test suite and the benchmarks on a GPU server, from a checkout that
# carries .device/ (made by tests/bench/gpu-prepare.sh) and tests/data/cache;
# see docs/performance.md.  Results go to $OUT (or ./gpu-out).
#
#   tests/bench/gpu-run.sh [tests] [sar] [sar3] [chain] [fullscene] [speckle]
#                          [vj] [photos] [floor] [eigen]
#                          [vj-registers] [crowded] [recognise] [streams]
#                          [streams-video] [batch] [spread] [track-streams]
#                          [compare]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source .device/setup.sh
# What tests/bench/gpu-prepare.sh carried: cascades and extra plugins.
export CLVISION_CASCADE_DIR=$PWD/.device/opencv4/haarcascades
cp .device/extra-plugins/*.so "$GST_PLUGIN_SYSTEM_PATH_1_0/"
out=${OUT:-gpu-out}
mkdir -p "$out"
b=.device/build
oracle=/tmp/oracle-bundle
[ -d $oracle ] || tar -C /tmp -xJf .device/oracle.tar.xz
clinfo -l
status=0
for step in "$@"; do
  echo "== $step"
  case $step in
    tests)
      # oracle-pieces links OpenCV itself (a CPU-only check of OpenCV's
      # resize and integrals against ours): it runs where OpenCV is installed.
      # example-app-python and check-gir-python need PyGObject,
      # example-readme-camera and export-gva Python's jsonschema,
      # track-synthetic and track-franck numpy, tool-camera-unit
      # systemd-analyze and example-app-c meson, which the GPU server lacks
      # (its Python is not Debian's).  Cascades, mosquitto and mosquitto_passwd
      # lie where setup.sh and gpu-prepare.sh put them.  unit-vj-gpu builds
      # many programs (NVIDIA's compiler takes seconds for each): its cases
      # run side by side.
      python3 tests/run-built.py $b --log /tmp/test-logs --skip oracle-pieces \
        --skip example-app-python --skip example-app-c --skip check-gir-python \
        --skip example-readme-camera --skip export-gva --skip track-synthetic \
        --skip track-franck --skip tool-camera-unit --split unit-vj-gpu \
        --map /usr/share/opencv4=$PWD/.device/opencv4 \
        --env CLV_MOSQUITTO="$(command -v mosquitto)" \
        --env CLV_MOSQUITTO_PASSWD="$(command -v mosquitto_passwd)" \
        --env CLV_ORACLE_DETECT=$oracle/oracle-detect \
        --env CLV_ORACLE_EIGEN=$oracle/oracle-eigen | tee "$out/tests.txt"
      tar -C /tmp -czf "$out/test-logs.tgz" test-logs ;;
    sar)
      $b/tests/bench/bench-sar --size 4096 --looks 2,4,16 --iterations 200 \
        --out "$out/bench-sar.json" >/dev/null ;;
    sar3)
      $b/tests/bench/bench-sar3 --size 4096 --angle 30 --scale 1.5 --coef 35 \
        --iterations 200 --out "$out/bench-sar3.json" >/dev/null ;;
    chain)
      $b/tests/bench/bench-chain --size 4096 --frames 300 \
        --out "$out/bench-chain.json" >/dev/null ;;
    fullscene)
      # One 25,000 x 16,700 GRAY16_LE frame (a Sentinel-1 GRD scene) through
      # the chain, both memory kinds, checked against the C references.
      $b/tests/bench/bench-fullscene --runs 3 --raw /tmp/clv-fullscene.raw \
        --out "$out/bench-fullscene.json" ;;
    speckle)
      # Every speckle filter at radius 1-3 against the copy bandwidth, and
      # the float chain (speckle.json).
      tests/bench/speckle.sh $b "$out" ;;
    vj)
      ORACLE=$oracle/oracle-detect tests/bench/bench-vj.sh $b \
        > "$out/bench-vj.json" ;;
    photos)
      # Every test photograph at its own size, a Haar and an LBP face
      # cascade, against OpenCV with 16 threads; small frames against
      # 0.2 ms; kernels, host share and launches per frame
      # (bench-photos.json).
      ORACLE=$oracle/oracle-detect tests/bench/bench-photos.sh $b "$out" ;;
    floor)
      # A small frame's fixed cost: flat and tiny frames (vj-floor.json).
      tests/bench/bench-floor.sh $b "$out" ;;
    vj-registers)
      # What limits the detection kernel's resident warps: ptxas' register
      # report for every build (-cl-nv-verbose through CLVISION_CL_OPTIONS,
      # build logs in the .log; a fresh program cache so that all are
      # built), and the kernels timed under register caps
      # (VJ_MAX_REGISTERS), with 64-wide work-groups (the GPU default) and
      # 32-wide ones (the uberkernel's first default on NVIDIA).
      t=()
      for r in 32 48 64 96; do t+=(--tune VJ_MAX_REGISTERS=$r); done
      for r in 0 32 48; do t+=(--tune VJ_WG=32,VJ_COOP_WINDOWS=2,VJ_MAX_REGISTERS=$r); done
      XDG_CACHE_HOME=$(mktemp -d) G_MESSAGES_DEBUG=clvision CLVISION_AUTOTUNE=0 \
        CLVISION_CL_OPTIONS=-cl-nv-verbose $b/tests/bench/bench-vj --repeat 20 \
        --no-native --size 1920x1280 --size 640x480 --batch 16 "${t[@]}" \
        tests/data/cache/astronaut.pgm > "$out/vj-registers.json" \
        2> "$out/vj-registers.log" ;;
    crowded)
      # A crowded frame: 16 faces on a 2048x2048 canvas (and the
      # empty canvas), one frame per batch: what the host adds (upload,
      # read-back and routing; grouping) next to the kernels.
      python3 tests/bench/face-canvases.py tests/data/cache/astronaut.pgm \
        2048 /tmp/faces &&
      CLVISION_AUTOTUNE=0 $b/tests/bench/bench-vj --repeat 20 --batch 1 \
        /tmp/faces/faces-16.pgm /tmp/faces/faces-00.pgm \
        > "$out/crowded.json" ;;
    eigen)
      # OpenCV's training of 1920 faces takes minutes: three sizes of it.
      EIG_BENCH_OPENCV_FACES=${EIG_BENCH_OPENCV_FACES:-320,960,1920} \
        ORACLE_EIGEN=$oracle/oracle-eigen tests/bench/bench-eigen.sh $b \
        > "$out/bench-eigen.json" ;;
    streams)
      # Concurrent detection streams: a real
      # photograph at three sizes, 1 to 64 pipelines in one process, with
      # cross-stream batching on and off (STREAM_DEVICES=first,auto on a
      # machine of several GPUs: all on one against spread).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst $b/tests/bench/bench-streams \
        --image tests/data/cache/astronaut.png \
        --sizes ${STREAM_SIZES:-640x480,1280x720,1920x1280} \
        --streams ${STREAM_COUNTS:-1,4,16,64} --batching on,off --frames 150 \
        --devices ${STREAM_DEVICES:-auto} --out "$out/bench-streams.json" ;;
    streams-video)
      # The same with a real video (franck.webm, decoded by every stream).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst $b/tests/bench/bench-streams \
        --image tests/data/cache/franck.webm --video \
        --sizes ${STREAM_SIZES:-640x480,1280x720,1920x1080} \
        --streams ${STREAM_COUNTS:-1,4,16,64} --batching on,off --frames 150 \
        --devices ${STREAM_DEVICES:-auto} --out "$out/bench-streams-video.json" ;;
    batch)
      # clvision-batch over 64 copies of franck.webm on one GPU and on every
      # GPU, against hand-written gst-launch-1.0 runs (batch-scale.json).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst tests/bench/batch-scale.sh $b "$out" ;;
    spread)
      # One gst-launch-1.0 of 16 branches, device=first against
      # device=auto (spread-branches.json; two GPUs: speedup >= 1.9).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst tests/bench/spread-branches.sh $b "$out" ;;
    track-streams)
      # 64 streams of 640x480 with and without roitrack
      # (track-streams.json; loss <= 0.03).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst tests/bench/track-streams.sh $b "$out" ;;
    compare)
      # This build against another (OLD_BUILD, default .device/old: a build
      # of an earlier commit, its plugin, libraries and benchmarks) on the
      # photographs, 16 streams, the crowded canvas and the SAR chain in
      # system memory (compare-builds.json).
      tests/bench/compare-builds.sh "${OLD_BUILD:-.device/old}" $b "$out" ;;
    recognise)
      # The demo's held-out recognition, whole videos (tests/data/cache).
      GST_PLUGIN_PATH_1_0=$PWD/$b/gst CLV_BUILD_DIR=$b \
        examples/recognise-people.sh --out /tmp/recognition \
        | tee "$out/recognition.txt" ;;
    *) echo "unknown step $step" >&2; false ;;
  esac || { echo "step $step failed"; status=1; }
done
exit $status
