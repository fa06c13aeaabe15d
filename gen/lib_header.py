"""What the headers of the toolkit's other loaded libraries (nvrtc.h, nvJitLink.h) declare.

Shared by gen-lib-table.py (the table, stubs and trampolines of each library) and gen-dropin.py
(the drop-in headers). Reads the installed header at build time; nothing from it is copied into
the repository. Each library is one entry of LIBRARIES: the header, what its functions return,
the code a stub returns, the function that tells its version and how the header names its
entries. cuda_header's preprocessor decides which lines a plain C compile of the header sees.
"""

import os
import re

import cuda_header

# One loaded library per entry; the loader takes each as one more instance of the same state.
LIBRARIES = {
    "nvrtc": {
        "header": "nvrtc.h",
        "title": "NVRTC",
        "env": "CUSHIM_NVRTC",
        "file": "libnvrtc.so",
        "result": "nvrtcResult",
        "failure": "NVRTC_ERROR_INTERNAL_ERROR",
        "version": "nvrtcVersion",
        "guard": "__NVRTC_H__",
        "names": r"nvrtc\w+",
    },
    "nvjitlink": {
        "header": "nvJitLink.h",
        "title": "nvJitLink",
        "env": "CUSHIM_NVJITLINK",
        "file": "libnvJitLink.so",
        "result": "nvJitLinkResult",
        "failure": "NVJITLINK_ERROR_INTERNAL",
        "version": "nvJitLinkVersion",
        "guard": "nvJitLink_INCLUDED",
        "names": r"(?:__)?nvJitLink\w+",
    },
}

# nvJitLink.h declares each entry under a versioned symbol (__nvJitLinkCreate_13_0) and wraps it
# in a static inline of the plain name: the symbol is what a call reaches, the plain name what
# cushim's table calls the slot.
VERSIONED = re.compile(r"^__(\w+?)_(\d+)_(\d+)$")


split_params = cuda_header.split_params


def param_name(param):
    """The name a parameter declares, also for a function pointer ("int (*cb)(void *)")."""
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", param)
    if m:
        return m.group(1)
    toks = re.findall(r"[A-Za-z_]\w*|\*", param)
    if len(toks) < 2 or toks[-1] == "*":
        raise SystemExit("a parameter without a name: %r" % param)
    return toks[-1]


class Library:
    """One library's header as a plain C translation unit sees it.

    entries: in declaration order, each a dict with name (the table's slot: "nvJitLinkCreate"),
    symbol (what a call reaches and dlsym is asked for: "__nvJitLinkCreate_13_0"), ret (the
    return type as written), params, args. errors: the result enumerators, (name, value).
    major, minor: the version of the library the header was written for.
    """

    def __init__(self, key, inc):
        self.key = key
        self.cfg = LIBRARIES[key]
        self.path = os.path.join(os.path.abspath(inc), self.cfg["header"])
        raw = cuda_header.read(self.path)
        text = cuda_header.join_continuations(cuda_header.strip_comments(raw))
        pp = cuda_header.Preprocessor()
        body = " ".join(l for l in pp.active_lines(text) if not re.match(r"\s*#", l))
        self.entries = self._prototypes(body)
        self.errors = self._errors(body)
        syms = [VERSIONED.match(e["symbol"]) for e in self.entries]
        versions = {(int(m.group(2)), int(m.group(3))) for m in syms if m}
        if len(versions) > 1:
            raise SystemExit("%s: entries of several versions: %s" % (self.path, sorted(versions)))
        if versions:
            self.major, self.minor = versions.pop()
        else:
            # nvrtc.h has no version macro: it is the toolkit's, whose cuda.h says which.
            v = cuda_header.cuda_version(cuda_header.read(os.path.join(inc, "cuda.h")))
            self.major, self.minor = v // 1000, (v % 1000) // 10
        if not any(e["name"] == self.cfg["version"] for e in self.entries):
            raise SystemExit("%s declares no %s" % (self.path, self.cfg["version"]))

    def _prototypes(self, body):
        res = self.cfg["result"]
        head = re.compile(r"(?:\bextern\s+)?(%s|const\s+char\s*\*)\s*(%s)\s*\(" % (res, self.cfg["names"]))
        out, seen = [], set()
        for m in head.finditer(body):
            depth, i = 1, m.end()
            while depth and i < len(body):
                depth += {"(": 1, ")": -1}.get(body[i], 0)
                i += 1
            rest = body[i:].lstrip()
            if not rest.startswith(";"):
                continue  # an inline definition, not an entry of the library
            symbol = m.group(2)
            if symbol in seen:
                continue
            seen.add(symbol)
            params = " ".join(body[m.end():i - 1].split())
            plist = [] if params in ("", "void") else split_params(params)
            v = VERSIONED.match(symbol)
            ret = " ".join(m.group(1).split())
            out.append({"name": v.group(1) if v else symbol, "symbol": symbol, "ret": ret,
                        "params": params or "void", "args": [param_name(p) for p in plist],
                        "returns_result": ret == res})
        if not out:
            raise SystemExit("%s: no entries found" % self.path)
        return out

    def _errors(self, body):
        m = re.search(r"typedef\s+enum\s*\w*\s*\{([^}]*)\}\s*%s\s*;" % self.cfg["result"], body)
        if m is None:
            raise SystemExit("%s: no enum %s" % (self.path, self.cfg["result"]))
        out, value = [], -1
        for item in m.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, val = item.partition("=")
            value = int(val.strip()) if val.strip() else value + 1
            out.append((name.strip(), value))
        return out
