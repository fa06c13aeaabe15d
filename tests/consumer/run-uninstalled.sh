#!/usr/bin/env bash
# A program built against the build tree, with nothing but the flags of the uninstalled
# pkg-config file that Meson writes (BUILD/meson-uninstalled/cushim-cuda-uninstalled.pc): its
# `#include <cuda.h>` must be the drop-in generated into BUILD/include/cushim-cuda, not the
# toolkit's, and it must link (with the toolkit's, cuDeviceGetCount and the rest are undefined).
#   run-uninstalled.sh BUILD_DIR CUSHIM_SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
cflags=$(pkg-config --cflags cushim-cuda)
libs=$(pkg-config --libs cushim-cuda)
echo "pkg-config cushim-cuda (uninstalled): $cflags $libs"
# The first cuda.h the compiler opens is the drop-in's (which opens the toolkit's after it).
cc -std=c11 -M "$src/tests/consumer/project/dropin.c" $cflags >"$out/deps"
first=$(tr ' \\' '\n\n' <"$out/deps" | grep '/cuda\.h$' | head -n 1)
[[ -n $first ]] || { cat "$out/deps"; echo "no cuda.h was included"; exit 1; }
want="$build/include/cushim-cuda/cuda.h"
[[ $(realpath "$first") == "$want" ]] ||
  { echo "<cuda.h> was $first, not the drop-in $want"; exit 1; }
echo "<cuda.h>: $first"
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/dropin.c" $cflags $libs \
  -o "$out/dropin"
if readelf -d "$out/dropin" | grep -q 'libcuda'; then echo "linked to libcuda"; exit 1; fi
LD_LIBRARY_PATH="$build" "$out/dropin"
echo "uninstalled pkg-config consumer: ok"
