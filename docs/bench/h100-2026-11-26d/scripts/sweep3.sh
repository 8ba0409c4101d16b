#!/usr/bin/env bash
# Batching tunables with stages compiled in: in-flight batches and batch cap,
# each twice (sweep-NAME{1,2}.json; NAME is the tuning, or default).
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  for t in "" VJ_BATCH_INFLIGHT=3 VJ_MAX_BATCH=64 "VJ_BATCH_INFLIGHT=3,VJ_MAX_BATCH=64" VJ_MAX_BATCH=16; do
    CLVISION_TUNE=$t bench_streams "$out/sweep-${t:-default}$rep.json" .device/build 640x480,1920x1280 16,64 auto
  done
done
