#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the tests of an existing meson build dir without meson.

For machines that have the build but not the tools (a GPU server without
meson): reads
BUILD/meson-info/intro-tests.json, maps the paths recorded at configure time
onto where the checkout is now, runs every test (or those named), and prints
'N passed, N failed'.

    tests/run-built.py BUILD [TEST ...] [--log DIR] [--env NAME=VALUE ...]
                       [--skip TEST ...] [--map OLD=NEW ...] [--split TEST ...]

--env replaces a variable of the tests' environment (e.g. point the OpenCV
oracle at a bundle that runs without OpenCV installed); --skip leaves a test
out (it is listed as skipped, not passed); --map replaces a path recorded
in the tests' commands and environment (e.g. a data folder that lies
elsewhere on that machine).  A test's program that this machine lacks
(an interpreter found at configure time) is looked up on the PATH.
--split runs each case of a GLib test program as a process of its own,
as many at once as there are CPUs (a GPU server's many cores build the
OpenCL programs of a test's cases side by side).
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time


def run_cases(cmd, env, cwd, timeout):
    """Runs each case of a GLib test program (-l lists them) as a process of
    its own, as many at once as there are CPUs; (all passed, the output of
    every case with its seconds)."""
    listing = subprocess.run(cmd + ["-l"], env=env, cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=timeout or None)
    cases = [line for line in listing.stdout.decode().splitlines() if line.startswith("/")]

    def run(case):
        t0 = time.time()
        p = subprocess.run(cmd + ["-p", case], env=env, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout or None)
        head = f"== {case}: exit {p.returncode}, {time.time() - t0:.2f}s\n".encode()
        return p.returncode == 0, head + p.stdout

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        results = list(pool.map(run, cases))
    ok = listing.returncode == 0 and bool(cases) and all(r[0] for r in results)
    return ok, listing.stdout + b"".join(r[1] for r in results)


def main():
    args = sys.argv[1:]
    log_dir = None
    if "--log" in args:
        i = args.index("--log")
        log_dir = args[i + 1]
        del args[i:i + 2]
    skip = set()
    while "--skip" in args:
        i = args.index("--skip")
        skip.add(args[i + 1])
        del args[i:i + 2]
    overrides = {}
    while "--env" in args:
        i = args.index("--env")
        name, _, value = args[i + 1].partition("=")
        overrides[name] = value
        del args[i:i + 2]
    maps = []
    while "--map" in args:
        i = args.index("--map")
        maps.append(tuple(args[i + 1].split("=", 1)))
        del args[i:i + 2]
    split = set()
    while "--split" in args:
        i = args.index("--split")
        split.add(args[i + 1])
        del args[i:i + 2]
    build = os.path.abspath(args[0])
    wanted = set(args[1:])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tests = json.load(open(os.path.join(build, "meson-info", "intro-tests.json")))
    # Where the source and build dirs were at configure time.
    dirs = json.load(open(os.path.join(build, "meson-info", "meson-info.json")))["directories"]
    old_build, old_root = dirs["build"], dirs["source"]

    def remap(s):
        s = s.replace(old_build, build).replace(old_root, root)
        for old, new in maps:
            s = s.replace(old, new)
        return s

    passed = failed = skipped = 0
    for t in tests:
        if wanted and t["name"] not in wanted:
            continue
        if t["name"] in skip:
            print(f"{t['name']:<28} SKIP (--skip)")
            skipped += 1
            continue
        env = dict(os.environ)
        for k, v in t["env"].items():
            v = remap(v)
            # meson's library paths go in front of the machine's own.
            if k in ("LD_LIBRARY_PATH", "PATH") and os.environ.get(k):
                v = v + os.pathsep + os.environ[k]
            env[k] = v
        env.update(overrides)
        cmd = [remap(c) for c in t["cmd"]]
        # An interpreter found at configure time (python3 of a virtual
        # environment) that this machine lacks: the one on its PATH.
        if not os.path.exists(cmd[0]) and shutil.which(os.path.basename(cmd[0])):
            cmd[0] = shutil.which(os.path.basename(cmd[0]))
        t0 = time.time()
        # As meson test: in the build directory unless the test names one
        # (arguments such as an executable of ours are relative to it).
        cwd = remap(t["workdir"]) if t["workdir"] else build
        if t["name"] in split:
            ok, output = run_cases(cmd, env, cwd, t["timeout"])
        else:
            p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=t["timeout"] or None)
            ok, output = p.returncode == 0, p.stdout
        passed += ok
        failed += not ok
        print(f"{t['name']:<28} {'OK' if ok else 'FAIL'} {time.time() - t0:7.2f}s", flush=True)
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
            with open(os.path.join(log_dir, t["name"] + ".log"), "wb") as f:
                f.write(output)
        if not ok:
            sys.stdout.write(output.decode(errors="replace")[-4000:])
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
