#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/performance.md and its plots from the raw JSON of tests/bench/report.sh.

    python3 tests/bench/report-generate.py RUN_DIR [RUN_DIR ...]
        [--doc docs/performance.md] [--plots docs/bench/plots]

Each RUN_DIR is what one run of tests/bench/report.sh wrote on one device
(its report-meta.json says how); the first is the main one (a GPU), the
plots are drawn from it.  The whole document is written anew: every figure
comes from the runs' JSON, and a figure a run lacks (a failed or skipped
step) is reported as missing, never filled in.

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

SAR_PAPER = ("Li, Liang, Zhang and Li, \"Parallel Optimization Strategy of "
             "Airborne SAR Imaging Algorithm Based on ARM GPU\"")
VJ_PAPER = ("Jia, Zhang, Yuan and Li, \"Performance optimization of the "
            "Viola–Jones face detection algorithm with OpenCL\"")
# The SAR paper's speed-ups of its optimised kernels over its naive ones on
# an ARM Mali-T860 (figures 7-10, 512² to 4096²); it gives no bandwidth.
MALI = {
    "multilook": "45-62x (looks 4), 17-33x (looks 16)",
    "rotscale": "48-74x",
    "quantize": "31-33x",
}
ABLATION_TUNES = ["VJ_VARIANT=uber,VJ_STATIC=1,VJ_COOP_STAGE=99",
                  "VJ_VARIANT=uber,VJ_COOP_STAGE=99", "VJ_VARIANT=uber"]


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


def frame_split(x, n=1):
    """bench-vj's medians of a batch of n frames, per frame: pyramid and
    detection kernels, and upload + read-back + routing (ms)."""
    return (fmt(x["pyramid_kernels_ms_median"] / n, 3),
            fmt(x["detect_kernels_ms_median"] / n, 3),
            fmt(x["upload_readback_routing_ms_median"] / n, 3))


