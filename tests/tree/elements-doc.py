#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/elements.md, the element reference, from the plugins themselves.

    elements-doc.py --source-root DIR --plugin-dir DIR [--plugin-dir DIR ...]
                    [--cascade-dir DIR] (--output FILE | --check FILE)

Each element's text is its `SECTION:element-NAME` comment in the sources;
its pads, caps and properties (type, range, default, when they can change)
come from the built plugins through GStreamer's registry (PyGObject), and a
property's `GstType:name:` doc comment, where there is one, follows its
blurb.  Debian ships no gst-hotdoc-plugins-scanner, so this does what its
cache JSON would give.  --check compares with the checked-in file and fails
on any difference, naming the command that regenerates it:

    meson compile -C build elements-doc

--cascade-dir is the build's meson option `cascade-dir`; the reference shows
the option's default in its place, so that a build with another folder still
checks the same text.
"""
import argparse
import difflib
import os
import re
import sys
import tempfile

PLUGINS = ("clvision", "clvisiongdal")
DEFAULT_CASCADE_DIR = "/usr/share/opencv4/haarcascades"
# Classes of GStreamer and GLib whose properties every element of that kind
# has; the reference lists what clvision's own classes add.
BASE_TYPES = {"GObject", "GInitiallyUnowned", "GstObject", "GstElement",
              "GstBin", "GstBaseTransform", "GstVideoFilter", "GstBaseSrc",
              "GstPushSrc", "GstBaseSink", "GstVideoSink"}
LIMITS = {2**31 - 1: "G_MAXINT", -2**31: "G_MININT", 2**32 - 1: "G_MAXUINT",
          2**63 - 1: "G_MAXINT64", -2**63: "G_MININT64",
          2**64 - 1: "G_MAXUINT64"}
TYPE_NAMES = {"gint": "int", "guint": "uint", "gint64": "int64",
              "guint64": "uint64", "glong": "long", "gulong": "ulong",
              "gdouble": "double", "gfloat": "float", "gboolean": "boolean",
              "gchararray": "string"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--source-root", required=True)
    p.add_argument("--plugin-dir", action="append", required=True)
    p.add_argument("--cascade-dir", default=DEFAULT_CASCADE_DIR)
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--output")
    out.add_argument("--check")
    return p.parse_args()


def init_gst(plugin_dirs):
    """GStreamer with the given plugin folders only, in a registry of its own."""
    os.environ["GST_PLUGIN_PATH_1_0"] = os.pathsep.join(plugin_dirs)
    os.environ["GST_PLUGIN_SYSTEM_PATH_1_0"] = ""
    registry = tempfile.NamedTemporaryFile(prefix="elements-doc-",
                                           suffix=".bin", delete=False)
    registry.close()
    os.environ["GST_REGISTRY_1_0"] = registry.name
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GObject, Gst
    Gst.init(None)
    os.unlink(registry.name)
    return Gst, GObject


# ---- the doc comments of the sources -------------------------------------

def doc_comments(source_root):
    """{'element-NAME': text, 'GstType:prop': text} from every gtk-doc
    comment of gst/**/*.c."""
    docs = {}
    for folder, _, files in sorted(os.walk(os.path.join(source_root, "gst"))):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            text = open(os.path.join(folder, name), encoding="utf-8").read()
            for block in re.findall(r"/\*\*\n(.*?)\*/", text, re.S):
                lines = [re.sub(r"^\s*\* ?", "", l) for l in block.split("\n")]
                head = lines[0].strip()
                m = re.match(r"(?:SECTION:)?(element-[\w-]+|[A-Z]\w+:[\w-]+):?$",
                             head)
                if m:
                    docs[m.group(1)] = "\n".join(
                        l for l in lines[1:] if not re.match(r"@\w+:", l))
    return docs


def gtkdoc_to_markdown(text, prop_links):
    """gtk-doc markup to Markdown: |[ ]| blocks, #Type:prop, #Type, %CONST,
    and headings moved under the element's own."""
    out, in_code = [], False
    for line in text.strip("\n").split("\n"):
        if line.strip().startswith("|["):
            lang = re.search(r'language="(\w+)"', line)
            if out and out[-1].strip():
                out.append("")
            out.append("```" + (lang.group(1).lower() if lang else ""))
            in_code = True
            continue
        if in_code and line.strip().startswith("]|"):
            out += ["```", "", line.strip()[2:].strip()]
            in_code = False
            continue
        if not in_code:
            line = re.sub(r"^(#+) ", lambda m: "##" + m.group(1) + " ", line)
            line = re.sub(r"#(Gst\w+):([\w-]+)",
                          lambda m: prop_links.get(m.group(2),
                                                   "`%s`" % m.group(2)), line)
            line = re.sub(r"#([A-Z]\w+)", r"`\1`", line)
            line = re.sub(r"%([A-Z][A-Z0-9_]+)", r"`\1`", line)
        out.append(line)
    return "\n".join(out).strip("\n")


# ---- caps -----------------------------------------------------------------

