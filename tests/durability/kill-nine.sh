#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Durable outputs: a gdalsink pipeline and a roiexport file pipeline are
# killed with SIGKILL mid-stream, RUNS times each (20 by default).  After
# every kill, each raster under a final name is whole (the very bytes of an
# uninterrupted write), and every line of the JSON Lines file parses, with
# sequence numbers 0, 1, 2, ... and a newline at the end.
#
#   tests/durability/kill-nine.sh [RUNS]
set -euo pipefail

runs=${1:-20}
dir=$(mktemp -d "${TMPDIR:-/tmp}/clv-kill-XXXXXX")
trap 'rm -rf "$dir"' EXIT

fail () { echo "FAIL: $*" >&2; exit 1; }

# Starts `gst-launch-1.0 ARGS...` and kills it with SIGKILL after 0.6 to
# 2.1 s (the pipeline runs long enough not to end first).
run_and_kill () {
  gst-launch-1.0 -q "$@" >/dev/null 2>"$dir/stderr" &
  local pid=$!
  sleep "$(printf '0.%03d' $((RANDOM % 1000)))"
  sleep 0.6
  if [ $((RANDOM % 2)) = 1 ]; then sleep 0.5; fi
  kill -0 "$pid" 2>/dev/null || { cat "$dir/stderr" >&2; fail "gst-launch-1.0 $* ended early"; }
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
}

# gdalsink: one 1024 x 1024 GRAY16_LE frame of noise, repeated, written
# DEFLATE-compressed so that most of the time goes to writing; odd runs
# write a file per frame, even runs rewrite one name.  Every file under a
# final name must equal, byte for byte, the file of a run left to finish:
# a half-written GeoTIFF can still open (missing blocks read as zeros).
gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! \
  video/x-raw,format=GRAY16_LE,width=1024,height=1024 ! \
  gdalsink location="$dir/noise.tif" >/dev/null
gst-launch-1.0 -q gdalsrc location="$dir/noise.tif" ! \
  gdalsink location="$dir/whole.tif" creation-options=COMPRESS=DEFLATE >/dev/null
partial_seen=0
rasters=0
for run in $(seq 1 "$runs"); do
  out="$dir/gdal-$run"
  mkdir "$out"
  if [ $((run % 2)) = 1 ]; then location="$out/frame-%05d.tif"; else location="$out/scene.tif"; fi
  run_and_kill gdalsrc location="$dir/noise.tif" ! imagefreeze num-buffers=100000 ! \
    gdalsink location="$location" creation-options=COMPRESS=DEFLATE
  if compgen -G "$out/.*partial*" >/dev/null; then partial_seen=$((partial_seen + 1)); fi
  for f in "$out"/*.tif; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$dir/whole.tif" || fail "run $run: $f is not the whole raster ($(stat -c %s "$f") bytes, whole: $(stat -c %s "$dir/whole.tif"))"
    rasters=$((rasters + 1))
  done
  rm -rf "$out"
done
echo "gdalsink: $runs kills, $rasters whole rasters checked, $partial_seen kills left a .partial file (killed mid-write)"
[ "$rasters" -ge "$runs" ] || fail "too few rasters written ($rasters) to test anything"
[ "$partial_seen" -ge 1 ] || fail "no kill landed while a raster was being written"

# roiexport: records of about 20 kB (a long source-name), so that each
# spans several pages, at 200 frames/s.
name=$(head -c 20000 /dev/zero | tr '\0' 'n')
records=0
for run in $(seq 1 "$runs"); do
  out="$dir/records-$run.jsonl"
  run_and_kill videotestsrc is-live=true num-buffers=100000 ! \
    video/x-raw,format=GRAY8,width=64,height=48,framerate=200/1 ! \
    roiexport location="$out" source-name="$name" ! fakesink
  n=$(python3 - "$out" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
if data and not data.endswith(b"\n"):
    sys.exit("the file ends inside a record: %r" % data[-80:])
lines = data.split(b"\n")[:-1] if data else []
for i, line in enumerate(lines):
    try:
        rec = json.loads(line)
    except ValueError as e:
        sys.exit("line %d does not parse: %s" % (i, e))
    if rec["seq"] != i:
        sys.exit("line %d has seq %d" % (i, rec["seq"]))
print(len(lines))
PY
  ) || fail "run $run: $out"
  records=$((records + n))
  rm -f "$out"
done
echo "roiexport: $runs kills, $records records checked"
[ "$records" -ge "$runs" ] || fail "too few records written ($records) to test anything"
