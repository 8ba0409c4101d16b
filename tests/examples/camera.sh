#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/camera.sh on an RTSP camera: the test's RTSP server (BUILD_DIR's
# tests/clv-rtsp-server) serves franck.webm, camera.sh reads it with --sink
# writing JPEG frames, the server is killed and started again (the frames
# go on), and Ctrl-C (SIGINT) ends the pipeline cleanly.
#   tests/examples/camera.sh BUILD_DIR
set -euo pipefail
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
server=${1:?"the build directory"}/tests/clv-rtsp-server
tmp=$(mktemp -d)
pids=()
cleanup () { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

launch="( filesrc location=$cache/franck.webm ! matroskademux ! rtpvp8pay name=pay0 pt=96 )"
start_server () {   # PORT (0: a free one); sets $port and $server_pid
  "$server" --port "$1" "$launch" > "$tmp/port" &
  server_pid=$!
  pids+=("$server_pid")
  for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  port=$(cat "$tmp/port")
  [ -n "$port" ] || fail "the RTSP server did not start"
}
frames () { find "$tmp/out" -name '*.jpg' | wc -l; }
wait_frames () {    # N: until N frames are written, at most 60 s
  for _ in $(seq 600); do [ "$(frames)" -ge "$1" ] && return 0; sleep 0.1; done
  fail "only $(frames) frames written, not $1"
}

start_server 0
mkdir "$tmp/out"
"$src/examples/camera.sh" --sink "jpegenc ! multifilesink location=$tmp/out/f%05d.jpg" \
  "rtspt://127.0.0.1:$port/test" > "$tmp/log" 2>&1 &
camera=$!
pids+=("$camera")
wait_frames 25
kill -9 "$server_pid"
sleep 2
before=$(frames)
start_server "$port"
wait_frames $((before + 25))
kill -INT "$camera"
status=0
wait "$camera" || status=$?
[ "$status" -eq 0 ] || { cat "$tmp/log" >&2; fail "camera.sh exited with $status"; }
grep -q "EOS on shutdown" "$tmp/log" || fail "no EOS at Ctrl-C"
[ "$(head -c 2 "$tmp/out/f00000.jpg" | od -An -tx1 | tr -d " \n")" = ffd8 ] \
  || fail "the frames are not JPEG images"
echo PASS
