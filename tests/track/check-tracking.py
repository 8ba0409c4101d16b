#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tracking accuracy of vjfacedetect ! roitrack, end to end.

  check-tracking.py synthetic WORKDIR
      The video of make-video.py (known trajectories): IDF1 >= 0.95 with
      detection on every frame and >= 0.9 with interval=3, no identifier
      given to two tracks, every box gone within max-lost frames of its
      face leaving the picture or hiding for good.
  check-tracking.py franck WORKDIR
      franck.webm at min-neighbors=20 (one face a frame): one identifier for
      the whole video; with interval=5 the boxes of the frames between
      detections overlap the every-frame detections at IoU >= 0.7 on at
      least 95% of those frames.
  check-tracking.py sweep WORKDIR MAX_LOST...
      IDF1 of the synthetic video for each max-lost (measurement, no check).

IDF1 (Ristani, Solera, Zou, Cucchiara, Tomasi, "Performance Measures and a
Data Set for Multi-Target, Multi-Camera Tracking"): each true trajectory is
paired with at most one tracker identifier so that the frames where they
agree (IoU >= 0.5) are as many as possible (IDTP);
IDF1 = 2 IDTP / (true boxes + tracker boxes).

Runs gst-launch-1.0 from PATH with the environment it is given (meson's
test environment loads the freshly built plugin).
"""
import json
import os
import subprocess
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("CLV_DATA_CACHE",
                       os.path.join(HERE, "..", "data", "cache"))
MAX_LOST = None       # the element's default, read with gst-inspect
DETECT = "vjfacedetect post-messages=false min-size=48x48 min-neighbors=12"


def run(pipeline):
    cmd = ["gst-launch-1.0", "-q"] + pipeline.split()
    subprocess.run(cmd, check=True)


def default_max_lost():
    out = subprocess.run(["gst-inspect-1.0", "roitrack"], check=True,
                         capture_output=True, text=True).stdout
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("max-lost"):
            for follow in lines[i:i + 6]:
                if "Default:" in follow:
                    return int(follow.split("Default:")[1].split()[0])
    sys.exit("gst-inspect-1.0 roitrack shows no max-lost default")


def read_tracks(path):
    """{frame: [(id, (x, y, w, h), predicted)]} from roiexport's records."""
    frames = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            out = frames.setdefault(rec["frame"], [])
            for roi in rec["rois"]:
                t = roi["tracking"]
                b = roi["box"]
                out.append((t["id"], (b["x"], b["y"], b["w"], b["h"]),
                            t["predicted"]))
    return frames


def iou(a, b):
    ix = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    iy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    inter = ix * iy
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def idf1(truth, frames):
    gt_ids = sorted({b[1] for b in truth})
    tr_ids = sorted({t[0] for rois in frames.values() for t in rois})
    agree = np.zeros((len(gt_ids), len(tr_ids)))
    gi = {g: i for i, g in enumerate(gt_ids)}
    ti = {t: i for i, t in enumerate(tr_ids)}
    for frame, oid, x, y, w, h in truth:
        for tid, box, _ in frames.get(frame, []):
            if iou((x, y, w, h), box) >= 0.5:
                agree[gi[oid], ti[tid]] += 1
    rows, cols = linear_sum_assignment(-agree)
    idtp = agree[rows, cols].sum()
    n_tr = sum(len(r) for r in frames.values())
    return 2 * idtp / (len(truth) + n_tr)


def check_ids_unique(frames, name):
    """An identifier's frames are one run: once gone, never given again."""
    seen = {}
    for frame in sorted(frames):
        for tid, _, _ in frames[frame]:
            seen.setdefault(tid, []).append(frame)
    for tid, fs in seen.items():
        assert fs == list(range(fs[0], fs[-1] + 1)), \
            f"{name}: identifier {tid} on frames {fs[0]}-{fs[-1]} with gaps"
    firsts = [seen[t][0] for t in sorted(seen)]
    assert firsts == sorted(firsts), f"{name}: identifiers out of order"


def check_exits(truth, frames, exits, limit, name):
    """The tracker identifier that followed a face is gone `limit` frames
    after the last frame any of the face shows on."""
    for oid, last in exits.items():
        # The identifier that agreed with the face on its last fully
        # visible frame.
        seen = max(b[0] for b in truth if b[1] == int(oid))
        box = next(b[2:] for b in truth if b[1] == int(oid) and b[0] == seen)
        tid = max(frames.get(seen, []), key=lambda t: iou(box, t[1]))[0]
        shown = [f for f, rois in frames.items() if f > last
                 and any(t[0] == tid for t in rois)]
        after = max(shown) - last if shown else 0
        print(f"{name}: face {oid} left after frame {last}, its box "
              f"{tid} shown {after} frames more (limit {limit})")
        assert after <= limit, f"{name}: box {tid} lingers {after} frames"


def synthetic_run(work, branches):
    """Runs the video once through one detector per interval and a tracker
    per (interval, max-lost); returns {(interval, max_lost): frames}."""
    video = os.path.join(work, "video.gray")
    subprocess.run([sys.executable, os.path.join(HERE, "make-video.py"),
                    work, "--cache", CACHE], check=True)
    with open(os.path.join(work, "truth.json")) as f:
        truth = json.load(f)
    pipe = (f"filesrc location={video} ! rawvideoparse format=gray8 "
            f"width={truth['width']} height={truth['height']} "
            f"framerate={truth['fps']}/1 ! tee name=src")
    outs = {}
    for interval in sorted({i for i, _ in branches}):
        pipe += (f" src. ! queue ! {DETECT} interval={interval} ! "
                 f"tee name=d{interval}")
        for i, max_lost in branches:
            if i != interval:
                continue
            path = os.path.join(work, f"i{interval}-m{max_lost}.jsonl")
            outs[(i, max_lost)] = path
            pipe += (f" d{interval}. ! queue ! roitrack max-lost={max_lost} "
                     f"! roiexport location={path} ! fakesink")
    run(pipe)
    return truth, {k: read_tracks(p) for k, p in outs.items()}


def synthetic(work):
    max_lost = default_max_lost()
    truth, runs = synthetic_run(work, [(1, max_lost), (3, max_lost)])
    for interval, want in ((1, 0.95), (3, 0.9)):
        frames = runs[(interval, max_lost)]
        name = f"interval={interval}"
        score = idf1(truth["boxes"], frames)
        print(f"{name}: IDF1 {score:.4f} (at least {want})")
        check_ids_unique(frames, name)
        check_exits(truth["boxes"], frames, truth["exits"], max_lost, name)
        assert score >= want, f"{name}: IDF1 {score:.4f} below {want}"


def sweep(work, values):
    branches = [(i, m) for i in (1, 3) for m in values]
    truth, runs = synthetic_run(work, branches)
    for (interval, max_lost), frames in sorted(runs.items()):
        print(f"interval={interval} max-lost={max_lost}: IDF1 "
              f"{idf1(truth['boxes'], frames):.4f}")


def franck(work):
    video = os.path.join(CACHE, "franck.webm")
    every = os.path.join(work, "franck-1.jsonl")
    fifth = os.path.join(work, "franck-5.jsonl")
    # The face is 160-190 pixels: a smaller min-size only costs time.
    det = "vjfacedetect post-messages=false min-neighbors=20 min-size=96x96"
    run(f"filesrc location={video} ! decodebin ! videoconvert ! "
        f"video/x-raw,format=GRAY8 ! tee name=t "
        f"t. ! queue ! {det} ! roitrack ! roiexport location={every} ! "
        f"fakesink t. ! queue ! {det} interval=5 ! roitrack ! "
        f"roiexport location={fifth} ! fakesink")
    ones, fives = read_tracks(every), read_tracks(fifth)
    for frames, name in ((ones, "interval=1"), (fives, "interval=5")):
        ids = {t[0] for rois in frames.values() for t in rois}
        multi = sum(1 for rois in frames.values() if len(rois) > 1)
        print(f"{name}: {len(frames)} frames, identifiers {sorted(ids)}, "
              f"{multi} frames with more than one box")
        assert ids == {1}, f"{name}: identifiers {sorted(ids)}, not one"
        assert multi == 0
    overlaps = []
    for frame, rois in fives.items():
        det = [t for t in ones.get(frame, []) if not t[2]]
        if frame % 5 != 0 and det:
            assert rois and rois[0][2], f"frame {frame}: no predicted box"
            overlaps.append(iou(rois[0][1], det[0][1]))
    good = sum(1 for o in overlaps if o >= 0.7) / len(overlaps)
    print(f"interval=5: {len(overlaps)} frames between detections, "
          f"{100 * good:.1f}% at IoU >= 0.7 with the detections, "
          f"lowest {min(overlaps):.3f}")
    assert good >= 0.95


def main():
    what, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    if what == "synthetic":
        synthetic(work)
    elif what == "franck":
        franck(work)
    elif what == "sweep":
        sweep(work, [int(v) for v in sys.argv[3:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