def split_top(text, sep):
    """Splits at `sep` outside brackets, braces and quotes."""
    parts, depth, quote, cur = [], 0, False, ""
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "[{(<":
            depth += 1
        elif not quote and ch in "]})>":
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def wrap_list(value, indent):
    """A { a, b, ... } list wrapped at 76 columns."""
    if len(value) + indent <= 76 or not value.startswith("{"):
        return value
    items, lines, cur = split_top(value.strip("{} "), ","), [], "{"
    for item in items:
        if len(cur) + len(item) + indent + 2 > 76:
            lines.append(cur + ",")
            cur = " " * 2 + item
        else:
            cur += (" " if cur == "{" else ", ") + item
    lines.append(cur + " }")
    return ("\n" + " " * indent).join(lines)


def caps_block(caps, all_formats):
    """One block per set of fields, the caps features that share it first."""
    if caps.is_any():
        return "ANY"
    groups = []
    for structure in split_top(caps.to_string(), ";"):
        fields = split_top(structure, ",")
        body = []
        for field in fields[1:]:
            name, _, value = field.partition("=")
            value = re.sub(r"^\(\w+\)", "", value.strip())
            if name.strip() == "format" and value.startswith("{") and \
                    set(split_top(value.strip("{} "), ",")) == all_formats:
                value = "any raw video format (GST_VIDEO_FORMATS_ALL)"
            body.append("    %s: %s" % (name.strip(),
                                        wrap_list(value, 6 + len(name))))
        if groups and groups[-1][1] == body:
            groups[-1][0].append(fields[0])
        else:
            groups.append(([fields[0]], body))
    return "\n".join("\n".join(["; ".join(names)] + body)
                     for names, body in groups)


# ---- properties -----------------------------------------------------------

