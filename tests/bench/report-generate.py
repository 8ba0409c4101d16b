#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/performance.md and its plots from the raw JSON of tests/bench/report.sh.

    python3 tests/bench/report-generate.py GPU_DIR [--pocl DIR]
        [--facedetect FILE] [--streams FILE] [--doc docs/performance.md]
        [--plots docs/bench/plots]

GPU_DIR is report.sh's output on the GPU machine; --pocl the output of a
run here on PoCL (usually STEPS="tune vj" with small sizes); --facedetect
the JSON of tests/bench/facedetect-cpu.sh (GStreamer's facedetect, measured
on this machine's CPU); --streams the JSON of tests/bench/bench-streams
(`gpu-run.sh streams`: concurrent pipelines, batching on and off), plotted
with its own command and device.  The generated part of the document lies between the
two `report-generate` markers; everything after the end marker (earlier
measurements written by hand) is kept as it is.  Figures missing from the
JSON (a failed step) are reported as missing, never filled in.

Needs python3-matplotlib (Debian).
"""
import argparse
import glob
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BEGIN = "<!-- report-generate: begin (tests/bench/report-generate.py writes this part) -->"
END = "<!-- report-generate: end -->"

# The seed paper's speedups of its optimised kernels over its naive ones on
# an ARM Mali-T860 (sar-mali-opencl, figures 7-10, 512² to 4096²).  The
# paper gives no bandwidth figures, so these are what can stand next to ours.
MALI = {
    "multilook": "45-62x over naive (scale 4), 17-33x (scale 16)",
    "rotscale": "48-74x over naive (30°, x1.5)",
    "quantize": "31-33x over naive (coef 35)",
}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(v, nd=2):
    if v is None or isinstance(v, (list, dict)) or v is False:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return f"{v:,}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) < 1:
        return f"{v:.3g}"
    return f"{v:.{nd}f}"


def same_copy_cells(r):
    """The same-traffic copy's time and the kernel's speed relative to it."""
    c = r.get("same_traffic_copy_ms")
    if c is None:
        return ("n/a", "n/a")
    return (c, f"{100 * r['kernel_vs_same_traffic_copy']:.0f}%")


def same_copy(rs):
    """' (a copy of the same bytes: ...)' for the targets table, if measured."""
    xs = [r.get("kernel_vs_copy", r.get("traffic_vs_copy", 0)) * r["kernel_ms"] /
          r["same_traffic_copy_ms"] for r in rs if r.get("same_traffic_copy_ms")]
    if not xs:
        return ""
    return (" (one copy moving the same bytes: " +
            ", ".join(f"{100 * x:.0f}%" for x in xs) + " of copy bandwidth)")


def quantize_default(bench, gpu=True):
    """The step of bench-sar3's quantize sweep that is the device's default."""
    want = "GPU default" if gpu else "CPU default"
    steps = (bench.get("quantize") or {}).get("steps", [])
    return [r for r in steps if want in r.get("step", "")][:1]


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(fmt(c) for c in r) + " |")
    return "\n".join(out) + "\n"


class Report:
    def __init__(self, args):
        self.d = args.gpu_dir
        self.pocl = args.pocl
        self.plots = args.plots
        self.doc = args.doc
        self.face = load(args.facedetect) if args.facedetect else None
        self.streams_json = load(args.streams) if args.streams else None
        self.streams_path = args.streams
        self.meta = load(os.path.join(self.d, "report-meta.json")) or {}
        self.out = []
        os.makedirs(self.plots, exist_ok=True)

    def j(self, name, d=None):
        return load(os.path.join(d or self.d, name))

    def w(self, s=""):
        self.out.append(s)

    def plot(self, name, title, xlabel, ylabel, series, logx=False, logy=False):
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        for label, xs, ys in series:
            if xs:
                ax.plot(xs, ys, marker="o", label=label)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(self.plots, name)
        fig.savefig(path)
        plt.close(fig)
        rel = os.path.relpath(path, os.path.dirname(self.doc))
        self.w(f"![{title}]({rel})\n")

    # ---- sections --------------------------------------------------------
    def header(self):
        m = self.meta
        dev = None
        for name in ("sar-default-4096.json", "tune.json"):
            dev = dev or self.j(name)
        if dev is None:
            files = sorted(glob.glob(os.path.join(self.d, "sar-default-*.json")))
            dev = load(files[0]) if files else {}
        self.device = dev.get("device", m.get("gpu", "?"))
        self.w("# Performance\n")
        self.w(BEGIN + "\n")
        self.w("Generated by `python3 tests/bench/report-generate.py` from the raw "
               "JSON that one run of `tests/bench/report.sh` wrote (`docs/bench/"
               f"{os.path.basename(os.path.normpath(self.d))}/`; its `report-meta.json` "
               "holds the exact settings).\n")
        rows = [
            ("device", f"{self.device} ({dev.get('platform', '?')}, "
             f"{dev.get('compute_units', '?')} compute units)"),
            ("driver", dev.get("driver", m.get("nvidia_driver", "?"))),
            ("host CPU", f"{m.get('cpu', '?')}, {m.get('cpu_threads', '?')} threads"),
            ("date", m.get("date", "?")),
            ("command", f"`{m.get('command', 'tests/bench/report.sh')}` "
             "(on the GPU machine, see below)"),
            ("commit", m.get("commit", "?")),
        ]
        if m.get("quick"):
            rows.append(("mode", "QUICK=1: plumbing check with tiny sizes, not a measurement"))
        self.w(table(["", ""], rows))
        steps = m.get("steps", [])
        if steps:
            self.w("Steps of the run: " + ", ".join(
                f"{s['step']} {s['seconds']:.0f} s" + ("" if s["rc"] == 0 else
                                                      f" (**failed, rc {s['rc']}**)")
                for s in steps) + ".\n")
        self.w("""How to reproduce:

```sh
tests/bench/gpu-prepare.sh            # here: runtime, release build, OpenCV oracle bundle
# GPU machine, carrying .device/ and tests/data/cache (4.5 to 6 minutes on an H100):
source .device/setup.sh; tests/bench/report.sh .device/build "$OUT"
tests/bench/gpu-run.sh streams        # concurrent pipelines: $OUT/bench-streams.json
# here, with the JSON back (and the PoCL run and facedetect of this machine):
STEPS="tune vj" QUICK=1 tests/bench/report.sh build pocl-out
tests/bench/facedetect-cpu.sh > docs/bench/facedetect-cpu.json
/usr/bin/python3 tests/bench/report-generate.py OUT --pocl pocl-out \
  --facedetect docs/bench/facedetect-cpu.json --streams OUT/bench-streams.json
```

(`/usr/bin/python3`: Debian's, with python3-matplotlib.)  The run here
copies its JSON to `docs/bench/report-h100/` and `docs/bench/report-pocl/`.
""")

    def correctness(self):
        self.w("## Every kernel against its C reference, in this run\n")
        lines = []
        t = os.path.join(self.d, "tests.txt")
        if os.path.exists(t):
            txt = open(t).read().strip().splitlines()
            lines.append("Equivalence tests on the device (GPU output compared "
                         "with the C reference): " + (txt[-1] if txt else "no output"))
        checks = []
        for name in sorted(glob.glob(os.path.join(self.d, "sar3-*.json"))):
            d = load(name) or {}
            for r in d.get("rotscale", []):
                checks.append(("rotscale", os.path.basename(name),
                               r.get("pixels_unlike_reference")))
            for r in (d.get("quantize") or {}).get("steps", []):
                checks.append(("quantize", os.path.basename(name),
                               r.get("pixels_unlike_reference")))
        vj_bad = vj_n = 0
        for name in ("vj-default.json", "vj-faces.json", "vj-tuned.json"):
            for f in (self.j(name) or {}).get("frames", []):
                for v in [f.get("uber"), f.get("simple")] + f.get("tunings", []):
                    if v and "equal_to_reference" in v:
                        vj_n += 1
                        vj_bad += not v["equal_to_reference"]
        if checks:
            bad = [c for c in checks if c[2] not in (0, None)]
            lines.append(f"SAR benchmarks: {len(checks)} rotscale/quantize runs "
                         f"compared pixel by pixel with the C reference, "
                         f"{len(bad)} unequal.")
        if vj_n:
            lines.append(f"Detection benchmarks: {vj_n} runs (every frame, variant "
                         f"and tuning) compared with the C reference's faces, "
                         f"{vj_bad} unequal.")
        tune = self.j("tune.json")
        if tune:
            lines.append("clvision-tune kept only candidates whose output equals "
                         "the defaults' byte for byte.")
        self.w("\n".join(f"- {x}" for x in lines) + "\n" if lines else
               "Not measured in this run.\n")

    def targets(self):
        self.w("## The targets of issue 12\n")
        rows = []
        ml = self.j("sar-tuned-4096.json") or self.j("sar-default-4096.json")
        if ml:
            mls = ml.get("multilook", [])
            fr = [r["kernel_vs_copy"] for r in mls]
            rows.append(("multilook ≥ 85% of copy bandwidth, looks 2–16, 4096²",
                         ", ".join(f"{100 * x:.0f}%" for x in fr) + same_copy(mls),
                         "met" if fr and min(fr) >= 0.85 else "not met"))
        s3 = self.j("sar3-tuned-4096.json") or self.j("sar3-default-4096.json")
        if s3:
            rb = [r for r in s3.get("rotscale", [])
                  if r.get("interpolation") == "bilinear" and not r.get("CLVISION_TUNE")]
            if rb:
                x = rb[0]["kernel_vs_copy"]
                rn = [r for r in s3.get("rotscale", [])
                      if r.get("interpolation") == "nearest" and not r.get("CLVISION_TUNE")]
                near = "" if not rn else (
                    f"; nearest, one gather a pixel instead of four: "
                    f"{100 * rn[0]['kernel_vs_copy']:.0f}%")
                rows.append(("rotscale bilinear ≥ 60%", f"{100 * x:.0f}%" + same_copy(rb[:1]) + near,
                             "met" if x >= 0.6 else "not met"))
            qd = quantize_default(s3)
            if qd:
                x = qd[0]["traffic_vs_copy"]
                rd = s3["quantize"].get("read_frame_ms")
                floor = "" if rd is None else (
                    "; its passes " + " + ".join(f"{1e3 * t:.1f}" for t in qd[0]["launch_ms"]) +
                    f" µs, where one launch that only reads the frame takes {1e3 * rd:.1f} µs")
                rows.append(("quantize ≥ 70% of its minimum traffic",
                             f"{100 * x:.0f}%" + same_copy(qd[:1]) + floor,
                             "met" if x >= 0.7 else "not met"))
        ch = self.j("chain-tuned.json") or self.j("chain-default.json")
        if ch:
            # The source either writes into the pool the first element
            # proposes (system_pool: what GStreamer sources and decoders do)
            # or hands over its own malloc'd frames (system).
            modes = ch["modes"]
            pool = modes.get("system_pool", {}).get("fps")
            fps = modes["system"]["fps"]
            measured = f"{fps:,.0f} frames/s from malloc'd frames"
            if pool is not None:
                measured = (f"{pool:,.0f} frames/s with a source writing into "
                            f"the proposed pool; " + measured)
            rows.append(("SAR chain in system memory ≥ 650 frames/s", measured,
                         "met with the pool" if (pool or 0) >= 650 and fps < 650
                         else "met" if fps >= 650 else "not met"))
        vj = self.j("vj-default.json")
        if vj:
            r = [f["uber_vs_opencv"] for f in vj.get("frames", [])
                 if f.get("width") == 1920 and f.get("height") == 1400
                 and "uber_vs_opencv" in f]
            if r:
                rows.append(("vjfacedetect ≥ 30× OpenCV (16 threads), 1920×1400",
                             f"{min(r):.1f}–{max(r):.1f}×",
                             "met" if min(r) >= 30 else "not met"))
        self.w(table(["target", "measured", ""], rows) if rows else "No SAR or detection figures in this run.\n")
        self.w("Where a target is not met, the section \"Issue 12 items 1–2 on "
               "the H100\" below gives the measured gap, what was tried and why "
               "it falls short.\n")

    def peers(self):
        self.w("## Peers in the same run\n")
        vj = self.j("vj-default.json")
        if vj:
            rows = []
            for f in vj.get("frames", []):
                o = f.get("opencv") or {}
                rows.append((f["frame"].replace(".pgm", ""), f"{f['width']}×{f['height']}",
                             f["uber"]["ms_median"], f["simple"]["ms_median"],
                             o.get("ms_median"), f.get("uber_vs_opencv")))
            self.w("**Detection** (`vjfacedetect`'s detector, wall time per frame "
                   "with upload, pyramid, detection, read-back and grouping; "
                   f"OpenCV {vj['frames'][0].get('opencv', {}).get('opencv_version', '4.6')} "
                   f"`detectMultiScale`, {vj.get('opencv_threads', 16)} threads, on the "
                   "GPU machine's CPU; scale 1.1, 3 neighbours):\n")
            self.w(table(["frame", "size", "ours ms", "simple variant ms",
                          "OpenCV ms", "ours vs OpenCV"], rows))
        if self.face:
            rows = [(f"{r['width']}×{r['height']}", r["ms_per_frame"],
                     1000 / r["ms_per_frame"] if r["ms_per_frame"] else None)
                    for r in self.face.get("runs", [])]
            self.w(f"**GStreamer's `facedetect`** ({self.face['element']}), whole "
                   "pipeline, **measured on the CPU machine**, not the GPU machine "
                   f"({self.face['cpu']}, {self.face['cpu_threads']} threads; "
                   f"{self.face['date']}; "
                   "`tests/bench/facedetect-cpu.sh`):\n")
            self.w(table(["frame", "ms per frame", "frames/s"], rows))
        eig = self.j("eigen.json")
        if eig and eig.get("opencv"):
            ours = {t["faces"]: t for t in eig["clvision_double"]["train"]}
            rows = []
            for r in eig["opencv"]["runs"]:
                t = ours.get(r["faces"])
                rows.append((r["faces"], r["components"], t and t["train_s"] * 1e3,
                             r["train_s"] * 1e3, t and r["train_s"] / t["train_s"],
                             r["predict_ms_per_face"]))
            self.w("**Eigenfaces** (training on M faces of 128², K = M/5; OpenCV "
                   "`EigenFaceRecognizer`, 16 threads, same faces):\n")
            self.w(table(["faces", "components", "ours ms (double)", "OpenCV ms",
                          "speed-up", "OpenCV predict ms/face"], rows))
            rec = eig["clvision_double"].get("recognise", {}).get("batches", [])
            if rec:
                self.w("Our recognition (batch of faces per frame): " + ", ".join(
                    f"{b['faces']} faces {b['ms_per_face'] * 1e3:.1f} µs/face" for b in rec) + ".\n")
        sp = self.j("sar-peers.json")
        if sp:
            ml = {r["looks"]: r for r in (self.j(f"sar-tuned-{sp['size']}.json") or
                                          self.j(f"sar-default-{sp['size']}.json") or {}).get("multilook", [])}
            rows = []
            for r in sp["resize_area"]:
                c = r["ours_vs_opencv"]
                eq = "equal" if c.get("equal") else (
                    f"{c.get('pixels_unequal')} of {c.get('pixels')} differ by "
                    f"{c.get('max_abs_difference')}; {c.get('unequal_that_are_ties', '?')} of "
                    f"{c.get('unequal_checked', '?')} checked are exact .5 ties")
                o = ml.get(r["looks"], {})
                rows.append((f"multilook looks {r['looks']} vs resize INTER_AREA",
                             o.get("kernel_ms"), o.get("element_ms"), r["ms_median"], eq))
            s3 = self.j(f"sar3-tuned-{sp['size']}.json") or self.j(f"sar3-default-{sp['size']}.json") or {}
            rb = [r for r in s3.get("rotscale", []) if r.get("interpolation") == "bilinear"
                  and not r.get("CLVISION_TUNE")]
            c = sp["warp_affine"]["ours_vs_opencv"]
            rows.append(("rotscale 30° ×1.5 bilinear vs warpAffine",
                         rb[0]["kernel_ms"] if rb else None,
                         rb[0].get("element_ms") if rb else None,
                         sp["warp_affine"]["ms_median"],
                         "equal" if c.get("equal") else
                         f"{c.get('pixels_unequal')} of {c.get('pixels')} differ, "
                         f"at most by {c.get('max_abs_difference')}: OpenCV interpolates "
                         "with 5-bit fixed-point weights, we in float, and on this "
                         "white-noise frame a 1/32-pixel step moves a value by up "
                         "to ~2,000 levels; no equality is expected"))
            self.w(f"**SAR** ({sp['size']}² GRAY16, OpenCV {sp['opencv_version']} with "
                   f"{sp['threads']} threads on the GPU machine's CPU; ours: kernel "
                   "alone, and the element in system memory with upload and download; "
                   "equality of the element's output with OpenCV's, same run):\n")
            self.w(table(["operation", "ours kernel ms", "ours element ms",
                          "OpenCV ms", "outputs"], rows))

    def tuning(self):
        self.w("## Autotuning (`clvision-tune`): defaults against tuned\n")
        self.w("Device time of each kernel's workload as clvision-tune measures it "
               "(multilook: looks 2, 4 and 16 together; rotscale bilinear 30° ×1.5; "
               "quantize coef 35; vj: pyramid and detection of astronaut scaled to "
               "1920×1400 on the GPU, 640×480 on PoCL), one pass of coordinate descent from the defaults; "
               "values kept only when more than 3% faster.\n")
        for label, d in (("GPU", self.d), ("PoCL, this machine", self.pocl)):
            t = self.j("tune.json", d) if d else None
            if not t:
                continue
            rows = [(k["kernel"], k["candidates"], k["default_ms"], k["tuned_ms"],
                     f"{k['speedup']:.2f}×", k["values"] or "(defaults)",
                     "yes" if k["stored"] else "no (within noise)")
                    for k in t["kernels"]]
            self.w(f"**{t['device']}** ({t['platform']}, driver {t['driver']}; "
                   f"SAR {t['sar_size']}², {t['iterations']} timed runs per candidate; {label}):\n")
            self.w(table(["kernel", "candidates", "default ms", "tuned ms", "gain",
                          "values", "stored"], rows))
            if d == self.pocl:
                self.w("PoCL ran on this machine's 2 cores: its timings are noisy, "
                       "and a gain measured once (the defaults are timed first) may be "
                       "noise; the ablation's tuned column below re-measures the "
                       "detector with the stored values in a separate process.\n")

    def ablation_rows(self, vj, tuned=None):
        rows = []
        tuned_by = {}
        for f in (tuned or {}).get("frames", []):
            tuned_by[(f["width"], f["height"])] = f["uber"]["ms_median"]
        for f in vj.get("frames", []):
            tn = {t["tune"]: t["ms_median"] for t in f.get("tunings", [])}
            simple = f["simple"]["ms_median"]
            # Tiles exist where the default uberkernel is the tiled one.
            tiled = f["uber"].get("variant") == "tiled"
            steps = [simple, tn.get("VJ_VARIANT=uber,VJ_STATIC=1,VJ_COOP_STAGE=99"),
                     tn.get("VJ_VARIANT=uber,VJ_COOP_STAGE=99"),
                     tn.get("VJ_VARIANT=uber"),
                     f["uber"]["ms_median"] if tiled else None]
            if f["frame"].startswith("astronaut"):
                steps.append(tuned_by.get((f["width"], f["height"])))
            else:
                steps.append(None)
            gains = []
            for a, b in zip(steps, steps[1:]):
                gains.append(f"{a / b:.2f}×" if a and b else "–")
            if not tiled and steps[-3] and steps[-1]:
                # Without tiles (CPUs) the tuned kernel is the one over chunks.
                gains[-1] = f"{steps[-3] / steps[-1]:.2f}×"
            rows.append([f"{f['frame'].replace('.pgm', '')} {f['width']}×{f['height']}"]
                        + steps + [" / ".join(gains)])
        return rows

    def ablation(self):
        self.w("## The seeds' ablation (their figure 13)\n")
        head = ["frame", "simple (device pyramid, launch per scale)",
                "uberkernel, static mapping, no local queue",
                "+ dynamic mapping", "+ local queue, cooperative stages",
                "+ tiles in local memory (GPU default)",
                "+ tuned (clvision-tune)", "gain of each step"]
        self.w("Wall ms per frame.  The seeds' first step (pyramid and integrals "
               "moved from the host to the device) is not a variant of ours: both of "
               "our variants build them on the device, so the ablation starts there; "
               "the tuned column exists only for the frames clvision-tune's vj "
               "workload was run on (astronaut).\n")
        vj = self.j("vj-default.json")
        for label, d in (("the GPU", self.d), ("PoCL", self.pocl)):
            t = self.j("tune.json", d) if d else None
            k = [k for k in (t or {}).get("kernels", []) if k["kernel"] == "vj"]
            if k and not k[0]["stored"]:
                self.w(f"On {label} clvision-tune stored nothing for the detector "
                       f"(best {k[0]['speedup']:.2f}× of the defaults' kernel time, "
                       "within the 3% margin), so its tuned column re-measures the "
                       "defaults.\n")
        if vj:
            self.w(f"**{self.device}:**\n")
            self.w(table(head, self.ablation_rows(vj, self.j("vj-tuned.json"))))
            self.simple_profile(vj)
        pv = self.j("vj-default.json", self.pocl) if self.pocl else None
        if pv:
            self.w(f"**{pv.get('device', 'PoCL')} (PoCL, this machine's 2 cores; "
                   "on CPU devices the simple kernel, the first column, is the default):**\n")
            self.w(table(head, self.ablation_rows(pv, self.j("vj-tuned.json", self.pocl))))

    def simple_profile(self, vj):
        rows = []
        for f in vj.get("frames", []):
            s, u = f["simple"], f["uber"]
            tn = {t["tune"]: t for t in f.get("tunings", [])}
            g4s, g4d = tn.get("VJ_STATIC=1,VJ_GROUPS_PER_CU=4"), tn.get("VJ_GROUPS_PER_CU=4")
            st = tn.get("VJ_STATIC=1")
            rows.append((f"{f['frame'].replace('.pgm', '')} {f['width']}×{f['height']}",
                         s["ms_median"], s["pyramid_kernels_ms_median"],
                         s["detect_kernels_ms_median"],
                         u["detect_kernels_ms_median"],
                         st and st["detect_kernels_ms_median"],
                         g4s and g4s["detect_kernels_ms_median"],
                         g4d and g4d["detect_kernels_ms_median"]))
        self.w("**Where the time goes** (OpenCL profiling events, median ms per frame):\n")
        self.w(table(["frame", "simple: wall", "simple: pyramid kernels",
                      "simple: detection kernels", "uberkernel (default): detection",
                      "the same, static mapping", "4 groups/CU static",
                      "4 groups/CU dynamic"], rows))
        share = [f["simple"]["detect_kernels_ms_median"] / f["simple"]["ms_median"]
                 for f in vj.get("frames", []) if f["simple"]["ms_median"]]

        def gains(num, den):
            g = []
            for f in vj.get("frames", []):
                tn = {t["tune"]: t for t in f.get("tunings", [])}
                tn[""] = f["uber"]
                a, b = tn.get(num), tn.get(den)
                if a and b and b["detect_kernels_ms_median"]:
                    g.append(a["detect_kernels_ms_median"] / b["detect_kernels_ms_median"])
            return f"{min(g):.2f}–{max(g):.2f}×" if g else "not measured"
        faces = self.j("vj-faces.json") or {}
        blank = [f for f in faces.get("frames", []) if "faces-00" in f["frame"]]
        one = [f for f in faces.get("frames", []) if "faces-01" in f["frame"]]
        contrast = ""
        if blank and one:
            contrast = (f"  On a blank {blank[0]['width']}² canvas the simple variant takes "
                        f"{blank[0]['simple']['ms_median']:.1f} ms; with one photograph on it, "
                        f"{one[0]['simple']['ms_median']:.1f} ms: the cost is the few deep "
                        "windows, not the window count.")
        self.w(f"""The simple variant's time is its detection kernels
({100 * min(share):.0f}–{100 * max(share):.0f}% of its wall time in this run), not transfers,
launches or the pyramid (its pyramid kernels are the uberkernel's).  One
work-item evaluates one window through every stage it passes, and each scale
is one launch that ends with its slowest warp: most windows leave after stage
0–2 while the few near faces or texture run 20+ stages, and the other lanes
of their warps idle meanwhile (divergence), scale after scale.{contrast}  The
local queue with cooperative late stages removes exactly that (survivors are
compacted and evaluated by whole groups), which is why it is the step that
buys most after the persistent uberkernel itself.

Dynamic mapping (an atomic counter handing out chunks) against the static
schedule, detection kernels only: {gains("VJ_STATIC=1", "")} with the local
queue, {gains("VJ_VARIANT=uber,VJ_STATIC=1,VJ_COOP_STAGE=99", "VJ_VARIANT=uber,VJ_COOP_STAGE=99")} without it (over chunks),
and {gains("VJ_STATIC=1,VJ_GROUPS_PER_CU=4", "VJ_GROUPS_PER_CU=4")} with only 4
groups per compute unit.  It gains little because the static schedule
already interleaves: chunks of 32 windows are dealt round-robin over
thousands of persistent groups (32 per compute unit by default), so every
group's share interleaves all regions and scales and is a fair sample of easy
and hard windows, and the per-group loads come out nearly equal; the GPU also
keeps up to 64 warps per SM resident, so the hardware scheduler fills an SM
whose group finished early.  Even at 4 groups per compute unit, where
occupancy is too low to hide imbalance, the counter gains about as little:
the spread between groups is small to begin with.  No hardware counters were
collected (Nsight is not on the GPU machine); the figures are the queue's
profiling events.
""")

    def growth(self):
        self.w("## How cost grows\n")
        vj = self.j("vj-default.json")
        if vj:
            by = {}
            for f in vj.get("frames", []):
                n = re.sub(r"-\d+x\d+$", "", f["frame"].replace(".pgm", ""))
                px = f["width"] * f["height"] / 1e6
                for impl, key in (("ours", "uber"), ("simple", "simple"), ("OpenCV", "opencv")):
                    if f.get(key):
                        by.setdefault((n, impl), []).append((px, f[key]["ms_median"]))
            series = []
            for (n, impl), pts in sorted(by.items()):
                if n.startswith("astronaut") or impl == "ours":
                    pts.sort()
                    series.append((f"{impl} {n}", [p[0] for p in pts], [p[1] for p in pts]))
            self.plot("vj-vs-size.png", f"Detection vs frame size ({self.device})",
                      "megapixels", "ms per frame", series, logy=True)
        rows = []
        for name in ("vj-default.json", "vj-faces.json"):
            for f in (self.j(name) or {}).get("frames", []):
                w, u = f.get("work"), f.get("uber") or {}
                if w and u.get("detect_kernels_ms_median"):
                    ms = u["detect_kernels_ms_median"]
                    rows.append((f"{f['frame'].replace('.pgm', '')} {f['width']}×{f['height']}",
                                 w["windows"], w["past_variance_test"], w["tree_evaluations"],
                                 ms, w["tree_evaluations"] / ms / 1e6 if ms else None))
        if rows:
            self.w("What the detection kernel does (counted with the C reference: every window, "
                   "those past the variance test, the trees evaluated by every stage they reach) "
                   "against its time, one frame:\n")
            self.w(table(["frame", "windows", "past the variance test", "tree evaluations",
                          "detection kernel ms", "G tree evaluations/s"], rows))
        vf = self.j("vj-faces.json")
        if vf:
            pts = []
            for f in vf.get("frames", []):
                m = re.search(r"faces-(\d+)", f["frame"])
                if m:
                    pts.append((int(m.group(1)), f["uber"]["ms_median"], f["simple"]["ms_median"],
                                (f.get("opencv") or {}).get("ms_median"), f["uber"]["faces"]))
            pts.sort()
            self.w(table(["photographs on the canvas", "faces found", "ours ms", "simple ms",
                          "OpenCV ms"], [(p[0], p[4], p[1], p[2], p[3]) for p in pts]))
            self.plot("vj-vs-faces.png", "Detection vs faces per frame "
                      f"({vf['frames'][0]['width']}² canvas)", "photographs with a face",
                      "ms per frame", [("ours", [p[0] for p in pts], [p[1] for p in pts]),
                                       ("OpenCV", [p[0] for p in pts if p[3]],
                                        [p[3] for p in pts if p[3]])], logy=True)
        eig = self.j("eigen.json")
        if eig:
            series = []
            for key, label in (("clvision_double", "ours, double"), ("clvision_float", "ours, float")):
                t = eig.get(key, {}).get("train", [])
                series.append((label, [x["faces"] for x in t], [x["train_s"] * 1e3 for x in t]))
            if eig.get("opencv"):
                r = eig["opencv"]["runs"]
                series.append(("OpenCV", [x["faces"] for x in r], [x["train_s"] * 1e3 for x in r]))
            self.plot("eigen-train-vs-faces.png", "Eigenface training vs faces (128², K = M/5)",
                      "faces M", "ms", series, logy=True)
            t = eig["clvision_double"]["train"]
            self.w(table(["faces", "ms", "of which Jacobi ms", "sweeps"],
                         [(x["faces"], x["train_s"] * 1e3, x["steps_ms"].get("jacobi"),
                           x.get("sweeps")) for x in t]))
        sizes = sorted(int(re.search(r"(\d+)\.json$", p).group(1))
                       for p in glob.glob(os.path.join(self.d, "sar-default-*.json")))
        if sizes:
            ml, rs, qu, el = [], [], [], []
            rows = []
            for s in sizes:
                a = self.j(f"sar-default-{s}.json") or {}
                b = self.j(f"sar3-default-{s}.json") or {}
                m4 = [r for r in a.get("multilook", []) if r["looks"] == 4]
                rb = [r for r in b.get("rotscale", []) if r.get("interpolation") == "bilinear"
                      and not r.get("CLVISION_TUNE")]
                qd = quantize_default(b)
                row = [f"{s}²", m4 and m4[0]["kernel_ms"], m4 and m4[0]["element_ms"],
                       rb and rb[0]["kernel_ms"], rb and rb[0].get("element_ms"),
                       qd and qd[0]["kernel_ms"], (b.get("quantize") or {}).get("element_ms")]
                rows.append(row)
                if m4:
                    ml.append((s * s / 1e6, m4[0]["kernel_ms"]))
                    el.append((s * s / 1e6, m4[0]["element_ms"]))
                if rb:
                    rs.append((s * s / 1e6, rb[0]["kernel_ms"]))
                if qd:
                    qu.append((s * s / 1e6, qd[0]["kernel_ms"]))
            self.w("SAR, GRAY16_LE, defaults (`CLVISION_AUTOTUNE=0`), ms:\n")
            self.w(table(["size", "multilook ×4 kernel", "multilook element",
                          "rotscale kernel", "rotscale element", "quantize kernels",
                          "quantize element"], rows))
            self.plot("sar-vs-size.png", f"SAR kernels vs image size ({self.device})",
                      "megapixels", "ms", [
                          ("multilook looks 4, kernel", *zip(*ml)) if ml else ("", [], []),
                          ("multilook, element (system memory)", *zip(*el)) if el else ("", [], []),
                          ("rotscale bilinear, kernel", *zip(*rs)) if rs else ("", [], []),
                          ("quantize, kernels", *zip(*qu)) if qu else ("", [], [])],
                      logx=True, logy=True)
        ch = self.j("chain-default.json")
        if ch:
            t, st = ch["transfers_ms"], ch["stages_ms"]
            kern = sum(v for k, v in st.items() if k != "frame_handling")
            rows = [(m, v["fps"], v["ms_per_frame"], v["uploads_per_frame"],
                     v["downloads_per_frame"]) for m, v in ch["modes"].items()]
            self.w(f"Transfers against kernels, `{ch['chain']}` on {ch['size']}² "
                   f"({ch['frames']} frames): kernels {kern:.3f} ms per frame; one "
                   f"upload {t['upload_frame_pinned']:.2f} ms pinned, "
                   f"{t['upload_frame_pageable']:.2f} ms pageable — the transfers are "
                   f"{t['upload_frame_pinned'] / (t['upload_frame_pinned'] + kern) * 100:.0f}% "
                   "of a pinned frame's time.\n")
            self.w(table(["mode", "frames/s", "ms per frame", "uploads", "downloads"], rows))

    def limits(self):
        self.w("## Fraction of the physical limit per SAR kernel\n")
        a = self.j("sar-tuned-4096.json") or self.j("sar-default-4096.json")
        b = self.j("sar3-tuned-4096.json") or self.j("sar3-default-4096.json")
        if not (a or b):
            self.w("Not measured in this run.\n")
            return
        bw = (a or b).get("copy_bandwidth_gbs")
        rows = []
        for r in (a or {}).get("multilook", []):
            rows.append((f"multilook looks {r['looks']}", r["kernel_ms"], r["kernel_gbs"],
                         f"{100 * r['kernel_vs_copy']:.0f}%", *same_copy_cells(r),
                         MALI["multilook"]))
        for r in (b or {}).get("rotscale", []):
            if not r.get("CLVISION_TUNE"):
                rows.append((f"rotscale {r['interpolation']}", r["kernel_ms"], r["kernel_gbs"],
                             f"{100 * r['kernel_vs_copy']:.0f}%", *same_copy_cells(r),
                             MALI["rotscale"]))
        for r in quantize_default(b or {}):
            if r:
                rows.append(("quantize (minimum traffic: 2 reads, 1 write)", r["kernel_ms"],
                             r.get("traffic_gbs"), f"{100 * r['traffic_vs_copy']:.0f}%",
                             *same_copy_cells(r), MALI["quantize"]))
        which = "tuned values" if self.j("sar3-tuned-4096.json") else \
            "multilook with tuned values, rotscale and quantize with defaults (no tuned sar3 run)"
        self.w(f"4096² GRAY16_LE, {which}; limit = device-to-device copy "
               f"bandwidth measured in the same run, {fmt(bw)} GB/s.  The seed "
               "paper reports speed-ups over its naive kernels on a Mali-T860, not "
               "bandwidth, so that is what stands next to ours.  \"Same-traffic copy\": "
               "one buffer copy that reads and writes as many bytes as the kernel "
               "(half each), timed in the same run — the fastest any single launch "
               "moving those bytes was seen to be; at 4096² its ramp-up and tail keep "
               "it well below the bandwidth of a large copy.\n")
        self.w(table(["kernel", "ms", "GB/s", "of copy bandwidth", "same-traffic copy ms",
                      "kernel speed vs that copy", "seed on Mali-T860"], rows))

    def streams(self):
        s = self.streams_json
        if s is None:
            return
        self.w("## Many streams on one GPU\n")
        self.w(f"`{s.get('command', '?')}` on {s.get('device', '?')} (driver "
               f"{s.get('driver', '?')}), `{self.streams_path}`: N pipelines of "
               "one photograph in one process, all frames/s of all streams, "
               "with cross-stream batching on and off (`VJ_BATCH`); busy: the "
               "share of the run's device time in which a detection kernel "
               "ran (profiling events).\n")
        flights = sorted({r["in_flight"] for r in s["runs"] if "in_flight" in r})
        # Runs from before in-flight have no such field.
        if flights == [0]:
            self.w("vjfacedetect's `in-flight` was its default (0): a lone "
                   "stream of frames of 1 MiB or more (1920x1280 here) keeps "
                   "two frames in flight, so with batching on its latency "
                   "includes the wait for the frame before it; batching off "
                   "(one detector an element) analyses one frame at a time.\n")
        series, rows = [], []
        sizes = sorted({(r["width"], r["height"]) for r in s["runs"]})
        devices = sorted({r.get("device", "auto") for r in s["runs"]})
        for w, h in sizes:
            for dev in devices:
                for on in (True, False):
                    runs = sorted((r for r in s["runs"]
                                   if (r["width"], r["height"]) == (w, h)
                                   and r.get("device", "auto") == dev
                                   and r.get("batching", True) == on),
                                  key=lambda r: r["streams"])
                    label = f"{w}x{h} batching {'on' if on else 'off'}"
                    if len(devices) > 1:
                        label += f" device={dev}"
                    series.append((label, [r["streams"] for r in runs],
                                   [r["fps"] for r in runs]))
                    rows += [[f"{w}x{h}", r["streams"], dev,
                              "on" if on else "off", f"{r['fps']:,.0f}",
                              f"{r['latency_ms_p50']:.2f}",
                              f"{r['latency_ms_p99']:.2f}",
                              ", ".join(f"{k} {v:.0%}" for k, v in
                                        r.get("busy", {}).items()) or "–"]
                             for r in runs]
        self.plot("streams.png", "vjfacedetect, N streams on one GPU",
                  "streams", "frames/s, all streams", series, logx=True)
        self.w(table(["frame", "streams", "device", "batching", "frames/s",
                      "p50 ms", "p99 ms", "busy"], rows))

    def write(self):
        self.header()
        for section in (self.correctness, self.targets, self.peers, self.tuning,
                        self.ablation, self.growth, self.streams, self.limits):
            try:
                section()
            except (KeyError, IndexError, TypeError, ValueError) as e:
                # A JSON of another shape (a bench program changed): say so
                # in the document rather than drop the whole report.
                print(f"report-generate: {section.__name__}: {e!r}", file=sys.stderr)
                self.w(f"\n*(This section could not be generated from this run's "
                       f"JSON: {type(e).__name__} {e}.)*\n")
        self.w(END)
        text = "\n".join(self.out) + "\n"
        kept = ""
        if os.path.exists(self.doc):
            old = open(self.doc).read()
            if END in old:
                kept = old.split(END, 1)[1]
            else:
                # The hand-written document before the first generated one:
                # its sections move one level down under a heading that dates
                # them.
                kept = ("\n## Earlier measurements (written by hand before this "
                        "report; each part names its device and run)\n" +
                        old.split("\n", 1)[1].replace("\n## ", "\n### "))
        with open(self.doc, "w") as f:
            # One blank line between the two parts, however often this runs.
            f.write(text + "\n" + kept.lstrip("\n"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("gpu_dir")
    p.add_argument("--pocl")
    p.add_argument("--facedetect")
    p.add_argument("--streams")
    p.add_argument("--doc", default="docs/performance.md")
    p.add_argument("--plots", default="docs/bench/plots")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.gpu_dir, "report-meta.json")):
        sys.exit(f"{args.gpu_dir}: no report-meta.json (not a report.sh output)")
    Report(args).write()


if __name__ == "__main__":
    main()
