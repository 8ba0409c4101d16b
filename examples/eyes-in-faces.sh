#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Detection inside detections: faces in a photograph, then eyes (or any
# other cascade) inside each face, as OpenCV would find them on each face's
# crop; every eye's record names its face (parent_id).  Writes the records
# as JSON Lines and the photograph with the boxes drawn (faces green, eyes
# red), and prints each face with its eyes.
#
#   examples/eyes-in-faces.sh [--cascade FILE] [--parent-cascade FILE]
#                             [--out DIR] [PHOTO]
#
# PHOTO: any picture GStreamer decodes (default: Grace Hopper's portrait of
# tests/fetch-data.sh).  --cascade: what to find inside (default OpenCV's
# eye cascade; haarcascade_smile.xml finds smiles), --parent-cascade: the
# parents (default vjfacedetect's frontal faces; an LBP cascade works too).
# GST_PLUGIN_PATH_1_0 must reach the clvision plugin unless it is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
haar=${CLVISION_CASCADE_DIR:-/usr/share/opencv4/haarcascades}
cascade=$haar/haarcascade_eye.xml
parent=$haar/haarcascade_frontalface_default.xml
out=.
photo=tests/data/cache/grace_hopper_512x512.jpg
while [ $# -gt 0 ]; do
  case $1 in
    --cascade) cascade=$2; shift 2 ;;
    --parent-cascade) parent=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "usage: $0 [--cascade FILE] [--parent-cascade FILE] [--out DIR] [PHOTO]" >&2
        exit 2 ;;
    *) photo=$1; shift ;;
  esac
done
[ -f "$photo" ] || { echo "cannot read the photograph $photo" >&2; exit 1; }
mkdir -p "$out"
name=$(basename "${photo%.*}")
records=$out/$name.jsonl
picture=$out/$name-annotated.png
rm -f "$records"
gst-launch-1.0 -q filesrc location="$photo" ! decodebin ! videoconvert ! \
  video/x-raw,format=I420 ! imagefreeze num-buffers=1 ! \
  cascadedetect cascade="$parent" label=face ! \
  cascadedetect cascade="$cascade" parent=face ! \
  roiexport location="$records" ! roioverlay thickness=2 ! videoconvert ! \
  pngenc ! filesink location="$picture"
python3 - "$records" <<'EOF'
import json, sys
record = json.loads(open(sys.argv[1]).readline())
rois = record["rois"]
for p in (r for r in rois if r["parent_id"] < 0):
    b = p["box"]
    kids = [r for r in rois if r["parent_id"] == p["id"]]
    print("%s %d: x=%d y=%d w=%d h=%d, %d inside" % (p["roi_type"], p["id"],
          b["x"], b["y"], b["w"], b["h"], len(kids)))
    for k in kids:
        b = k["box"]
        print("  %s %d: x=%d y=%d w=%d h=%d" % (k["roi_type"], k["id"],
              b["x"], b["y"], b["w"], b["h"]))
EOF
echo "records: $records"
echo "picture: $picture"
