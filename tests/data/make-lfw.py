#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turns Debian python3-skimage's lfw_subset.npy into 8-bit PGMs.

lfw_subset.npy holds 200 float64 images of 25x25 in [0, 1]: 100 LFW face
crops, then 100 non-faces.  They are written (value * 255 rounded) as

  OUT/faces/<label>/<nn>.pgm   face i gets label i // 10 (10 labels of
                               10 faces; LFW identities are not given, so
                               the labels are assigned, not true names)
  OUT/nonfaces/<nn>.pgm        the 100 non-faces
  OUT/train.txt                "path label name" for faces 0-6 of a label
  OUT/test.txt                 "path label" for faces 7-9 of each label,
                               then the first 20 non-faces (label -1)

Only the standard library is used, so any python3 runs it.
"""
import argparse
import ast
import os
import struct
import sys

DEFAULT_NPY = "/usr/lib/python3/dist-packages/skimage/data/lfw_subset.npy"
FACES_PER_LABEL = 10
TRAIN_PER_LABEL = 7
NONFACE_PROBES = 20


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (hlen,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f8" or header["fortran_order"]:
        sys.exit(f"{path}: expected little-endian float64 in C order")
    n, h, w = header["shape"]
    values = struct.unpack_from(f"<{n * h * w}d", data, start + hlen)
    return n, w, h, values


def write_pgm(path, w, h, pixels):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(bytes(pixels))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npy", default=DEFAULT_NPY)
    ap.add_argument("--stamp", help="file to touch when done")
    ap.add_argument("out", help="output directory, e.g. tests/data/cache/lfw")
    args = ap.parse_args()

    if not os.path.exists(args.npy):
        sys.exit(f"{args.npy} is missing: install Debian python3-skimage")
    n, w, h, values = read_npy(args.npy)
    if n != 200:
        sys.exit(f"{args.npy}: expected 200 images, found {n}")
    out = os.path.abspath(args.out)
    train, test = [], []
    size = w * h
    for i in range(n):
        px = [min(255, max(0, int(v * 255 + 0.5)))
              for v in values[i * size:(i + 1) * size]]
        if i < 100:
            label, nn = divmod(i, FACES_PER_LABEL)
            d = os.path.join(out, "faces", str(label))
            path = os.path.join(d, f"{nn:02d}.pgm")
            if nn < TRAIN_PER_LABEL:
                train.append(f"{path} {label} person{label}")
            else:
                test.append(f"{path} {label}")
        else:
            d = os.path.join(out, "nonfaces")
            path = os.path.join(d, f"{i - 100:02d}.pgm")
            if i - 100 < NONFACE_PROBES:
                test.append(f"{path} -1")
        os.makedirs(d, exist_ok=True)
        write_pgm(path, w, h, px)
    with open(os.path.join(out, "train.txt"), "w") as f:
        f.write("\n".join(train) + "\n")
    with open(os.path.join(out, "test.txt"), "w") as f:
        f.write("\n".join(test) + "\n")
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write(out + "\n")


if __name__ == "__main__":
    main()
