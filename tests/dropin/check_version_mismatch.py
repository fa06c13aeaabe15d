#!/usr/bin/env python3
"""A translation unit that includes cushim.h with another toolkit's cuda.h first on the include
path must not compile, and the error must name both CUDA versions.

check_version_mismatch.py COMPILER [ARGS...] -- INCLUDE_DIRS...
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    split = sys.argv.index("--")
    compiler, incs = sys.argv[1:split], sys.argv[split + 1:]
    built = None
    for i in incs:
        if os.path.isfile(os.path.join(i, "cushim_table.h")):
            text = open(os.path.join(i, "cushim_table.h")).read()
            built = re.search(r"#define CUSHIM_TABLE_CUDA_VERSION (\d+)", text).group(1)
    other = "12080" if built != "12080" else "12090"
    with tempfile.TemporaryDirectory() as tmp:
        # A stand-in for an older toolkit's cuda.h: only its version matters here.
        with open(os.path.join(tmp, "cuda.h"), "w") as f:
            f.write("#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION %s\n"
                    "typedef int CUresult;\n#endif\n" % other)
        src = os.path.join(tmp, "user.c")
        with open(src, "w") as f:
            f.write("#include <cushim.h>\nint main(void) { return 0; }\n")
        cmd = compiler + ["-fsyntax-only", "-I" + tmp] + ["-I" + i for i in incs] + [src]
        p = subprocess.run(cmd, capture_output=True, text=True)
    out = p.stdout + p.stderr
    first = [l for l in out.splitlines() if "error" in l][:2]
    print("\n".join(first))
    ok = built is not None and p.returncode != 0 and built in out and other in out
    print("PASS: refused, naming both versions" if ok else "FAIL: rc %d" % p.returncode)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
