#!/usr/bin/env python3
"""Runs a drop-in program and checks how it ended.

run.py [--expect-exit N] [--out TEXT]... [--err TEXT]... [--needs-driver] [--no-libcuda]
       PROGRAM [ARGS...]

--needs-driver: exit 77 (skip) unless libcuda.so.1 can be opened, for the GPU suite.
--no-libcuda: the program must name libcushim and no libcuda, libnvrtc or libnvJitLink among
its NEEDED entries.
A program killed by a signal always fails: degrading gracefully means an exit code.
"""
import argparse
import ctypes
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-exit", type=int, default=0)
    ap.add_argument("--out", action="append", default=[])
    ap.add_argument("--err", action="append", default=[])
    ap.add_argument("--needs-driver", action="store_true")
    ap.add_argument("--no-libcuda", action="store_true")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.needs_driver:
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            print("skip: no CUDA driver here (%s)" % e)
            return 77
    if a.no_libcuda:
        dyn = subprocess.run(["readelf", "-d", a.program[0]], capture_output=True, text=True,
                             check=True).stdout
        needed = [l for l in dyn.splitlines() if "(NEEDED)" in l]
        print("\n".join(needed))
        banned = ("libcuda", "libnvrtc", "libnvJitLink")
        if any(b in l for l in needed for b in banned) or not any("libcushim.so" in l
                                                                  for l in needed):
            print("FAIL: the program must need libcushim and none of %s" % ", ".join(banned))
            return 1
    p = subprocess.run(a.program, capture_output=True, text=True, timeout=120)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    bad = []
    if p.returncode < 0:
        bad.append("killed by signal %d" % -p.returncode)
    elif p.returncode != a.expect_exit:
        bad.append("exit %d, expected %d" % (p.returncode, a.expect_exit))
    bad += ["stdout lacks %r" % t for t in a.out if t not in p.stdout]
    bad += ["stderr lacks %r" % t for t in a.err if t not in p.stderr]
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("PASS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
