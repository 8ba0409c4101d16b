#!/usr/bin/env bash
# Detection cost per tree evaluation on levels whose windows are 1 apart
# (--min-size 48x48: scales of 2 and more) against every level (windows 2
# apart below scale 2), and the programs' PTX from the binary cache:
# call5.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
export XDG_CACHE_HOME=/tmp/cc
for r in 1 2; do
  for m in 0x0 48x48; do
    .device/build/tests/bench/bench-vj --repeat 10 --no-native --size 1920x1280 --batch 16 --min-size $m tests/data/cache/astronaut.pgm > $dir/vj-min$m-$r.json 2>/dev/null
    python3 - $dir/vj-min$m-$r.json <<'PY'
import json,sys
for f in json.load(open(sys.argv[1]))["frames"]:
  b=f["batches"][0]; w=f["work"]
  det=b["detect_kernels_ms_median"]/16
  st=w["stages"]; t03=sum(s["tree_evaluations"] for s in st[:4]); t4=sum(s["tree_evaluations"] for s in st[4:])
  print("%s windows %d past-var %d trees %d (0-3 %d, 4+ %d) det/frame %.3f ms -> %.2f ps/tree, %.2f ps/window" % (sys.argv[1].split("/")[-1], w["windows"], w["past_variance_test"], w["tree_evaluations"], t03, t4, det, det*1e9/w["tree_evaluations"], det*1e9/w["windows"]))
PY
  done
done
ls -la /tmp/cc/clvision | sort -k5 -n | tail -4
tar -C /tmp/cc -cJf $dir/ptx.tar.xz clvision
tar -C $out -czf $dir.tgz $1; rm -rf $dir
