#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames of one size (SIDE x SIDE, grey 128) holding 0, 1, 2, 4, 8 and 16
copies of a photograph in a 4 x 4 grid, as OUTDIR/faces-NN.pgm: detection
cost against faces per frame (report.sh) and the crowded frame (gpu-run.sh).

    face-canvases.py PHOTO.pgm SIDE OUTDIR
"""
import os
import sys
src, side, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(outdir, exist_ok=True)
data = open(src, "rb").read()
fields, pos = [], 0
while len(fields) < 4:
    while data[pos:pos + 1].isspace(): pos += 1
    if data[pos:pos + 1] == b"#":
        pos = data.index(b"\n", pos); continue
    end = pos
    while not data[end:end + 1].isspace(): end += 1
    fields.append(data[pos:end]); pos = end
pos += 1
w, h = int(fields[1]), int(fields[2])
px = data[pos:pos + w * h]
cell = side // 4
tw, th = min(w, cell), min(h, cell)
for n in (0, 1, 2, 4, 8, 16):
    canvas = bytearray([128]) * (side * side)
    for k in range(n):
        cy, cx = divmod(k, 4)
        for y in range(th):
            o = (cy * cell + y) * side + cx * cell
            canvas[o:o + tw] = px[y * w:y * w + tw]
    with open("%s/faces-%02d.pgm" % (outdir, n), "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (side, side)); f.write(canvas)
