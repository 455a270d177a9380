#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
check-layer.py: static checks of meta-imgpatch without BitBake.

    check-layer.py LAYER [--source DIR] [--imgpatch BIN]
    check-layer.py LAYER --emit NAME [--var NAME=VALUE]... [--prelude FILE]

The first form parses conf/layer.conf, every .bb and every .bbclass of
LAYER with the part of BitBake's syntax a layer like this one uses, and
checks:

  - syntax: assignments (= ?= ??= := += =+ .= =.), [flag]s, export, unset,
    include/require, inherit, addtask/deltask, addhandler, shell and python
    functions closed by a '}' alone on a line, python 'def' blocks,
    backslash continuations; anything else is an error
  - the old override syntax (_append, _prepend, _remove, VAR_${PN},
    _class-native) that BitBake refuses since 3.4
  - every ${@...} compiles with python3, every python function compiles,
    every shell function passes 'bash -n' and 'dash -n' (BitBake runs them
    with /bin/sh) once ${VAR} references are replaced by placeholders
  - layer.conf: BBPATH, BBFILES (matching the layer's recipes),
    BBFILE_COLLECTIONS and the per-collection variables, all named after
    the one collection, LAYERDEPENDS with "core", LAYERSERIES_COMPAT with
    known release series
  - the imgpatch recipe: LIC_FILES_CHKSUM against the LICENSE file of the
    source tree (DIR, default the repository the layer sits in), and the
    fields it needs (DEPENDS, RDEPENDS, SRC_URI, EXTRA_OEMAKE, do_install,
    BBCLASSEXTEND)
  - the class: every ${VAR} and d.getVar() it uses is set in the class, a
    user variable README.md documents, or a known BitBake/OE variable; its
    user variables are documented; its hook into the wic task; and every
    long option it gives imgpatch is one `imgpatch VERB --help` lists (with
    --imgpatch)

Problems are printed as "FILE:LINE: message"; the exit status is 1 when
there is any.

The second form prints, as a /bin/sh script, what BitBake would run for the
shell function or function-valued variable NAME of the class (e.g.
'IMAGE_CMD:wic:append'): the shell functions it calls, then its body, with
every ${VAR} expanded from the class's own assignments and the --var
values (given before the class is parsed, as local.conf would be). The
text of --prelude FILE (e.g. definitions of bbnote and bbfatal) comes
first.
"""

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

# BitBake's own patterns (lib/bb/data_smart.py, lib/bb/parse/parse_py/).
VAR_REF = re.compile(r"\$\{[a-zA-Z0-9\-_+./~:]+?\}")
CONFIG_RE = re.compile(r"""
    ^
    (?P<exp>export\s+)?
    (?P<var>[a-zA-Z0-9\-_+.${}/~:]+?)
    (\[(?P<flag>[a-zA-Z0-9\-_+.][a-zA-Z0-9\-_+.@/]*)\])?
    \s* (?P<op>:=|\?\?=|\?=|\+=|=\+|=\.|\.=|=) \s*
    (?!'[^']*'[^']*'$)
    (?!\"[^\"]*\"[^\"]*\"$)
    (?P<apo>['\"])
    (?P<value>.*)
    (?P=apo)
    $
    """, re.X)
FUNC_RE = re.compile(r"^(((?P<py>python(?=(\s|\()))|(?P<fr>fakeroot(?=\s)))\s*)*"
                     r"(?P<func>[\w.\-+{}$:]+)?\s*\(\s*\)\s*\{$")
DEF_RE = re.compile(r"^def\s+(\w+).*:")
DEF_BODY_RE = re.compile(r"(\s+.*)|(^$)|(^#)")
KEYWORD_RE = re.compile(r"^(inherit|inherit_defer|addtask|deltask|addhandler|"
                        r"EXPORT_FUNCTIONS|include|require|addpylib)\s+(.+)$")
EXPORT_RE = re.compile(r"^export\s+([a-zA-Z0-9\-_+.${}/~]+)$")
UNSET_RE = re.compile(r"^unset\s+([a-zA-Z0-9\-_+.${}/~]+)(\[[a-zA-Z0-9\-_+.@]+\])?$")
ADDTASK_RE = re.compile(r"^(do_)?\w+(\s+(after|before)(\s+[\w${}]+)+)*\s*$")

# Renamed in BitBake 3.4 (honister): VAR_append is now VAR:append.
OLD_OVERRIDE_RE = re.compile(r"_(append|prepend|remove)(?=$|[_:])")
OLD_PKG_VAR_RE = re.compile(r"^(RDEPENDS|RRECOMMENDS|RSUGGESTS|RPROVIDES|RCONFLICTS|"
                            r"RREPLACES|FILES|ALLOW_EMPTY|INSANE_SKIP|PKG|SUMMARY|"
                            r"DESCRIPTION|LICENSE|CONFFILES|pkg_\w+)_\$\{PN\}")
OLD_CLASS_OVERRIDE_RE = re.compile(r"_class-(native|target|nativesdk|cross|crosssdk)\b")

# Release series of the Yocto Project, oldest first; the LTS ones among them.
SERIES = ["dunfell", "gatesgarth", "hardknott", "honister", "kirkstone", "langdale",
          "mickledore", "nanbield", "scarthgap", "styhead", "walnascar", "whinlatter"]
LTS_SERIES = {"dunfell", "kirkstone", "scarthgap", "whinlatter"}

# Variables of BitBake and OE-Core the class may use without setting them.
KNOWN_VARS = {
    "B", "BBPATH", "BPN", "D", "DATETIME", "DEPLOY_DIR_IMAGE", "IMAGE_BASENAME",
    "IMAGE_FSTYPES", "IMAGE_LINK_NAME", "IMAGE_NAME", "IMAGE_NAME_SUFFIX",
    "IMAGE_ROOTFS", "IMGDEPLOYDIR", "MACHINE", "PN", "PV", "S", "STAGING_BINDIR_NATIVE",
    "STAGING_DATADIR_NATIVE", "STAGING_DIR_NATIVE", "T", "TMPDIR", "TOPDIR", "WORKDIR",
    "CONVERSIONTYPES", "IMAGE_CMD", "bindir", "datadir", "prefix",
}

# What the imgpatch recipe must carry.
RECIPE_DEPENDS = ["dtc", "e2fsprogs", "util-linux", "nettle", "zlib", "libconfuse",
                  "libarchive", "xz"]


class Problems:
    """Problems found, each "FILE:LINE: message", FILE relative to base."""

    def __init__(self, base):
        self.base = base
        self.items = []

    def add(self, path, lineno, msg):
        if os.path.isabs(path) and path.startswith(self.base + os.sep):
            path = os.path.relpath(path, self.base)
        self.items.append("%s:%s: %s" % (path, lineno or 0, msg))


class Stmt:
    def __init__(self, kind, lineno, **kw):
        self.kind = kind
        self.lineno = lineno
        self.__dict__.update(kw)


# ------------------------------------------------------------------ parsing

def parse(path, probs, conf=False):
    """Statements of a .conf (conf=True), .bb or .bbclass file, as BitBake
    reads them; what it would refuse is reported."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    stmts = []
    residue = []
    residue_line = 0
    func = None
    pydef = None

    for idx, raw in enumerate(lines):
        lineno = idx + 1
        s = raw.rstrip()
        if func is not None:
            # A function ends at a '}' alone at the start of a line.
            if s == "}":
                func.body = "\n".join(func.lines) + "\n"
                stmts.append(func)
                func = None
            else:
                func.lines.append(raw)
            continue
        if pydef is not None:
            if DEF_BODY_RE.match(s):
                pydef.lines.append(s)
                continue
            pydef.body = "\n".join(pydef.lines) + "\n"
            stmts.append(pydef)
            pydef = None
        if s.startswith("#"):
            if residue:
                probs.add(path, lineno, "a comment inside a continued line (BitBake refuses it)")
            elif s.endswith("\\"):
                probs.add(path, lineno, "a comment that ends in a backslash continues "
                          "onto the next line")
            continue
        if s.endswith("\\"):
            if not residue:
                residue_line = lineno
            residue.append(s[:-1])
            continue
        first = residue_line if residue else lineno
        s = "".join(residue) + s
        residue = []
        if not s.strip():
            continue
        if s != s.lstrip():
            probs.add(path, first, "a statement must start at the beginning of the line: %r" % s.strip())
            continue

        m = FUNC_RE.match(s)
        if m and not conf:
            func = Stmt("func", first, name=m.group("func") or "__anonymous",
                        python=bool(m.group("py")), fakeroot=bool(m.group("fr")), lines=[])
            continue
        m = DEF_RE.match(s)
        if m and not conf:
            pydef = Stmt("def", first, name=m.group(1), lines=[s])
            continue
        m = KEYWORD_RE.match(s)
        if m:
            word, arg = m.group(1), m.group(2).strip()
            if conf and word not in ("include", "require", "addpylib"):
                probs.add(path, first, "'%s' is not allowed in a .conf file" % word)
                continue
            if word == "addtask" and not ADDTASK_RE.match(arg):
                probs.add(path, first, "addtask: expected 'addtask NAME [after T...] [before T...]': %r" % arg)
                continue
            stmts.append(Stmt(word, first, arg=arg))
            continue
        m = EXPORT_RE.match(s) or UNSET_RE.match(s)
        if m:
            stmts.append(Stmt("export" if s.startswith("export") else "unset", first, var=m.group(1)))
            continue
        m = CONFIG_RE.match(s)
        if m:
            stmts.append(Stmt("assign", first, var=m.group("var"), flag=m.group("flag"),
                              op=m.group("op"), value=m.group("value"),
                              export=bool(m.group("exp"))))
            continue
        probs.add(path, first, "unrecognised syntax: %r" % s)

    if func is not None:
        probs.add(path, func.lineno, "function '%s' is not closed by a '}' alone on a line" % func.name)
    if pydef is not None:
        pydef.body = "\n".join(pydef.lines) + "\n"
        stmts.append(pydef)
    if residue:
        probs.add(path, residue_line, "the file ends inside a continued line")
    return stmts


def inline_pythons(text):
    """Yields (start, expression) for every ${@...} in text, or (start, None)
    when one is not closed."""
    pos = 0
    while True:
        start = text.find("${@", pos)
        if start < 0:
            return
        depth = 0
        i = start + 1
        end = None
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
            i += 1
        if end is None:
            yield start, None
            return
        yield start, text[start + 3:end]
        pos = end + 1


def placeholder(text, repl):
    """text with every ${@...} and ${VAR} replaced by repl."""
    out = []
    pos = 0
    for start, expr in inline_pythons(text):
        if expr is None:
            break
        out.append(text[pos:start])
        out.append(repl)
        pos = start + 3 + len(expr) + 1
    out.append(text[pos:])
    return VAR_REF.sub(repl, "".join(out))


# ------------------------------------------------------------ generic checks

def check_names(path, stmts, probs):
    for st in stmts:
        name = getattr(st, "var", None) if st.kind == "assign" else \
            getattr(st, "name", None) if st.kind in ("func", "def") else None
        if not name:
            continue
        m = OLD_OVERRIDE_RE.search(name)
        if m:
            probs.add(path, st.lineno, "'%s' uses the old override syntax '_%s': write ':%s'"
                      % (name, m.group(1), m.group(1)))
        if OLD_PKG_VAR_RE.match(name):
            probs.add(path, st.lineno, "'%s' uses the old override syntax: write '%s'"
                      % (name, name.replace("_${PN}", ":${PN}", 1)))
        m = OLD_CLASS_OVERRIDE_RE.search(name)
        if m:
            probs.add(path, st.lineno, "'%s' uses the old override syntax '_class-%s': write ':class-%s'"
                      % (name, m.group(1), m.group(1)))


def check_python(path, stmts, probs):
    texts = []
    for st in stmts:
        if st.kind == "assign":
            texts.append((st.lineno, st.value))
        elif st.kind == "func" and not st.python:
            texts.append((st.lineno, st.body))
        elif st.kind in ("addtask", "inherit", "inherit_defer"):
            texts.append((st.lineno, st.arg))
    for lineno, text in texts:
        for _, expr in inline_pythons(text):
            if expr is None:
                probs.add(path, lineno, "'${@' without its closing '}'")
                continue
            try:
                compile(VAR_REF.sub("_bbvar_", expr), "%s:%s" % (path, lineno), "eval")
            except SyntaxError as e:
                probs.add(path, lineno, "inline python does not compile: %s: %r" % (e.msg, expr))
    for st in stmts:
        if st.kind == "func" and st.python:
            code = VAR_REF.sub("_bbvar_", textwrap.dedent(st.body))
        elif st.kind == "def":
            code = st.body
        else:
            continue
        try:
            compile(code, "%s:%s" % (path, st.lineno), "exec")
        except SyntaxError as e:
            probs.add(path, st.lineno + (e.lineno or 0),
                      "python function '%s' does not compile: %s" % (st.name, e.msg))


def shell_ok(shell, text):
    """None when `shell -n` accepts text, else its complaint."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        r = subprocess.run([shell, "-n", name], capture_output=True, text=True)
    finally:
        os.unlink(name)
    if r.returncode == 0:
        return None
    return (r.stderr or r.stdout).strip().replace(name, "<function>")


def check_shell(path, stmts, probs):
    shells = [s for s in ("bash", "dash") if shutil.which(s)]
    if "bash" not in shells:
        probs.add(path, 0, "bash is needed to check the shell functions")
    for st in stmts:
        if st.kind != "func" or st.python:
            continue
        text = "f() {\n%s}\n" % placeholder(st.body, "BBVAR")
        for sh in shells:
            err = shell_ok(sh, text)
            if err:
                probs.add(path, st.lineno, "shell function '%s' does not pass '%s -n': %s"
                          % (st.name, sh, err))


# ------------------------------------------------------------- a datastore

class Data:
    """Just enough of BitBake's datastore to evaluate this layer's
    assignments: operators, weak defaults, :append/:prepend/:remove and
    expansion of ${VAR}. No overrides are active."""

    def __init__(self):
        self.vals = {}
        self.weak = {}
        self.ops = {}   # name -> [(op, value)]

    def assign(self, var, op, value):
        base, _, tail = var.rpartition(":")
        if tail in ("append", "prepend", "remove") and base:
            self.ops.setdefault(base, []).append((tail, value))
            return
        if op == "=":
            self.vals[var] = value
        elif op == "?=":
            if var not in self.vals:
                self.vals[var] = value
        elif op == "??=":
            self.weak[var] = value
        elif op == ":=":
            self.vals[var] = self.expand(value)
        elif op in ("+=", "=+", ".=", "=."):
            # As in BitBake, any of these replaces a ??= default.
            old = self.vals.get(var, "")
            sep = " " if op in ("+=", "=+") else ""
            self.vals[var] = old + sep + value if op in ("+=", ".=") else value + sep + old

    def raw(self, var):
        if var in self.vals:
            v = self.vals[var]
        elif var in self.weak:
            v = self.weak[var]
        else:
            return None
        for op, val in self.ops.get(var, []):
            if op == "append":
                v += val
            elif op == "prepend":
                v = val + v
        for op, val in self.ops.get(var, []):
            if op == "remove":
                gone = set(self.expand(val).split())
                v = " ".join(w for w in v.split() if w not in gone)
        return v

    def has(self, var):
        return self.raw(var) is not None

    def expand(self, text, missing=None, depth=0):
        if depth > 50:
            raise ValueError("expansion loop in %r" % text)

        def one(m):
            name = m.group(0)[2:-1]
            v = self.raw(name)
            if v is None:
                if missing is not None:
                    missing.add(name)
                return m.group(0)
            return self.expand(v, missing, depth + 1)
        return VAR_REF.sub(one, text)


def evaluate(stmts, data=None):
    data = data or Data()
    for st in stmts:
        if st.kind == "assign" and not st.flag:
            data.assign(st.var, st.op, st.value)
        elif st.kind == "func" and not st.python:
            data.assign(st.name, "=", st.body)
    return data


# --------------------------------------------------------------- layer.conf

PER_COLLECTION = ("BBFILE_PATTERN_", "BBFILE_PRIORITY_", "LAYERVERSION_", "LAYERDEPENDS_",
                  "LAYERRECOMMENDS_", "LAYERSERIES_COMPAT_")


def check_layer_conf(layer, probs):
    path = os.path.join(layer, "conf", "layer.conf")
    if not os.path.isfile(path):
        probs.add(path, 0, "missing: a layer needs conf/layer.conf")
        return None
    stmts = parse(path, probs, conf=True)
    check_names(path, stmts, probs)
    data = Data()
    data.assign("LAYERDIR", "=", layer)
    evaluate(stmts, data)
    lines = {}
    for st in stmts:
        if st.kind == "assign":
            lines.setdefault(st.var, st.lineno)

    def need(var):
        if not data.has(var):
            probs.add(path, 0, "%s is not set" % var)
            return None
        return data.expand(data.raw(var))

    bbpath = need("BBPATH")
    if bbpath is not None and layer not in bbpath.split(":"):
        probs.add(path, lines.get("BBPATH"), "BBPATH must add ${LAYERDIR} (classes/ is found through it)")
    bbfiles = need("BBFILES")
    if bbfiles is not None:
        found = set()
        for pat in bbfiles.split():
            if not pat.startswith(layer + "/"):
                probs.add(path, lines.get("BBFILES"), "BBFILES pattern outside the layer: %s" % pat)
            found.update(glob.glob(pat))
        recipes = set(glob.glob(os.path.join(layer, "**", "*.bb"), recursive=True))
        if not recipes:
            probs.add(path, 0, "the layer has no .bb recipe")
        for r in sorted(recipes - found):
            probs.add(path, lines.get("BBFILES"), "BBFILES does not match %s" % os.path.relpath(r, layer))

    names = []
    for st in stmts:
        if st.kind == "assign" and st.var == "BBFILE_COLLECTIONS":
            if st.op != "+=":
                probs.add(path, st.lineno, "BBFILE_COLLECTIONS must be added to with +=, "
                          "not set with %s (other layers' collections live there too)" % st.op)
            names += st.value.split()
    if len(names) != 1:
        probs.add(path, lines.get("BBFILE_COLLECTIONS"),
                  "BBFILE_COLLECTIONS must add exactly one collection, not %r" % names)
        return data
    name = names[0]
    for var in lines:
        for prefix in PER_COLLECTION:
            if var.startswith(prefix) and var != prefix + name:
                probs.add(path, lines[var], "%s: collection '%s' is not the layer's ('%s', "
                          "from BBFILE_COLLECTIONS)" % (var, var[len(prefix):], name))
    pattern = need("BBFILE_PATTERN_" + name)
    if pattern is not None and pattern != "^%s/" % layer:
        probs.add(path, lines.get("BBFILE_PATTERN_" + name), "BBFILE_PATTERN_%s should be \"^${LAYERDIR}/\"" % name)
    for var in ("BBFILE_PRIORITY_", "LAYERVERSION_"):
        v = need(var + name)
        if v is not None and not v.strip().isdigit():
            probs.add(path, lines.get(var + name), "%s%s must be a whole number, not %r" % (var, name, v))
    deps = need("LAYERDEPENDS_" + name)
    if deps is not None and "core" not in deps.split():
        probs.add(path, lines.get("LAYERDEPENDS_" + name), "LAYERDEPENDS_%s must include \"core\"" % name)
    compat = need("LAYERSERIES_COMPAT_" + name)
    if compat is not None:
        series = compat.split()
        for s in series:
            if s not in SERIES:
                probs.add(path, lines.get("LAYERSERIES_COMPAT_" + name),
                          "LAYERSERIES_COMPAT_%s: unknown release series '%s' (known: %s)"
                          % (name, s, " ".join(SERIES)))
        if not LTS_SERIES & set(series):
            probs.add(path, lines.get("LAYERSERIES_COMPAT_" + name),
                      "LAYERSERIES_COMPAT_%s names no long-term support series (%s)"
                      % (name, " ".join(sorted(LTS_SERIES))))
    return data


# ------------------------------------------------------------------- recipe

def lic_md5(source, url):
    """(path, md5 wanted, md5 found) for one LIC_FILES_CHKSUM entry."""
    parts = url.split(";")
    if not parts[0].startswith("file://"):
        return None
    rel = parts[0][len("file://"):]
    params = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
    full = os.path.join(source, rel)
    try:
        with open(full, "rb") as f:
            lines = f.read().splitlines(keepends=True)
    except OSError:
        return rel, params.get("md5"), None
    begin = int(params.get("beginline", "1")) - 1
    end = int(params["endline"]) if "endline" in params else len(lines)
    return rel, params.get("md5"), hashlib.md5(b"".join(lines[begin:end])).hexdigest()


def check_recipe(path, stmts, source, readme, probs):
    data = evaluate(stmts)
    lines = {}
    for st in stmts:
        if st.kind == "assign":
            lines.setdefault(st.var, st.lineno)
    funcs = {st.name: st for st in stmts if st.kind == "func"}

    if not re.match(r"^imgpatch_(git|[0-9][\w.+-]*)\.bb$", os.path.basename(path)):
        probs.add(path, 0, "the recipe should be named imgpatch_git.bb or imgpatch_<version>.bb")
    for var in ("SUMMARY", "LICENSE", "LIC_FILES_CHKSUM", "SRC_URI", "S", "DEPENDS",
                "EXTRA_OEMAKE", "BBCLASSEXTEND"):
        if not data.has(var):
            probs.add(path, 0, "%s is not set" % var)
    if data.has("LICENSE") and data.raw("LICENSE") != "MIT":
        probs.add(path, lines.get("LICENSE"), "LICENSE must be \"MIT\", not %r" % data.raw("LICENSE"))
    if data.has("LIC_FILES_CHKSUM"):
        entries = data.raw("LIC_FILES_CHKSUM").split()
        if not any(e.startswith("file://LICENSE;") for e in entries):
            probs.add(path, lines.get("LIC_FILES_CHKSUM"), "LIC_FILES_CHKSUM must cover file://LICENSE")
        for e in entries:
            r = lic_md5(source, e)
            if r is None:
                continue
            rel, want, have = r
            if have is None:
                probs.add(path, lines.get("LIC_FILES_CHKSUM"), "LIC_FILES_CHKSUM: no %s in %s" % (rel, source))
            elif want != have:
                probs.add(path, lines.get("LIC_FILES_CHKSUM"),
                          "LIC_FILES_CHKSUM: md5 of %s is %s, the recipe says %s" % (rel, have, want))
    if data.has("DEPENDS"):
        deps = data.expand(data.raw("DEPENDS")).split()
        for dep in RECIPE_DEPENDS:
            if dep not in deps:
                probs.add(path, lines.get("DEPENDS"), "DEPENDS lacks %s" % dep)
    rdeps = data.raw("RDEPENDS:${PN}")
    if rdeps is None or "mtools" not in rdeps.split():
        probs.add(path, lines.get("RDEPENDS:${PN}"), "RDEPENDS:${PN} must include mtools (imgpatch runs its programs)")
    if data.has("SRC_URI") and "${IMGPATCH_GIT_URI}" not in data.raw("SRC_URI"):
        probs.add(path, lines.get("SRC_URI"), "SRC_URI must default to ${IMGPATCH_GIT_URI}")
    if "IMGPATCH_GIT_URI" not in readme:
        probs.add(path, lines.get("SRC_URI"), "IMGPATCH_GIT_URI is not documented in README.md")
    if data.has("EXTRA_OEMAKE"):
        oemake = data.raw("EXTRA_OEMAKE")
        for word in ("PREFIX=${prefix}", "DESTDIR=${D}"):
            if word not in oemake:
                probs.add(path, lines.get("EXTRA_OEMAKE"), "EXTRA_OEMAKE lacks %s" % word)
    inst = funcs.get("do_install")
    if inst is None or "oe_runmake install" not in inst.body:
        probs.add(path, inst.lineno if inst else 0, "do_install must run 'oe_runmake install'")
    if data.has("BBCLASSEXTEND"):
        ext = data.raw("BBCLASSEXTEND").split()
        for want in ("native", "nativesdk"):
            if want not in ext:
                probs.add(path, lines.get("BBCLASSEXTEND"), "BBCLASSEXTEND lacks %s" % want)


# -------------------------------------------------------------------- class

def imgpatch_options(binary, verbs, path, probs):
    """Long options `imgpatch VERB --help` lists, for every VERB."""
    opts = set()
    for verb in sorted(verbs):
        try:
            r = subprocess.run([binary, verb, "--help"], capture_output=True, text=True)
        except OSError as e:
            probs.add(path, 0, "cannot run %s: %s" % (binary, e))
            return None
        if r.returncode != 0:
            probs.add(path, 0, "'imgpatch %s' is not an imgpatch command: %s"
                      % (verb, (r.stderr or r.stdout).strip().splitlines()[:1]))
            continue
        opts.update(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", r.stdout))
    return opts


def check_class(path, stmts, readme, binary, probs):
    data = evaluate(stmts)
    set_here = set(data.vals) | set(data.weak) | set(data.ops)
    set_here |= {st.name for st in stmts if st.kind in ("func", "def")}
    documented = set(re.findall(r"\bIMGPATCH_[A-Z_]+\b", readme))

    def known(name):
        return name in set_here or name in documented or name in KNOWN_VARS

    users = set()
    shell_texts = []
    for st in stmts:
        texts = []
        if st.kind == "assign":
            texts.append(st.value)
            if st.op in ("?=", "??=") and st.var.startswith("IMGPATCH_"):
                users.add((st.var, st.lineno))
        elif st.kind == "func":
            texts.append(st.body)
            if not st.python:
                shell_texts.append((st.lineno, st.body))
        elif st.kind in ("addtask", "inherit"):
            texts.append(st.arg)
        for text in texts:
            refs = [m.group(0)[2:-1] for m in VAR_REF.finditer(text)]
            refs += re.findall(r"d\.getVar\(\s*['\"]([^'\"]+)['\"]", text)
            for ref in refs:
                if not known(ref):
                    probs.add(path, st.lineno, "${%s} is neither set in the class, nor a user "
                              "variable README.md documents, nor a known BitBake/OE variable" % ref)
    for var, lineno in sorted(users):
        if var not in documented:
            probs.add(path, lineno, "user variable %s is not documented in README.md" % var)

    # The hook: the class patches the wic image inside the task that makes
    # it, with imgpatch-native in that task's sysroot.
    hooks = [st for st in stmts if st.kind == "func" and st.name == "IMAGE_CMD:wic:append"]
    if not hooks:
        probs.add(path, 0, "the class must hook IMAGE_CMD:wic:append (see its header)")
    deps = " ".join(data.expand(st.value) for st in stmts
                    if st.kind == "assign" and st.var == "do_image_wic" and st.flag == "depends")
    if "imgpatch-native:do_populate_sysroot" not in deps:
        probs.add(path, 0, "do_image_wic[depends] must add imgpatch-native:do_populate_sysroot")

    # imgpatch's options, as the build's imgpatch lists them.
    used = {}
    verbs = set()
    for lineno, body in shell_texts:
        for off, line in enumerate(body.split("\n")):
            code = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
            for verb in re.findall(r"(?:^|[\s;|&(])imgpatch\s+([a-z]+)\b", code):
                verbs.add(verb)
            for opt in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", code):
                used.setdefault(opt, lineno + 1 + off)
    if not verbs:
        probs.add(path, 0, "the class never runs imgpatch")
    elif binary:
        have = imgpatch_options(binary, verbs, path, probs)
        if have is not None:
            for opt, lineno in sorted(used.items()):
                if opt not in have:
                    probs.add(path, lineno, "imgpatch %s has no option %s"
                              % ("/".join(sorted(verbs)), opt))


# --------------------------------------------------------------------- emit

def emit(cls_path, name, values, prelude, probs):
    stmts = parse(cls_path, probs)
    data = Data()
    for kv in values:
        k, _, v = kv.partition("=")
        data.assign(k, "=", v)
    evaluate(stmts, data)
    funcs = {st.name: st for st in stmts if st.kind == "func" and not st.python}
    if name not in funcs:
        probs.add(cls_path, 0, "no shell function '%s'" % name)
        return None

    # The shell functions the body calls, as BitBake emits them first.
    order = []

    def visit(fname):
        for other in funcs:
            if other != fname and other not in order and \
                    re.search(r"(?<![\w$-])%s(?![\w-])" % re.escape(other), funcs[fname].body):
                order.append(other)
                visit(other)
    visit(name)

    missing = set()
    out = ["#!/bin/sh", "set -e", prelude.rstrip("\n")]
    for fname in reversed(order):
        out.append("%s() {\n%s}" % (fname, data.expand(funcs[fname].body, missing).rstrip("\n") + "\n"))
    body = data.expand(funcs[name].body, missing)
    if ":" in name:
        out.append(body)             # a fragment of a task, run in place
    else:
        out.append("%s() {\n%s}\n%s" % (name, body, name))
    if missing:
        probs.add(cls_path, 0, "no value for %s (give --var NAME=VALUE)" % ", ".join(sorted(missing)))
        return None
    if "${@" in "\n".join(out):
        probs.add(cls_path, 0, "inline python in '%s' cannot be emitted" % name)
        return None
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    ap.add_argument("layer")
    ap.add_argument("--source", help="imgpatch's source tree (default: the repository of LAYER)")
    ap.add_argument("--imgpatch", help="imgpatch binary whose --help the class's options are checked against")
    ap.add_argument("--emit")
    ap.add_argument("--var", action="append", default=[])
    ap.add_argument("--prelude")
    args = ap.parse_args()

    layer = os.path.abspath(args.layer)
    probs = Problems(os.path.dirname(layer))
    if args.emit:
        prelude = ""
        if args.prelude:
            with open(args.prelude, encoding="utf-8") as f:
                prelude = f.read()
        classes = glob.glob(os.path.join(layer, "classes", "*.bbclass"))
        script = emit(classes[0], args.emit, args.var, prelude, probs) if classes else None
        if script is None:
            for p in probs.items or ["%s: no class" % layer]:
                print("check-layer: %s" % p, file=sys.stderr)
            return 1
        sys.stdout.write(script)
        return 0

    source = os.path.abspath(args.source or os.path.join(layer, "..", ".."))
    readme_path = os.path.join(layer, "README.md")
    readme = ""
    if os.path.isfile(readme_path):
        with open(readme_path, encoding="utf-8") as f:
            readme = f.read()
    else:
        probs.add(readme_path, 0, "missing: the layer needs a README.md")

    check_layer_conf(layer, probs)
    files = sorted(glob.glob(os.path.join(layer, "**", "*.bb"), recursive=True) +
                   glob.glob(os.path.join(layer, "**", "*.bbappend"), recursive=True) +
                   glob.glob(os.path.join(layer, "**", "*.bbclass"), recursive=True))
    nclass = 0
    for path in files:
        stmts = parse(path, probs)
        check_names(path, stmts, probs)
        check_python(path, stmts, probs)
        check_shell(path, stmts, probs)
        if path.endswith(".bbclass"):
            nclass += 1
            check_class(path, stmts, readme, args.imgpatch, probs)
        elif os.path.basename(path).startswith("imgpatch_"):
            check_recipe(path, stmts, source, readme, probs)
    if not nclass:
        probs.add(os.path.join(layer, "classes"), 0, "the layer has no class")

    for p in probs.items:
        print("check-layer: %s" % p)
    if probs.items:
        print("check-layer: %d problem%s" % (len(probs.items), "" if len(probs.items) == 1 else "s"))
        return 1
    print("check-layer: %s: layer.conf and %d recipe/class files pass" % (os.path.basename(layer), len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
