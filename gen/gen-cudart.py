#!/usr/bin/env python3
"""Generate cushim's CUDA runtime from the installed cuda_runtime_api.h and driver_types.h.

Usage:
  gen-cudart.py sources CUDA_INCLUDE_DIR OUT_STUBS_C OUT_PTDS_H OUT_ERRORS_C OUT_MAP -- CC...
  gen-cudart.py entries CUDA_INCLUDE_DIR LIBRARY OUT_MARKDOWN -- CC... -- NM [OBJECTS.a]

`sources` writes:
  - a stub for every function the header declares, in both default-stream modes: weak, so that
    a function runtime/ implements replaces it at link time; each answers cudaErrorNotSupported,
    sets the thread's last error and says once in cushim's log that it is not implemented;
  - the prototypes of the per-thread variants (cudaMemcpy_ptds, cudaLaunchKernel_ptsz), declared
    with __typeof__ of the legacy function, so that the compiler checks every definition of one
    against the header's prototype;
  - the names and strings of every cudaError_t of driver_types.h (the enumerator's name, and the
    first sentence of its doc comment), and the mapping from CUresult;
  - the version script: every cuda* and __cuda* symbol under the node of NVIDIA's library for
    this major version (libcudart.so.13), nothing else exported.

`entries` reads the linked library's symbols with nm: a function whose symbol is weak is still
the stub, one that is global is implemented (with OBJECTS.a, the archive of runtime/'s objects, the
symbol read is the implementation's, cushim__rt_impl_<name>, behind the traced export). It writes the list by area (the \\defgroup sections
of cuda_runtime_api.h) as Markdown, and fails when a function and its per-thread variant disagree.

The declarations are read from the compiler's preprocessor output (CC -E), in the legacy and the
per-thread mode, so that what counts is what a program compiled against the header sees.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_header  # noqa: E402

c_string = cuda_header.c_string
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)")
DECL = re.compile(r"extern\s+([^;(){}]*?)\b(\w+)\s*\(([^;]*?)\)\s*;")
# The headers whose functions NVIDIA's libcudart exports and this runtime therefore has: the
# runtime API, and the profiler's start and stop (declared apart).
HEADERS = ("cuda_runtime_api.h", "cuda_profiler_api.h")
# The graphics interop headers: NVIDIA's library exports their functions too, but their
# prototypes name GL, EGL and VDPAU types, whose headers a build machine need not have. Their
# names are read from the text, and each is a stub answering cudaErrorNotSupported (cushim
# drives no graphics API). cudaWGLGetDevice is Windows only.
INTEROP = ("cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h")
INTEROP_SKIP = re.compile(r"cudaWGL\w*")
# Exported by NVIDIA's library but declared by no header of the toolkit (CUPTI's callback ids
# name them, nothing documents them): stubs that answer cudaErrorNotSupported, so that a program
# built against NVIDIA's library still resolves every symbol here.
UNDOCUMENTED = ("__cudaGetProcAddress", "__cudaRegisterUnifiedTable")
GROUP = re.compile(r"\\defgroup\s+(\w+)\s+([^\n]*)")
GROUP_END = re.compile(r"/\*\*\s*@\}\s*\*/")


def declarations(cc, inc, per_thread):
    """(return type, name, parameters) of each function the HEADERS declare, in the
    headers' order, as the compiler sees them in this mode."""
    src = "".join("#include <%s>\n" % h for h in HEADERS)
    args = list(cc) + ["-E", "-x", "c", "-I" + inc, "-"]
    if per_thread:
        args.append("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1")
    out = subprocess.run(args, input=src, capture_output=True, text=True, check=True).stdout
    mine, keep = [], False
    for line in out.split("\n"):
        m = re.match(r'#\s*\d+\s+"([^"]+)"', line)
        if m:
            keep = os.path.basename(m.group(1)) in HEADERS
            continue
        if keep:
            mine.append(line)
    text = ATTRIBUTE.sub("", " ".join(mine))
    decls = []
    for ret, name, params in DECL.findall(text):
        decls.append((" ".join(ret.split()), name, " ".join(params.split())))
    if len(decls) < 100:
        sys.exit("gen-cudart: only %d declarations read from cuda_runtime_api.h" % len(decls))
    return decls


def functions(cc, inc):
    """[{name, ret, params, pt}] where pt is the per-thread variant's name (None when the
    header's macros leave the name as it is)."""
    legacy = declarations(cc, inc, False)
    pt = declarations(cc, inc, True)
    if len(legacy) != len(pt):
        sys.exit("gen-cudart: %d declarations in the legacy mode, %d per-thread"
                 % (len(legacy), len(pt)))
    out = []
    for (ret, name, params), (_r, pname, _p) in zip(legacy, pt):
        if pname != name and not re.fullmatch(re.escape(name) + r"_pt(ds|sz)", pname):
            sys.exit("gen-cudart: %s in the legacy mode is %s per-thread" % (name, pname))
        out.append({"name": name, "ret": ret, "params": params,
                    "pt": pname if pname != name else None})
    return out


