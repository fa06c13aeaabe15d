"""What cuda.h declares, and what its macros make of each name, in either default-stream mode.

Shared by the generators in gen/ (the driver table, the trampolines, the drop-in header). Reads
the installed header at build time; nothing from it is copied into the repository.

A user's translation unit sees cuda.h in one of two modes: legacy (the default) or per-thread
default stream (CUDA_API_PER_THREAD_DEFAULT_STREAM defined, as `nvcc --default-stream
per-thread` does). The header's macros turn the name a user writes (`cuMemcpyHtoD`) into the
symbol the call reaches (`cuMemcpyHtoD_v2`, or `cuMemcpyHtoD_v2_ptds` per-thread). This module
evaluates those macros the way the preprocessor would, for each mode.
"""

import re

PTDS_MACRO = "CUDA_API_PER_THREAD_DEFAULT_STREAM"


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def join_continuations(text):
    return re.sub(r"\\\n", " ", text)


class Preprocessor:
    """A small conditional evaluator: enough to tell which lines of cuda.h a compiler sees.

    Only the macros the header defines itself, plus __GNUC__, __LP64__ and the ones passed in,
    count as defined, so the internal (__CUDA_API_VERSION_INTERNAL) blocks are skipped, as they
    are for a user who includes cuda.h.
    """

    ASSUMED = {"__GNUC__", "__LP64__"}

    def __init__(self, defined=()):
        self.defined = set(self.ASSUMED) | set(defined)

    def eval(self, expr):
        def is_def(m):
            return " 1 " if m.group(1) in self.defined else " 0 "
        expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", is_def, expr)
        expr = re.sub(r"defined\s+(\w+)", is_def, expr)
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


class Api:
    """Which header a generator reads and how its entry points look there: the file (and the
    PFN_ typedefs beside it, None when it has none), the prefix of the entry names, the type they
    return, the calling-convention macro between the two (empty when none), the macro holding the
    header's version and the enum of its result codes (None when it has none). The driver's
    cuda.h is DRIVER; NVRTC's nvrtc.h or nvJitLink.h are read by passing another Api."""

    def __init__(self, header="cuda.h", prefix="cu", result="CUresult", callconv="CUDAAPI",
                 typedefs="cudaTypedefs.h", version_macro="CUDA_VERSION",
                 error_enum="cudaError_enum"):
        self.header, self.prefix, self.result, self.callconv = header, prefix, result, callconv
        self.typedefs, self.version_macro, self.error_enum = typedefs, version_macro, error_enum
        p = re.escape(prefix)
        self.rename = re.compile(r"\s*#\s*define\s+(%s\w+)\s+(?:__CUDA_API_(PTDS|PTSZ)\(\s*(\w+)"
                                 r"\s*\)|(\w+))\s*$" % p)
        conv = r"\s+" + re.escape(callconv) if callconv else ""
        self.decl = re.compile(r"((?:__CUDA_DEPRECATED\s+)?)%s%s\s+(%s\w+)\s*\(([^;{]*?)\)\s*;"
                               % (re.escape(result), conv, p))


DRIVER = Api()
RENAME = DRIVER.rename
DECL = DRIVER.decl


def expand(name, renames):
    """The symbol `name` becomes once every rename in `renames` has been applied."""
    seen = set()
    while name in renames and renames[name] != name and name not in seen:
        seen.add(name)
        name = renames[name]
    return name


def split_params(params):
    """The parameters of a prototype, split at the commas outside parentheses (a function
    pointer parameter has commas of its own)."""
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def param_names(params):
    """The argument names of a prototype's parameter list ("CUdeviceptr *dptr, size_t n")."""
    if params.strip() in ("", "void"):
        return []
    names = []
    for part in params.split(","):
        toks = re.findall(r"[A-Za-z_]\w*|\*", part)
        if len(toks) < 2 or toks[-1] == "*":
            raise ValueError("a parameter without a name: %r" % part)
        names.append(toks[-1])
    return names


class Mode:
    """cuda.h as a translation unit in one default-stream mode sees it.

    decls: the CUresult entry points in declaration order, each a dict with
      name      as written in cuda.h's prototype ("cuMemcpyHtoD")
      declared  the symbol that prototype declares ("cuMemcpyHtoD_v2")
      final     what a call written `name` after the include reaches; differs from `declared`
                only where the header defines a macro after the prototype (the per-thread
                cuGetProcAddress_v2 -> its inline cuGetProcAddress_v2_ptsz)
      params, deprecated
    self_defined: names the header defines as themselves (`#define X __CUDA_API_PTSZ(X)` in the
      legacy mode), which a drop-in cannot define before the include.
    renames: every cu* macro at the end of the header, name -> replacement.
    """

    def __init__(self, raw, per_thread, api=DRIVER):
        self.per_thread = per_thread
        text = join_continuations(strip_comments(raw))
        pp = Preprocessor([PTDS_MACRO] if per_thread else [])
        body = []
        size = 0
        events = []  # (offset in body where the define takes effect, name, replacement)
        for line in pp.active_lines(text):
            m = api.rename.match(line)
            if m:
                if m.group(2):
                    repl = m.group(3) + ("_" + m.group(2).lower() if per_thread else "")
                else:
                    repl = m.group(4)
                events.append((size, m.group(1), repl))
            if not re.match(r"\s*#", line):
                body.append(line)
                size += len(line) + 1
        body = "\n".join(body)
        self.renames = {n: r for _o, n, r in events}
        self.self_defined = {n for n, r in self.renames.items() if n == r}
        self.decls = []
        seen = set()
        for m in api.decl.finditer(body):
            name = m.group(2)
            before = {n: r for o, n, r in events if o <= m.start()}
            declared = expand(name, before)
            if declared in seen:
                continue
            seen.add(declared)
            params = " ".join(m.group(3).split())
            self.decls.append({"name": name, "declared": declared,
                               "final": expand(name, self.renames), "params": params,
                               "args": param_names(params), "deprecated": bool(m.group(1))})


