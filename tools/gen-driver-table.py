#!/usr/bin/env python3
"""Generate cushim's driver function table from the installed cuda.h and cudaTypedefs.h.

Usage: gen-driver-table.py CUDA_INCLUDE_DIR OUT_HEADER OUT_SOURCE

Writes:
  OUT_HEADER  the public table struct, one slot per entry point that cuda.h declares;
  OUT_SOURCE  the resolution list (base name, ABI version, per-thread ABI version), a typed
              stub per entry, the table of stubs, the CUresult names and texts, and the
              compile-time checks that tie each slot to cuda.h.

The ABI version of each entry is not guessed from text: every PFN_ typedef of the entry's base
name is a candidate, and the compiler picks the newest one whose type is compatible with the
cuda.h prototype (__builtin_types_compatible_p). An entry that no candidate matches fails the
build with a message naming it.
"""

import os
import re
import sys

GENERATOR = "tools/gen-driver-table.py"


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def join_continuations(text):
    return re.sub(r"\\\n", " ", text)


class Preprocessor:
    """A tiny conditional evaluator: enough to tell which lines of cuda.h a plain C compiler sees.

    Only the macros the header defines itself, plus __GNUC__ and __LP64__, count as defined, so
    the internal (__CUDA_API_VERSION_INTERNAL) and per-thread blocks are skipped, as they are for
    a user who includes cuda.h without those macros.
    """

    ASSUMED = {"__GNUC__", "__LP64__"}

    def __init__(self):
        self.defined = set(self.ASSUMED)

    def eval(self, expr):
        expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: " 1 " if m.group(1) in self.defined else " 0 ", expr)
        expr = re.sub(r"defined\s+(\w+)", lambda m: " 1 " if m.group(1) in self.defined else " 0 ", expr)
        expr = re.sub(r"(\d+)[uUlL]+", r"\1", expr)
        expr = re.sub(r"[A-Za-z_]\w*", " 0 ", expr)
        expr = expr.replace("&&", " and ").replace("||", " or ")
        expr = re.sub(r"!(?!=)", " not ", expr)
        try:
            return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 - digits and operators only
        except Exception:
            return False

    def active_lines(self, text):
        """Yield the lines that are active, and feed #define/#undef to the macro set."""
        stack = []  # entries: [taking_now, some_branch_taken, parent_active]
        active = True
        for line in text.split("\n"):
            m = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
            if m:
                d, rest = m.group(1), m.group(2).strip()
                if d in ("if", "ifdef", "ifndef"):
                    if d == "if":
                        cond = self.eval(rest)
                    elif d == "ifdef":
                        cond = rest.split()[0] in self.defined
                    else:
                        cond = rest.split()[0] not in self.defined
                    stack.append([active and cond, cond, active])
                    active = active and cond
                    continue
                if d == "elif":
                    top = stack[-1]
                    cond = (not top[1]) and self.eval(rest)
                    top[1] = top[1] or cond
                    active = top[2] and cond
                    continue
                if d == "else":
                    top = stack[-1]
                    active = top[2] and not top[1]
                    top[1] = True
                    continue
                if d == "endif":
                    top = stack.pop()
                    active = top[2]
                    continue
                if active and d == "define":
                    self.defined.add(rest.split("(")[0].split()[0])
                if active and d == "undef":
                    self.defined.discard(rest.split()[0])
                if active:
                    yield line
                continue
            if active:
                yield line


