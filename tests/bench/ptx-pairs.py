#!/usr/bin/env python3
"""ptx-bench --pairs on the mock: the paired scaling table holds a line for each row asked and
none for the others, each with six numbers where the median lies between the rounds' lowest and
highest and every ratio is positive, and the steal column is a percentage or "n/a".

Usage: ptx-pairs.py PTX_BENCH
"""

import subprocess
import sys

ROWS = ["saxpy", "reduce+jit"]


def main():
    out = subprocess.run([sys.argv[1], "--quick", "--pairs", "3", "--only", ",".join(ROWS)],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.exit("ptx-bench exited %d: %s" % (out.returncode, out.stderr.strip()))
    lines = out.stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("paired scaling from 1 to ")]
    if len(heads) != 1 or "3 rounds" not in lines[heads[0]]:
        sys.exit("no heading naming 3 rounds:\n" + out.stdout)
    seen = {}
    for line in lines[heads[0] + 2:]:
        f = line.split()
        if len(f) != 7:
            sys.exit("not a row of 7 fields: %r" % line)
        median, low, high, c, rel = (float(v) for v in f[1:6])
        if not (0 < low <= median <= high and c > 0 and rel > 0):
            sys.exit("figures out of order or not positive: %r" % line)
        if f[6] != "n/a" and not 0 <= float(f[6]) <= 100:
            sys.exit("steal is no percentage: %r" % line)
        seen[f[0]] = True
    if sorted(seen) != sorted(ROWS):
        sys.exit("rows %s, asked for %s" % (sorted(seen), sorted(ROWS)))
    print("paired rows:", ", ".join(ROWS))


main()
