#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fails when a C function in gst/ or common/ is over 150 lines.

A function's length runs from the line of its name to its closing brace.
Comments, strings and preprocessor lines are skipped, so a brace in any of
them does not count.

  tests/tree/check-function-length.py [SOURCE_ROOT]
  tests/tree/check-function-length.py --self-test
"""
import os
import re
import sys
import tempfile

MAX_LINES = 150
DIRS = ("gst", "common")
IDENT = re.compile(r"[A-Za-z_]\w*")


def blank_out(text):
    """The text with comments, string and character literals and
    preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A directive, with its continuation lines.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c in " \t" and line_start:
            out.append(c)
            i += 1
            continue
        line_start = c == "\n"
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of every function defined in `text`:
    a brace at file level that follows a parameter list's `)`."""
    code = blank_out(text)
    found = []
    depth = 0
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "{":
            if depth == 0:
                start = function_start(code, i)
                if start is not None:
                    name, pos = start
                    end = matching_brace(code, i)
                    found.append((name, code.count("\n", 0, pos) + 1,
                                  code.count("\n", 0, end) + 1))
                    i = end + 1
                    continue
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        i += 1
    return found


def function_start(code, brace):
    """The name and its offset for a function body opening at `brace`, or
    None when the brace opens something else (struct, enum, initialiser)."""
    j = brace - 1
    while j >= 0 and code[j].isspace():
        j -= 1
    # Attributes between the parameter list and the body (G_GNUC_...).
    while j >= 0 and (code[j].isalnum() or code[j] == "_"):
        k = j
        while k >= 0 and (code[k].isalnum() or code[k] == "_"):
            k -= 1
        j = k
        while j >= 0 and code[j].isspace():
            j -= 1
    if j < 0 or code[j] != ")":
        return None
    depth = 0
    while j >= 0:
        if code[j] == ")":
            depth += 1
        elif code[j] == "(":
            depth -= 1
            if depth == 0:
                break
        j -= 1
    j -= 1
    while j >= 0 and code[j].isspace():
        j -= 1
    end = j + 1
    while j >= 0 and (code[j].isalnum() or code[j] == "_"):
        j -= 1
    name = code[j + 1:end]
    if not IDENT.fullmatch(name):
        return None
    return name, j + 1


def matching_brace(code, brace):
    depth = 0
    for k in range(brace, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def too_long(root):
    """`path:line: name is N lines` for every function over the limit."""
    found = []
    for top in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fp:
                    text = fp.read()
                for name, first, last in functions(text):
                    length = last - first + 1
                    if length > MAX_LINES:
                        found.append("%s:%d: %s is %d lines" % (
                            os.path.relpath(path, root), first, name, length))
    return found


def self_test():
    """The check finds a function one line over the limit and none in code
    whose braces hide in comments, strings or macros."""
    body = "\n".join("  x += %d;" % k for k in range(MAX_LINES - 4))
    over = ("static int\nlong_one (int x)\n{\n%s\n  x++;\n  return x;\n}\n"
            % body)
    at_limit = ("static int\nshort_one (int x)\n{\n%s\n  return x;\n}\n"
                % body)
    noise = ('/* { */\nstruct s\n{\n  int a;\n};\n'
             '#define M(x) do { x; } while (0)\n'
             'static const char *t = "}{";\nstatic const char b = \'{\';\n'
             'static int tbl[] = { 1, 2 };\n')
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "common"))
        os.makedirs(os.path.join(root, "gst"))
        with open(os.path.join(root, "common", "a.c"), "w") as fp:
            fp.write(noise + at_limit)
        ok = too_long(root) == []
        with open(os.path.join(root, "gst", "b.c"), "w") as fp:
            fp.write(noise + over)
        found = too_long(root)
        ok = ok and found == ["gst/b.c:%d: long_one is %d lines"
                              % (noise.count("\n") + 2, MAX_LINES + 1)]
    print("self-test", "passed" if ok else "FAILED: %r" % found)
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    found = too_long(root)
    for line in found:
        print(line)
    if found:
        print("%d function(s) in %s over %d lines: split them into their "
              "steps" % (len(found), " and ".join(DIRS), MAX_LINES))
        return 1
    print("no function in %s is over %d lines" % (" and ".join(DIRS),
                                                  MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
