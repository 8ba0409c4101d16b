#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""roiexport schema=gva gives DL Streamer gvametaconvert's records.

  check-gva.py WORKDIR

Runs real pipelines (faces detected, tracked and recognised by Eigenfaces
trained on the LFW crops; frames without faces), validates every record
against tests/export/gvametaconvert.schema.json with python3-jsonschema,
checks that members come in name order at every level (as DL Streamer's
JSON library writes them), that frames without objects are dropped or kept
as add-empty-results says, and that the schema refuses clvision's own
records (so that it is not one that accepts anything).  Runs
gst-launch-1.0 from PATH with the environment it is given.
"""
import json
import os
import subprocess
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("CLV_DATA_CACHE",
                       os.path.join(HERE, "..", "data", "cache"))


def run(pipeline):
    subprocess.run(["gst-launch-1.0", "-q"] + pipeline, check=True)


def records(path):
    with open(path) as f:
        return [json.loads(line, object_pairs_hook=list) for line in f]


def as_dict(pairs):
    """A record read with its members' order kept, as plain JSON."""
    if isinstance(pairs, list) and all(isinstance(p, tuple) for p in pairs):
        return {k: as_dict(v) for k, v in pairs}
    if isinstance(pairs, list):
        return [as_dict(v) for v in pairs]
    return pairs


def check_order(pairs, where="record"):
    if isinstance(pairs, list) and all(isinstance(p, tuple) for p in pairs):
        names = [k for k, _ in pairs]
        assert names == sorted(names), f"{where}: members {names} not sorted"
        for k, v in pairs:
            check_order(v, f"{where}.{k}")
    elif isinstance(pairs, list):
        for i, v in enumerate(pairs):
            check_order(v, f"{where}[{i}]")


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(HERE, "gvametaconvert.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)

    faces = os.path.join(work, "faces.jsonl")
    clvision = os.path.join(work, "clvision.jsonl")
    photo = os.path.join(CACHE, "grace_hopper_512x512.jpg")
    run(["filesrc", f"location={photo}", "!", "jpegdec", "!", "videoconvert",
         "!", "imagefreeze", "num-buffers=3", "!", "vjfacedetect", "!",
         "roitrack", "!", "eigenrecognise",
         f"train-dir={os.path.join(CACHE, 'lfw', 'faces')}",
         "train-width=25", "train-height=25", "!", "tee", "name=t",
         "t.", "!", "queue", "!", "roiexport", "schema=gva",
         f"location={faces}", "source-name=door", 'tags={"site":"lab"}',
         "!", "fakesink",
         "t.", "!", "queue", "!", "roiexport", f"location={clvision}", "!",
         "fakesink"])
    got = records(faces)
    assert len(got) == 3, f"{len(got)} records for 3 frames with a face"
    for i, pairs in enumerate(got):
        check_order(pairs)
        rec = as_dict(pairs)
        validator.validate(rec)
        obj = rec["objects"][0]
        assert obj["id"] == 1 and obj["roi_type"] == "face"
        assert obj["detection"]["label"] == "face"
        assert 0 < obj["detection"]["bounding_box"]["x_min"] < 1
        assert obj["recognition"]["model"]["name"] == "faces"
        assert rec["source"] == "door" and rec["tags"] == {"site": "lab"}
        assert rec["resolution"] == {"height": 512, "width": 512}
        assert rec["timestamp"] == i * 40000000, rec["timestamp"]
    print(f"{len(got)} records with faces: valid, members in name order")
    for line in records(clvision):
        errors = list(validator.iter_errors(as_dict(line)))
        assert errors, "the schema accepts a clvision record"
    print("clvision records refused by the schema")

    for add_empty, want in (("false", 0), ("true", 4)):
        empty = os.path.join(work, f"empty-{add_empty}.jsonl")
        run(["videotestsrc", "num-buffers=4", "pattern=black", "!",
             "vjfacedetect", "!", "roiexport", "schema=gva",
             f"add-empty-results={add_empty}", f"location={empty}", "!",
             "fakesink"])
        got = records(empty)
        assert len(got) == want, f"add-empty-results={add_empty}: {len(got)}"
        for pairs in got:
            check_order(pairs)
            rec = as_dict(pairs)
            validator.validate(rec)
            assert "objects" not in rec
        print(f"add-empty-results={add_empty}: {len(got)} records for 4 "
              f"frames without a face")


if __name__ == "__main__":
    main()