def fmt_number(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return LIMITS.get(v, str(v))
    if v == sys.float_info.max:
        return "G_MAXDOUBLE"
    if v == -sys.float_info.max:
        return "-G_MAXDOUBLE"
    return "%g" % v


def enum_values(pspec, GObject):
    """[(nick, value)] of an enum or flags property."""
    values = type(pspec.default_value).__enum_values__ \
        if GObject.type_is_a(pspec.value_type, GObject.TYPE_ENUM) \
        else type(pspec.default_value).__flags_values__
    return [(v.value_nicks[0] if hasattr(v, "value_nicks") else v.value_nick,
             k) for k, v in sorted(values.items())]


def describe_property(pspec, Gst, GObject, cascade_dir):
    """(type, range, default) of a property, as text."""
    vt = pspec.value_type
    type_name = TYPE_NAMES.get(vt.name, vt.name)
    rng = ""
    default = pspec.default_value
    if GObject.type_is_a(vt, GObject.TYPE_ENUM):
        vals = enum_values(pspec, GObject)
        rng = ", ".join("`%s` (%d)" % v for v in vals)
        default = "`%s`" % dict((k, n) for n, k in vals)[int(default)]
        type_name = "enum " + vt.name
    elif GObject.type_is_a(vt, GObject.TYPE_FLAGS):
        vals = enum_values(pspec, GObject)
        rng = ", ".join("`%s` (0x%x)" % v for v in vals)
        default = "0x%x" % int(default)
        type_name = "flags " + vt.name
    elif hasattr(pspec, "minimum") and pspec.minimum is not None:
        rng = "%s – %s" % (fmt_number(pspec.minimum), fmt_number(pspec.maximum))
        default = fmt_number(default)
    elif vt.name == "gboolean":
        default = fmt_number(default)
    elif vt.name == "gchararray":
        default = "none" if default is None else '`"%s"`' % default.replace(
            cascade_dir, DEFAULT_CASCADE_DIR)
    else:
        default = "—"
    return type_name, rng, default


def property_flags(pspec, Gst, GObject):
    f = pspec.flags
    access = []
    if f & GObject.ParamFlags.READABLE:
        access.append("read")
    if f & GObject.ParamFlags.WRITABLE:
        access.append("write")
    if not f & GObject.ParamFlags.WRITABLE:
        return "read-only"
    when = "changeable in NULL"
    if f & Gst.PARAM_MUTABLE_PLAYING:
        when = "changeable in PLAYING"
    elif f & Gst.PARAM_MUTABLE_PAUSED:
        when = "changeable in PAUSED"
    elif f & Gst.PARAM_MUTABLE_READY:
        when = "changeable in READY"
    elif f & GObject.ParamFlags.CONSTRUCT_ONLY:
        when = "construct only"
    if f & Gst.PARAM_CONTROLLABLE:
        when += ", controllable"
    return "/".join(access) + ", " + when


def own_properties(gtype, GObject):
    return sorted((p for p in GObject.list_properties(gtype)
                   if p.owner_type.name not in BASE_TYPES),
                  key=lambda p: p.name)


def base_classes(gtype):
    chain, t = [], gtype.parent
    while t and t.name not in ("GstElement", "GstObject"):
        chain.append(t.name)
        t = t.parent
    return chain


# ---- the document ---------------------------------------------------------

def element_section(factory, plugin, docs, Gst, GObject, cascade_dir,
                    all_formats):
    name = factory.get_name()
    gtype = factory.load().get_element_type()
    props = own_properties(gtype, GObject)
    links = {p.name: "[`%s`](#%s-%s)" % (p.name, name, p.name) for p in props}
    w = ["## %s" % name, ""]
    w.append("*%s* — %s.  Plugin `%s`, class `%s` (%s), classification `%s`."
             % (factory.get_metadata("long-name"),
                factory.get_metadata("description"), plugin.get_name(),
                gtype.name, " → ".join(base_classes(gtype)),
                factory.get_metadata("klass")))
    w.append("")
    section = docs.get("element-" + name)
    if section is None:
        raise SystemExit("no SECTION:element-%s comment in gst/" % name)
    w += [gtkdoc_to_markdown(section, links), ""]
    w += ["### Pads", ""]
    pads = []
    for tpl in sorted(factory.get_static_pad_templates(),
                      key=lambda t: (-int(t.direction), t.name_template)):
        caps = caps_block(tpl.get_caps(), all_formats)
        label = "`%s` (%s, %s)" % (tpl.name_template,
                                   "sink" if tpl.direction ==
                                   Gst.PadDirection.SINK else "src",
                                   tpl.presence.value_nick)
        if pads and pads[-1][1] == caps:
            pads[-1][0].append(label)
        else:
            pads.append(([label], caps))
    for labels, caps in pads:
        w += [" and ".join(labels) + ":", "", "```", caps, "```", ""]
    w += ["### Properties", ""]
    if not props:
        w += ["None of its own.", ""]
    for p in props:
        type_name, rng, default = describe_property(p, Gst, GObject,
                                                    cascade_dir)
        facts = [type_name] + ([rng] if rng else []) + ["default " + default,
                                                        property_flags(p, Gst,
                                                                       GObject)]
        w.append('<a id="%s-%s"></a>' % (name, p.name))
        w.append("- **`%s`** (%s): %s" % (p.name, "; ".join(facts),
                                          p.blurb.rstrip(".") + "."))
        long_doc = docs.get("%s:%s" % (p.owner_type.name, p.name))
        if long_doc:
            body = gtkdoc_to_markdown(long_doc, links)
            w += ["", "  " + body.replace("\n", "\n  ").replace("\n  \n",
                                                                  "\n\n")]
        w.append("")
    return w


def document(args):
    Gst, GObject = init_gst(args.plugin_dir)
    docs = doc_comments(args.source_root)
    import gi
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo
    all_formats = set(split_top(GstVideo.VIDEO_FORMATS_ALL.strip("{} "), ","))
    registry = Gst.Registry.get()
    w = ["<!-- SPDX-License-Identifier: LGPL-2.1-or-later -->",
         "<!-- Generated by tests/tree/elements-doc.py from the plugins and "
         "their SECTION comments: do not edit; change the sources and run "
         "`meson compile -C build elements-doc`. -->",
         "",
         "# Element reference",
         "",
         "Generated from the plugins themselves: each element's text is its "
         "`SECTION:element-…` comment, its pads and properties come from the "
         "built plugin (what `gst-inspect-1.0 ELEMENT` shows).  Every element "
         "also has the properties of its GStreamer base class "
         "(`GstBaseTransform`'s `qos`, `GstBaseSrc`'s `num-buffers`, …), "
         "not repeated here.",
         "",
         "| element | plugin | what it does |",
         "|---|---|---|"]
    sections = []
    for plugin_name in PLUGINS:
        plugin = registry.find_plugin(plugin_name)
        if plugin is None:
            raise SystemExit("plugin %s not found in %s" %
                             (plugin_name, ", ".join(args.plugin_dir)))
        factories = sorted(
            (f for f in registry.get_feature_list_by_plugin(plugin_name)
             if isinstance(f, Gst.ElementFactory)), key=lambda f: f.get_name())
        for f in factories:
            w.append("| [`%s`](#%s) | `%s` | %s |" % (
                f.get_name(), f.get_name(), plugin_name,
                f.get_metadata("description")))
        sections.append(["", "# Plugin %s" % plugin_name, "",
                         "%s.  Licence %s.  Library `%s`." % (
                             plugin.get_description(), plugin.get_license(),
                             os.path.basename(plugin.get_filename())), ""])
        for f in factories:
            sections.append(element_section(f, plugin, docs, Gst, GObject,
                                             args.cascade_dir, all_formats))
    for s in sections:
        w += s
    text = "\n".join(l.rstrip() for l in "\n".join(w).split("\n"))
    text = text.rstrip("\n") + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)


def main():
    args = parse_args()
    text = document(args)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    old = open(args.check, encoding="utf-8").read() \
        if os.path.exists(args.check) else ""
    if old == text:
        print("%s is up to date" % args.check)
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), text.splitlines(True), args.check, "generated"))
    print("\n%s differs from what the build's plugins give: regenerate it "
          "with `meson compile -C build elements-doc` and commit it"
          % args.check)
    return 1


if __name__ == "__main__":
    sys.exit(main())
