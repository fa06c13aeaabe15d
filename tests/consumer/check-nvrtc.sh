#!/usr/bin/env bash
# Checks a consumer's NVRTC program built against the drop-ins (tests/consumer/project/nvrtc.c):
# no NEEDED entry for libnvrtc, libnvJitLink or libcuda; without a driver it starts, compiles
# and ends on cuInit with exit 1 (never the loader's 127); with CUSHIM_NVRTC=/nonexistent it
# says NVRTC was not found and where cushim looked.
#   check-nvrtc.sh PROGRAM     (run with CUSHIM_DRIVER pointing nowhere)
set -uo pipefail
exe=$1
needed=$(readelf -d "$exe" | grep NEEDED)
if grep -qE 'libnvrtc|libnvJitLink|libcuda' <<<"$needed"; then
  echo "$exe needs the toolkit's libraries: $needed"; exit 1
fi
out=$("$exe" 2>&1); rc=$?
[[ $rc -eq 1 && $out == *"compiled"* && $out == *"cuInit failed"* ]] ||
  { echo "$exe without a driver: exit $rc, expected 1 after compiling: $out"; exit 1; }
out=$(CUSHIM_NVRTC=/nonexistent "$exe" 2>&1); rc=$?
[[ $rc -eq 1 && $out == *"NVRTC not loaded: tried CUSHIM_NVRTC: /nonexistent"* ]] ||
  { echo "$exe without NVRTC: exit $rc, expected 1 and where cushim looked: $out"; exit 1; }
echo "$(basename "$exe"): no link to NVRTC, nvJitLink or libcuda; starts without them, exit 1 and why"
