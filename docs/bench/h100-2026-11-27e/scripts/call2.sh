#!/bin/bash
# Call 2: per-stage queues (the working tree's default) alone and with the
# diagnostic switches VJX_TILE_CONST (the tile's copy indexed by the
# constant VJ_TILE_COLS), VJX_FUSE0 (stage 0 in the variance pass) and
# VJX_WARP_PUSH (one local atomic a warp per queue push, by ballot);
# the detection per frame, alternating, twice; then the streams and the
# crowded canvas through vjfacedetect for none and all of them.
source docs/bench/h100-2026-11-26d/scripts/common.sh
mkdir -p $out/call2
opts () {
  case $1 in
    base) echo "" ;;
    T) echo "-DVJX_TILE_CONST=1" ;;
    F) echo "-DVJX_FUSE0=1" ;;
    W) echo "-DVJX_WARP_PUSH=1" ;;
    TFW) echo "-DVJX_TILE_CONST=1 -DVJX_FUSE0=1 -DVJX_WARP_PUSH=1" ;;
  esac
}
for k in 1 2; do
  for v in base T F W TFW; do
    CLVISION_CL_OPTIONS="$(opts $v)" bench_vj $out/call2 $v-$k .device/build
  done
done
for k in 1 2; do
  for v in base TFW; do
    CLVISION_CL_OPTIONS="$(opts $v)" bench_streams $out/call2/streams-$v-$k.json .device/build 1920x1280,640x480 16,64 auto
    CLVISION_CL_OPTIONS="$(opts $v)" GST_PLUGIN_PATH_1_0=$PWD/.device/build/gst timeout 120 \
      .device/build/tests/bench/bench-streams --image /tmp/faces/faces-16.pgm \
      --sizes 2048x2048 --streams 1 --frames 300 --convert \
      --out $out/call2/crowded-$v-$k.json > $out/call2/crowded-$v-$k.log 2>&1
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; [print('crowded', sys.argv[2], x['streams'], 'fps %.1f p50 %.3f' % (x['fps'], x['latency_ms_p50'])) for x in r]" $out/call2/crowded-$v-$k.json $v-$k
  done
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call2.tgz call2
