#!/usr/bin/env python3
"""An example run under CUSHIM_TRACE=timeline (gpu suite): its timeline is valid JSON, every
call event has name, ph, ts, dur, pid, tid and a result, and each stream the example uses has
a flow through its calls.

Usage: check_example_timeline.py PROGRAM MIN_STREAMS
Exit 77 when the program does (no driver or no device), 1 on a failed check.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def main():
    program, min_streams = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "timeline.json")
        env = dict(os.environ, CUSHIM_TRACE="timeline", CUSHIM_TRACE_FILE=path)
        p = subprocess.run([program], env=env, cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        if p.returncode == 77:
            print("skipped: " + p.stderr.strip()[-300:])
            sys.exit(77)
        if p.returncode != 0:
            sys.exit("the program failed (%d): %s" % (p.returncode, p.stderr[-1000:]))
        with open(path) as f:
            events = json.load(f)
    calls = [e for e in events if e.get("ph") == "X"]
    bad = [e for e in calls
           if not all(k in e for k in ("name", "ph", "ts", "dur", "pid", "tid", "args"))
           or "result" not in e["args"]]
    flows = [e for e in events if e.get("ph") in ("s", "t")]
    streams = {e["id"] for e in flows}
    print("events by phase: %s" % dict(collections.Counter(e.get("ph") for e in events)))
    print("calls: %d; streams with a flow: %d; results: %s" % (
        len(calls), len(streams), dict(collections.Counter(e["args"]["result"] for e in calls))))
    if not calls or bad:
        sys.exit("%d call events lack a field: %s" % (len(bad), bad[:3]))
    if len(streams) < min_streams:
        sys.exit("flows for %d streams, expected at least %d" % (len(streams), min_streams))
    if sum(e["ph"] == "s" for e in flows) != len(streams):
        sys.exit("each stream's flow should start once")


if __name__ == "__main__":
    main()
