#!/usr/bin/env python3
"""The tracer on the mock, through the drop-in: runs trace_program under CUSHIM_TRACE and checks
what it wrote.

Usage: check_trace.py CASE PROGRAM PTX_FILE [--per-thread]

Cases: calls (to stderr), calls_file, timeline, timeline_monotonic, timeline_default_name,
summary, fork, fork_after_init, fork_in_hook, fifo, many, unopenable, unknown. Prints TAP; exits
1 on the first failed check. Every run has a timeout: a hang is a failure, not a stuck suite.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

# The program's calls, in order: (entry, per-thread name or None, result, {argument: text}).
# Values in <> are filled from the handles the program prints; an output parameter shows, in
# [], what the call wrote there (after a failure, the pointer itself: "&..." checks that it is
# not in []); a function argument is followed by its kernel's name, as gdb shows a symbol.
SEQUENCE = [
    ("cuInit", None, "CUDA_SUCCESS", {"Flags": "0"}),
    ("cuDeviceGet", None, "CUDA_SUCCESS", {"device": "[0]", "ordinal": "0"}),
    ("cuDeviceGet", None, "CUDA_ERROR_INVALID_DEVICE", {"device": "&", "ordinal": "99"}),
    ("cuDevicePrimaryCtxRetain", None, "CUDA_SUCCESS", {"pctx": "[<ctx>]", "dev": "0"}),
    ("cuCtxSetCurrent", None, "CUDA_SUCCESS", {"ctx": "<ctx>"}),
    ("cuModuleLoad", None, "CUDA_SUCCESS", {"module": "[<module>]", "fname": '"<ptx>"'}),
    ("cuModuleGetFunction", None, "CUDA_SUCCESS",
     {"hfunc": "[<function>]", "hmod": "<module>", "name": '"cushim_empty"'}),
    ("cuStreamCreate", None, "CUDA_SUCCESS", {"phStream": "[<s1>]",
                                              "Flags": "CU_STREAM_NON_BLOCKING"}),
    ("cuStreamCreate", None, "CUDA_SUCCESS", {"phStream": "[<s2>]", "Flags": "CU_STREAM_DEFAULT"}),
    ("cuMemAlloc", None, "CUDA_SUCCESS", {"dptr": "[<dptr>]", "bytesize": "4096"}),
    ("cuMemsetD8Async", "cuMemsetD8Async_ptsz", "CUDA_SUCCESS",
     {"dstDevice": "<dptr>", "uc": "7", "N": "4096", "hStream": "<s1>"}),
    ("cuLaunchKernel", "cuLaunchKernel_ptsz", "CUDA_SUCCESS",
     {"f": "<function> <cushim_empty>", "gridDim": "(2,1,1)", "blockDim": "(32,1,1)", "sharedMemBytes": "0",
      "hStream": "<s1>", "kernelParams": "0x0", "extra": "0x0"}),
    ("cuMemsetD8Async", "cuMemsetD8Async_ptsz", "CUDA_SUCCESS",
     {"dstDevice": "<dptr>", "uc": "1", "N": "16", "hStream": "<s2>"}),
    ("cuStreamSynchronize", "cuStreamSynchronize_ptsz", "CUDA_SUCCESS", {"hStream": "<s1>"}),
    ("cuStreamSynchronize", "cuStreamSynchronize_ptsz", "CUDA_SUCCESS", {"hStream": "<s2>"}),
    ("cuMemFree", None, "CUDA_SUCCESS", {"dptr": "<dptr>"}),
    ("cuStreamDestroy", None, "CUDA_SUCCESS", {"hStream": "<s1>"}),
    ("cuStreamDestroy", None, "CUDA_SUCCESS", {"hStream": "<s2>"}),
    ("cuModuleUnload", None, "CUDA_SUCCESS", {"hmod": "<module>"}),
    ("cuDevicePrimaryCtxRelease", None, "CUDA_SUCCESS", {"dev": "0"}),
]
STREAM_CALLS = 7  # calls above with a stream argument

checks = 0


def ok(cond, what):
    """One TAP line; a description of several lines (a trace line, a table) goes on as comments,
    so that the TAP reader sees no line it does not know."""
    global checks
    checks += 1
    first, *rest = str(what).splitlines() or [""]
    print("%s %d - %s" % ("ok" if cond else "not ok", checks, first))
    for line in rest:
        print("# " + line)
    if not cond:
        print("1..%d" % checks)
        sys.exit(1)


def run(program, ptx, env, cwd, fork=False, mode=None):
    e = dict(os.environ)
    e.update(env)
    args = [program, ptx] + (["fork"] if fork else []) + ([mode] if mode else [])
    try:
        p = subprocess.run(args, env=e, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
    except subprocess.TimeoutExpired:
        ok(False, "the program ends within 60 s (it hangs)")
    ok(p.returncode == 0, "the program exits 0 (%d): %s" % (p.returncode, p.stderr[-2000:]))
    lines = p.stdout.splitlines()
    ok(len(lines) == (2 if fork or mode in ("after", "inhook") else 1)
       and all(l.startswith("{") for l in lines),
       "stdout holds only the program's own lines: %r" % p.stdout[:300])
    return [json.loads(l) for l in lines], p.stderr


def expected(handles, ptx, per_thread):
    out = []
    for entry, pt_name, result, args in SEQUENCE:
        filled = {}
        for k, v in args.items():
            v = re.sub(r"<(\w+)>", lambda m: ptx if m.group(1) == "ptx" else handles.get(m.group(1), m.group(0)),
                       v)
            filled[k] = v
        out.append((pt_name if per_thread and pt_name else entry, result, filled))
    return out


LINE = re.compile(r"^\[cushim (\d+)\] (\w+)\((.*)\) = (\w+) \((\d+\.\d{3}) us\)$")


def split_args(text):
    """name=value pairs; values may hold commas inside (...) or quotes."""
    out, depth, cur, quoted = {}, 0, "", False
    for ch in text + ",":
        if ch == '"':
            quoted = not quoted
        if ch in "(" and not quoted:
            depth += 1
        if ch in ")" and not quoted:
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            if cur.strip():
                k, _, v = cur.strip().partition("=")
                out[k] = v
            cur = ""
            continue
        cur += ch
    return out


def same(got, want):
    """A value as expected; "&" stands for a pointer printed as itself (hex, not in [])."""
    if want == "&":
        return got is not None and re.match(r"^0x[0-9a-f]+$", got) is not None
    return got == want


def check_calls(text, handles, ptx, per_thread):
    lines = [l for l in text.splitlines() if l.startswith("[cushim ")]
    want = expected(handles, ptx, per_thread)
    ok(len(lines) == len(want), "one line per call: %d lines for %d calls\n%s"
       % (len(lines), len(want), "\n".join(lines)))
    for line, (name, result, args) in zip(lines, want):
        m = LINE.match(line)
        ok(m is not None, "the line has thread, entry, arguments, result, duration: " + line)
        ok(m.group(2) == name, "entry %s in order (got %s)" % (name, m.group(2)))
        ok(m.group(4) == result, "%s returned %s (got %s)" % (name, result, m.group(4)))
        got = split_args(m.group(3))
        for k, v in args.items():
            ok(same(got.get(k), v), "%s: %s=%s (got %s)" % (name, k, v, got.get(k)))


def check_timeline(path, handles, ptx, per_thread):
    with open(path) as f:
        events = json.load(f)
    ok(isinstance(events, list), "the timeline is a JSON array of events")
    calls = [e for e in events if e.get("ph") == "X" and e.get("cat") != "kernel"]
    want = expected(handles, ptx, per_thread)
    ok(len(calls) == len(want), "one complete event per call: %d for %d" % (len(calls), len(want)))
    for e, (name, result, args) in zip(calls, want):
        for key in ("name", "ph", "ts", "dur", "pid", "tid", "args"):
            ok(key in e, "%s has %s" % (name, key))
        ok(e["name"] == name, "event %s in order (got %s)" % (name, e["name"]))
        ok(e["pid"] == handles["pid"], "pid is the program's")
        ok(e["args"].get("result") == result, "%s's result is %s" % (name, result))
        for k, v in args.items():
            ok(same(e["args"].get(k), v), "%s: %s=%s (got %s)" % (name, k, v, e["args"].get(k)))
        if name.startswith("cuLaunchKernel"):
            ok(e["args"].get("kernel") == "cushim_empty", "the launch names its kernel")
    # On the mock, the kernel's execution is a span on its stream's own track.
    spans = [e for e in events if e.get("cat") == "kernel"]
    ok(len(spans) == 1 and spans[0]["name"] == "cushim_empty",
       "one kernel span, cushim_empty: %s" % spans)
    span = spans[0]
    ok(span["args"].get("grid") == "(2,1,1)" and span["args"].get("block") == "(32,1,1)" and
       "thread_instructions" in span["args"], "the span has grid, block, thread-instructions")
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    ok(names.get(span["tid"]) == "stream " + handles["s1"],
       "the span is on the track of its stream %s: %s" % (handles["s1"], names))
    launch = [e for e in calls if e["name"].startswith("cuLaunchKernel")][0]
    ok(span["ts"] >= launch["ts"], "the kernel runs after its launch")
    ts = [e["ts"] for e in calls]
    ok(ts == sorted(ts), "events are in the order of the calls")
    flows = [e for e in events if e.get("ph") in ("s", "t")]
    ok(len(flows) == STREAM_CALLS, "a flow event per call on a stream: %d" % len(flows))
    ids = {f["id"] for f in flows}
    ok(ids == {handles["s1"], handles["s2"]}, "the flows are the two streams: %s" % ids)
    ok(sorted(f["ph"] for f in flows) == ["s"] * 2 + ["t"] * (STREAM_CALLS - 2),
       "each stream's flow starts once and steps after")


def check_child_of_initialised(path, child):
    """The child's own timeline: its two calls, refused, on its own pid."""
    name = "%s.%d" % (path, child["pid"])
    ok(os.path.exists(name), "the child wrote its own file " + os.path.basename(name))
    with open(name) as f:
        events = json.load(f)
    calls = [(e["name"], e["args"].get("result"), e["pid"]) for e in events if e.get("ph") == "X"]
    want = [(n, "CUDA_ERROR_NOT_INITIALIZED", child["pid"]) for n in ("cuInit", "cuDeviceGet")]
    ok(calls == want, "the child's calls, refused: %s" % calls)


