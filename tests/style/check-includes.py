#!/usr/bin/env python3
"""No circles, nothing reaching up: the dependency graph of src/, runtime/, mock/ and tools/.

A node is a unit: a .c file and the .h of the same name in the same folder are one unit
(src/api/graph.c and src/api/graph.h are the unit src/api/graph); a header with no .c of its
own is a unit by itself (src/loader/table.h). In mock/ the unit is a folder: the files directly
in mock/, but for its public header cushim_mock.h, are the unit mock/driver, and each subfolder
(the PTX interpreter, mock/ptx/) is a unit. The driver's files share one state (mock__state, in
mock.h) under one lock and each entry reaches into it through any of them: file by file they
form a single circle (20 of the 26 files, mostly through the reset-everything paths), which is
the fact this grouping writes down. Between the driver and a part such as the interpreter the
graph is checked as everywhere else: the driver may call the interpreter, not both ways.
Unit A depends on unit B when a file of A
  - includes a header of B (#include "..." or <...>, resolved as the build resolves it), or
  - names a function or object that a .c of B defines without `static` (whatever header
    declared it), since a header may declare what another unit defines.
A circle is a cycle of that graph; the second kind of edge is what makes a circle through a
shared header visible (launch.c calling launch_ex.c, which calls back into launch.c).

Layers, lowest first (a file may depend on its own layer and those below; include/ is below
everything):
  src/  bottom  src/common, src/loader/diag.*, errors.c, fork.* and table.h (the shapes of
                the generated tables, which errors.c reads)
        loader  the rest of src/loader
        trace   src/trace
        api     src/api
  runtime/      the CUDA runtime: its own files and every layer of src/
  mock/         its own files, include/ and the toolkit (<cuda.h>, ...)
  tools/        its own files, include/, src/common and mock/cushim_mock.h
tests/ may include anything and is not scanned.

Usage: check-includes.py SOURCE_ROOT [--graph]. Prints the graph's size, every circle and
every file that reaches up; exits 1 if there is one. check-includes.py --self-test writes small
trees with a circle, a file reaching up and a clean one, and checks that it tells them apart.
"""

import os
import re
import sys

SCANNED = ("src", "runtime", "mock", "tools")
# Circles known and being removed elsewhere, each with the reason. The check fails when one of
# them is no longer there, so that this list is emptied as they go rather than left to hide a
# new one.
# None now: the last (ptx_decode.c <-> ptx_inst.c) went when the decoder's shared helpers moved
# to ptx_dec.c and a body's callees were queued by the body rather than decoded by the call.
KNOWN = set()
# Generated headers are not in the tree: the build writes them beside the others (the table of
# each library the loader opens).
GENERATED = re.compile(r"cushim_(\w+_)?table\.h$|cudart_ptds\.h$")

BOTTOM_LOADER = ("src/loader/diag", "src/loader/errors", "src/loader/fork", "src/loader/table")
SRC_RANKS = {"bottom": 0, "loader": 1, "trace": 2, "api": 3}


def layer(unit):
    """The layer of a unit of src/, or the top folder for mock/ and tools/."""
    if unit.startswith("src/"):
        if unit.startswith("src/common/") or unit in BOTTOM_LOADER:
            return "bottom"
        return unit.split("/")[1]
    if unit.startswith("include/"):
        return "public"
    return unit.split("/")[0]


def may_depend(a, b):
    """Whether unit a may depend on unit b, by the layers."""
    la, lb = layer(a), layer(b)
    if lb == "public":
        return True
    if la in SRC_RANKS:
        return lb in SRC_RANKS and SRC_RANKS[lb] <= SRC_RANKS[la]
    if la == "runtime":
        return lb == "runtime" or lb in SRC_RANKS
    if la == "mock":
        return lb == "mock"
    if la == "tools":
        return lb == "tools" or b.startswith("src/common/") or b == "mock/cushim_mock"
    return False


