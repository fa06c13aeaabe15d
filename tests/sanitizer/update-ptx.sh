#!/bin/sh
# Compiles the sanitizer suite's kernels (cu/) to the committed PTX (ptx/sanitizer/ at the top of
# the tree) with line information (-lineinfo), the source path written relative to the tree so
# that the PTX is the same wherever it is built. Run from anywhere: tests/sanitizer/update-ptx.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in "$here"/cu/*.cu; do
    name=$(basename "$cu" .cu)
    out="$top/ptx/sanitizer/$name.ptx"
    "$nvcc" -arch=compute_90 -ptx -O3 -lineinfo "$cu" -o "$out"
    sed -i "s|\"$top/|\"|" "$out"
done
