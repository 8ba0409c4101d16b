#!/usr/bin/env bash
# Streams with stages compiled in (default) and without (VJ_UNROLL=0,VJ_COOP_STAGE=3:
# the previous commit's kernels), same build, alternating.
source "$(dirname "$0")/common.sh"
for run in new1: old1:VJ_UNROLL=0,VJ_COOP_STAGE=3 new2: old2:VJ_UNROLL=0,VJ_COOP_STAGE=3; do
  CLVISION_TUNE=${run#*:} bench_streams $out/streams-${run%%:*}.json .device/build 640x480,1920x1280 1,16,64 auto
done
