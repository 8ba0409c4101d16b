#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# clvision-tune searches the SAR kernels' macros on the test device: each
# kernel searches its own macros only and reports integer values (a kernel
# whose macro list filled its table once read on into the next kernel's).
# The detector's search skips the macros its uberkernel ignores: chunks
# over tiles, tiles and stages compiled in over chunks (both were once
# searched, and a no-op value could be stored on noise).
# Usage: tune-search.sh CLVISION_TUNE_EXECUTABLE (CLV_DATA_CACHE set)
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$1" --dry-run --size 64 --iterations 1 \
  --kernels multilook,rotscale,quantize --json "$out/tune.json" >/dev/null
python3 - "$out/tune.json" <<'PY'
import json, re, sys

d = json.load(open(sys.argv[1]))
prefix = {"multilook": "SAR_ML_", "rotscale": "SAR_RS_", "quantize": "SAR_Q_"}
kernels = d["kernels"]
assert [k["kernel"] for k in kernels] == list(prefix), kernels
assert d["stored"] is False, "--dry-run stored a result"
for k in kernels:
    names = k["searched"].split(";")
    assert len(names) >= 3, k
    for name in names:
        assert re.fullmatch(prefix[k["kernel"]] + r"[A-Z_]+", name), (k["kernel"], name)
    for item in filter(None, k["values"].split(",")):
        assert re.fullmatch(prefix[k["kernel"]] + r"[A-Z_]+=-?\d+", item), (k["kernel"], item)
    assert k["candidates"] > len(names), k
print("ok:", ", ".join(f'{k["kernel"]} {k["candidates"]} candidates' for k in kernels))
PY

"$1" --dry-run --iterations 1 --kernels vj \
  --image "$CLV_DATA_CACHE/grace_hopper.pgm" --vj-size 160x120 \
  --json "$out/tune-vj.json" >/dev/null 2>&1
python3 - "$out/tune-vj.json" <<'PY'
import json, sys

d = json.load(open(sys.argv[1]))
(k,) = d["kernels"]
names = set(k["searched"].split(";"))
tiles = {"VJ_TILE_X,VJ_TILE_Y"} & names
chunk = {"VJ_CHUNK"} & names
assert bool(tiles) != bool(chunk), names
assert ("VJ_UNROLL" in names) == bool(tiles), names
for name in ("VJ_WG,VJ_COOP_WINDOWS", "VJ_COOP_STAGE", "VJ_SHUFFLE",
             "VJ_GROUPS_PER_CU", "VJ_BAND_WG,VJ_BAND_ROWS"):
    assert name in names, (name, names)
print("ok: vj searched", ", ".join(sorted(names)))
PY
