#!/usr/bin/env python3
"""Write the list of cuda.h entries the mock driver implements, by area, as Markdown.

Usage: gen-mock-entries.py CUDA_INCLUDE_DIR OUT_MARKDOWN MOCK_HEADER...

OUT_MARKDOWN '-' prints to stdout. The MOCK_HEADERs hold the mock's rows (MOCK_ENTRIES of
mock.h and the lists it appends: `X(fn, "base", version, PFN_type)`). An entry of cuda.h is
implemented when a row has its base name and its ABI version: the version of the newest PFN_
typedef in cudaTypedefs.h whose parameter types are those of cuda.h's prototype, typedefs
followed to what they name. The area of an entry is the \\defgroup section of cuda.h that holds
its prototype ("Memory Management").

This reading of the headers is independent of the compiler's, which the mock uses at run time
(mock_coverage.c); the test 'mock entries list' checks that the two agree, entry by entry.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import cuda_header  # noqa: E402

ROW = re.compile(r'X\(\s*(\w+)\s*,\s*"(\w+)"\s*,\s*(\d+)\s*,\s*(PFN_\w+)\s*\)')
GROUP = re.compile(r"\\defgroup\s+(\w+)\s+([^\n]*)")
GROUP_END = re.compile(r"/\*\*\s*@\}\s*\*/")


def mock_rows(paths):
    rows = set()
    for path in paths:
        for m in ROW.finditer(cuda_header.join_continuations(cuda_header.read(path))):
            rows.add((m.group(2), int(m.group(3))))
    if not rows:
        sys.exit("gen-mock-entries: no X(...) rows in " + ", ".join(paths))
    return rows


def areas(raw):
    """(start, end, title) of each \\defgroup section of cuda.h, by offset."""
    out = []
    for m in GROUP.finditer(raw):
        end = GROUP_END.search(raw, m.end())
        title = " ".join(m.group(2).split())
        out.append((m.start(), end.start() if end else len(raw), title))
    return out


def area_of(raw, spans, name):
    m = re.search(r"CUresult\s+CUDAAPI\s+%s\s*\(" % re.escape(name), raw)
    for start, end, title in spans if m else ():
        if start <= m.start() < end:
            return title
    return "Other"


class Types:
    """Parameter types with every plain typedef of cuda.h followed to what it names."""

    def __init__(self, cuda_h_text):
        self.alias = {}
        for m in re.finditer(r"typedef\s+([\w\s\*]+?)\s*\b(\w+)\s*;", cuda_h_text):
            if m.group(1).split()[-1] != "struct" and m.group(1) != m.group(2):
                self.alias[m.group(2)] = m.group(1)

    def canon(self, t):
        toks = re.findall(r"[A-Za-z_]\w*|\*", t)
        for _ in range(16):
            out = []
            for tok in toks:
                out += re.findall(r"[A-Za-z_]\w*|\*", self.alias[tok]) if tok in self.alias else [tok]
            if out == toks:
                break
            toks = out
        return " ".join(toks)

    def key(self, params):
        """The canonical types of a parameter list whose parameters all have names."""
        params = params.strip()
        if params in ("", "void"):
            return ()
        out = []
        for p in params.split(","):
            toks = re.findall(r"[A-Za-z_]\w*|\*|\[[^\]]*\]", p)
            if len(toks) < 2:
                raise ValueError("a parameter without a name: %r" % p)
            arr = toks[-1].startswith("[")
            name_at = -2 if arr else -1
            rest = toks[:name_at] + (["*"] if arr else [])
            out.append(self.canon(" ".join(rest)))
        return tuple(out)


def pfn_params(inc):
    """PFN_ typedef name -> its parameter list, for the typedefs a plain compile sees."""
    raw = cuda_header.join_continuations(cuda_header.strip_comments(
        cuda_header.read(inc + "/cudaTypedefs.h")))
    pp = cuda_header.Preprocessor(["__cuda_cuda_h__"])
    text = " ".join(pp.active_lines(raw))
    return {m.group(1): " ".join(m.group(2).split()) for m in re.finditer(
        r"\(\s*CUDAAPI\s*\*\s*(PFN_\w+)\s*\)\s*\(([^;]*?)\)\s*;", text)}


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: gen-mock-entries.py CUDA_INCLUDE_DIR OUT_MARKDOWN MOCK_HEADER...")
    inc, out_path, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    E = cuda_header.Entries(inc)
    raw = cuda_header.read(inc + "/cuda.h")
    types = Types(cuda_header.join_continuations(cuda_header.strip_comments(raw)))
    pfns = pfn_params(inc)
    rows = mock_rows(headers)
    spans = areas(raw)

    by_area = {}  # title -> [(name, implemented)], in cuda.h's order
    for e in E.list:
        want = types.key(e["params"])
        abi = [v for v, _pt, t in e["legacy_cands"] if t in pfns and types.key(pfns[t]) == want]
        if not abi:
            sys.exit("gen-mock-entries: no PFN_%s_v* typedef has the parameters of %s"
                     % (e["base"], e["name"]))
        done = (e["base"], max(abi)) in rows
        by_area.setdefault(area_of(raw, spans, e["name"]), []).append((e["name"], done))

    total = len(E.list)
    done = sum(ok for entries in by_area.values() for _n, ok in entries)
    out = ["# Entries of cuda.h the cushim mock driver implements", "",
           "Generated by tests/mock/gen-mock-entries.py from cuda.h (CUDA_VERSION %d) and the "
           "mock's lists of entries: do not edit." % E.version, "",
           "**%d of %d entries implemented**; every other entry resolves to a stub that answers "
           "`CUDA_ERROR_NOT_SUPPORTED`." % (done, total), "",
           "| Area | Implemented |", "|---|---|"]
    for title, entries in by_area.items():
        out.append("| %s | %d of %d |" % (title, sum(ok for _n, ok in entries), len(entries)))
    for title, entries in by_area.items():
        names = [n for n, ok in entries if ok]
        out += ["", "## %s (%d of %d)" % (title, len(names), len(entries)), ""]
        out += ["- `%s`" % n for n in names] or ["(none)"]
    text = "\n".join(out) + "\n"
    if out_path == "-":
        sys.stdout.write(text)
    else:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
