#!/usr/bin/env bash
# Where a batch's copies go (experiment build, CLV_EXP_COPIES): 1 tables,
# counters and read-back on the detector's own queue (`m1`), 2 only the
# read-back there (`m2`), 0 all on the device's queue (`m0`); all with
# tiles coarse levels first; against 9ac7c26 (`base`): call4.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for v in m2 m0 m1 base m2 m1; do
  r=1; [ -e $dir/streams-${v}1.json ] && r=2
  if [ $v = base ]; then
    bench_streams $dir/streams-$v$r.json .device/build-base 640x480,1920x1280 1,16,64 auto
  else
    CLV_EXP_COPIES=${v#m} bench_streams $dir/streams-$v$r.json .device/build 640x480,1920x1280 1,16,64 auto
  fi
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
