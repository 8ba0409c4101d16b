#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Redaction hides faces from a face detector.

  check-redaction.py photos WORKDIR [ROIOVERLAY-PROPERTIES]
      The test photographs (Grace Hopper, the astronaut, three frames of
      franck.webm): vjfacedetect, roioverlay mode=blur / pixelate / fill,
      and vjfacedetect again on the redacted frame finds no face inside a
      redacted box.
  check-redaction.py video WORKDIR [ROIOVERLAY-PROPERTIES]
      The same on franck.webm, five frames a second (every fifth frame,
      1000 frames over the whole video).

A face counts as inside a redacted box when at least half of its box is.
The second detector runs with 3 neighbours (OpenCV's default), the most
willing to see a face; on the video, whose face is 160-190 pixels, the
first looks for faces of 96 pixels or more and the second of 48 or more
(a smaller face inside a redacted box would show little).  Runs gst-launch-1.0 from PATH with the environment
it is given (meson's test environment loads the freshly built plugin).
"""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("CLV_DATA_CACHE",
                       os.path.join(HERE, "..", "data", "cache"))
MODES = ("blur", "pixelate", "fill")
PHOTOS = ("grace_hopper_512x512.jpg", "astronaut.png", "franck-1000.pgm",
          "franck-2500.pgm", "franck-4000.pgm")
DETECT = "vjfacedetect post-messages=false"


def inside(face, box):
    """The share of `face`'s area inside `box` (x, y, w, h)."""
    ix = min(face[0] + face[2], box[0] + box[2]) - max(face[0], box[0])
    iy = min(face[1] + face[3], box[1] + box[3]) - max(face[1], box[1])
    return max(ix, 0) * max(iy, 0) / (face[2] * face[3])


def grown(box, grow):
    """The box roioverlay redacts: grown about its centre, outward to
    whole pixels."""
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    hw, hh = box[2] * grow / 2, box[3] * grow / 2
    x0, y0 = math.floor(cx - hw), math.floor(cy - hh)
    return (x0, y0, math.ceil(cx + hw) - x0, math.ceil(cy + hh) - y0)


def boxes(roi_list):
    return [(r["box"]["x"], r["box"]["y"], r["box"]["w"], r["box"]["h"])
            for r in roi_list]


def check(before, after, grow, name):
    """`before` and `after`: roiexport's records ahead of the redaction and
    after the second detector (whose faces follow the first's)."""
    frames = found = 0
    with open(before) as fb, open(after) as fa:
        for lb, la in zip(fb, fa):
            first = json.loads(lb)["rois"]
            second = boxes(json.loads(la)["rois"][len(first):])
            redacted = [grown(b, grow) for b in boxes(first)]
            frames += 1
            for face in second:
                for box in redacted:
                    share = inside(face, box)
                    assert share < 0.5, (
                        f"{name}: frame {json.loads(lb)['frame']}: face "
                        f"{face} found again, {share:.0%} inside the "
                        f"redacted box {box}")
            found += len(first)
    print(f"{name}: {frames} frames, {found} faces redacted, none found "
          f"again inside a redacted box")
    assert found > 0


def run(source, work, tag, props, grow, sizes=("", "")):
    """One decode; per mode: detect, redact, record, detect again."""
    pipe = f"{source} ! tee name=t"
    outs = []
    for mode in MODES:
        before = os.path.join(work, f"{tag}-{mode}-1.jsonl")
        after = os.path.join(work, f"{tag}-{mode}-2.jsonl")
        pipe += (f" t. ! queue ! {DETECT} {sizes[0]} ! roioverlay mode={mode} "
                 f"{props} ! roiexport location={before} ! {DETECT} "
                 f"{sizes[1]} ! roiexport location={after} ! fakesink")
        outs.append((before, after, f"{tag} mode={mode}"))
    subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(), check=True)
    for before, after, name in outs:
        check(before, after, grow, name)


def main():
    what, work = sys.argv[1], sys.argv[2]
    props = " ".join(sys.argv[3:])
    grow = 1.0
    for p in sys.argv[3:]:
        if p.startswith("grow="):
            grow = float(p.split("=")[1])
    os.makedirs(work, exist_ok=True)
    decode = "decodebin ! videoconvert ! video/x-raw,format=I420"
    if what == "photos":
        for photo in PHOTOS:
            run(f"filesrc location={os.path.join(CACHE, photo)} ! {decode} "
                f"! imagefreeze num-buffers=1", work, photo, props, grow)
    elif what == "video":
        run(f"filesrc location={os.path.join(CACHE, 'franck.webm')} ! "
            f"{decode} ! videorate drop-only=true max-rate=5", work,
            "franck.webm", props, grow, ("min-size=96x96", "min-size=48x48"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
