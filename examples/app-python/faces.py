#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the faces clvision finds in an image or a video (PyGObject).

    faces.py [--model MODEL.yml] [--max-frames N] FILE

Runs  filesrc ! decodebin ! videoconvert ! vjfacedetect
      [! eigenrecognise model=MODEL.yml] ! fakesink
and reads, in a pad probe on fakesink, each frame's face regions with what
vjfacedetect and eigenrecognise found, through clvision's library
(GstClvision, gi.repository).  Needs Debian's python3-gi and
gir1.2-gst-plugins-base-1.0, and clvision installed (its plugin, and
GstClvision-1.0.typelib where GObject Introspection looks, or on
GI_TYPELIB_PATH).  Prints exactly what examples/app-c prints.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstClvision", "1.0")
from gi.repository import GLib, Gst, GstClvision  # noqa: E402


def face_line(index, roi):
    line = f"  face {index}: x={roi.x} y={roi.y} w={roi.w} h={roi.h}"
    found, det = GstClvision.roi_meta_get_detection(roi)
    if found:
        line += f" neighbors={det.neighbors} confidence={det.confidence:.3f}"
    found, rec = GstClvision.roi_meta_get_recognition(roi)
    if found:
        line += (f" name={rec.label} label_id={rec.label_id}"
                 f" distance={rec.distance:.1f}"
                 f" recognition_confidence={rec.confidence:.3f}")
    return line


def time_args(t):
    """GST_TIME_FORMAT, as the C example prints it."""
    if t == Gst.CLOCK_TIME_NONE:
        return "99:99:99.999999999"
    return "%u:%02u:%02u.%09u" % (t // (3600 * Gst.SECOND),
                                  t // (60 * Gst.SECOND) % 60,
                                  t // Gst.SECOND % 60, t % Gst.SECOND)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="Eigenface model: name the faces")
    ap.add_argument("--max-frames", type=int, default=0,
                    help="stop after N frames (0: the whole file)")
    ap.add_argument("file")
    args = ap.parse_args()

    Gst.init(None)
    pipeline = Gst.Pipeline.new("faces")
    names = ["filesrc", "decodebin", "videoconvert", "vjfacedetect"]
    if args.model:
        names.append("eigenrecognise")
    names.append("fakesink")
    elements = []
    for name in names:
        element = Gst.ElementFactory.make(name, None)
        if element is None:
            sys.exit(f"The GStreamer element {name} is missing (clvision's "
                     "plugin not installed or not on GST_PLUGIN_PATH_1_0?)")
        pipeline.add(element)
        elements.append(element)
    src, decode, convert = elements[:3]
    src.set_property("location", args.file)
    if args.model:
        elements[4].set_property("model", args.model)
    src.link(decode)
    # decodebin's pad appears once it knows what the file holds.
    decode.connect("pad-added",
                   lambda _, pad: pad.link(convert.get_static_pad("sink")))
    for upstream, downstream in zip(elements[2:], elements[3:]):
        upstream.link(downstream)

    loop = GLib.MainLoop()
    frames = 0

    def print_faces(pad, info):
        nonlocal frames
        buf = info.get_buffer()
        faces = GstClvision.buffer_get_roi_metas(buf, "face")
        print(f"frame {frames} pts {time_args(buf.pts)}: {len(faces)} "
              f"face{'' if len(faces) == 1 else 's'}")
        for index, roi in enumerate(faces):
            print(face_line(index, roi))
        sys.stdout.flush()
        frames += 1
        if frames == args.max_frames:
            GLib.idle_add(loop.quit)
        return Gst.PadProbeReturn.OK

    elements[-1].get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER,
                                                  print_faces)
    status = 0

    def on_message(_, msg):
        nonlocal status
        if msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"Error from {msg.src.get_name()}: {err.message}\n{debug}",
                  file=sys.stderr)
            status = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return status


if __name__ == "__main__":
    sys.exit(main())
