#!/usr/bin/env python3
"""Generate the tracer's hooked wrappers and argument printers from the installed cuda.h.

Usage: gen-trace.py CUDA_INCLUDE_DIR OUT_LEGACY_C OUT_PER_THREAD_C

Writes:
  OUT_LEGACY_C      one hooked wrapper per entry of the legacy table, the table of them, the
                    copy of the real slots they call through, how to print each entry's
                    arguments (kind, size, enum), and the enums of cuda.h by name;
  OUT_PER_THREAD_C  the wrappers of the per-thread table (compiled with
                    CUDA_API_PER_THREAD_DEFAULT_STREAM), typed as that mode's cuda.h.

A wrapper hands its argument pointers to the hooks, calls the real slot, and hands the result to
the hooks. The slots hold wrappers only while a hook is installed (src/trace/slots.c).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_header  # noqa: E402

GENERATOR = "gen/gen-trace.py"
c_string = cuda_header.c_string

# Kinds of argument, as src/trace/entry_info.h numbers them (K_DIM3_STRUCT: the runtime's dim3).
K_HEX, K_UNSIGNED, K_SIGNED, K_FLOAT, K_STRING, K_ENUM, K_FLAGS, K_DIM3, K_GROUPED, K_OPAQUE, \
    K_RESULT, K_DIM3_STRUCT = range(12)

UNSIGNED = {"size_t", "unsigned int", "unsigned", "cuuint32_t", "cuuint64_t",
            "unsigned long long", "unsigned short", "unsigned char", "unsigned long"}
SIGNED = {"int", "CUdevice", "short", "long", "long long", "char", "CUdevice_v1"}
FLOATS = {"float", "double"}
# Integer handles: printed in hex, as the pointer handles are.
INT_HANDLES = {"CUdeviceptr", "CUtexObject", "CUsurfObject", "CUmemGenericAllocationHandle",
               "CUdeviceptr_v2", "CUtexObject_v1", "CUsurfObject_v1", "CUgraphConditionalHandle"}


def eval_value(expr, known):
    expr = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", expr.strip())
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(known.get(m.group(0), "x")), expr)
    try:
        return int(eval(expr, {"__builtins__": {}}))  # noqa: S307 - digits and operators only
    except Exception:
        return None


def parse_enums(text):
    """typedef name -> [(enumerator, value)], for every enum of cuda.h with a typedef name;
    aliases (typedef CUlaunchAttributeID CUstreamAttrID) included."""
    enums = {}
    known = {}
    for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        values = []
        nxt = 0
        for item in m.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition("=")
            name = name.strip()
            if not re.match(r"^[A-Za-z_]\w*$", name):
                continue
            v = eval_value(expr, known) if expr.strip() else nxt
            if v is None:
                continue
            known[name] = v
            values.append((name, v))
            nxt = v + 1
        enums[m.group(2)] = values
    for m in re.finditer(r"typedef\s+(\w+)\s+(\w+)\s*;", text):
        if m.group(1) in enums and m.group(2) not in enums:
            enums[m.group(2)] = enums[m.group(1)]
    return enums


def pointer_typedefs(text):
    """Typedef names that are pointers: handles (struct X_st *) and callbacks."""
    names = set(re.findall(r"typedef\s+struct\s+\w+\s*\*\s*(\w+)\s*;", text))
    names |= set(re.findall(r"typedef\s+[\w\s\*]+?\(\s*CUDA_CB\s*\*\s*(\w+)\s*\)", text))
    return names


def docs(raw):
    """Entry name -> the text of the doc comment just above its prototype."""
    out = {}
    pat = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*(?:__CUDA_DEPRECATED\s+)?CUresult\s+CUDAAPI\s+"
                     r"(cu\w+)\s*\(", re.S)
    for m in pat.finditer(raw):
        out.setdefault(m.group(2), m.group(1))
    return out


def split_param(part):
    """One parameter of a prototype: its C type (an array as a pointer), the type without const
    and stars, how many stars, and its name."""
    part = " ".join(part.split())
    m = re.match(r"^(.*?)(\w+)\s*(\[\s*\w*\s*\])?$", part)
    typ = m.group(1).strip()
    if m.group(3):
        typ += " *"
    base = re.sub(r"\bconst\b", "", typ).replace("*", " ").split()
    return typ, " ".join(base), typ.count("*"), m.group(2)


def arg_tables(described):
    """The tables args_<i> of cushim__trace_arg, one per entry that has arguments: described is,
    per entry, [(name, kind, c type, enum index, output)]."""
    out = []
    for i, args in enumerate(described):
        if not args:
            continue
        out.append("static const cushim__trace_arg args_%d[] = {\n" % i)
        for name, kind, typ, enum, output in args:
            out.append("    {%s, %d, (unsigned char)sizeof(%s), %d, %du, %d},\n"
                       % (c_string(name), kind, typ, enum, len(name), output))
        out.append("};\n")
    return "".join(out)


def enum_tables(enums, decl):
    """The enums by name: a table enum_<k> of cushim__trace_enum_value per enum, then the table
    decl of them. enums is [(enum name, [(enumerator, its value as a C expression)])]."""
    out = []
    for k, (_name, values) in enumerate(enums):
        out.append("static const cushim__trace_enum_value enum_%d[] = {\n" % k)
        for n, v in values:
            out.append("    {%s, %s},\n" % (c_string(n), v))
        out.append("};\n")
    out.append("\n%s = {\n" % decl)
    for k, (name, values) in enumerate(enums):
        out.append("    {%s, enum_%d, %du},\n" % (c_string(name), k, len(values)))
    out.append("};\n")
    return "".join(out)


class Printer:
    def __init__(self, raw):
        text = cuda_header.strip_comments(raw)
        self.enums = {k: v for k, v in parse_enums(text).items() if k != "CUresult"}
        self.pointers = pointer_typedefs(text)
        self.docs = docs(raw)
        owner = {}
        for t, vals in self.enums.items():
            for n, _v in vals:
                owner.setdefault(n, t)
        self.owner = owner
        self.used = []  # enum typedef names, in the order of their index

    def enum_index(self, name):
        if name not in self.used:
            self.used.append(name)
        return self.used.index(name)

    def flags_enum(self, entry):
        """The flags enum (its name says flags) whose names the entry's doc comment gives, if one."""
        counts = {}
        for n in re.findall(r"::(CU_\w+)", self.docs.get(entry, "")):
            t = self.owner.get(n)
            if t and "flag" in t.lower():
                counts[t] = counts.get(t, 0) + 1
        if not counts:
            return None
        return max(sorted(counts), key=lambda t: counts[t])

    def param_doc(self, entry, name):
        m = re.search(r"\\param\s+%s\s+-\s+([^\n]*)" % re.escape(name), self.docs.get(entry, ""))
        return m.group(1) if m else ""

    def output(self, e, typ, base, stars, name):
        """Whether a pointer argument is one value the call writes (a handle, a number, a
        returned string or host pointer), printed after the call as what it received. Arrays
        and option lists are not: their doc says so, or their type is an enum of options."""
        if typ.startswith("const") and not (stars == 2 and base == "char"):
            return False
        doc = self.param_doc(e["name"], name)
        if re.search(r"[Aa]rray|[Ll]ist|set of|Options|[Rr]esources", doc):
            return False
        if stars == 2:
            return base in ("void", "char") and re.search(r"[Rr]eturn|[Aa]ddress of", doc)
        if stars != 1:
            return False
        if base in self.enums:
            return bool(re.search(r"[Rr]eturn", doc)) or name.endswith("_out")
        return base in self.pointers or base in INT_HANDLES or base in UNSIGNED or \
            base in SIGNED or base in FLOATS

    def describe(self, e):
        """[(name, kind, c type, enum index, output)] per argument, the stream's place (-1:
        none; -2 - k: in the CUlaunchConfig of argument k), and the kernel's (the first CUfunction
        or CUkernel argument, -1: none)."""
        params = e["params"]
        if params.strip() in ("", "void"):
            return [], -1, -1
        parts = [split_param(p) for p in params.split(",")]
        out = []
        stream = function = -1
        for k, (typ, base, stars, name) in enumerate(parts):
            enum = -1
            if stars == 0 and base == "CUstream" and stream == -1:
                stream = k
            if stars == 1 and base == "CUlaunchConfig" and stream == -1:
                stream = -2 - k
            if stars == 0 and base in ("CUfunction", "CUkernel") and function == -1:
                function = k
            if self.output(e, typ, base, stars, name):
                # Described as the value it points at: the pointer's type less one star.
                pointee = typ[:typ.rindex("*")].strip()
                pbase = re.sub(r"\bconst\b", "", pointee).replace("*", " ").split()
                pbase = " ".join(pbase)
                if pointee.endswith("*") and pbase == "char":
                    kind = K_STRING
                elif pointee.endswith("*") or pbase in self.pointers or pbase in INT_HANDLES:
                    kind = K_HEX
                elif pbase in self.enums:
                    kind, enum = K_ENUM, self.enum_index(pbase)
                elif pbase in FLOATS:
                    kind = K_FLOAT
                else:
                    kind = K_UNSIGNED if pbase in UNSIGNED else K_SIGNED
                out.append([name, kind, pointee, enum, 1])
                continue
            if stars == 1 and base == "char" and typ.startswith("const"):
                kind = K_STRING
            elif stars or base in self.pointers or base in INT_HANDLES:
                kind = K_HEX
            elif base == "CUresult":
                kind = K_RESULT
            elif base in self.enums:
                kind, enum = K_ENUM, self.enum_index(base)
            elif base in UNSIGNED or base in SIGNED:
                kind = K_UNSIGNED if base in UNSIGNED else K_SIGNED
                if "flag" in name.lower():
                    fe = self.flags_enum(e["name"])
                    if fe:
                        kind, enum = K_FLAGS, self.enum_index(fe)
            elif base in FLOATS:
                kind = K_FLOAT
            else:
                kind = K_OPAQUE
            out.append([name, kind, typ, enum, 0])
        # Launch dimensions (gridDimX, gridDimY, gridDimZ) print as one (x,y,z).
        for k in range(len(out) - 2):
            a, b, c = out[k], out[k + 1], out[k + 2]
            if a[0].endswith("X") and b[0] == a[0][:-1] + "Y" and c[0] == a[0][:-1] + "Z" and \
                    all(x[1] in (K_UNSIGNED, K_SIGNED) for x in (a, b, c)):
                a[0], a[1] = a[0][:-1], K_DIM3
                b[1] = c[1] = K_GROUPED
        return out, stream, function


