#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fails when a symbol of libgstclvision-1.0's installed headers has no
gtk-doc comment with a description and `Since:`: every GST_CLVISION_API
function and type, every public macro, enum and structure.

    check-api-doc.py [SOURCE_ROOT]
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..")
lib = os.path.join(root, "gst", "clvision")
headers = [h for h in sorted(glob.glob(os.path.join(lib, "*.h")))
           if not h.endswith("-private.h")
           and os.path.basename(h) not in ("clvision.h", "clvision-prelude.h")]
sources = headers + sorted(glob.glob(os.path.join(lib, "*.c")))

# Every gtk-doc block: its symbol and its text.
blocks = {}
for path in sources:
    for m in re.finditer(r"/\*\*\n \* ([A-Za-z_][A-Za-z0-9_:-]*):[^\n]*\n(.*?)\*/",
                         open(path).read(), re.S):
        blocks[m.group(1)] = m.group(2)

symbols = []
for path in headers:
    text = open(path).read()
    for m in re.finditer(r"GST_CLVISION_API\s+(.*?);", text, re.S):
        decl = m.group(1)
        d = re.match(r"G_DECLARE_\w+ \((\w+),", decl)
        if d:
            symbols.append(d.group(1))
            continue
        f = re.search(r"\**(\w+) \(", decl)
        if f:
            symbols.append(f.group(1))
    symbols += re.findall(r"^#define ((?:GST_CLV|GST_MAP|GST_CAPS)\w+)", text,
                          re.M)
    symbols += re.findall(r"^} (GstClv\w+);", text, re.M)

status = 0
for name in symbols:
    body = blocks.get(name)
    # Top-level lines of the comment (" text"), not parameters,
    # continuations or tags.
    lines = [] if body is None else [
        line[3:] for line in body.split("\n") if re.match(r" \* [^ @]", line)]
    described = any(not line.startswith(("Returns:", "Since:"))
                    for line in lines)
    if body is None:
        print(f"{name}: no gtk-doc comment")
    elif "Since: 0.1" not in body:
        print(f"{name}: no 'Since: 0.1'")
    elif not described:
        print(f"{name}: the comment does not say what it is")
    else:
        continue
    status = 1
if status == 0:
    print(f"every one of the {len(symbols)} installed symbols is documented")
sys.exit(status)