def strip(text):
    """Comments, string and character literals blanked, so that names in them do not count."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)

    def blank(m):
        s = m.group(0)
        if s.startswith('"'):
            return '""'
        return re.sub(r"[^\n]", " ", s)

    return pattern.sub(blank, text)


def top_level(text):
    """The text of each statement at file scope: (head, has_body), where head is what comes
    before a body's brace, or the whole statement."""
    out, depth, start, i, paren = [], 0, 0, 0, 0
    head_end = None
    while i < len(text):
        c = text[i]
        if c == "#" and depth == 0 and (i == 0 or text[i - 1] == "\n"):
            # A preprocessor line (with its continuations) is not a statement.
            while i < len(text) and not (text[i] == "\n" and text[i - 1] != "\\"):
                i += 1
            start = i + 1
        elif c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "{":
            if depth == 0:
                head_end = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                head = text[start:head_end]
                # A function body ends its statement; a struct or initialiser goes on to ';'.
                if re.search(r"\)\s*$", head) and not re.search(r"=\s*$", head):
                    out.append((head, True))
                    start = i + 1
        elif c == ";" and depth == 0 and paren == 0:
            out.append((text[start:i], False))
            start = i + 1
        i += 1
    return out


def defined_names(text):
    """The names a .c defines with external linkage: functions and objects."""
    names = set()
    for head, has_body in top_level(text):
        words = head.split()
        if not words or words[0] in ("static", "typedef", "extern") or "static" in words:
            continue
        if has_body:
            m = re.search(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$", head)
            if m:
                names.add(m.group(1))
        elif "(" not in head.split("=")[0]:
            decl = head.split("=")[0].strip()
            m = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", decl)
            if m and not re.match(r"^(struct|union|enum)\s+\w+\s*$", decl):
                names.add(m.group(1))
    return names


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = []
        for top in SCANNED:
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for f in sorted(filenames):
                    if f.endswith((".c", ".h")):
                        self.files.append(os.path.relpath(os.path.join(dirpath, f), root))
        self.text = {f: strip(open(os.path.join(root, f), encoding="utf-8").read()) for f in self.files}
        self.public = set()
        for dirpath, _, filenames in os.walk(os.path.join(root, "include")):
            for h in filenames:
                if h.endswith(".h"):
                    text = strip(open(os.path.join(dirpath, h), encoding="utf-8").read())
                    self.public |= set(re.findall(r"\b(cushim_\w+)\s*\(", text))

    def include_dirs(self, f):
        """Where the build looks for a quoted include of f, after f's own folder."""
        top = f.split("/")[0]
        if top == "src":
            return ["src", "include"]
        if top == "mock":
            return ["mock", "include"]
        if top == "runtime":
            return [".", "src", "include"]
        return ["src", "mock", "include"]

    def resolve(self, f, name, quoted):
        dirs = ([os.path.dirname(f)] if quoted else []) + self.include_dirs(f)
        for d in dirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(os.path.join(self.root, p)):
                return p
        # A folder of the same top folder on the include path (mock/ptx for the mock): the one
        # file of that name there.
        top = f.split("/")[0] + "/"
        found = [g for g in self.files if g.startswith(top) and g.endswith("/" + name)]
        return found[0] if quoted and len(found) == 1 else None


def uses_text(path, text):
    """What in a file can use a name: a header's declarations only promise one, so they are
    dropped; its macros and inline bodies stay."""
    if not path.endswith(".h"):
        return text
    keep, last = [], 0
    lines = text.split("\n")
    body = "\n".join(l for l in lines if not l.lstrip().startswith("#") or "define" in l)
    for head, has_body in top_level(body):
        if not has_body and "(" in head:
            continue  # a prototype
        if not has_body and re.match(r"\s*extern\b", head):
            continue
        keep.append(head)
    return "\n".join(keep) + "\n" + "\n".join(l for l in lines if l.lstrip().startswith("#"))


def unit_of(path):
    stem = os.path.splitext(path)[0]
    parts = stem.split("/")
    if parts[0] == "mock" and stem != "mock/cushim_mock":
        # A folder of mock/ is a unit: the driver's files, and each part under it. Inside the
        # interpreter (mock/ptx) each file is a unit again, as in src/: its parts must not
        # form circles either.
        if len(parts) == 3 and parts[1] == "ptx":
            return stem
        return "mock/driver" if len(parts) == 2 else "/".join(parts[:2])
    return stem


def find_cycles(units, edges):
    """Strongly connected components of more than one unit (Tarjan), and self-loops."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(units):
        if v not in index:
            visit(v)
    return out


def main(argv, known=None):
    known_circles = KNOWN if known is None else known
    if len(argv) < 2:
        print(__doc__)
        return 2
    tree = Tree(argv[1])
    problems = []
    units = {unit_of(f) for f in tree.files}
    edges, why = {}, {}

    def edge(a, b, reason):
        if a == b:
            return
        edges.setdefault(a, set()).add(b)
        why.setdefault((a, b), reason)

    owner = {}
    for f in tree.files:
        if f.endswith(".c"):
            for n in defined_names(tree.text[f]):
                owner.setdefault(n, set()).add(unit_of(f))

    for f in tree.files:
        a = unit_of(f)
        raw = open(os.path.join(tree.root, f), encoding="utf-8").read()
        for m in re.finditer(r'^\s*#\s*include\s*([<"])([^">]+)[">]', raw, re.M):
            quoted, name = m.group(1) == '"', m.group(2)
            target = tree.resolve(f, name, quoted)
            if target is None:
                if quoted and not GENERATED.match(os.path.basename(name)):
                    problems.append("%s: #include \"%s\" is not found where the build looks" % (f, name))
                continue  # the toolkit or the C library
            b = unit_of(target)
            if not may_depend(a, b):
                problems.append("%s includes %s: layer %s may not depend on layer %s" %
                                (f, target, layer(a), layer(b)))
            edge(a, b, "includes %s" % target)
        # A member (table.cuMemAlloc, s->raw) names a field, not a function or object.
        text = re.sub(r"(\.|->)\s*[A-Za-z_]\w*", " ", uses_text(f, tree.text[f]))
        used = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
        for n in sorted(used):
            owners = owner.get(n, ())
            if len(owners) != 1:
                continue  # main, or a name each program defines for itself
            for b in owners:
                if b == a:
                    continue
                # Outside src/, a public function is reached through include/, as any user does.
                public = n in tree.public and not f.startswith("src/")
                if not public and not may_depend(a, b):
                    problems.append("%s uses %s, defined in %s: layer %s may not depend on "
                                    "layer %s" % (f, n, b, layer(a), layer(b)))
                edge(a, b, "uses %s" % n)

    cycles = find_cycles(units, edges)
    known = [c for c in cycles if tuple(c) in known_circles]
    for gone in sorted(known_circles - {tuple(c) for c in cycles}):
        problems.append("the known circle %s is gone: remove it from KNOWN" % " <-> ".join(gone))
    for comp in cycles:
        if tuple(comp) in known_circles:
            continue
        links = []
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b in comp:
                    links.append("  %s -> %s (%s)" % (a, b, why[(a, b)]))
        problems.append("circle of %d units:\n%s" % (len(comp), "\n".join(links)))

    nedges = sum(len(v) for v in edges.values())
    by_top = {}
    for u in units:
        by_top[u.split("/")[0]] = by_top.get(u.split("/")[0], 0) + 1
    print("%d files, %d units (%s), %d dependencies, %d circles" %
          (len(tree.files), len(units), ", ".join("%s %d" % kv for kv in sorted(by_top.items())),
           nedges, len(cycles) - len(known)))
    for comp in known:
        print("known circle, being removed: %s" % " <-> ".join(comp))
    if "--graph" in argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print("%s -> %s (%s)" % (a, b, why[(a, b)]))
    for p in problems:
        print(p)
    if problems:
        print("%d problems" % len(problems))
        return 1
    print("no circle, nothing reaching up")
    return 0


def self_test():
    """The checker must fail on what it is there to catch, or its passing means nothing."""
    import contextlib
    import io
    import tempfile

    cases = {
        "clean": ({"src/api/a.c": '#include "api/a.h"\n#include "api/b.h"\nint x(void) { return y(); }\n',
                   "src/api/a.h": "int x(void);\n",
                   "src/api/b.c": "int y(void) { return 1; }\n",
                   "src/api/b.h": "int y(void);\n"}, 0),
        # a.c calls b.c, which calls a.c back through a header declared elsewhere.
        "circle": ({"src/api/a.c": '#include "api/s.h"\nint x(void) { return y(); }\n',
                    "src/api/b.c": '#include "api/s.h"\nint y(void) { return x(); }\n',
                    "src/api/s.h": "int x(void);\nint y(void);\n"}, 1),
        "reaching up": ({"src/loader/l.c": '#include "api/a.h"\n',
                         "src/api/a.h": "int x(void);\n"}, 1),
        "mock into src": ({"mock/m.c": '#include "../src/loader/l.h"\n',
                           "src/loader/l.h": "int l(void);\n"}, 1),
    }
    bad = 0
    for name, (files, want) in sorted(cases.items()):
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                    f.write(text)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                got = main(["check-includes.py", root], known=set())
            ok = (got != 0) == (want != 0)
            bad += not ok
            print("%s: %s (exit %d, want %s)" % ("ok" if ok else "WRONG", name, got,
                                                 "a failure" if want else "a pass"))
            if not ok:
                print(out.getvalue())
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv))