def banner(inc, version, what):
    return ("/* Generated by %s from %s/cuda.h (CUDA_VERSION %d): %s.\n"
            " * Do not edit: Meson regenerates this file at build time. */\n"
            % (GENERATOR, inc, version, what))


PRELUDE = ("#include <stddef.h>\n#include \"cushim.h\"\n#include \"trace/entry_info.h\"\n"
           "#include \"trace/fast.h\"\n#include \"trace/hooks.h\"\n#include \"trace/slots.h\"\n\n"
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n\n")


def dense(described):
    """Whether every argument is one word, read as it is (no output, string or struct): what
    the record of the fast path holds (src/trace/record.c's cushim__rec_all_scalar)."""
    args = described[0]
    return len(args) <= 24 and all(not a[4] and a[1] not in (K_STRING, K_OPAQUE) for a in args)


def fast_path(i, e, mode, real, described):
    """The tracer's fast path of a dense entry (src/trace/fast.h): while the tracer's hook is the
    only one, the call's ticks and its arguments' words go into a record of the thread's ring."""
    _args, stream, function = described
    names = e["args"]
    out = ["    unsigned long long cushim__w =\n"
           "        atomic_load_explicit(&cushim__hook_bypass, memory_order_acquire);\n"
           "    if (CUSHIM__LIKELY(cushim__w != 0)) {\n"
           "        unsigned long long cushim__t = cushim__clock_ticks();\n"
           "        CUresult cushim__r = __atomic_load_n(&%s.%s, __ATOMIC_RELAXED)(%s);\n"
           "        cushim__tbuf *cushim__b;\n"
           "        cushim__rec *cushim__p =\n"
           "            cushim__fast_begin(cushim__w, %du, %d, cushim__r, cushim__t, %du,\n"
           "                               &cushim__b);\n"
           "        if (cushim__p != NULL) {\n"
           % (real, e["name"], ", ".join(names), i, mode, len(names))]
    for k, a in enumerate(names):
        out.append("            cushim__p->u.word[%d] = CUSHIM__FAST_ARG(%s);\n" % (k, a))
    span = "(unsigned char)((cushim__w & CUSHIM__REC_SPAN) != 0)"
    if stream >= 0:
        out.append("            cushim__p->has_stream = %s;\n"
                   "            cushim__p->stream = (uintptr_t)%s;\n" % (span, names[stream]))
    elif stream <= -2:
        cfg = names[-2 - stream]
        out.append("            if (%s != NULL) {\n"
                   "                cushim__p->has_stream = %s;\n"
                   "                cushim__p->stream = (uintptr_t)%s->hStream;\n"
                   "            }\n" % (cfg, span, cfg))
    if function >= 0:
        out.append("            cushim__p->kernel = cushim__kernels_find((const void *)%s);\n"
                   % names[function])
    out.append("            cushim__ring_commit_fast(cushim__b, cushim__p,\n"
               "                                     CUSHIM__FAST_CELLS(%d));\n"
               "        }\n"
               "        return cushim__r;\n"
               "    }\n" % len(names))
    return "".join(out)


def wrappers(E, P, mode, suffix):
    """One wrapper per entry: arguments to the hooks, the real slot called, the result to them;
    before that, for an entry whose arguments are all words, the tracer's fast path."""
    real = "cushim__real_" + suffix
    out = ["/* The real slots, copied when hooks go in: what each wrapper calls. */\n",
           "cushim_driver_table %s;\n\n" % real]
    for i, e in enumerate(E.list):
        args = e["args"]
        ptrs = ", ".join("(void *)&%s" % a for a in args) if args else "NULL"
        described = P.describe(e)
        fast = fast_path(i, e, mode, real, described) if dense(described) else ""
        out.append("static CUresult CUDAAPI hooked_%d(%s) {\n%s"
                   "    void *cushim__a[] = {%s};\n"
                   "    cushim__hook_frame cushim__f;\n"
                   "    if (!cushim__hooks_before(&cushim__f, %du, %d, cushim__a, %du))\n"
                   "        return __atomic_load_n(&%s.%s, __ATOMIC_RELAXED)(%s);\n"
                   "    CUresult cushim__r = __atomic_load_n(&%s.%s, __ATOMIC_RELAXED)(%s);\n"
                   "    cushim__hooks_after(&cushim__f, cushim__r);\n"
                   "    return cushim__r;\n}\n"
                   % (i, e["params"] or "void", fast, ptrs, i, mode, len(args), real, e["name"],
                      ", ".join(args), real, e["name"], ", ".join(args)))
    out.append("\nstatic const cushim_driver_table hooked = {\n")
    for i, e in enumerate(E.list):
        out.append("    .%s = hooked_%d,\n" % (e["name"], i))
    out.append("};\n\nconst cushim__hook_mode cushim__hook_%s = {&%s, &hooked};\n"
               % (suffix, real))
    return "".join(out)


def legacy_source(E, P, inc):
    out = [banner(inc, E.version, "the legacy mode's hooked wrappers and the argument printers"),
           PRELUDE, wrappers(E, P, 0, "legacy"), "\n"]
    described = [P.describe(e) for e in E.list]
    out.append(arg_tables([args for args, _s, _f in described]))
    out.append("\nconst cushim__trace_entry cushim__trace_entries[CUSHIM_TABLE_ENTRIES] = {\n")
    for i, (args, stream, function) in enumerate(described):
        launch = 1 if function >= 0 and E.list[i]["name"].startswith("cuLaunch") else 0
        out.append("    {%s, %du, %d, %d, %d},\n" % ("args_%d" % i if args else "NULL", len(args),
                                                     stream, function, launch))
    out.append("};\n\n")
    enums = [(t, [(n, "%dLL" % v) for n, v in P.enums[t]]) for t in P.used]
    out.append(enum_tables(enums, "const cushim__trace_enum cushim__trace_enums[]"))
    return "".join(out)


def per_thread_source(E, P, inc):
    return "".join([banner(inc, E.version, "the per-thread mode's hooked wrappers"),
                    "#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)\n"
                    "#error \"this file is compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM\"\n"
                    "#endif\n", PRELUDE, wrappers(E, P, 1, "per_thread")])


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen-trace.py CUDA_INCLUDE_DIR OUT_LEGACY_C OUT_PER_THREAD_C")
    inc, out_c, out_pt = sys.argv[1:]
    E = cuda_header.Entries(inc)
    P = Printer(cuda_header.read(inc + "/cuda.h"))
    for path, text in ((out_c, legacy_source(E, P, inc)), (out_pt, per_thread_source(E, P, inc))):
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
