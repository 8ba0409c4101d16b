#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Faces to MQTT: vjfacedetect finds the faces of a real video, roiexport
# publishes one JSON record per frame to an MQTT broker, and mosquitto_sub
# shows them arriving.  With no --broker, a mosquitto broker is started on
# 127.0.0.1 (a free port) for the run and stopped afterwards.
#
#   examples/faces-to-mqtt.sh [--broker HOST:PORT] [--topic TOPIC]
#                             [--frames N] [--out FILE] [--json FILE] [VIDEO]
#
# VIDEO defaults to the test video (tests/fetch-data.sh); --frames (default
# 60) is how many of its first frames are sent; --out keeps the messages the
# subscriber received, --json what roiexport sent (both JSON Lines).  Installs what is missing and builds, as demo.sh does, unless
# CLV_SKIP_SETUP=1 (the tests set it, with GST_PLUGIN_PATH_1_0 already set).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

broker= topic=clvision/faces frames=60 out= sent= video=
while [ $# -gt 0 ]; do
  case $1 in
    --broker) broker=$2; shift 2 ;;
    --topic) topic=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --json) sent=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "faces-to-mqtt.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) video=$1; shift ;;
  esac
done
[[ $frames =~ ^[1-9][0-9]*$ ]] || { echo "faces-to-mqtt.sh: --frames needs a positive number" >&2; exit 2; }

if [ "${CLV_SKIP_SETUP:-0}" != 1 ]; then
  source tests/install-deps.sh
  clv_install_deps
  build=${CLV_BUILD_DIR:-build}
  [ -f "$build/build.ninja" ] || meson setup "$build" -Dbuildtype=release
  ninja -C "$build" >/dev/null
  export GST_PLUGIN_PATH_1_0=$PWD/$build/gst
fi
if [ -z "$video" ]; then
  tests/fetch-data.sh >/dev/null
  video=${CLV_DATA_CACHE:-tests/data/cache}/franck.webm
fi
[ -r "$video" ] || { echo "faces-to-mqtt.sh: cannot read $video" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup () {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ -z "$broker" ]; then
  mosquitto=$(PATH=$PATH:/usr/sbin command -v mosquitto) \
    || { echo "faces-to-mqtt.sh: no mosquitto broker: install Debian's mosquitto" >&2; exit 1; }
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # No cap on the records kept for the subscriber's session.
  printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser %s\nmax_queued_messages 0\n' \
    "$port" "$(id -un)" > "$tmp/mosquitto.conf"
  "$mosquitto" -c "$tmp/mosquitto.conf" 2> "$tmp/broker.log" &
  pids+=($!)
  broker=127.0.0.1:$port
  up=0
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && { up=1; break; }
    sleep 0.1
  done
  [ $up = 1 ] || { echo "faces-to-mqtt.sh: the mosquitto broker ($mosquitto) did not start; its log:" >&2
                   cat "$tmp/broker.log" >&2; exit 1; }
  echo "Started a mosquitto broker on $broker (for this run only)"
fi
host=${broker%:*} port=${broker##*:}
[ "$host" != "$broker" ] || port=1883

# The subscriber's session is made first (clean-session off, QoS 1), so the
# broker keeps every record for it from then on; the subscriber then shows
# each record as it arrives (frame, time, faces) and keeps them in a file.
received=${out:-$tmp/received.jsonl}
client=faces-to-mqtt-$$
mosquitto_sub -h "$host" -p "$port" -c -i "$client" -q 1 -t "$topic" -E \
  || { echo "faces-to-mqtt.sh: cannot subscribe at $broker" >&2; exit 1; }
stdbuf -oL mosquitto_sub -h "$host" -p "$port" -c -i "$client" -q 1 -t "$topic" \
  -F '%p' > "$received" &
sub=$!
pids+=($sub)
tail -n +1 -f --pid=$sub "$received" | python3 -u -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    faces = ", ".join("(%d,%d %dx%d)" % (b["x"], b["y"], b["w"], b["h"])
                      for b in (roi["box"] for roi in r["rois"]))
    print("  received frame %3d  t=%6.3f s  %d face(s) %s"
          % (r["frame"], (r["pts"] or 0) / 1e9, len(r["rois"]), faces))
' &
show=$!
sent=${sent:-$tmp/sent.jsonl}

echo "Publishing the faces of $frames frames of $video to mqtt://$broker/$topic"
# The first frames are cut before decoding: identity eos-after (GStreamer
# 1.22) lets everything through once a buffer comes after its EOS, as one can
# from a decoder or a queue; parsebin's demuxer stops at the EOS.  The caps
# keep the video stream (not a sound track) for identity.
coded="video/x-vp8;video/x-vp9;video/x-h264;video/x-h265;video/x-av1;video/mpeg;video/x-theora;image/jpeg"
gst-launch-1.0 -q filesrc location="$video" ! parsebin ! capsfilter caps="$coded" ! \
  identity eos-after=$((frames + 1)) ! decodebin ! videoconvert ! vjfacedetect min-size=80x80 ! \
  roiexport mqtt-broker="$broker" mqtt-topic="$topic" source-name=faces-to-mqtt \
    location="$sent" ! fakesink
# roiexport's EOS waited until the broker took every record: the subscriber
# gets them within moments.
for _ in $(seq 100); do
  [ "$(wc -l < "$received")" -ge "$(wc -l < "$sent")" ] && break
  sleep 0.1
done
kill $sub; wait $show 2>/dev/null || true
python3 - "$received" "$sent" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
sent = sum(1 for _ in open(sys.argv[2]))
faces = sum(len(r["rois"]) for r in records)
if len(records) != sent:
    sys.exit("faces-to-mqtt.sh: %d of the %d records sent arrived" % (len(records), sent))
print("%d records received (one per frame), %d faces in all" % (len(records), faces))
EOF
[ -n "$out" ] && echo "The records are in $out"
exit 0