def check_summary(text, per_thread):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(cu\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(7)))
    counts = {}
    for entry, pt_name, result, _a in SEQUENCE:
        name = pt_name if per_thread and pt_name else entry
        c, err = counts.get(name, (0, 0))
        counts[name] = (c + 1, err + (result != "CUDA_SUCCESS"))
    ok("cushim: driver calls" in text, "the summary has its title")
    ok(rows == counts, "calls and errors per entry match the calls made:\n%s\n%s" % (rows, counts))
    kernels = re.findall(r"^(\w+)\s+(\d+)\s+(\d+)\s+[\d.]+\s+(\d+)$",
                         text.split("cushim: kernels", 1)[-1], re.M)
    ok("cushim: kernels" in text and [k[:3] for k in kernels] == [("cushim_empty", "1", "1")],
       "the summary counts the kernel's launches and runs: %s" % kernels)


def main():
    case, program, ptx = sys.argv[1:4]
    program = os.path.abspath(program)
    per_thread = "--per-thread" in sys.argv
    ptx = os.path.abspath(ptx)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.out")
        if case == "calls":
            (h,), err = run(program, ptx, {"CUSHIM_TRACE": "calls"}, tmp)
            check_calls(err, h, ptx, per_thread)
        elif case == "calls_started":
            # Started from code after the driver is initialised: the drop-in's own table, opened
            # by cuInit, must follow the hooks as the live table does.
            (h,), err = run(program, ptx, {}, tmp, mode="start")
            check_calls(err, h, ptx, per_thread)
        elif case == "calls_file":
            (h,), err = run(program, ptx, {"CUSHIM_TRACE": "calls", "CUSHIM_TRACE_FILE": path},
                            tmp)
            ok("[cushim " not in err, "nothing of the trace on stderr")
            check_calls(open(path).read(), h, ptx, per_thread)
        elif case == "timeline":
            (h,), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline", "CUSHIM_TRACE_FILE": path},
                          tmp)
            check_timeline(path, h, ptx, per_thread)
        elif case == "timeline_monotonic":
            # The clock a traced call reads where the time stamp counter is not used.
            (h,), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline", "CUSHIM_TRACE_FILE": path,
                                         "CUSHIM_TRACE_CLOCK": "monotonic"}, tmp)
            check_timeline(path, h, ptx, per_thread)
        elif case == "timeline_default_name":
            (h,), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline"}, tmp)
            name = os.path.join(tmp, "cushim-trace-%d.json" % h["pid"])
            ok(os.path.exists(name), "the timeline is in cushim-trace-<pid>.json")
            check_timeline(name, h, ptx, per_thread)
        elif case == "summary":
            (h,), err = run(program, ptx, {"CUSHIM_TRACE": "summary"}, tmp)
            check_summary(err, per_thread)
        elif case == "fork":
            (child, parent), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline",
                                                    "CUSHIM_TRACE_FILE": path}, tmp, fork=True)
            ok(child["pid"] != parent["pid"], "two processes ran")
            check_timeline(path, parent, ptx, per_thread)
            check_timeline("%s.%d" % (path, child["pid"]), child, ptx, per_thread)
            ok(sorted(glob.glob(path + "*")) == sorted([path, "%s.%d" % (path, child["pid"])]),
               "one file per process")
        elif case == "fork_after_init":
            # The parent initialises the driver, then forks: the child's calls are refused, and
            # it writes them to a file of its own.
            (child, parent), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline",
                                                    "CUSHIM_TRACE_FILE": path}, tmp, mode="after")
            check_child_of_initialised(path, child)
            with open(path) as f:
                pids = {e["pid"] for e in json.load(f)}
            ok(pids == {parent["pid"]}, "the parent's file holds its own calls only: %s" % pids)
        elif case == "fork_in_hook":
            # Forked while another thread is inside the tracer's hook: the child's exit (which
            # stops the tracer, removing its hook) does not wait for that thread's call.
            (child, parent), _ = run(program, ptx, {"CUSHIM_TRACE": "calls,timeline",
                                                    "CUSHIM_TRACE_FILE": path}, tmp,
                                     mode="inhook")
            check_child_of_initialised(path, child)
        elif case == "fifo":
            fifo = os.path.join(tmp, "fifo")
            os.mkfifo(fifo)
            _h, err = run(program, ptx, {"CUSHIM_TRACE": "timeline", "CUSHIM_TRACE_FILE": fifo},
                          tmp)
            ok("a FIFO that no process reads" in err, "a warning says nobody reads the FIFO: "
               + err[-500:])
            # With a reader, the FIFO takes the timeline as a file would.
            got = []
            reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
            reader.start()
            time.sleep(0.2)  # the reader is in open() by now
            (h,), _ = run(program, ptx, {"CUSHIM_TRACE": "timeline", "CUSHIM_TRACE_FILE": fifo},
                          tmp)
            reader.join(30)
            ok(len(got) == 1 and got[0].startswith("["), "a reader of the FIFO gets the timeline")
            with open(path, "w") as f:
                f.write(got[0])
            check_timeline(path, h, ptx, per_thread)
        elif case == "many":
            # Two threads, each with far more calls than its ring holds: every call has its line,
            # in its thread's order, and none is dropped.
            (h,), err = run(program, ptx, {"CUSHIM_TRACE": "calls", "CUSHIM_TRACE_FILE": path},
                            tmp, mode="many")
            text = open(path).read()
            ok("not traced" not in text and "dropped" not in err, "no call dropped: " + err[-300:])
            per_tid, inits = {}, {}
            for line in text.splitlines():
                m = LINE.match(line)
                if m and m.group(2) == "cuDriverGetVersion":
                    per_tid.setdefault(m.group(1), []).append(m.group(3))
                if m and m.group(2) == "cuInit":
                    inits[m.group(1)] = inits.get(m.group(1), 0) + 1
            ok(sorted(len(v) for v in per_tid.values()) == [h["many"], h["many"]],
               "each thread's %d calls have their lines: %s" % (
                   h["many"], {k: len(v) for k, v in per_tid.items()}))
            # The main thread's first cuInit comes before the threads' calls.
            ok(sorted(inits.get(t, 0) for t in per_tid) == [h["many_init"], h["many_init"] + 1],
               "the shorter records between them have their lines too: %s" % inits)
            ok(all(re.fullmatch(r"driverVersion=\[\d+\]", a) for v in per_tid.values() for a in v),
               "each line shows the version the call wrote")
        elif case == "unopenable":
            _h, err = run(program, ptx, {"CUSHIM_TRACE": "timeline",
                                         "CUSHIM_TRACE_FILE": "/nonexistent/dir/t.json"}, tmp)
            ok("cannot open the trace file /nonexistent/dir/t.json" in err,
               "a warning names the file: " + err[-500:])
        elif case == "unknown":
            _h, err = run(program, ptx, {"CUSHIM_TRACE": "everything"}, tmp)
            ok("names nothing known" in err, "a warning says the value is unknown: " + err[-500:])
        else:
            sys.exit("unknown case " + case)
    print("1..%d" % checks)


if __name__ == "__main__":
    main()
