#!/usr/bin/env python3
"""Fail when an ELF file has a NEEDED entry for an NVIDIA library (libcuda, libcudart, libnv*).

Usage: check-needed.py FILE...

cushim's runtime must start on a machine with neither the driver nor the toolkit: it reaches the
driver through cushim's loader, at run time, and links nothing of NVIDIA's.
"""

import re
import subprocess
import sys

NVIDIA = re.compile(r"^lib(cuda|cudart|nvrtc|nvJitLink|nvidia|cublas|cufft|curand|cusparse)"
                    r"[\w.-]*\.so")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bad = 0
    for path in sys.argv[1:]:
        out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True)
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)
        nvidia = [n for n in needed if NVIDIA.match(n)]
        print("%s: NEEDED %s" % (path, ", ".join(needed) or "nothing"))
        if nvidia:
            print("  an NVIDIA library: %s" % ", ".join(nvidia), file=sys.stderr)
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
