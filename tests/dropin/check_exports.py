#!/usr/bin/env python3
"""libcushim exports only cushim_* functions: no bare cu* symbol that could interpose on the
driver (or be interposed by it) in a process that has both. Prints the counts."""
import subprocess
import sys

out = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]], capture_output=True, text=True,
                     check=True).stdout
names = [l.split()[-1] for l in out.splitlines() if l.strip()]
funcs = [n for n in names if n != "CUSHIM_0"]
bad = [n for n in funcs if not n.startswith("cushim_")]
tramp = [n for n in funcs if n.startswith("cushim_cu")]
print("%d exported symbols, %d of them drop-in trampolines (cushim_cu*), %d not cushim_*"
      % (len(funcs), len(tramp), len(bad)))
for n in bad:
    print("not ok: exported " + n)
sys.exit(1 if bad or not tramp else 0)
