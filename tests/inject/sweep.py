#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCL failure injection: a short pipeline of each element is run once
to list its OpenCL call sites (clinject counts them), then again and again
with one call made to fail (clinject, preloaded).  Every run must end with
one GStreamer error that names the failing call, or with the results of
the run without failure (the code recovered); never a crash, a hang, a
second error for the same cause, or other results.

  sweep.py --shim libclinject.so --runner inject-run [--mode ci|full]
           [--jobs N] [--asan] [--markdown FILE] [PIPELINE...]

--mode ci (the default, what meson test runs): at every call site its
first, middle and last call, the error kinds taken in turn from site to
site (and CL_BUILD_PROGRAM_FAILURE at every build); --mode full: every call
of every site with each error kind (hours).
The source tree is checked too: every OpenCL function that common/ and
gst/ call must be one clinject wraps, or its calls would go uncounted.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ERRORS = ["CL_OUT_OF_RESOURCES", "CL_MEM_OBJECT_ALLOCATION_FAILURE",
          "CL_OUT_OF_HOST_MEMORY", "CL_INVALID_COMMAND_QUEUE"]
BUILD_ERROR = "CL_BUILD_PROGRAM_FAILURE"
BUILD_CALLS = ("clBuildProgram",)
# What a source element posts after a downstream error: GStreamer's echo of
# the same cause, not a second one.
ECHO = "Internal data stream error."

