#!/usr/bin/env python3
"""CUSHIM_TRACE on a program of cushim's runtime (nvcc-built, on the mock): TAP, one test a mode.

Usage: check-rt-trace.py PROGRAM

PROGRAM is test_rt_launch, in either default-stream mode (the per-thread one calls
__cudaLaunchKernel_ptsz, cudaMemcpy_ptds, and the driver's cuLaunchKernel_ptsz).

- calls: the chevron launch's line, __cudaLaunchKernel, names its kernel (<_Z3addPKfS0_Pfi>) and
  is followed by the driver lines it caused, indented, the driver's cuLaunchKernel among them;
  cudaMalloc's line is followed by its cuMemAlloc;
- timeline: the file is one JSON array with runtime spans (cat "runtime"), the launch's naming
  its kernel, and each driver call a runtime call made inside that call's span;
- summary: the table of runtime calls counts the launches, cudaMalloc and cudaMemcpy;
- untraced: the program writes nothing of the tracer's (no "[cushim" line, no table).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

KERNEL = "_Z3addPKfS0_Pfi"
results = []


def check(name, ok, why=""):
    results.append((ok, name, why))


def run(program, env_extra):
    env = dict(os.environ)
    env.pop("CUSHIM_TRACE", None)
    env.pop("CUSHIM_TRACE_FILE", None)
    env.update(env_extra)
    return subprocess.run([program], env=env, capture_output=True, text=True, timeout=120)


def calls(program, tmp):
    path = os.path.join(tmp, "calls.txt")
    p = run(program, {"CUSHIM_TRACE": "calls", "CUSHIM_TRACE_FILE": path})
    lines = open(path).read().split("\n") if os.path.exists(path) else []
    body = [re.sub(r"^\[cushim \d+\] ", "", x) for x in lines if x]
    check("calls: the program passes", p.returncode == 0, p.stdout[-400:])
    launch = [i for i, x in enumerate(body) if re.match(r"__cudaLaunchKernel(_ptsz)?\(", x)]
    ok = [i for i in launch if "<%s>" % KERNEL in body[i] and "= cudaSuccess" in body[i]]
    check("calls: a chevron launch's line names its kernel", bool(ok),
          "launch lines: %s" % [body[i] for i in launch][:2])
    followed = False
    for i in ok:
        j = i + 1
        while j < len(body) and body[j].startswith("  "):
            if re.match(r"  cuLaunchKernel(_ptsz)?\(", body[j]) and "<%s>" % KERNEL in body[j]:
                followed = True
            j += 1
    check("calls: its driver lines follow it, indented, cuLaunchKernel naming the kernel",
          followed, "\n".join(body[ok[0]:ok[0] + 30]) if ok else "")
    m = [i for i, x in enumerate(body) if x.startswith("cudaMalloc(")]
    check("calls: cudaMalloc's line is followed by its cuMemAlloc",
          any(i + 1 < len(body) and body[i + 1].startswith("  cuMemAlloc") for i in m),
          "\n".join(body[m[0]:m[0] + 8]) if m else "no cudaMalloc line")


def timeline(program, tmp):
    path = os.path.join(tmp, "timeline.json")
    p = run(program, {"CUSHIM_TRACE": "timeline", "CUSHIM_TRACE_FILE": path})
    check("timeline: the program passes", p.returncode == 0, p.stdout[-400:])
    try:
        events = json.load(open(path))
    except (OSError, ValueError) as e:
        check("timeline: the file is JSON", False, str(e))
        return
    check("timeline: the file is JSON", isinstance(events, list))
    rt = [e for e in events if e.get("cat") == "runtime"]
    check("timeline: runtime spans", len(rt) > 0, "%d events" % len(events))
    launch = [e for e in rt if e["name"] in ("__cudaLaunchKernel", "__cudaLaunchKernel_ptsz")
              and e["args"].get("kernel") == KERNEL and e["args"].get("result") == "cudaSuccess"]
    check("timeline: the launch's span names its kernel", bool(launch))
    inside = False
    for s in launch:
        for e in events:
            if e.get("name") in ("cuLaunchKernel", "cuLaunchKernel_ptsz") and \
                    e.get("tid") == s["tid"] and \
                    s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 0.002:
                inside = True
    check("timeline: the driver's launch lies inside the runtime launch's span", inside)


def summary(program, tmp):
    path = os.path.join(tmp, "summary.txt")
    p = run(program, {"CUSHIM_TRACE": "summary", "CUSHIM_TRACE_FILE": path})
    check("summary: the program passes", p.returncode == 0, p.stdout[-400:])
    text = open(path).read() if os.path.exists(path) else ""
    check("summary: a table of runtime calls before the driver's",
          0 <= text.find("cushim: runtime calls") < text.find("cushim: driver calls"), text[:300])
    rows = {}
    for line in text.split("cushim: driver calls")[0].split("\n"):
        f = line.split()
        if len(f) == 7 and f[1].isdigit():
            rows[f[0]] = int(f[1])
    for names in (("__cudaLaunchKernel", "__cudaLaunchKernel_ptsz"), ("cudaMalloc",),
                  ("cudaMemcpy", "cudaMemcpy_ptds")):
        check("summary: %s counted" % names[0], any(rows.get(n, 0) > 0 for n in names),
              str(rows))


def untraced(program, tmp):
    p = run(program, {})
    check("untraced: the program passes", p.returncode == 0, p.stdout[-400:])
    check("untraced: nothing of the tracer's is printed",
          "[cushim" not in p.stderr + p.stdout and "runtime calls" not in p.stderr,
          p.stderr[:300])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        for f in (calls, timeline, summary, untraced):
            f(sys.argv[1], tmp)
    print("1..%d" % len(results))
    for k, (ok, name, why) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", k, name))
        if not ok and why:
            print("\n".join("# " + x for x in why.split("\n")))
    sys.exit(0 if all(r[0] for r in results) else 1)


if __name__ == "__main__":
    main()
