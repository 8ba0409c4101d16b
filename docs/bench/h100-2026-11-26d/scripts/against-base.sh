#!/usr/bin/env bash
# .device/build against .device/build-base (the commits: the README of the runs),
# alternating twice: detection per frame, then streams: against-base.sh DIR.
# pool-not-kept/ (the pool in .device/build) and arrays/ (9a0d83c).
source "$(dirname "$0")/common.sh"
dir=$out/$1
mkdir -p $dir
for b in new1:build base1:build-base new2:build base2:build-base; do
  bench_vj $dir vj-${b%%:*} .device/${b#*:}
done
for b in new1:build base1:build-base new2:build base2:build-base; do
  bench_streams $dir/streams-${b%%:*}.json .device/${b#*:} 640x480,1920x1280 1,16,64 auto
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