SRC = os.environ.get("CLV_SOURCE_DIR",
                     os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.environ.get("CLV_DATA_CACHE", os.path.join(SRC, "tests/data/cache"))
FACE = os.path.join(DATA, "grace_hopper.pgm")
FACES = ("filesrc location=%s ! pnmdec ! videoscale ! "
         "video/x-raw,width=160,height=160 ! imagefreeze num-buffers=%d" %
         (FACE, 3))
FACES_RGBA = ("filesrc location=%s ! pnmdec ! videoconvert ! videoscale ! "
              "video/x-raw,format=RGBA,width=160,height=160 ! "
              "imagefreeze num-buffers=2" % FACE)
SAR = ("videotestsrc num-buffers=2 pattern=snow ! "
       "video/x-raw,format=GRAY16_LE,width=96,height=64")
SAR_CHAIN = ("sarmultilook looks=2 ! sarrotscale angle=30 ! sarquantize")
# sarspeckle makes Float32 rasters of the video: the float paths, in dB
# before the quantisation.
SAR_FLOAT_CHAIN = ("sarspeckle filter=lee radius=1 looks=4 ! sarmultilook "
                   "looks=2 ! sarrotscale angle=30 ! sardb ! sarquantize")

# name: (pipeline, extra environment)
PIPELINES = collections.OrderedDict([
    ("clupload-cldownload", (
        "videotestsrc num-buffers=3 pattern=ball ! "
        "video/x-raw,format=I420,width=64,height=48 ! clupload ! "
        "cldownload ! fakesink name=out", {})),
    ("vjfacedetect", (
        FACES + " ! vjfacedetect in-flight=1 batch-size=0 ! fakesink name=out",
        {})),
    ("vjfacedetect-batch-inflight", (
        FACES + " ! vjfacedetect in-flight=2 ! fakesink name=a " +
        FACES + " ! vjfacedetect in-flight=2 ! fakesink name=b", {})),
    ("eigenrecognise", (
        FACES + " ! vjfacedetect ! eigenrecognise train-dir=%s "
        "train-width=25 train-height=25 ! fakesink name=out" %
        os.path.join(DATA, "lfw", "faces"), {})),
    ("sar-system-memory", (
        SAR + " ! " + SAR_CHAIN + " ! fakesink name=out", {})),
    ("sar-opencl-memory", (
        SAR + " ! clupload ! " + SAR_CHAIN + " ! cldownload ! "
        "fakesink name=out", {})),
    ("sar-float-opencl-memory", (
        SAR + " ! clupload ! " + SAR_FLOAT_CHAIN + " ! cldownload ! "
        "fakesink name=out", {})),
    ("roioverlay-device", (
        FACES_RGBA + " ! vjfacedetect ! clupload ! roioverlay ! cldownload "
        "! fakesink name=out", {})),
])


def parse_run(text):
    """inject-run's output: digests, errors, result."""
    sinks, errors, result = {}, [], None
    for line in text.splitlines():
        if line.startswith("sink "):
            _, name, n, digest = line.split(" ")
            sinks[name] = (int(n), digest)
        elif line.startswith("error "):
            errors.append(line[len("error "):].split("\t"))
        elif line.startswith("result "):
            result = line.split(" ")[1]
    return sinks, errors, result


PATHS = {}   # module name -> file
SOURCE_LINES = {}


def source_line(where):
    """The function and file:line of the call at MODULE+0xOFFSET."""
    if where not in SOURCE_LINES:
        module, offset = where.split("+")
        try:
            out = subprocess.run(["addr2line", "-f", "-e", PATHS[module],
                                  hex(int(offset, 16) - 1)],
                                 capture_output=True, text=True).stdout
            func, line = out.splitlines()[:2]
            SOURCE_LINES[where] = "%s (%s)" % (
                func, os.path.relpath(line.split(" ")[0], SRC)
                if line.startswith("/") else line)
        except (KeyError, ValueError, OSError):
            SOURCE_LINES[where] = where
    return SOURCE_LINES[where]


def parse_log(path):
    sites, fired = [], None
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if words[0] == "site":
                    sites.append((words[1], words[2], int(words[3])))
                    PATHS[words[2].split("+")[0]] = words[4]
                elif words[0] == "fired":
                    fired = words[1:]
    except FileNotFoundError:
        pass
    return sites, fired


class Sweep:
    def __init__(self, args):
        self.args = args
        self.extra_env = {}
        if args.asan:
            args.timeout *= 3       # every run is slower
            # clinject is not sanitized; preloaded, it comes before the
            # runner's ASan runtime, which must accept that.
            self.extra_env["ASAN_OPTIONS"] = (
                os.environ.get("ASAN_OPTIONS", "") +
                ":verify_asan_link_order=0")

    def run(self, pipeline, env_extra, inject=None):
        """Runs the pipeline (inject: (site, n, error) or None); returns
        (returncode, stdout, stderr, sites, fired).  The run without
        injection may build every program from source (a cold cache):
        it gets four times as long."""
        timeout = self.args.timeout * (1 if inject else 4)
        with tempfile.NamedTemporaryFile(prefix="clinject-",
                                         suffix=".log") as log:
            env = dict(os.environ, LD_PRELOAD=self.args.shim,
                       CLINJECT_LOG=log.name, **env_extra, **self.extra_env)
            if inject:
                env.update(CLINJECT_SITE=inject[0], CLINJECT_N=str(inject[1]),
                           CLINJECT_ERROR=inject[2])
            try:
                p = subprocess.run([self.args.runner, "--timeout",
                                    str(timeout), pipeline],
                                   env=env, capture_output=True, text=True,
                                   timeout=timeout + 30)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = -14, e.stdout or "", e.stderr or ""
            sites, fired = parse_log(log.name)
        return rc, out, err, sites, fired

    def classify(self, reference, rc, out, err, fired):
        """(outcome, ok, detail)."""
        if rc < 0:
            return ("hang" if rc == -14 else "crash (signal %d)" % -rc,
                    False, err[-2000:])
        if "Sanitizer" in err:
            return "sanitizer report", False, err[-4000:]
        if rc != 0:
            return "runner failed (%d)" % rc, False, err[-2000:]
        sinks, errors, result = parse_run(out)
        if fired is None:
            ok = result == "eos" and not errors and sinks == reference
            return "not reached", ok, out
        causes = [e for e in errors if e[1] != ECHO]
        if result == "eos" and not errors:
            if sinks == reference:
                return "recovered", True, ""
            return "other results", False, "%s != %s" % (sinks, reference)
        if len(causes) != 1:
            return "%d errors" % len(causes), False, out
        if fired[0] not in causes[0][1] + causes[0][2]:
            return "error without the call", False, out
        return "error naming the call", True, ""

    def cases(self, sites):
        """The (site, n, error) to inject for the mode."""
        out = []
        for i, (func, where, calls) in enumerate(sites):
            kinds = ERRORS + ([BUILD_ERROR] if func in BUILD_CALLS else [])
            if self.args.mode == "full":
                out += [(func, where, n, e) for n in range(1, calls + 1)
                        for e in kinds]
                continue
            ns = sorted({1, (calls + 1) // 2, calls})
            for j, n in enumerate(ns):
                out.append((func, where, n, kinds[(i + j) % len(kinds)]))
            if func in BUILD_CALLS:
                out.append((func, where, 1, BUILD_ERROR))
        return out

    def sweep(self, name):
        pipeline, env_extra = PIPELINES[name]
        rc, out, err, sites, _ = self.run(pipeline, env_extra)
        reference, errors, result = parse_run(out)
        if rc != 0 or result != "eos" or errors or not sites:
            sys.exit("%s: the run without injection failed (%d):\n%s\n%s" %
                     (name, rc, out, err[-3000:]))
        cases = self.cases(sites)
        results = []
        with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as pool:
            futures = [(c, pool.submit(self.run, pipeline, env_extra,
                                       (c[1], c[2], c[3]))) for c in cases]
            for c, f in futures:
                rc, out, err, _, fired = f.result()
                outcome, ok, detail = self.classify(reference, rc, out, err,
                                                    fired)
                results.append((c, outcome, ok, detail))
        return sites, results


def wrapped_functions():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "clinject.c")) as f:
        text = f.read()
    return set(re.findall(r"^(?:STATUS_CALL \(|REFCOUNT_CALL \([\w ]+, |"
                          r"OBJECT_CALL \([\w *]+, )(cl\w+)", text, re.M))


def called_functions():
    """OpenCL API functions the sources call."""
    with open("/usr/include/CL/cl.h") as f:
        api = set(re.findall(r"^(cl[A-Z]\w+)\(", f.read(), re.M))
    used = set()
    for top in ("common", "gst"):
        for root, _, files in os.walk(os.path.join(SRC, top)):
            for name in files:
                if name.endswith((".c", ".h")):
                    with open(os.path.join(root, name)) as f:
                        used |= set(re.findall(r"\b(cl[A-Z]\w+)\s*\(",
                                               f.read()))
    return used & api


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--mode", choices=("ci", "full"), default="ci")
    ap.add_argument("--jobs", type=int, default=2)
    # Long enough for a program built from source on a busy machine.
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--asan", action="store_true",
                    help="the runner is built with AddressSanitizer")
    ap.add_argument("--markdown", help="write the counts as a table here")
    ap.add_argument("--verbose", action="store_true",
                    help="print every run's outcome")
    ap.add_argument("pipelines", nargs="*", default=list(PIPELINES))
    args = ap.parse_args()

    missing = called_functions() - wrapped_functions()
    if missing:
        sys.exit("clinject does not wrap %s, which the sources call" %
                 ", ".join(sorted(missing)))

    sweep = Sweep(args)
    failures, rows = 0, []
    all_sites = set()
    for name in args.pipelines:
        sites, results = sweep.sweep(name)
        all_sites |= {(f, w) for f, w, _ in sites}
        counts = collections.Counter(outcome for _, outcome, _, _ in results)
        bad = [r for r in results if not r[2]]
        failures += len(bad)
        rows.append((name, len(sites), sum(c for _, _, c in sites),
                     len(results), counts))
        print("%s: %d call sites, %d calls, %d runs: %s" % (
            name, len(sites), sum(c for _, _, c in sites), len(results),
            ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
        if args.verbose:
            for (func, where, n, error), outcome, _, _ in results:
                print("  %s in %s, call %d, %s: %s" % (
                    func, source_line(where), n, error, outcome))
        for (func, where, n, error), outcome, _, detail in bad:
            print("  FAIL %s in %s, call %d, %s: %s\n    %s" % (
                func, source_line(where), n, error, outcome,
                detail.strip().replace("\n", "\n    ")[:3000]))
            print("    repeat: LD_PRELOAD=%s CLINJECT_SITE=%s CLINJECT_N=%d "
                  "CLINJECT_ERROR=%s %s '%s'" % (
                      args.shim, where, n, error, args.runner,
                      PIPELINES[name][0]))
    if args.markdown:
        write_markdown(args.markdown, rows, len(all_sites))
    print("%d distinct call sites; %d failure(s)" % (len(all_sites), failures))
    sys.exit(1 if failures else 0)


def write_markdown(path, rows, n_sites):
    outcomes = sorted({o for r in rows for o in r[4]})
    with open(path, "w") as f:
        f.write("| pipeline | call sites | calls | runs | %s |\n" %
                " | ".join(outcomes))
        f.write("|---" * (4 + len(outcomes)) + "|\n")
        for name, sites, calls, runs, counts in rows:
            f.write("| %s | %d | %d | %d | %s |\n" % (
                name, sites, calls, runs,
                " | ".join(str(counts.get(o, 0)) for o in outcomes)))
        f.write("\n%d distinct call sites in all.\n" % n_sites)


if __name__ == "__main__":
    main()
