#!/usr/bin/env python3
"""Fail when NVIDIA's libcudart exports a symbol that cushim's runtime does not.

Usage: check-exports.py NM NVIDIA_LIBCUDART OURS...

A program linked against NVIDIA's library must never stop with `undefined symbol` when it runs
on cushim's: every defined dynamic symbol of NVIDIA's, by name and version node
(`cudaMalloc@@libcudart.so.13`), must be defined by each of ours. Extra symbols of ours are
fine. Prints the count compared, and each missing symbol.
"""

import subprocess
import sys


def exports(nm, path):
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.split("\n"):
        parts = line.split()
        # A version node's own symbol (`A libcudart.so.13`) has no '@'; it is the node itself.
        if len(parts) == 3 and "@" in parts[2]:
            names.add(parts[2].replace("@@", "@"))
    return names


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    nm, nvidia, ours = sys.argv[1], sys.argv[2], sys.argv[3:]
    want = exports(nm, nvidia)
    if not want:
        sys.exit("check-exports: no versioned symbols read from %s" % nvidia)
    bad = 0
    for path in ours:
        missing = sorted(want - exports(nm, path))
        print("%s: %d of the %d symbols of %s" % (path, len(want) - len(missing), len(want),
                                                  nvidia))
        for name in missing:
            print("  missing: %s" % name, file=sys.stderr)
        bad += bool(missing)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
