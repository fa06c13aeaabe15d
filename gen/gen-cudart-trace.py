#!/usr/bin/env python3
"""Generate the traced layer of cushim's CUDA runtime from the installed cuda_runtime_api.h.

Usage: gen-cudart-trace.py CUDA_INCLUDE_DIR OUT_RENAME_H OUT_TRACE_C -- CC...

OUT_RENAME_H is force-included (-include) into every implementation file of runtime/ and into the
generated stubs: after the toolkit's headers it declares each function that returns a
cudaError_t again, under an assembler name of its own (cudaMalloc is the symbol
cushim__rt_impl_cudaMalloc), in both default-stream modes (cudaMemcpy_ptds), and the launch
functions of nvcc's registration ABI (__cudaGetKernel, __cudaLaunchKernel and _ptsz). The
implementation files are unchanged: their definitions take the assembler name, `__func__` stays
the API's name, the header's prototypes still check them, and a call from one runtime function to
another goes to the implementation, untraced.

OUT_TRACE_C holds the exported functions: each one, when the tracer is off (one relaxed atomic
load), calls its implementation as a tail call; when on, it times the call and hands the tracer
(src/trace/rtcalls.c) its arguments, which the tracer prints by the description generated here
from the prototype (the kinds of src/trace/entry_info.h, the runtime's enums by name from the
compiler's view of the headers; the tables' text is gen-trace.py's, as for the driver), its
result by name, and the registered kernel's name for an argument that names one
(cushim__rt_kernel_of).
"""

import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuda_header  # noqa: E402


def load(module, file):
    """A generator of this folder (its file name has dashes) as the module `module`."""
    spec = importlib.util.spec_from_file_location(module, os.path.join(HERE, file))
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded


gen_cudart = load("gen_cudart", "gen-cudart.py")
# The driver's tracer generator: the argument kinds, split_param and the tables' text.
gen_trace = load("gen_trace", "gen-trace.py")
from gen_trace import (K_DIM3_STRUCT, K_ENUM, K_FLOAT, K_HEX, K_OPAQUE, K_SIGNED,  # noqa: E402
                       K_STRING, K_UNSIGNED, split_param)

GENERATOR = "gen/gen-cudart-trace.py"
c_string = cuda_header.c_string
PREFIX = "cushim__rt_impl_"

UNSIGNED = {"size_t", "unsigned int", "unsigned", "unsigned long long", "unsigned long",
            "unsigned short", "unsigned char", "cudaLogIterator"}
SIGNED = {"int", "long", "long long", "short", "char"}
FLOATS = {"float", "double"}
INT_HANDLES = {"cudaTextureObject_t", "cudaSurfaceObject_t", "cudaGraphConditionalHandle"}
# Arguments that name a kernel: a host function nvcc registered, or a cudaKernel_t.
KERNEL_ARGS = {"func", "entryFuncAddr", "kernel", "fn"}

# nvcc's launch ABI (crt/device_functions.h, C++ only): traced beside the API.
ABI = [
    {"name": "__cudaGetKernel", "ret": "cudaError_t",
     "params": "cudaKernel_t *kernel, const void *fn", "pt": None},
    {"name": "__cudaLaunchKernel", "ret": "cudaError_t",
     "params": "cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, "
               "cudaStream_t stream", "pt": "__cudaLaunchKernel_ptsz"},
]


def preprocessed(cc, inc):
    src = "".join("#include <%s>\n" % h for h in gen_cudart.HEADERS)
    args = list(cc) + ["-E", "-P", "-x", "c", "-I" + inc, "-"]
    return subprocess.run(args, input=src, capture_output=True, text=True, check=True).stdout


class Types:
    """What the compiler's view of the headers says about the argument types."""

    def __init__(self, text):
        self.enums = {}  # enum tag -> [enumerator]
        for m in re.finditer(r"enum\s+(\w+)\s*\{([^{}]*)\}", text):
            names = [i.split("=")[0].strip() for i in m.group(2).split(",")]
            self.enums[m.group(1)] = [n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)]
        self.alias = {}  # typedef name -> enum tag
        for m in re.finditer(r"typedef\s+enum\s+(\w+)\s+(\w+)\s*;", text):
            self.alias[m.group(2)] = m.group(1)
        for m in re.finditer(r"typedef\s+enum\s*(\w*)\s*\{([^{}]*)\}\s*(\w+)\s*;", text):
            if m.group(1):
                self.alias[m.group(3)] = m.group(1)
        self.pointers = set(re.findall(r"typedef\s+(?:const\s+)?struct\s+\w+\s*\*\s*(\w+)\s*;",
                                       text))
        self.pointers |= set(re.findall(r"typedef\s+[^;()]*\(\s*\*\s*(\w+)\s*\)", text))
        self.used = []  # enum tags, in the order of their index

    def enum_tag(self, base):
        tag = base[5:] if base.startswith("enum ") else self.alias.get(base)
        return tag if tag in self.enums else None

    def enum_index(self, tag):
        if tag not in self.used:
            self.used.append(tag)
        return self.used.index(tag)