def pct(x):
    return "–" if x is None else f"{100 * x:.0f}%"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(fmt(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def best_speckle_tuning(x):
    """The fastest of a speckle kernel's tunings whose output equals the C
    reference, as "ms (share of copy) `CLVISION_TUNE`"."""
    ok = [t for t in x.get("tunings", []) if t["equals_reference"]]
    if not ok:
        return "–"
    t = min(ok, key=lambda t: t["kernel_ms"])
    return f"{fmt(t['kernel_ms'])} ({pct(t['kernel_vs_copy'])}) `{t['CLVISION_TUNE']}`"


def frame_name(f):
    name = re.sub(r"(-\d+x\d+)?\.pgm$", "", f["frame"])
    return f"{name} {f['width']}×{f['height']}"


# bench-chain's modes: where the frames come from.
CHAIN_MODES = {
    "system": "malloc'd frames, system-memory caps",
    "system_pool": "the pool of pinned buffers the first element proposes",
    "system_queue": "malloc'd frames, a queue before the sink",
    "opencl_pageable": "malloc'd frames, clupload ! … ! cldownload",
    "opencl_pinned": "clupload's pool of pinned buffers, clupload ! … ! cldownload",
    "resident": "frames already on the device (memory:OpenCL), no transfer",
}


def quantize_default(sar3, gpu=True):
    """The step of bench-sar3's quantize sweep that is the device's default."""
    want = "GPU default" if gpu else "CPU default"
    steps = (sar3.get("quantize") or {}).get("steps", [])
    return [r for r in steps if want in r.get("step", "")][:1]


def untuned(rows):
    return [r for r in rows if not r.get("CLVISION_TUNE")]


def ratio_range(xs, unit="×"):
    xs = [x for x in xs if x]
    if not xs:
        return "not measured"
    lo, hi = min(xs), max(xs)
    return f"{lo:.2f}{unit}" if abs(hi - lo) < 0.005 else f"{lo:.2f}–{hi:.2f}{unit}"


class Run:
    """One report.sh output: one device."""

    def __init__(self, path):
        self.path = path
        self.meta = load(os.path.join(path, "report-meta.json"))
        if self.meta is None:
            sys.exit(f"{path}: no report-meta.json (not a report.sh output)")
        info = {}
        for name in ("tune.json", "sar-default-4096.json", "vj-default.json",
                     "eigen.json", "bench-streams.json"):
            info = info or (self.j(name) or {})
        if "clvision_double" in info:
            info = info["clvision_double"]
        self.device = info.get("device") or self.meta.get("gpu") or "?"
        self.platform = info.get("platform", "?")
        self.driver = info.get("driver") or self.meta.get("nvidia_driver") or "?"
        self.cu = info.get("compute_units")
        self.gpu = "Portable Computing Language" not in self.platform

    def j(self, name):
        return load(os.path.join(self.path, name))

    def sar(self, kind, size):
        """bench-sar ('sar') or bench-sar3 ('sar3') at `size`, tuned first."""
        return (self.j(f"{kind}-tuned-{size}.json") or
                self.j(f"{kind}-default-{size}.json"))


class Report:
    def __init__(self, args):
        self.runs = [Run(d) for d in args.run_dirs]
        self.main = self.runs[0]
        self.plots = args.plots
        self.doc = args.doc
        self.out = []
        os.makedirs(self.plots, exist_ok=True)

    def w(self, s=""):
        self.out.append(s)

    def plot(self, name, title, xlabel, ylabel, series, logx=False, logy=False):
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        for label, xs, ys in series:
            if xs:
                ax.plot(xs, ys, marker="o", label=label)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(self.plots, name)
        fig.savefig(path)
        plt.close(fig)
        rel = os.path.relpath(path, os.path.dirname(os.path.abspath(self.doc)))
        self.w(f"![{title}]({rel})\n")

    # ---- sections ---------------------------------------------------------
    def header(self):
        self.w("# Performance\n")
        self.w("<!-- Generated by tests/bench/report-generate.py from the runs "
               "of tests/bench/report.sh listed below: do not edit by hand. -->\n")
        self.w("Measured by `tests/bench/report.sh`, one run per device, all "
               "peers measured in the same run on the same machine; written by "
               "`tests/bench/report-generate.py` from the raw JSON, which is "
               "kept next to this file.  The detector's results are OpenCV's "
               "faces exactly, the SAR kernels' the C reference's pixels "
               "(checked in the same runs, below).\n")
        rows = []
        for r in self.runs:
            m = r.meta
            # A step re-run later names its own commit.
            steps = ", ".join(f"{s['step']}" + ("" if s["rc"] == 0 else
                                                 " (cut at its time limit)" if s["rc"] == 124
                                                 else " (failed)")
                              + (f" (at `{s['commit'][:10]}`)" if s.get("commit")
                                 and s["commit"] != m.get("commit") else "")
                              for s in m.get("steps", []))
            rows.append((f"{r.device}" + (f", {r.cu} compute units" if r.cu else ""),
                         f"{r.platform}, driver {r.driver}",
                         f"{m.get('cpu', '?')}, {m.get('cpu_threads', '?')} threads",
                         f"`{m.get('commit', '?')[:10]}`",
                         steps + (" (small sizes: `QUICK=1`)" if m.get("quick") else ""),
                         f"`{os.path.relpath(os.path.abspath(r.path), os.path.dirname(os.path.abspath(self.doc)))}/`"))
        self.w(table(["device", "OpenCL", "host CPU", "commit", "steps", "raw data"], rows))

    def correctness(self):
        self.w("## Correctness in the same runs\n")
        for r in self.runs:
            lines = []
            t = os.path.join(r.path, "tests.txt")
            if os.path.exists(t):
                txt = open(t).read().strip().splitlines()
                lines.append("equivalence tests (device output against the C "
                             "reference): " + (txt[-1] if txt else "no output"))
            sar = []
            for name in sorted(glob.glob(os.path.join(r.path, "sar*.json"))):
                d = load(name) or {}
                sar += [x.get("pixels_unlike_reference") for x in
                        d.get("multilook", []) + d.get("rotscale", []) +
                        (d.get("quantize") or {}).get("steps", [])]
            if sar:
                bad = [x for x in sar if x not in (0, None)]
                lines.append(f"SAR benchmarks: {len(sar)} runs compared pixel by "
                             f"pixel with the C reference, {len(bad)} unequal")
            n = bad = 0
            for name in ("vj-default.json", "vj-faces.json", "vj-tuned.json"):
                for f in (r.j(name) or {}).get("frames", []):
                    for v in ([f.get("uber"), f.get("simple")] + f.get("tunings", [])
                              + f.get("batches", [])):
                        if v and "equal_to_reference" in v:
                            n += 1
                            bad += not v["equal_to_reference"]
            if n:
                lines.append(f"detection benchmarks: {n} runs (every frame, variant, "
                             f"tuning and batch) compared with the C reference's "
                             f"faces, {bad} unequal")
            if r.j("tune.json"):
                lines.append("clvision-tune kept only candidates whose output "
                             "equals the defaults' byte for byte")
            self.w(f"**{r.device}**: " + ("; ".join(lines) if lines else
                                          "no check in this run") + ".\n")

    def peers_detection(self, r):
        vj = r.j("vj-default.json")
        if not vj or not any(f.get("opencv") for f in vj.get("frames", [])):
            return
        rows = [(frame_name(f), f["uber"]["ms_median"], f["simple"]["ms_median"],
                 (f.get("opencv") or {}).get("ms_median"),
                 f"{f['uber_vs_opencv']:.0f}×" if f.get("uber_vs_opencv", 0) >= 10
                 else f"{f.get('uber_vs_opencv', 0):.2f}×") for f in vj["frames"]]
        ocv = next(f["opencv"] for f in vj["frames"] if f.get("opencv"))
        self.w(f"**Face detection on {r.device}** (wall time per frame of "
               "`vjfacedetect`'s detector with upload, pyramid, detection, "
               "read-back and grouping, against OpenCV "
               f"{ocv.get('opencv_version', '4.6')} `detectMultiScale` with "
               f"{vj.get('opencv_threads', 16)} threads on the same machine's "
               "CPU; scale 1.1, 3 neighbours; the same faces):\n")
        self.w(table(["frame", "clvision ms", "simple kernel ms", "OpenCV ms",
                      "clvision vs OpenCV"], rows))
        face = r.j("facedetect-cpu.json")
        if face:
            rows = [(f"{x['width']}×{x['height']}", x["ms_per_frame"],
                     1000 / x["ms_per_frame"] if x["ms_per_frame"] else None)
                    for x in face.get("runs", [])]
            self.w("GStreamer's `facedetect` ("
                   + re.sub(r"^facedetect \((.*)\)$", r"\1", face["element"])
                   + "), the whole pipeline on the same machine's CPU:\n")
            self.w(table(["frame", "ms per frame", "frames/s"], rows))

    def peers_eigen(self, r):
        eig = r.j("eigen.json")
        if not (eig and eig.get("opencv")):
            return
        ours = {t["faces"]: t for t in eig["clvision_double"]["train"]}
        rows = []
        for x in eig["opencv"]["runs"]:
            t = ours.get(x["faces"])
            rows.append((x["faces"], x["components"], t and t["train_s"] * 1e3,
                         x["train_s"] * 1e3, t and x["train_s"] / t["train_s"],
                         x["predict_ms_per_face"]))
        self.w(f"**Eigenfaces on {r.device}** (training on M faces of 128², "
               "K = M/5, in double; OpenCV `EigenFaceRecognizer` with 16 threads, "
               "same faces):\n")
        self.w(table(["faces", "components", "clvision ms", "OpenCV ms",
                      "speed-up", "OpenCV predict ms/face"], rows))
        rec = eig["clvision_double"].get("recognise", {}).get("batches", [])
        if rec:
            self.w("clvision's recognition, all faces of a frame in one batch: " +
                   ", ".join(f"{b['faces']} face{'s' if b['faces'] > 1 else ''} "
                             f"{b['ms_per_face'] * 1e3:.1f} µs a face"
                             for b in rec) + ".\n")

    def peers_sar(self, r):
        sp = r.j("sar-peers.json")
        if not sp:
            return
        ml = {x["looks"]: x for x in (r.sar("sar", sp["size"]) or {}).get("multilook", [])}
        rows = []
        for x in sp["resize_area"]:
            c = x["ours_vs_opencv"]
            eq = "equal" if c.get("equal") else (
                f"{c.get('pixels_unequal'):,} of {c.get('pixels'):,} differ by "
                f"{c.get('max_abs_difference')}, all checked on exact .5 ties"
                if c.get("unequal_that_are_ties") == c.get("unequal_checked")
                else f"{c.get('pixels_unequal'):,} differ")
            o = ml.get(x["looks"], {})
            rows.append((f"multilook ×{x['looks']} / resize INTER_AREA",
                         o.get("kernel_ms"), o.get("element_ms"), x["ms_median"], eq))
        rb = [x for x in untuned((r.sar("sar3", sp["size"]) or {}).get("rotscale", []))
              if x.get("interpolation") == "bilinear"]
        c = sp["warp_affine"]["ours_vs_opencv"]
        rows.append(("rotscale 30° ×1.5 bilinear / warpAffine",
                     rb[0]["kernel_ms"] if rb else None,
                     rb[0].get("element_ms") if rb else None,
                     sp["warp_affine"]["ms_median"],
                     "equal" if c.get("equal") else
                     f"differ by up to {c.get('max_abs_difference')} (OpenCV "
                     "interpolates with 5-bit fixed-point weights)"))
        self.w(f"**SAR on {r.device}** ({sp['size']}² GRAY16_LE; OpenCV "
               f"{sp['opencv_version']} with {sp['threads']} threads on the same "
               "machine's CPU; clvision's kernel alone, and the element in system "
               "memory with upload and download):\n")
        self.w(table(["operation", "kernel ms", "element ms", "OpenCV ms",
                      "outputs"], rows))

    def peers(self):
        self.w("## Peers in the same run\n")
        for r in self.runs:
            self.peers_detection(r)
            self.peers_eigen(r)
            self.peers_sar(r)

    def ablation_rows(self, run):
        vj = run.j("vj-default.json") or {}
        tuned_by = {(f["width"], f["height"]): f["uber"]["ms_median"]
                    for f in (run.j("vj-tuned.json") or {}).get("frames", [])}
        rows = []
        for f in vj.get("frames", []):
            tn = {t["tune"]: t["ms_median"] for t in f.get("tunings", [])}
            tiled = f["uber"].get("variant") == "tiled"
            steps = ([f["simple"]["ms_median"]] + [tn.get(t) for t in ABLATION_TUNES]
                     + [f["uber"]["ms_median"] if tiled else None])
            steps.append(tuned_by.get((f["width"], f["height"]))
                         if f["frame"].startswith("astronaut") else None)
            # Each step against the one before; tuned against the default.
            default = steps[4] if tiled else steps[3]
            pairs = list(zip(steps[:4], steps[1:5])) + [(default, steps[5])]
            gains = [f"{x / y:.2f}×" if x and y else "–" for x, y in pairs]
            rows.append([frame_name(f)] + steps + [" / ".join(gains)])
        return rows

    def ablation(self):
        self.w("## The papers' ablation\n")
        self.w(f"The load-balancing framework of {VJ_PAPER} (its figure 13), step "
               "by step, as tuning values of clvision's detector: wall ms per "
               "frame.  The paper's first step (pyramid and integrals moved to the "
               "device) is in every column: both of clvision's kernels build them "
               "on the device.  The tuned column exists for the frames "
               "clvision-tune's workload uses (astronaut).\n")
        head = ["frame", "simple (launch per scale)", "uberkernel, static mapping",
                "+ dynamic mapping", "+ local queues, cooperative stages",
                "+ tiles in local memory (GPU default)", "+ tuned",
                "gain of each step"]
        for r in self.runs:
            rows = self.ablation_rows(r)
            if not rows:
                continue
            note = ("" if r.gpu else "; on CPU devices the simple kernel, the "
                    "first column, is the default and tiles are not used")
            self.w(f"**{r.device}**{note}:\n")
            self.w(table(head, rows))
        self.quantize_steps()
        self.time_split(self.main)

    def quantize_steps(self):
        for r in self.runs:
            s3 = r.j("sar3-default-4096.json")
            steps = [x for x in ((s3 or {}).get("quantize") or {}).get("steps", [])
                     if not x["step"].startswith("tuning")]
            if not steps:
                continue
            self.w(f"The quantization of {SAR_PAPER}, step by step on {r.device} "
                   "(4096² GRAY16_LE, kernels only; the paper reports "
                   f"{MALI['quantize']} over its naive kernel on a Mali-T860):\n")
            self.w(table(["step", "kernels ms", "vs unfused"],
                         [(x["step"], x["kernel_ms"], f"{x['speedup_vs_unfused']:.2f}×")
                          for x in steps]))

    def time_split(self, r):
        vj = r.j("vj-default.json")
        if not vj or not r.gpu:
            return
        rows = []
        for f in vj.get("frames", []):
            s, u = f["simple"], f["uber"]
            tn = {t["tune"]: t for t in f.get("tunings", [])}
            st = tn.get("VJ_STATIC=1")
            g4s = tn.get("VJ_STATIC=1,VJ_GROUPS_PER_CU=4")
            g4d = tn.get("VJ_GROUPS_PER_CU=4")
            rows.append((frame_name(f), s["ms_median"], s["pyramid_kernels_ms_median"],
                         s["detect_kernels_ms_median"], u["detect_kernels_ms_median"],
                         st and st["detect_kernels_ms_median"],
                         g4s and g4s["detect_kernels_ms_median"],
                         g4d and g4d["detect_kernels_ms_median"]))
        self.w(f"**Where the time goes on {r.device}** (OpenCL profiling "
               "events, median ms per frame):\n")
        self.w(table(["frame", "simple: wall", "simple: pyramid", "simple: detection",
                      "default: detection", "default, static mapping",
                      "4 groups/CU, static", "4 groups/CU, dynamic"], rows))
        share = [f["simple"]["detect_kernels_ms_median"] / f["simple"]["ms_median"]
                 for f in vj["frames"] if f["simple"]["ms_median"]]

        def gains(num, den):
            g = []
            for f in vj["frames"]:
                tn = {t["tune"]: t for t in f.get("tunings", [])}
                tn[""] = f["uber"]
                a, b = tn.get(num), tn.get(den)
                if a and b and b["detect_kernels_ms_median"]:
                    g.append(a["detect_kernels_ms_median"] / b["detect_kernels_ms_median"])
            return ratio_range(g)
        self.w(f"""The simple kernel's time is its detection kernels
({100 * min(share):.0f}–{100 * max(share):.0f}% of its wall time), not transfers
or the pyramid.  One work-item evaluates one window through every stage it
passes, and each scale is one launch that ends with its slowest warp: most
windows leave after the first stages while the few near faces or texture run
20 and more, and the other lanes of their warps idle meanwhile.  The local
queues with cooperative late stages remove exactly that, which is why they
buy most after the persistent uberkernel itself.

Dynamic mapping (an atomic counter handing out work) against a static
schedule, detection kernels only: {gains("VJ_STATIC=1", "")} for the default
kernel, {gains(ABLATION_TUNES[0], ABLATION_TUNES[1])} over chunks without
local queues, {gains("VJ_STATIC=1,VJ_GROUPS_PER_CU=4", "VJ_GROUPS_PER_CU=4")}
with only 4 groups per compute unit.  Where it gains little, it is because
the static schedule already interleaves: work is dealt round-robin over
thousands of persistent groups, so every group's share samples all regions
and scales, and the GPU keeps many warps resident per multiprocessor to fill
one whose group finished early.  No hardware counters were collected; the
figures are the queue's profiling events.
""")

    def growth_vj(self, r):
        vj = r.j("vj-default.json")
        if not vj:
            return
        by = {}
        for f in vj.get("frames", []):
            n = re.sub(r"-\d+x\d+$", "", f["frame"].replace(".pgm", ""))
            for impl, key in (("clvision", "uber"), ("simple", "simple"),
                              ("OpenCV", "opencv")):
                if f.get(key):
                    by.setdefault((n, impl), []).append(
                        (f["width"] * f["height"] / 1e6, f[key]["ms_median"]))
        series = [(f"{impl} {n}", *zip(*sorted(pts))) for (n, impl), pts in
                  sorted(by.items()) if n.startswith("astronaut") or impl == "clvision"]
        self.plot("vj-vs-size.png", f"Detection vs frame size ({r.device})",
                  "megapixels", "ms per frame", series, logy=True)
        rows = []
        for name in ("vj-default.json", "vj-faces.json"):
            for f in (r.j(name) or {}).get("frames", []):
                w, u = f.get("work"), f.get("uber") or {}
                ms = u.get("detect_kernels_ms_median")
                if w and ms and re.search(r"(-\d+x\d+|faces-(00|16))\.pgm$", f["frame"]):
                    rows.append((frame_name(f), w["windows"], w["past_variance_test"],
                                 w["tree_evaluations"], ms,
                                 w["tree_evaluations"] / ms / 1e6))
        if rows:
            self.w("What the detection kernel does (counted with the C reference: "
                   "windows, those past the variance test, trees evaluated by every "
                   "stage they reach) against its time, one frame:\n")
            self.w(table(["frame", "windows", "past variance test", "tree evaluations",
                          "detection ms", "G trees/s"], rows))

    def growth_faces(self, r):
        vf = r.j("vj-faces.json")
        if not vf:
            return
        pts = []
        for f in vf.get("frames", []):
            m = re.search(r"faces-(\d+)", f["frame"])
            if m:
                pts.append((int(m.group(1)), f["uber"]["faces"], f["uber"]["ms_median"],
                            f["simple"]["ms_median"], (f.get("opencv") or {}).get("ms_median")))
        pts.sort()
        size = vf["frames"][0]["width"]
        self.w(f"Faces per frame: 0 to 16 photographs with a face on one {size}² "
               "canvas:\n")
        self.w(table(["photographs", "faces found", "clvision ms", "simple ms",
                      "OpenCV ms"], pts))
        self.plot("vj-vs-faces.png", f"Detection vs faces per frame ({size}², {r.device})",
                  "photographs with a face", "ms per frame",
                  [("clvision", [p[0] for p in pts], [p[2] for p in pts]),
                   ("OpenCV", [p[0] for p in pts if p[4]], [p[4] for p in pts if p[4]])],
                  logy=True)

    def growth_eigen(self, r):
        eig = r.j("eigen.json")
        if not eig:
            return
        series = []
        for key, label in (("clvision_double", "clvision, double"),
                           ("clvision_float", "clvision, float")):
            t = eig.get(key, {}).get("train", [])
            series.append((label, [x["faces"] for x in t], [x["train_s"] * 1e3 for x in t]))
        if eig.get("opencv"):
            o = eig["opencv"]["runs"]
            series.append(("OpenCV", [x["faces"] for x in o], [x["train_s"] * 1e3 for x in o]))
        self.plot("eigen-train-vs-faces.png",
                  f"Eigenface training vs faces (128², K = M/5, {r.device})",
                  "faces M", "ms", series, logy=True)
        t = eig["clvision_double"]["train"]
        self.w(table(["faces", "training ms", "of which Jacobi ms", "Jacobi sweeps"],
                     [(x["faces"], x["train_s"] * 1e3, x["steps_ms"].get("jacobi"),
                       x.get("sweeps")) for x in t]))

    def growth_sar(self, r):
        sizes = sorted(int(re.search(r"(\d+)\.json$", p).group(1))
                       for p in glob.glob(os.path.join(r.path, "sar-default-*.json")))
        if not sizes:
            return
        rows, series = [], {k: [] for k in ("ml", "el", "rs", "qu")}
        for s in sizes:
            a = r.j(f"sar-default-{s}.json") or {}
            b = r.j(f"sar3-default-{s}.json") or {}
            m4 = [x for x in a.get("multilook", []) if x["looks"] == 4][:1]
            rb = [x for x in untuned(b.get("rotscale", []))
                  if x.get("interpolation") == "bilinear"][:1]
            qd = quantize_default(b)
            rows.append([f"{s}²", m4 and m4[0]["kernel_ms"], m4 and m4[0]["element_ms"],
                         rb and rb[0]["kernel_ms"], rb and rb[0].get("element_ms"),
                         qd and qd[0]["kernel_ms"],
                         (b.get("quantize") or {}).get("element_ms")])
            mp = s * s / 1e6
            for key, lst, field in (("ml", m4, "kernel_ms"), ("el", m4, "element_ms"),
                                    ("rs", rb, "kernel_ms"), ("qu", qd, "kernel_ms")):
                if lst:
                    series[key].append((mp, lst[0][field]))
        self.w("SAR, GRAY16_LE, default tuning, ms (kernel: device time; element: "
               "in system memory, with upload and download):\n")
        self.w(table(["size", "multilook ×4 kernel", "multilook element",
                      "rotscale kernel", "rotscale element", "quantize kernels",
                      "quantize element"], rows))
        labels = {"ml": "multilook ×4, kernel", "el": "multilook, element",
                  "rs": "rotscale bilinear, kernel", "qu": "quantize, kernels"}
        self.plot("sar-vs-size.png", f"SAR vs image size ({r.device})", "megapixels",
                  "ms", [(labels[k], *zip(*v)) if v else (labels[k], [], [])
                         for k, v in series.items()], logx=True, logy=True)

    def growth_chain(self, r):
        ch = r.j("chain-default.json")
        if not ch:
            return
        t, st = ch["transfers_ms"], ch["stages_ms"]
        kern = sum(v for k, v in st.items() if k != "frame_handling")
        rows = [(CHAIN_MODES.get(m, m), v["fps"], v["ms_per_frame"],
                 v["uploads_per_frame"], v["downloads_per_frame"])
                for m, v in ch["modes"].items()]
        self.w(f"Transfers against kernels, `{ch['chain']}` on {ch['size']}² "
               f"GRAY16_LE: the kernels take {kern:.3f} ms a frame, one upload "
               f"{t['upload_frame_pinned']:.2f} ms from pinned memory and "
               f"{t['upload_frame_pageable']:.2f} ms from pageable memory, so "
               "where a frame comes from decides the frame rate:\n")
        self.w(table(["frames from", "frames/s", "ms per frame", "uploads",
                      "downloads"], rows))

    def growth(self):
        self.w("## How cost grows\n")
        r = self.main
        self.growth_vj(r)
        self.growth_faces(r)
        self.growth_eigen(r)
        self.growth_sar(r)
        self.growth_chain(r)

    def batches(self, r):
        vj = r.j("vj-default.json")
        rows = []
        for f in (vj or {}).get("frames", []):
            if not re.search(r"-\d+x\d+\.pgm$", f["frame"]) or not f.get("batches"):
                continue
            b = {x["batch"]: x for x in f["batches"]}
            rows.append([frame_name(f)] + [b[n]["ms_per_frame"] if n in b else None
                                           for n in sorted(b)])
            sizes = sorted(b)
        if rows:
            self.w(f"Frames of several streams detected in one batch on {r.device} "
                   "(ms per frame, all steps):\n")
            self.w(table(["frame"] + [f"batch of {n}" for n in sizes], rows))

    def streams(self):
        self.w("## Many streams\n")
        for r in self.runs:
            self.batches(r)
        s = self.main.j("bench-streams.json")
        if s is None:
            self.w("No pipelines-per-process run (`STEPS=streams`) in these runs.\n")
            return
        self.w(f"N pipelines in one process on {s.get('device', '?')}, each "
               f"`{s.get('pipeline', '?')}`, {s.get('frames_per_stream')} frames a "
               "stream; frames/s of all streams, latency from entering "
               "`vjfacedetect` to leaving it, with cross-stream batching on and "
               "off (`batch-size=0`); busy: the share of the run in which a "
               "detection kernel ran.\n")
        if {x.get("in_flight") for x in s["runs"]} == {0}:
            self.w("`in-flight` is the element's default: a lone stream of "
                   "frames of 1 MiB or more (1920×1280 here) keeps two frames in "
                   "flight, so its latency includes the wait for the frame before "
                   "it; batching off gives every element its own detector, one "
                   "frame at a time.\n")
        series, rows = [], []
        for w, h in sorted({(x["width"], x["height"]) for x in s["runs"]}):
            for on in (True, False):
                runs = sorted((x for x in s["runs"] if (x["width"], x["height"]) == (w, h)
                               and x.get("batching", True) == on),
                              key=lambda x: x["streams"])
                series.append((f"{w}x{h} batching {'on' if on else 'off'}",
                               [x["streams"] for x in runs], [x["fps"] for x in runs]))
                rows += [[f"{w}×{h}", x["streams"], "on" if on else "off", x["fps"],
                          x["latency_ms_p50"], x["latency_ms_p99"],
                          ", ".join(pct(v) for v in x.get("busy", {}).values()) or "–"]
                         for x in runs]
        self.plot("streams.png", f"vjfacedetect, N streams ({s.get('device', '?')})",
                  "streams", "frames/s, all streams", series, logx=True)
        self.w(table(["frame", "streams", "batching", "frames/s", "latency p50 ms",
                      "p99 ms", "busy"], rows))

    def many_gpus(self):
        self.w("## One pipeline on many GPUs, and tracking\n")
        sp, tr = self.main.j("spread-branches.json"), self.main.j("track-streams.json")
        costs = [c for c in (r.j("track.json") for r in self.runs) if c]
        if sp is None and tr is None and not costs:
            self.w("Not measured in these runs (`tests/bench/gpu-run.sh spread "
                   "track-streams` writes `spread-branches.json` and "
                   "`track-streams.json`; `STEPS=track tests/bench/report.sh` "
                   "the tracker's cost, `track.json`).\n")
            return
        gpus = (self.main.j("batch-scale.json") or {}).get("gpus", "the")
        if sp:
            head = (f"One gst-launch-1.0 of {sp['branches']} branches `filesrc ! pngdec "
                    "! videoconvert ! GRAY8 ! imagefreeze ! vjfacedetect ! fakesink` "
                    f"on a 1920×1280 photograph, {sp['frames']} frames a branch, "
                    "`device=first` and `device=auto` alternately (best of each)")
            if "wall_speedup" in sp:
                self.w(f"{head}; streaming, from PLAYING to EOS as gst-launch-1.0 "
                       f"reports it: {fmt(sp['fps_first'])} and "
                       f"{fmt(sp['fps_auto'])} frames/s, {fmt(sp['speedup'])}×; "
                       "from the process's start to its exit, start-up included: "
                       f"{fmt(sp['wall_fps_first'])} and {fmt(sp['wall_fps_auto'])} "
                       f"frames/s, {fmt(sp['wall_speedup'])}×; on {gpus} × "
                       f"{self.main.device}.\n")
            else:
                self.w(f"{head}, timed from start to exit: "
                       f"{fmt(sp['fps_first'])} and {fmt(sp['fps_auto'])} frames/s, "
                       f"{fmt(sp['speedup'])}× on {gpus} × {self.main.device}.\n")
        if tr:
            self.w(f"{tr['streams']} pipelines of {tr['size']} in one process, "
                   "`vjfacedetect ! fakesink` against `vjfacedetect ! roitrack ! "
                   f"fakesink` (best of each): {fmt(tr['fps_without'])} and "
                   f"{fmt(tr['fps_with'])} frames/s, {pct(tr['loss'])} fewer with "
                   "the tracker.\n")
        for tc in costs:
            cases = tc["cases"]
            self.w(f"The tracker's cost a box on {tc['cpu']} "
                   "(`bench-track`: boxes moving at constant velocities over "
                   "1920×1080 with a pixel of jitter, entering and leaving, "
                   f"{cases[0]['frames']} frames): the SORT tracker alone "
                   + ", ".join(f"{fmt(c['tracker_us_per_box'], 3)}" for c in cases)
                   + " µs a box, the `roitrack` element (metas read and written, "
                   "against an identity element in its place) "
                   + ", ".join(f"{fmt(c['element_us_per_box'], 3)}" for c in cases)
                   + " µs a box, at "
                   + ", ".join(str(c["boxes"]) for c in cases)
                   + " boxes a frame.\n")

    def archives(self):
        self.w("## Archives\n")
        a = self.main.j("batch-scale.json")
        if a is None:
            self.w("Not measured in these runs (`tests/bench/gpu-run.sh batch` "
                   "on a machine of two GPUs writes `batch-scale.json`).\n")
            return
        ratios = a["ratios"]
        self.w(f"{a['copies']} copies of `{a['video']}` through `decodebin ! "
               f"vjfacedetect ! roiexport` on {a['gpus']} GPU(s) and "
               f"{a['cores']} cores, each run timed from start to exit; "
               "`batch`: clvision-batch with N pipelines per GPU in one process; "
               "`procs`: K clvision-batch processes per GPU, each with its share; "
               "`launch-one`: one gst-launch-1.0 of every file as a branch; "
               "`launch-pP`: P gst-launch-1.0 at once, a file each.\n")
        self.w(table(["run", "GPUs", "N, K or P", "s", "frames", "frames/s"],
                     [[x["name"], x["gpus"], x["jobs"], x["seconds"], x["frames"],
                       x["fps"]] for x in a["runs"]]))
        self.w(f"Every GPU over one (clvision-batch, best of each): "
               f"{fmt(ratios.get('every_gpu_over_one'))}×; clvision-batch on one "
               f"GPU over the best hand-written gst-launch: "
               f"{fmt(ratios.get('batch_over_gst_launch'))}×; one process over "
               f"processes per GPU: {fmt(ratios.get('one_process_over_processes'))}×.\n")

    def limits(self):
        self.w("## Fraction of the physical limit per kernel\n")
        r = self.main
        a, b = r.sar("sar", 4096), r.sar("sar3", 4096)
        if not (a or b):
            self.w("Not measured in these runs.\n")
            return
        bw = (a or b).get("copy_bandwidth_gbs")
        rows = []

        def row(name, x, gbs, frac, paper):
            c = x.get("same_traffic_copy_ms")
            rows.append((name, x["kernel_ms"], gbs, pct(frac), c,
                         pct(x.get("kernel_vs_same_traffic_copy")) if c else "–", paper))
        for x in (a or {}).get("multilook", []):
            row(f"multilook ×{x['looks']}", x, x["kernel_gbs"], x["kernel_vs_copy"],
                MALI["multilook"])
        for x in untuned((b or {}).get("rotscale", [])):
            row(f"rotscale {x['interpolation']}", x, x["kernel_gbs"],
                x["kernel_vs_copy"], MALI["rotscale"])
        for x in quantize_default(b or {}):
            row("quantize (2 reads, 1 write)", x, x.get("traffic_gbs"),
                x["traffic_vs_copy"], MALI["quantize"])
        self.w(f"4096² GRAY16_LE on {r.device}, with the values clvision-tune "
               "stored, if any; the limit is the device-to-device copy bandwidth measured "
               f"in the same run, {fmt(bw)} GB/s.  \"Same-traffic copy\": one copy "
               "that reads and writes as many bytes as the kernel, the fastest any "
               "single launch moving them was seen to be (at this size its ramp-up "
               "and tail keep it below a large copy's bandwidth).  The SAR paper "
               "reports speed-ups over its naive kernels on a Mali-T860, not "
               "bandwidth, so that is what stands beside these.\n")
        self.w(table(["kernel", "ms", "GB/s", "of copy bandwidth", "same-traffic copy ms",
                      "vs that copy", "paper, Mali-T860"], rows))
        rows = []
        for name in ("vj-default.json",):
            for f in (r.j(name) or {}).get("frames", []):
                if f["frame"].startswith("astronaut-") and f.get("work"):
                    ms = f["uber"]["detect_kernels_ms_median"]
                    rows.append(f"{f['width']}×{f['height']} "
                                f"{f['work']['tree_evaluations'] / ms / 1e6:.0f}")
        if rows:
            self.w("The detector is bound by its irregular work, not by bandwidth: "
                   "its figure is tree evaluations per second (G/s), "
                   + ", ".join(rows) + " (How cost grows).\n")

    def photographs(self):
        """The detector on every test photograph at its own size: a CPU
        (bench-cpu.sh) and a GPU (bench-photos.sh), each against OpenCV."""
        self.w("## The detector on photographs: CPUs and small frames\n")
        said = False
        for r in self.runs:
            c = r.j("bench-cpu.json")
            if c:
                said = True
                cs = c["cpu_summary"]
                rows = [(f"{x['frame']}" + (" (scaled)" if x.get("synthetic") else ""),
                         f"{x['width']}×{x['height']}", x["variant"],
                         fmt(x["ms_median"]), fmt(x["opencv_ms_median"]),
                         f"{fmt(x['speedup'])}×",
                         "yes" if x["equal_to_reference"] else "NO")
                        for x in cs["frames"]]
                self.w(f"**{c.get('device', r.device)}** ({cs['cpu']}), "
                       f"{cs['threads']} threads "
                       "each (PoCL's and OpenCV's), wall time per frame with "
                       "upload and grouping, median "
                       "(`tests/bench/bench-cpu.sh`):\n")
                self.w(table(["photograph", "size", "variant", "ms",
                              f"OpenCV-{cs['threads']} ms", "vs OpenCV",
                              "faces equal OpenCV's"], rows))
            ph = r.j("bench-photos.json")
            if ph:
                said = True
                rows = [(x["cascade"], x["frame"], f"{x['width']}×{x['height']}",
                         fmt(x["ms_median"], 3),
                         fmt(x["pyramid_kernels_ms_median"]
                             + x["detect_kernels_ms_median"], 3),
                         x.get("launches") or "", fmt(x["opencv_ms_median"]),
                         f"{fmt(x['vs_opencv'], 1)}×",
                         "yes" if x["equal_to_reference"] else "NO")
                        for x in ph["summary"]]
                self.w(f"**{ph.get('device', r.device)}**, wall time per frame "
                       "(upload, kernels, "
                       "read-back, grouping), median of "
                       "`tests/bench/bench-photos.sh`, on a queue that does "
                       "not record kernel times, as the elements' by default; "
                       "kernels: pyramid and detection, timed on a second "
                       "queue that does; launches: kernels per frame:\n")
                self.w(table(["cascade", "photograph", "size", "ms",
                              "kernels ms", "launches",
                              f"OpenCV-{ph['summary'][0]['opencv_threads']} ms",
                              "vs OpenCV", "faces equal OpenCV's"], rows))
                if ph.get("batches"):
                    self.photo_batches(ph)
            fl = r.j("vj-floor.json")
            if fl:
                said = True
                self.photo_floor(fl)
        if not said:
            self.w("Not measured in these runs (`tests/bench/bench-cpu.sh`, "
                   "`tests/bench/gpu-run.sh photos`).\n")

    def photo_batches(self, ph):
        """Where a photograph's time goes, alone and in a batch."""
        rows = []
        for x in ph["batches"]:
            n = x["batch"]
            rows.append((x["frame"], f"{x['width']}×{x['height']}", n,
                         fmt(x["ms_per_frame"], 3), *frame_split(x, n),
                         fmt(x["group_ms_median"] / n, 3)))
        self.w("Where the time goes (Haar), per frame, one frame at a time and "
               "in batches of frames that share each kernel launch "
               "(`bench-vj --batch 1,16`, medians per batch divided by its "
               "frames; upload: `clEnqueueWriteBuffer` of pageable memory):\n")
        self.w(table(["photograph", "size", "batch", "ms", "pyramid ms",
                      "detection ms", "upload, read-back, routing ms",
                      "grouping ms"], rows))

    def photo_floor(self, fl):
        """A frame's fixed cost: frames where the cascade has little to do."""
        rows = [(x["frame"], f"{x['width']}×{x['height']}", x["memory"],
                 fmt(x["ms_per_frame"], 3), *frame_split(x))
                for x in fl["rows"]]
        self.w(f"**{fl.get('device', '')}**, what a frame costs where the "
               "cascade has little to do (`tests/bench/bench-floor.sh`, "
               "`bench-vj --batch 1`, medians): a flat frame, whose windows "
               "all fail stage 0, and franck-1000 scaled down until its face "
               "fills the frame; pageable or pinned host memory for the "
               "upload:\n")
        self.w(table(["frame", "size", "memory", "ms", "pyramid ms",
                      "detection ms", "upload, read-back, routing ms"], rows))

    def sar_float(self):
        """Speckle filters, the float chain, and the CPU runs against OTB."""
        self.w("## Float SAR: speckle filters and Orfeo ToolBox\n")
        said = False
        for r in self.runs:
            sp = r.j("speckle.json")
            if sp:
                said = True
                rows = [(x["filter"], x["radius"], x["kernel_ms"], x["kernel_gbs"],
                         pct(x["kernel_vs_copy"]), "yes" if x["equals_reference"] else "NO",
                         best_speckle_tuning(x))
                        for x in sp["speckle"]]
                self.w(f"**{r.device}**, {sp['speckle'][0]['size']}² Float32 (4 bytes "
                       "read and 4 written a pixel), against the copy bandwidth of "
                       f"the same run, {fmt(sp['copy_bandwidth_gbs'])} GB/s:\n")
                self.w(table(["filter", "radius", "kernel ms", "GB/s",
                              "of copy bandwidth", "equals the C reference",
                              "fastest CLVISION_TUNE equal to the reference"], rows))
                c = sp["float_chain"]
                self.w(f"The float chain ({c['elements']}) on a {c['size']}² CFloat32 "
                       f"frame: its kernels {fmt(c['kernels_ms'], 3)} ms "
                       f"({pct(c['kernels_vs_copy'])} of the copy bandwidth for "
                       f"its traffic), the elements from system memory "
                       f"{fmt(c['element_ms'])} ms a frame.\n")
            o = r.j("speckle-otb.json")
            if o:
                said = True
                self.w(f"**{o['machine']}, {o['threads']} threads each**: Lee radius "
                       f"{o['radius']}, {o['looks']} looks on a {o['size']}² Float32 "
                       f"GeoTIFF, file to file: `otbcli_Despeckle` "
                       f"{fmt(o['otb_median_s'])} s, sarspeckle on PoCL "
                       f"{fmt(o['ours_median_s'])} s ({fmt(o['speed_up'])}×; the kernel "
                       f"alone {fmt(o['kernel_ms'] / 1e3)} s); "
                       f"{o['pixels_bit_equal']:,} of {o['pixels']:,} pixels equal "
                       "bit for bit, every one within 1e-4.\n"
                       if o["pixels_within_1e-4"] == o["pixels"] else
                       f"**{o['machine']}**: outputs differ from OTB's.\n")
            fs = r.j("fullscene-float.json")
            if fs:
                said = True
                t = fs["otb_s"]
                self.w(f"**{fs['machine']}, {fs['cores']} cores**: the float chain on "
                       f"a {fs['width']:,} × {fs['height']:,} scene ({fs['input']}), "
                       f"file to file: ours {fmt(fs['ours_s'], 1)} s, OTB's "
                       f"applications {fmt(t['total'], 1)} s (BandMath "
                       f"{fmt(t['bandmath_intensity'], 1)}, RigidTransformResample "
                       f"{fmt(t['rigidtransformresample'], 1)}, Despeckle "
                       f"{fmt(t['despeckle_lee'], 1)}, BandMath "
                       f"{fmt(t['bandmath_db'], 1)}): {fmt(fs['speed_up'])}×.  OTB "
                       "has no multilook application; RigidTransformResample "
                       "interpolates instead of averaging.\n")
        if not said:
            self.w("Not measured in these runs.\n")

    def tuning(self):
        self.w("## Autotuning\n")
        self.w("`clvision-tune` on each device: the device time of each kernel's "
               "workload with the defaults and with the values it found (one pass "
               "of coordinate descent from the defaults), stored only when more "
               "than 3% faster.\n")
        for r in self.runs:
            t = r.j("tune.json")
            if not t:
                continue
            rows = [(k["kernel"], k["candidates"], k["default_ms"], k["tuned_ms"],
                     f"{k['speedup']:.2f}×", k["values"] or "(defaults)",
                     "yes" if k["stored"] else "no")
                    for k in t["kernels"]]
            self.w(f"**{t['device']}** (SAR {t['sar_size']}², {t['iterations']} timed "
                   "runs per candidate):\n")
            self.w(table(["kernel", "candidates", "default ms", "tuned ms", "gain",
                          "values", "stored"], rows))

    def reproduce(self):
        self.w("## How to reproduce\n")
        self.w("""On the machine with the device, from a build (`meson setup build
-Dtests=enabled -Dbuildtype=release`), with the test data
(`tests/fetch-data.sh`) and the OpenCV oracle (built here when OpenCV is
installed; `tests/bench/gpu-prepare.sh` bundles it, with the runtime and a
release build, for a GPU server without GStreamer, whose `.device/setup.sh`
sets the environment):

```sh
tests/bench/report.sh build OUT_DIR      # every step; about 7 minutes on an H100
# or in two parts, into the same OUT_DIR (each under 10 minutes):
STEPS="tests tune sar chain sarpeers eigen" tests/bench/report.sh build OUT_DIR
STEPS="vj streams" tests/bench/report.sh build OUT_DIR
```

`STEPS="tune vj" QUICK=1 tests/bench/report.sh build OUT_DIR` is the small
run for a CPU device (PoCL), `STEPS=cpu` the detector against OpenCV with
two threads each (`tests/bench/bench-cpu.sh`), `STEPS=track` the tracker's
cost a box on the host's CPU.  Then, with the runs' folders under
`docs/bench/` (the GPU's first):

```sh
/usr/bin/python3 tests/bench/report-generate.py docs/bench/GPU docs/bench/pocl
```

(`/usr/bin/python3`: Debian's, with python3-matplotlib.)  `report.sh`
records every setting in `report-meta.json`; the steps and their
environment variables are listed at its top.
""")

    def write(self):
        self.header()
        for section in (self.correctness, self.peers, self.photographs,
                        self.ablation, self.growth, self.streams,
                        self.many_gpus, self.archives, self.limits, self.sar_float,
                        self.tuning,
                        self.reproduce):
            try:
                section()
            except (KeyError, IndexError, TypeError, ValueError) as e:
                # A JSON of another shape (a bench program changed): say so
                # in the document rather than drop the whole report.
                print(f"report-generate: {section.__name__}: {e!r}", file=sys.stderr)
                self.w(f"\n*(This section could not be generated from the runs' "
                       f"JSON: {type(e).__name__} {e}.)*\n")
        text = "\n".join(self.out).rstrip("\n") + "\n"
        with open(self.doc, "w") as f:
            f.write(re.sub(r"\n{3,}", "\n\n", text))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--doc", default="docs/performance.md")
    p.add_argument("--plots", default="docs/bench/plots")
    Report(p.parse_args()).write()


if __name__ == "__main__":
    main()