def read(path):
    return open(path, encoding="utf-8", errors="replace").read()


def cuda_version(raw, macro="CUDA_VERSION"):
    """The header's version macro (0 when the header has none)."""
    if macro is None:
        return 0
    return int(re.search(r"#define\s+%s\s+(\d+)" % re.escape(macro), raw).group(1))


def parse_errors(raw, enum="cudaError_enum", result="CUresult"):
    """Enumerators of the result enum (cuda.h's cudaError_enum) with the first sentence of
    their doc comment."""
    if enum is None:
        return []
    m = re.search(r"typedef\s+enum\s+%s\s*\{(.*?)\}\s*%s\s*;" % (re.escape(enum), re.escape(result)),
                  raw, re.S)
    return parse_enum_docs(m.group(1), r"CUDA_\w+")


def parse_enum_docs(body, names):
    """(name, value, first sentence of its doc comment) of each enumerator of an enum's body
    whose name matches the pattern `names`."""
    out = []
    doc = ""
    token = re.compile(r"/\*\*(.*?)\*/|(%s)\s*=\s*(\d+)" % names, re.S)
    for t in token.finditer(body):
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
    """PFN_<base>_v<N>[_ptds|_ptsz] typedefs of cudaTypedefs.h, by base name."""
    raw = join_continuations(strip_comments(read(path)))
    pp = Preprocessor(["__cuda_cuda_h__"])  # the include of cuda.h is not followed
    names = {}
    for line in pp.active_lines(raw):
        for m in re.finditer(r"\(\s*CUDAAPI\s*\*\s*PFN_(\w+?)_v(\d+)(_ptds|_ptsz)?\s*\)", line):
            base, ver, pt = m.group(1), int(m.group(2)), m.group(3)
            names.setdefault(base, []).append((ver, bool(pt), "PFN_%s_v%d%s" % (base, ver, pt or "")))
    return names


def pfn_params(inc):
    """PFN_ typedef name -> its parameter list, for the typedefs a plain compile sees."""
    raw = join_continuations(strip_comments(read(inc + "/cudaTypedefs.h")))
    pp = Preprocessor(["__cuda_cuda_h__"])  # the include of cuda.h is not followed
    text = " ".join(pp.active_lines(raw))
    return {m.group(1): " ".join(m.group(2).split()) for m in re.finditer(
        r"\(\s*CUDAAPI\s*\*\s*(PFN_\w+)\s*\)\s*\(([^;]*?)\)\s*;", text)}


def choose_chain(symbol, cands, pick="CUSHIM__PICK"):
    """A constant expression the compiler reduces to the newest candidate (version, per-thread,
    PFN_ typedef name) whose type is compatible with `symbol`'s: pick(sym, T, v, rest) is a
    macro over __builtin_choose_expr and __builtin_types_compatible_p."""
    expr = "0"
    for ver, _pt, tname in sorted(cands):
        expr = "%s(%s, %s, %d, %s)" % (pick, symbol, tname, ver, expr)
    return expr


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Entries:
    """The driver entries cushim's table has: one per prototype of the legacy mode, each with
    what the per-thread mode makes of the same name."""

    def __init__(self, inc, api=DRIVER):
        raw = read(inc + "/" + api.header)
        self.api = api
        self.version = cuda_version(raw, api.version_macro)
        self.errors = parse_errors(raw, api.error_enum, api.result)
        self.typedefs = parse_typedefs(inc + "/" + api.typedefs) if api.typedefs else {}
        self.legacy = Mode(raw, per_thread=False, api=api)
        self.ptds = Mode(raw, per_thread=True, api=api)
        by_name = {d["name"]: d for d in self.ptds.decls}
        self.list = []
        for d in self.legacy.decls:
            p = by_name.get(d["name"])
            if p is None:
                raise SystemExit("%s declares %s only in the legacy mode" % (api.header, d["name"]))
            symbol = d["declared"]
            base = re.sub(r"_v\d+$", "", symbol)
            cands = self.typedefs.get(base, [])
            self.list.append({
                "name": d["name"], "symbol": symbol, "base": base, "params": d["params"],
                "args": d["args"], "deprecated": d["deprecated"],
                "legacy": d, "ptds": p,
                "legacy_cands": [c for c in cands if not c[1]],
                "ptds_cands": [c for c in cands if c[1]],
            })
        missing = [e["symbol"] for e in self.list if not e["legacy_cands"]]
        if missing and api.typedefs:
            raise SystemExit("no PFN_ typedef in %s for: %s" % (api.typedefs, ", ".join(missing)))
        finals = {}
        for e in self.list:
            for mode in ("legacy", "ptds"):
                f = e[mode]["final"]
                if finals.setdefault(f, e["name"]) != e["name"]:
                    raise SystemExit("two entries reach %s: %s and %s" % (f, finals[f], e["name"]))