def interop_names(inc):
    """The functions the graphics interop headers declare, read from their text."""
    names = []
    for h in INTEROP:
        path = os.path.join(inc, h)
        if os.path.exists(path):
            for name in re.findall(r"CUDARTAPI\s+(\w+)\s*\(", cuda_header.read(path)):
                if not INTEROP_SKIP.fullmatch(name) and name not in names:
                    names.append(name)
    return names


def runtime_version(inc):
    raw = cuda_header.read(inc + "/cuda_runtime_api.h")
    return cuda_header.cuda_version(raw, "CUDART_VERSION")


def stub(name, ret, params, pt):
    body = 'cushim__rt_unimplemented("%s", &said)' % name
    if ret == "cudaError_t":
        ret_stmt = "return %s;" % body
    elif ret.endswith("*"):
        ret_stmt = '(void)%s;\n    return "cushim: %s is not implemented";' % (body, name)
    else:
        ret_stmt = "(void)%s;\n    return (%s){0};" % (body, ret)
    return ("__attribute__((weak)) %s CUDARTAPI %s(%s) {\n"
            "    static atomic_bool said;\n    %s\n}" % (ret, pt or name, params or "void",
                                                        ret_stmt))


def write_sources(inc, fns, stubs_c, ptds_h, errors_c, map_path):
    version = runtime_version(inc)
    banner = ("/* Generated by gen/gen-cudart.py from %s/cuda_runtime_api.h (CUDART_VERSION %d):"
              " do not edit. */" % (inc, version))
    pts = [f for f in fns if f["pt"]]
    h = [banner,
         "/* The per-thread default-stream variants, typed as their legacy functions. */",
         "#ifndef CUSHIM_CUDART_PTDS_H", "#define CUSHIM_CUDART_PTDS_H", "",
         "#include <cuda_profiler_api.h>", "#include <cuda_runtime_api.h>", ""]
    h += ["/* __typeof__ of a deprecated function is no use of it. */",
          "#pragma GCC diagnostic push",
          '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"']
    h += ["extern __typeof__(%s) %s;" % (f["name"], f["pt"]) for f in pts]
    h += ["#pragma GCC diagnostic pop", "", "#endif", ""]
    with open(ptds_h, "w", encoding="utf-8") as out:
        out.write("\n".join(h))

    c = [banner, "/* %d functions, %d per-thread variants: each a weak stub that runtime/ may "
         "replace. */" % (len(fns), len(pts)),
         "#include <stdatomic.h>", "",
         '#include "cudart_ptds.h"', '#include "runtime/rt.h"', "",
         "/* Stubs take every parameter of their prototype and read none. */",
         '#pragma GCC diagnostic ignored "-Wunused-parameter"',
         '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', ""]
    for f in fns:
        c.append(stub(f["name"], f["ret"], f["params"], None))
        if f["pt"]:
            c.append(stub(f["name"], f["ret"], f["params"], f["pt"]))
    c += ["", "/* Graphics interop and undocumented exports: their parameter types are not",
          " * declared here, so each stub takes none (the calling convention lets a caller pass",
          " * arguments that a function does not read) and answers cudaErrorNotSupported. */"]
    for name in interop_names(inc) + list(UNDOCUMENTED):
        c += ["cudaError_t CUDARTAPI %s(void);" % name, stub(name, "cudaError_t", "", None)]
    with open(stubs_c, "w", encoding="utf-8") as out:
        out.write("\n".join(c) + "\n")

    types = cuda_header.read(inc + "/driver_types.h")
    m = re.search(r"enum\s+__device_builtin__\s+cudaError\s*\{(.*?)\};", types, re.S)
    if m is None:
        sys.exit("gen-cudart: no enum cudaError in driver_types.h")
    errors = sorted(cuda_header.parse_enum_docs(m.group(1), r"cudaError\w*|cudaSuccess"),
                    key=lambda e: e[1])
    driver = cuda_header.parse_errors(cuda_header.read(inc + "/cuda.h"))
    by_value = {v: n for n, v, _ in errors}
    e = [banner.replace("cuda_runtime_api.h", "driver_types.h"),
         "/* %d cudaError_t values: their names, their sentences (the first of each doc comment), "
         "and the CUresult of the same number, where there is one. */" % len(errors),
         "#include <cuda.h>", "#include <cuda_runtime_api.h>", "",
         '#include "runtime/rt_errors_table.h"', "",
         "const cushim__rt_error_text cushim__rt_error_texts[] = {"]
    for name, value, sentence in errors:
        if name == "cudaSuccess":
            sentence = "no error"
        e.append("    {%s, %s, %s}," % (name, c_string(name), c_string(sentence)))
    e += ["};", "const int cushim__rt_error_text_count = %d;" % len(errors), ""]
    for name, value, _ in errors:
        e.append('_Static_assert(%s == %d, "driver_types.h changed under the generator");'
                 % (name, value))
    e += ["", "/* The driver's codes, by number: NVIDIA keeps the two enums' numbers aligned, so",
          " * a CUresult becomes the cudaError_t of the same number; one the runtime has no",
          " * number for is cudaErrorUnknown. */",
          "cudaError_t cushim__rt_from_cu(CUresult r) {", "    switch (r) {"]
    for name, value, _ in driver:
        if value in by_value:
            e.append("    case %s: return %s;" % (name, by_value[value]))
    e += ["    default: return cudaErrorUnknown;", "    }", "}", ""]
    with open(errors_c, "w", encoding="utf-8") as out:
        out.write("\n".join(e))

    node = "libcudart.so.%d" % (version // 1000)
    with open(map_path, "w", encoding="utf-8") as out:
        out.write("/* Generated by gen/gen-cudart.py: NVIDIA's version node for CUDA %d. */\n"
                  "%s {\n  global:\n    cuda*;\n    __cuda*;\n  local:\n    *;\n};\n"
                  % (version // 1000, node))


def areas(raw):
    """(start, end, title) of each \\defgroup section, and of each \\addtogroup that reopens
    one (cuda_runtime_api.h reopens Device Management after Error Handling)."""
    out, titles = [], {}
    for m in GROUP.finditer(raw):
        titles[m.group(1)] = " ".join(m.group(2).split())
    for m in re.finditer(r"\\(?:defgroup|addtogroup)\s+(\w+)", raw):
        end = GROUP_END.search(raw, m.end())
        out.append((m.start(), end.start() if end else len(raw), titles.get(m.group(1), m.group(1))))
    return out


def area_of(raw, spans, name):
    m = re.search(r"CUDARTAPI\s+%s\s*\(" % re.escape(name), raw)
    best = None
    for start, end, title in spans if m else ():
        if start <= m.start() < end and (best is None or start > best[0]):
            best = (start, title)
    return best[1] if best else "Other"


IMPL = "cushim__rt_impl_"


def write_entries(inc, fns, library, nm, out_path, archive=None):
    syms = subprocess.run(list(nm) + ["-D", "--defined-only", library], capture_output=True,
                          text=True, check=True).stdout
    kind = {}
    for line in syms.split("\n"):
        parts = line.split()
        if len(parts) == 3:
            kind[parts[2].split("@")[0]] = parts[1]
    impl = {}
    if archive:
        # The exported functions are the traced layer's (gen-cudart-trace.py), each calling
        # cushim__rt_impl_<name>: that symbol is weak in the stubs' object, global where
        # runtime/ implements it.
        objs = subprocess.run(list(nm) + ["--defined-only", archive], capture_output=True,
                              text=True, check=True).stdout
        for line in objs.split("\n"):
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TW":
                name = parts[2]
                name = name[len(IMPL):] if name.startswith(IMPL) else name
                if impl.get(name) != "T":
                    impl[name] = parts[1]
    errors, done = [], {}
    for f in fns:
        names = [f["name"]] + ([f["pt"]] if f["pt"] else [])
        missing = [n for n in names if n not in kind]
        if missing:
            errors.append("%s does not export %s" % (library, ", ".join(missing)))
            continue
        state = [(impl if archive else kind).get(n) == "T" for n in names]
        if len(set(state)) != 1:
            errors.append("%s is implemented in one default-stream mode only (%s)"
                          % (f["name"], ", ".join(n for n, s in zip(names, state) if not s)))
        done[f["name"]] = all(state)
    if errors:
        sys.exit("gen-cudart: " + "; ".join(errors))
    raw = "\n".join(cuda_header.read(inc + "/" + h) for h in HEADERS)
    spans = areas(raw)
    by_area = {}
    for f in fns:
        by_area.setdefault(area_of(raw, spans, f["name"]), []).append(f["name"])
    n = sum(done.values())
    lines = ["# Functions of cuda_runtime_api.h that cushim's runtime implements", "",
             "Generated by gen/gen-cudart.py from %s/cuda_runtime_api.h (CUDART_VERSION %d) and "
             "the symbols of the linked library." % (inc, runtime_version(inc)), "",
             "**%d of %d functions implemented** (each in both default-stream modes where the "
             "header has two); every other one answers cudaErrorNotSupported." % (n, len(fns)),
             "", "| area | implemented |", "| --- | --- |"]
    for area, names in by_area.items():
        lines.append("| %s | %d of %d |" % (area, sum(done[x] for x in names), len(names)))
    lines.append("")
    for area, names in by_area.items():
        lines += ["## " + area, ""]
        lines += ["- %s `%s`" % ("[x]" if done[x] else "[ ]", x) for x in names]
        lines.append("")
    text = "\n".join(lines)
    if out_path == "-":
        sys.stdout.write(text)
    else:
        with open(out_path, "w", encoding="utf-8") as out:
            out.write(text)


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    head = argv[:argv.index("--")]
    rest = argv[argv.index("--") + 1:]
    if head and head[0] == "sources" and len(head) == 6:
        inc = head[1]
        write_sources(inc, functions(rest, inc), *head[2:])
    elif head and head[0] == "entries" and len(head) == 4 and "--" in rest:
        cc, nm = rest[:rest.index("--")], rest[rest.index("--") + 1:]
        archive = nm.pop() if len(nm) > 1 and nm[-1].endswith(".a") else None
        write_entries(head[1], functions(cc, head[1]), head[2], nm, head[3], archive)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
