#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Soak: FRAMES frames (default 100000) through the face pipeline
# (vjfacedetect ! eigenrecognise [! roioverlay]) and through the
# memory:OpenCL SAR chain, small frames, on the default OpenCL device.
# The resident memory (VmRSS) of gst-launch-1.0 is sampled every INTERVAL
# seconds (default 5); the run fails when it grows by more than
# BOUND_KIB (default 8192) between the end of the warm-up (the first
# sample after 20% of the run) and the end.  Samples go to
# build/soak-NAME.csv; ONLY="faces" or "sar" runs one.  Not part of CI
# (minutes); run by hand:
#   nice -n 19 tests/soak.sh [FRAMES]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
frames=${1:-100000}
interval=${INTERVAL:-5}
bound_kib=${BOUND_KIB:-8192}
build=${CLV_BUILD_DIR:-build}
export GST_PLUGIN_PATH_1_0=$PWD/$build/gst/elements
export GST_REGISTRY_1_0=$PWD/$build/soak-registry.bin
export LD_LIBRARY_PATH=$PWD/$build/gst/clvision:$PWD/$build/common${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cache=tests/data/cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A model of the LFW faces by our trainer.
"$build/examples/clvision-eigen-train" -q -i "$cache/lfw/faces" -s 32x32 \
  -o "$tmp/model.yml"
overlay=
gst-inspect-1.0 roioverlay >/dev/null 2>&1 && overlay="! roioverlay"

soak () {
  local name=$1 pipeline=$2 csv="$build/soak-$1.csv"
  local start pid rss t status=0
  case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  echo "== $name: $frames frames: $pipeline"
  echo "seconds,rss_kib" >"$csv"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $pipeline >"$tmp/$name.log" 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    t=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {printf "%.1f", a - b}')
    [ -n "$rss" ] && echo "$t,$rss" >>"$csv"
    sleep "$interval"
  done
  wait $pid || status=$?
  if [ $status -ne 0 ]; then
    cat "$tmp/$name.log"
    echo "$name: gst-launch-1.0 failed ($status)" >&2
    return 1
  fi
  python3 - "$csv" "$bound_kib" "$name" "$frames" <<'PY'
import csv, sys
rows = [(float(r["seconds"]), int(r["rss_kib"])) for r in csv.DictReader(open(sys.argv[1]))]
bound, name, frames = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
total = rows[-1][0]
warm = next(r for r in rows if r[0] >= 0.2 * total)
end = rows[-1]
peak = max(r[1] for r in rows[rows.index(warm):])
print(f"{name}: {frames} frames in {total:.0f} s ({frames / total:.0f} frames/s); "
      f"RSS after warm-up ({warm[0]:.0f} s) {warm[1]} KiB, at the end {end[1]} KiB, "
      f"peak after warm-up {peak} KiB, growth {end[1] - warm[1]} KiB "
      f"(bound {bound} KiB); {len(rows)} samples")
sys.exit(0 if end[1] - warm[1] <= bound else 1)
PY
}

status=0
soak faces "filesrc location=$cache/grace_hopper_512x512.jpg ! jpegdec ! \
  videoconvert ! videoscale ! video/x-raw,format=GRAY8,width=64,height=64 ! \
  imagefreeze num-buffers=$frames ! vjfacedetect ! \
  eigenrecognise model=$tmp/model.yml $overlay ! fakesink sync=false" || status=1
soak sar "videotestsrc pattern=snow num-buffers=$frames ! \
  video/x-raw,format=GRAY16_LE,width=64,height=64 ! clupload ! \
  sarmultilook range-looks=2 azimuth-looks=2 ! \
  sarrotscale angle=30 ! sarquantize ! cldownload ! fakesink sync=false" || status=1
exit $status