def parse_cuda_h(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    version = int(re.search(r"#define\s+CUDA_VERSION\s+(\d+)", raw).group(1))
    text = join_continuations(strip_comments(raw))
    lines = list(Preprocessor().active_lines(text))

    renames = {}
    for line in lines:
        m = re.match(r"\s*#\s*define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\(\s*(\w+)\s*\)|(\w+))\s*$", line)
        if m:
            renames[m.group(1)] = m.group(2) or m.group(3)

    body = "\n".join(l for l in lines if not re.match(r"\s*#", l))
    decls = []
    seen = set()
    for m in re.finditer(r"((?:__CUDA_DEPRECATED\s+)?)CUresult\s+CUDAAPI\s+(cu\w+)\s*\(([^;{]*?)\)\s*;", body):
        name = m.group(2)
        params = " ".join(m.group(3).split())
        symbol = name
        while symbol in renames and renames[symbol] != symbol:
            symbol = renames[symbol]
        if symbol in seen:
            continue
        seen.add(symbol)
        base = re.sub(r"_v\d+$", "", symbol)
        decls.append({"name": name, "symbol": symbol, "base": base, "params": params,
                      "deprecated": bool(m.group(1))})
    return version, decls, raw


def parse_errors(raw):
    """Enumerators of enum cudaError_enum with the first sentence of their doc comment."""
    m = re.search(r"typedef\s+enum\s+cudaError_enum\s*\{(.*?)\}\s*CUresult\s*;", raw, re.S)
    body = m.group(1)
    out = []
    doc = ""
    pos = 0
    token = re.compile(r"/\*\*(.*?)\*/|(CUDA_\w+)\s*=\s*(\d+)", re.S)
    for t in token.finditer(body, pos):
        if t.group(1) is not None:
            doc = t.group(1)
            continue
        text = " ".join(re.sub(r"^\s*\*", "", l) for l in doc.split("\n"))
        text = re.sub(r"\\(?:ref|p|c)\s+", "", text)
        text = re.sub(r"::", "", text)
        text = " ".join(text.split())
        # first sentence, kept short: the full text is in cuda.h
        sent = re.split(r"(?<=[a-z0-9)])\.\s", text + " ")[0].strip().rstrip(".")
        out.append((t.group(2), int(t.group(3)), sent or t.group(2)))
        doc = ""
    return out


def parse_typedefs(path):
    raw = join_continuations(strip_comments(open(path, encoding="utf-8", errors="replace").read()))
    pp = Preprocessor()
    pp.defined.add("__cuda_cuda_h__")  # the include of cuda.h is not followed
    names = {}
    for line in pp.active_lines(raw):
        for m in re.finditer(r"\(\s*CUDAAPI\s*\*\s*PFN_(\w+?)_v(\d+)(_ptds|_ptsz)?\s*\)", line):
            base, ver, pt = m.group(1), int(m.group(2)), m.group(3)
            names.setdefault(base, []).append((ver, bool(pt), "PFN_%s_v%d%s" % (base, ver, pt or "")))
    return names


def choose_chain(symbol, cands):
    """A constant expression the compiler reduces to the newest compatible candidate's version."""
    expr = "0"
    for ver, _pt, tname in sorted(cands):
        expr = "CUSHIM__PICK(%s, %s, %d, %s)" % (symbol, tname, ver, expr)
    return expr


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen-driver-table.py CUDA_INCLUDE_DIR OUT_HEADER OUT_SOURCE")
    inc, out_h, out_c = sys.argv[1:]
    version, decls, raw = parse_cuda_h(os.path.join(inc, "cuda.h"))
    typedefs = parse_typedefs(os.path.join(inc, "cudaTypedefs.h"))
    errors = parse_errors(raw)

    missing = [d["symbol"] for d in decls if not any(not pt for _v, pt, _t in typedefs.get(d["base"], []))]
    if missing:
        sys.exit("gen-driver-table: no PFN_ typedef in cudaTypedefs.h for: " + ", ".join(missing))

    banner = ("/* Generated by %s from %s/cuda.h and cudaTypedefs.h (CUDA_VERSION %d).\n"
              " * Do not edit: Meson regenerates this file at build time. %d driver entries. */\n"
              % (GENERATOR, inc, version, len(decls)))

    h = [banner,
         "#ifndef CUSHIM_TABLE_H\n#define CUSHIM_TABLE_H\n\n#include <cuda.h>\n\n",
         "#define CUSHIM_TABLE_CUDA_VERSION %d\n" % version,
         "#define CUSHIM_TABLE_ENTRIES %du\n\n" % len(decls),
         "/* One slot per entry point declared in cuda.h, named as there, typed by cuda.h's own\n"
         " * prototype. An entry the driver lacks holds a stub that returns\n"
         " * CUDA_ERROR_NOT_SUPPORTED, never NULL. */\n",
         "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
         "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n#endif\n",
         "typedef struct cushim_driver_table {\n"]
    for d in decls:
        h.append("    __typeof__(%s) *%s;\n" % (d["name"], d["name"]))
    h.append("} cushim_driver_table;\n")
    h.append("#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n#endif\n")

    c = [banner,
         "#include <stddef.h>\n#include <cudaTypedefs.h>\n#include \"cushim.h\"\n#include \"loader/table.h\"\n\n",
         "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n",
         "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n\n",
         "#define CUSHIM__PICK(sym, T, v, rest) \\\n"
         "    __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(&sym), T), v, rest)\n\n"]

    for i, d in enumerate(decls):
        c.append("static CUresult CUDAAPI cushim__stub_%d(%s) { return cushim__unavailable(%d); }\n"
                 % (i, d["params"] or "void", i))
    c.append("\nconst cushim_driver_table cushim__stub_table = {\n")
    for i, d in enumerate(decls):
        c.append("    .%s = cushim__stub_%d,\n" % (d["name"], i))
    c.append("};\n\n")

    c.append("const cushim__entry cushim__entries[CUSHIM_TABLE_ENTRIES] = {\n")
    for d in decls:
        cands = typedefs[d["base"]]
        legacy = [x for x in cands if not x[1]]
        ptds = [x for x in cands if x[1]]
        c.append("    {%s, %s, %s, %s, %s, offsetof(cushim_driver_table, %s)},\n"
                 % (c_string(d["name"]), c_string(d["symbol"]), c_string(d["base"]),
                    choose_chain(d["name"], legacy),
                    choose_chain(d["name"], ptds), d["name"]))
    c.append("};\n\n")

    for d in decls:
        legacy = [x for x in typedefs[d["base"]] if not x[1]]
        c.append("_Static_assert(%s != 0, \"cuda.h's prototype of %s matches no PFN_%s_v* typedef "
                 "in cudaTypedefs.h\");\n" % (choose_chain(d["name"], legacy), d["symbol"], d["base"]))

    c.append("\nconst cushim__error_text cushim__errors[] = {\n")
    for name, val, text in errors:
        c.append("    {%d, %s, %s},\n" % (val, c_string(name), c_string(text)))
    c.append("};\nconst unsigned cushim__error_count = %du;\n" % len(errors))

    with open(out_h, "w") as f:
        f.write("".join(h))
    with open(out_c, "w") as f:
        f.write("".join(c))


if __name__ == "__main__":
    main()