def param_docs(raw):
    """name -> {param: its doc line}, from the doc comment above each prototype."""
    out = {}
    pat = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*extern\s+[^;{]*?CUDARTAPI\s+(\w+)\s*\(", re.S)
    for m in pat.finditer(raw):
        out.setdefault(m.group(2), dict(re.findall(r"\\param\s+(\w+)\s+-\s+([^\n]*)",
                                                   m.group(1))))
    return out


def scalar_kind(T, base):
    if base in T.pointers or base in INT_HANDLES:
        return K_HEX, -1
    tag = T.enum_tag(base)
    if tag is not None:
        return K_ENUM, T.enum_index(tag)
    if base in FLOATS:
        return K_FLOAT, -1
    if base in UNSIGNED:
        return K_UNSIGNED, -1
    if base in SIGNED:
        return K_SIGNED, -1
    return None, -1


def describe(T, docs, f):
    """[(name, kind, c type, enum index, output)] per argument, and the kernel's argument."""
    out, function = [], -1
    params = f["params"]
    if params.strip() in ("", "void"):
        return out, function
    for k, (typ, base, stars, name) in enumerate(split_param(p) for p in params.split(",")):
        doc = docs.get(f["name"], {}).get(name, "")
        const = typ.startswith("const") or " const" in typ
        if name in KERNEL_ARGS and function == -1 and \
                (base == "cudaKernel_t" and stars == 0 or base == "void" and stars == 1):
            function = k
        if stars == 1 and not const and not re.search(r"[Aa]rray|[Ll]ist", doc):
            kind, enum = scalar_kind(T, base)
            if kind is not None:
                out.append((name, kind, typ[:typ.rindex("*")].strip(), enum, 1))
                continue
        if stars == 2 and not const and base == "void" and name != "args" and \
                not re.search(r"[Aa]rray|[Ll]ist|[Aa]rgument", doc):
            out.append((name, K_HEX, "void *", -1, 1))
            continue
        if stars == 1 and base == "char" and const:
            kind, enum = K_STRING, -1
        elif stars:
            kind, enum = K_HEX, -1
        elif base == "dim3":
            kind, enum = K_DIM3_STRUCT, -1
        else:
            kind, enum = scalar_kind(T, base)
            if kind is None:
                kind = K_OPAQUE
            elif kind == K_UNSIGNED and "flag" in name.lower():
                kind = K_HEX
        out.append((name, kind, typ, enum, 0))
    return out, function


def traced(fns):
    """The functions that get a traced export: those answering a cudaError_t (the two that
    answer a string and cudaCreateChannelDesc are left as they are), and nvcc's launch ABI."""
    return [f for f in fns if f["ret"] == "cudaError_t"] + ABI


def names_of(f):
    return [f["name"]] + ([f["pt"]] if f["pt"] else [])


def rename_header(inc, fns):
    out = ["/* Generated by %s from %s/cuda_runtime_api.h: do not edit.\n"
           " * Force-included into runtime/'s implementation files: each traced function is\n"
           " * declared again under the assembler name %s<name>, which its definition\n"
           " * then takes; the exported <name> is the traced layer's (cudart_trace.c). */\n"
           % (GENERATOR, inc, PREFIX),
           "#ifndef CUSHIM_CUDART_RENAME_H\n#define CUSHIM_CUDART_RENAME_H\n\n",
           "#include <cuda_profiler_api.h>\n#include <cuda_runtime_api.h>\n\n"
           "#include \"cudart_ptds.h\"\n\n",
           "#pragma GCC diagnostic push\n"
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"]
    for f in fns:
        if f in ABI:
            out.append("cudaError_t CUDARTAPI %s(%s) __asm__(\"%s%s\");\n"
                       % (f["name"], f["params"], PREFIX, f["name"]))
            if f["pt"]:
                out.append("cudaError_t CUDARTAPI %s(%s) __asm__(\"%s%s\");\n"
                           % (f["pt"], f["params"], PREFIX, f["pt"]))
            continue
        for n in names_of(f):
            out.append("extern __typeof__(%s) %s __asm__(\"%s%s\");\n" % (n, n, PREFIX, n))
    out.append("#pragma GCC diagnostic pop\n\n#endif\n")
    return "".join(out)


def wrapper(f, name, i, desc, function):
    params = f["params"] if f["params"].strip() else "void"
    args = [p[3] for p in (split_param(x) for x in f["params"].split(","))] \
        if f["params"].strip() not in ("", "void") else []
    call = "%s%s(%s)" % (PREFIX, name, ", ".join(args))
    ptrs = ", ".join("(void *)&%s" % a for a in args) if args else "NULL"
    kernel = "cushim__rt_kernel_name(%s)" % args[function] if function >= 0 else "NULL"
    # The traced path in a function of its own: the untraced one then takes no argument's
    # address, and is a load, a branch and a jump to the implementation.
    return ("static CUSHIM__COLD cudaError_t traced_%d(%s) {\n"
            "    void *cushim__a[] = {%s};\n"
            "    cushim__trace_rt_frame cushim__f;\n"
            "    if (!cushim__trace_rt_begin(&cushim__f, &entries[%d], cushim__a)) return %s;\n"
            "    cudaError_t cushim__r = %s;\n"
            "    cushim__rt_trace_end(&cushim__f, cushim__r, %s);\n"
            "    return cushim__r;\n}\n\n"
            "cudaError_t CUDARTAPI %s(%s) {\n"
            "    if (CUSHIM__LIKELY(atomic_load_explicit(&cushim__trace_runtime, "
            "memory_order_relaxed) == 0))\n"
            "        return %s;\n"
            "    return traced_%d(%s);\n}\n\n"
            % (i, params, ptrs, i, call, call, kernel, name, params, call, i, ", ".join(args)))


def trace_source(inc, fns, T, docs):
    out = ["/* Generated by %s from %s/cuda_runtime_api.h: do not edit.\n"
           " * The exported runtime functions: each calls its implementation (%s<name>),\n"
           " * traced when CUSHIM_TRACE asks for it. */\n" % (GENERATOR, inc, PREFIX),
           "#include <stdatomic.h>\n#include <stddef.h>\n\n"
           "#include <cuda_profiler_api.h>\n#include <cuda_runtime_api.h>\n\n"
           "#include \"common/hints.h\"\n#include \"cudart_ptds.h\"\n"
           "#include \"runtime/rt_trace.h\"\n#include \"trace/entry_info.h\"\n"
           "#include \"trace/rtcalls.h\"\n\n",
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n\n"]
    # The implementations, typed as the API's functions.
    for f in fns:
        if f in ABI:
            for n in names_of(f):
                out.append("cudaError_t CUDARTAPI %s%s(%s);\n" % (PREFIX, n, f["params"]))
            continue
        for n in names_of(f):
            out.append("extern __typeof__(%s) %s%s;\n" % (n, PREFIX, n))
    out.append("\n")
    described = [describe(T, docs, f) for f in fns]
    out.append(gen_trace.arg_tables([args for args, _f in described]))
    out.append("\n")
    enums = [(tag, [(n, "(long long)%s" % n) for n in T.enums[tag]]) for tag in T.used]
    out.append(gen_trace.enum_tables(enums, "static const cushim__trace_enum enums[]"))
    out.append("\n")
    # One entry per exported name: a function and its per-thread variant are counted apart.
    out.append("static cushim__trace_rt_entry entries[] = {\n")
    index = []
    for i, f in enumerate(fns):
        args, function = described[i]
        for n in names_of(f):
            index.append((f, n, i))
            out.append("    {.name = %s, .name_len = %du, .args = %s, .count = %du, "
                       ".function = %d, .enums = enums},\n"
                       % (c_string(n), len(n), "args_%d" % i if args else "NULL", len(args),
                          function))
    out.append("};\n\n")
    for k, (f, n, i) in enumerate(index):
        out.append(wrapper(f, n, k, *described[i]))
    return "".join(out)


def main():
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") != 3:
        sys.exit(__doc__)
    inc, out_h, out_c = argv[:3]
    cc = argv[4:]
    fns = traced(gen_cudart.functions(cc, inc))
    T = Types(preprocessed(cc, inc))
    raw = "\n".join(cuda_header.read(inc + "/" + h) for h in gen_cudart.HEADERS)
    docs = param_docs(raw)
    with open(out_h, "w", encoding="utf-8") as f:
        f.write(rename_header(inc, fns))
    with open(out_c, "w", encoding="utf-8") as f:
        f.write(trace_source(inc, fns, T, docs))


if __name__ == "__main__":
    main()
