#!/usr/bin/env python3
"""The instruction guard: how many instructions cushim_launch, cushim_event_record and
cushim_stream_query add over calling the driver directly, counted under valgrind, so that the
answer is the same on every run and every machine. Meant for the mock driver (CUSHIM_DRIVER);
the mock's own work is the same on both sides, so it cancels.

Usage: insn-guard.py --probe PATH [--valgrind PATH] [--k K] [--max-launch N] [--max-other N]
                    [--max-dropin N]

1. Instructions: cushim-insn-probe runs each loop (K calls) twice on each side, in the order
   direct, cushim, cushim, direct, under `valgrind --tool=callgrind --toggle-collect=loop_*`,
   which counts only inside the loops, with one dump per loop call. In each dump, the
   instructions spent inside calls into the driver (the library CUSHIM_DRIVER names, and all it
   calls in turn) are set apart from the rest: what is left is the loop, the call, and on the
   cushim side cushim's own code. (cushim - direct) / 2K of what is left is what cushim adds per
   call. Leaving the driver out matters: the mock's cost per call drifts with its state (its
   launch log grows), by more than cushim's whole cost, so totals would not cancel exactly.
2. Allocations: the launch loop alone, on each side, with K=10 and with K=1000, under
   memcheck, which counts every allocation of the process ("total heap usage: N allocs"). The
   runs differ only in the 990 extra calls, so allocs(1000) - allocs(10) is what those calls
   allocate; cushim's figure less the direct one's is what cushim adds, and must be 0.

Fails (exit 1) when the launch adds more than --max-launch instructions per call (150), the
record or the query more than --max-other (150), or the cushim launch loop allocates more than
the direct one. Exit 77 (skipped) without valgrind, without CUSHIM_DRIVER, or where valgrind
cannot read the build's debug info (valgrind 3.19 and clang's DWARF 5).
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

OPS = ["launch", "event_record", "stream_query", "dropin_launch", "nvrtc_version"]
# Rows whose calls do not reach the driver: nothing is set apart, as both sides make the same
# library call and the difference is the trampoline.
NOT_DRIVER = {"nvrtc_version"}
NAMES = {"launch": "cushim_launch", "event_record": "cushim_event_record",
         "stream_query": "cushim_stream_query",
         "dropin_launch": "cuLaunchKernel through the drop-in trampoline",
         "nvrtc_version": "nvrtcVersion through the drop-in nvrtc.h's trampoline"}
SKIP = 77


def fail(msg):
    print("insn guard: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, env):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0 and "debuginfo reader" in proc.stderr:
        # valgrind before 3.20 cannot read the DWARF 5 that clang 14 and later write by default.
        print("insn guard: skipped: this valgrind cannot read the build's debug info (with clang, "
              "use valgrind 3.20 or later, or build with -gdwarf-4):\n" + proc.stderr[-600:])
        sys.exit(SKIP)
    if proc.returncode != 0:
        fail("%s exited with %d\n--- stdout\n%s--- stderr\n%s" %
             (" ".join(cmd), proc.returncode, proc.stdout, proc.stderr))
    return proc


def parse_dump(path, driver):
    """Reads one callgrind dump (the costs of one loop). Returns (loop name, total, in_driver):
    every instruction counted, and those counted inside calls into the driver object (its own
    work and whatever it calls in turn), so that total - in_driver is what ran outside it."""
    fns, objs = {}, {}
    loop = None
    npos, ir = 1, 0
    ob = None            # the object of the current function
    call_ob = None       # cob= of the next call, when the callee is in another object
    in_call = False      # the next cost line is a call's inclusive cost
    total = in_driver = 0

    def name(table, value):
        m = re.match(r"^\((\d+)\)(?:\s+(.*))?$", value)
        if not m:
            return value
        if m.group(2):
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), value)

    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if sep and key in ("ob", "cob", "fn", "cfn", "calls"):
                if key == "ob":
                    ob = name(objs, value)
                elif key == "cob":
                    call_ob = name(objs, value)
                elif key == "fn":
                    fn = name(fns, value)
                    if fn.startswith("loop_"):
                        loop = fn
                elif key == "cfn":
                    name(fns, value)
                else:
                    in_call = True
                continue
            if line.startswith("positions:"):
                npos = len(line.split(":", 1)[1].split())
                continue
            if line.startswith("events:"):
                events = line.split(":", 1)[1].split()
                ir = events.index("Ir") if "Ir" in events else 0
                continue
            if sep or ":" in line.split()[0]:
                continue  # fl=, fi=, fe=, cfi=, jump=, summary:, totals:, desc: ...
            parts = line.split()
            cost = int(parts[npos + ir]) if len(parts) > npos + ir else 0
            if in_call:
                target = call_ob if call_ob is not None else ob
                if target == driver and ob != driver:
                    in_driver += cost
                in_call, call_ob = False, None
            else:
                total += cost
    return loop, total, in_driver


def count_loops(valgrind, probe, k, env, driver):
    """Runs the probe under callgrind, one dump per loop call. Returns, per loop name, the
    instructions in all its calls, and those outside the driver."""
    loops = ["loop_%s_%s" % (side, op) for side in ("direct", "cushim") for op in OPS]
    totals, outside = collections.Counter(), collections.Counter()
    with tempfile.TemporaryDirectory(prefix="cushim-insn-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run([valgrind, "--tool=callgrind", "--callgrind-out-file=" + out,
             "--toggle-collect=loop_*"] + ["--dump-after=" + l for l in loops] +
            [probe, "--k", str(k)], env)
        dumps = [os.path.join(tmp, n) for n in os.listdir(tmp) if n.startswith("callgrind.out.")]
        for d in dumps:
            loop, total, in_driver = parse_dump(d, driver)
            if loop is None:
                continue
            totals[loop] += total
            outside[loop] += total - in_driver
    return totals, outside


def heap_allocs(stderr_text):
    m = re.search(r"total heap usage: ([\d,]+) allocs", stderr_text)
    if not m:
        fail("memcheck printed no 'total heap usage' line:\n" + stderr_text)
    return int(m.group(1).replace(",", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probe", required=True)
    ap.add_argument("--valgrind", default=shutil.which("valgrind"))
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--max-launch", type=int, default=150)
    ap.add_argument("--max-other", type=int, default=150)
    ap.add_argument("--max-dropin", type=int, default=10)
    args = ap.parse_args()

    if not args.valgrind:
        print("insn guard: skipped: valgrind is not installed")
        return SKIP
    driver = os.environ.get("CUSHIM_DRIVER", "")
    if not driver or not os.path.isfile(driver):
        print("insn guard: skipped: CUSHIM_DRIVER (%r) does not name the mock driver" % driver)
        return SKIP

    env = dict(os.environ)
    # Every symbol bound at load: no lazy PLT resolution inside a loop.
    env["LD_BIND_NOW"] = "1"
    env.setdefault("CUSHIM_LOG", "warn")
    k = args.k

    driver_path = os.path.realpath(driver)
    # Without NVRTC its row cannot be counted: the probe says so (77) and the row is left out.
    probe_nvrtc = subprocess.run([args.probe, "--only", "nvrtc_version", "--side", "direct",
                                  "--k", "1"], env=env, capture_output=True, text=True)
    if probe_nvrtc.returncode == SKIP:
        print("insn guard: nvrtc_version left out: " + probe_nvrtc.stdout.strip())
        OPS.remove("nvrtc_version")
    totals, outside = count_loops(args.valgrind, args.probe, k, env, driver_path)
    if not totals:
        fail("callgrind produced no loop dumps")

    added = {}
    for op in OPS:
        d, c = "loop_direct_" + op, "loop_cushim_" + op
        if totals[d] <= 0 or totals[c] <= 0:
            fail("no instructions counted for %s (%d) or %s (%d)" % (d, totals[d], c, totals[c]))
        if outside[d] == totals[d] and op not in NOT_DRIVER:
            fail("no call into the driver (%s) was seen in %s" % (driver_path, d))
        added[op] = (outside[c] - outside[d]) / (2.0 * k)
        print("insn guard: %-13s per call, outside the driver: direct %6.1f, cushim %6.1f; "
              "in all: direct %7.1f, cushim %7.1f" %
              (op, outside[d] / (2.0 * k), outside[c] / (2.0 * k), totals[d] / (2.0 * k),
               totals[c] / (2.0 * k)))

    allocs = {}
    for side in ("direct", "cushim"):
        counts = []
        for n in (10, 1000):
            proc = run([args.valgrind, "--tool=memcheck", "--leak-check=no", args.probe,
                        "--only", "launch", "--side", side, "--k", str(n)], env)
            counts.append(heap_allocs(proc.stderr))
        allocs[side] = counts[1] - counts[0]
        print("insn guard: launch loop, %-6s side: %d allocations at K=10, %d at K=1000" %
              (side, counts[0], counts[1]))
    extra_allocs = allocs["cushim"] - allocs["direct"]

    print("insn guard: cushim_launch %+.1f instructions/call, cushim_event_record %+.1f, "
          "cushim_stream_query %+.1f, drop-in cuLaunchKernel %+.1f; allocations in launch "
          "loop: %d" % (added["launch"], added["event_record"], added["stream_query"],
                        added["dropin_launch"], extra_allocs))

    problems = []
    if added["launch"] > args.max_launch:
        problems.append("cushim_launch adds %.1f instructions per call (limit %d)" %
                        (added["launch"], args.max_launch))
    for op in ("event_record", "stream_query"):
        if added[op] > args.max_other:
            problems.append("%s adds %.1f instructions per call (limit %d)" %
                            (NAMES[op], added[op], args.max_other))
    if added["dropin_launch"] > args.max_dropin:
        problems.append("the drop-in trampoline adds %.1f instructions per call (limit %d)" %
                        (added["dropin_launch"], args.max_dropin))
    if "nvrtc_version" in added:
        print("insn guard: nvrtcVersion through the drop-in %+.1f instructions/call"
              % added["nvrtc_version"])
        if added["nvrtc_version"] > args.max_dropin:
            problems.append("the drop-in trampoline to NVRTC adds %.1f instructions per call "
                            "(limit %d)" % (added["nvrtc_version"], args.max_dropin))
    if extra_allocs != 0:
        problems.append("the cushim launch loop makes %d allocations over the direct one in %d "
                        "calls" % (extra_allocs, 1000 - 10))
    for p in problems:
        print("insn guard: FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
