#!/usr/bin/env python3
"""The kernel suite with every check of CUSHIM_MOCK_CHECK in the mode that reports and goes on:
passes when the suite passes and the summary at exit counts no report of any kind (no false
positive: a check that fired, a copy to the host of values stored undefined, a leak).

    run_checked.py KERNELS_EXE [ARGS...]
"""
import os
import re
import subprocess
import sys

env = dict(os.environ, CUSHIM_MOCK_CHECK="all", CUSHIM_MOCK_CHECK_MODE="report")
p = subprocess.run(sys.argv[1:], env=env, capture_output=True, text=True)
sys.stdout.write(p.stdout)
summary = re.findall(r"CUSHIM_MOCK_CHECK summary: (\d+) memcheck, (\d+) racecheck, "
                     r"(\d+) initcheck, (\d+) synccheck reports", p.stderr)
for line in p.stderr.splitlines():
    print("# stderr: " + line)
if p.returncode != 0:
    print("# the suite failed (exit %d)" % p.returncode)
    sys.exit(1)
if len(summary) != 1:
    print("# no CUSHIM_MOCK_CHECK summary on stderr")
    sys.exit(1)
if any(int(n) != 0 for n in summary[0]):
    print("# reports under CUSHIM_MOCK_CHECK=all: %s memcheck, %s racecheck, %s initcheck, "
          "%s synccheck" % summary[0])
    sys.exit(1)
