#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""libgstclvision-1.0 from Python through its typelib (GstClvision-1.0):
a device and its properties, a face vjfacedetect found (its region and
detection, against OpenCV's), and a geotransform that sarmultilook mapped.
Run by meson with the build's typelib and library on GI_TYPELIB_PATH and
LD_LIBRARY_PATH, and its plugin on GST_PLUGIN_PATH_1_0."""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstClvision", "1.0")
from gi.repository import Gst, GstApp, GstClvision  # noqa: E402,F401

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def pull_one(description, push=None):
    """The first buffer out of `description` (an appsink named out), after
    pushing `push` into its appsrc named in, if given."""
    pipe = Gst.parse_launch(description)
    pipe.set_state(Gst.State.PLAYING)
    if push is not None:
        src = pipe.get_by_name("in")
        src.emit("push-buffer", push)
        src.emit("end-of-stream")
    sample = pipe.get_by_name("out").emit("pull-sample")
    pipe.set_state(Gst.State.NULL)
    return sample.get_buffer() if sample else None


def check_device():
    device = GstClvision.Device.new("first")
    check(device.get_name() == device.props.name and device.get_name(),
          "Device.new('first') has a name: " + device.props.description)
    check(device.is_same_context(device), "a device shares its own context")
    context = GstClvision.context_new(device)
    check(GstClvision.context_get_device(context) is not None,
          "a gst.opencl.context holds the device")


def check_face():
    data = os.environ["CLV_DATA_CACHE"]
    golden = os.path.join(os.environ["CLV_TEST_DATA"], "golden",
                          "grace_hopper.frontalface_default.s1.1.n3.txt")
    want = [line.split() for line in open(golden) if not line.startswith("#")]
    buf = pull_one(f"filesrc location={data}/grace_hopper.pgm ! pnmdec ! "
                   "vjfacedetect device=first ! appsink name=out")
    faces = GstClvision.buffer_get_roi_metas(buf, "face")
    check(len(faces) == len(want) == 1, f"{len(faces)} face, as OpenCV finds")
    roi = faces[0]
    check([roi.x, roi.y, roi.w, roi.h] == [int(v) for v in want[0][:4]],
          f"its box {roi.x},{roi.y} {roi.w}x{roi.h} is OpenCV's")
    found, det = GstClvision.roi_meta_get_detection(roi)
    neighbors = int(want[0][4])
    check(found and det.label == "face" and det.neighbors == neighbors,
          f"its detection: {det.label}, {det.neighbors} neighbors")
    check(abs(det.confidence - neighbors / (neighbors + 5.0)) < 1e-12
          and abs(det.x_min - roi.x / 512.0) < 1e-12,
          f"confidence {det.confidence:.3f}, x_min {det.x_min:.3f}")
    found, _ = GstClvision.roi_meta_get_recognition(roi)
    check(not found, "no recognition without eigenrecognise")


def check_geotransform():
    caps = ("video/x-raw,format=GRAY16_LE,width=8,height=6,"
            "framerate=1/1")
    buf = Gst.Buffer.new_wrapped(bytes(8 * 6 * 2))
    gt = [500000.0, 10.0, 0.0, 4000000.0, 0.0, -10.0]
    GstClvision.buffer_add_clv_geo_meta(buf, gt, "EPSG:32631")
    out = pull_one(f"appsrc name=in caps={caps} ! sarmultilook device=first "
                   "looks=2 ! appsink name=out", buf)
    geo = GstClvision.buffer_get_clv_geo_meta(out)
    check(geo is not None and geo.wkt == "EPSG:32631",
          "the frame keeps its georeferencing through sarmultilook")
    found, mapped = geo.get_geotransform()
    check(found and list(mapped) == [500000.0, 20.0, 0.0, 4000000.0, 0.0,
                                     -20.0],
          f"its pixels are twice as large: {list(mapped)}")
    check(geo.get_gcp(0) is None, "no ground control points")


def main():
    Gst.init(None)
    check_device()
    check_face()
    check_geotransform()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
