#!/usr/bin/env bash
# The cooperative stages' first trees in local memory (-DVJ_LOCAL_NODES=239:
# stages 4-7 of frontalface_default, `ln`) and the stage table in constant
# memory (-DVJ_CONST_STAGES=1, `cs`), both (`lncs`), against neither
# (`def`), on one experiment build (scripts/local-nodes.diff), through
# CLVISION_CL_OPTIONS: call9.sh DIR.
source "$(dirname "$0")/../../h100-2026-11-26d/scripts/common.sh"
dir=$out/$1
mkdir -p $dir
for v in def ln cs lncs def; do
  case $v in
    def) o= ;; ln) o=-DVJ_LOCAL_NODES=239 ;; cs) o=-DVJ_CONST_STAGES=1 ;;
    lncs) o="-DVJ_LOCAL_NODES=239 -DVJ_CONST_STAGES=1" ;;
  esac
  n=$v; [ -e $dir/vj-$v.json ] && n=${v}2
  CLVISION_CL_OPTIONS="$o" bench_vj $dir vj-$n .device/build
done
tar -C $out -czf $dir.tgz $1; rm -rf $dir
