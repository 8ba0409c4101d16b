#!/usr/bin/env bash
# Two GPUs: 16 and 64 pipelines all on the first GPU against device=auto (spread), twice.
source "$(dirname "$0")/common.sh"
clinfo -l
for rep in 1 2; do
  bench_streams $out/two-gpu-$rep.json .device/build 640x480,1920x1280 16,64 first,auto
done
