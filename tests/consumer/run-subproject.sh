#!/usr/bin/env bash
# Builds tests/consumer/project with this source tree as its subprojects/cushim and runs it.
#   run-subproject.sh CUSHIM_SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/tests/consumer/project/." "$work/"
mkdir -p "$work/subprojects"
ln -s "$src" "$work/subprojects/cushim"
cd "$work"
meson setup build >setup.log 2>&1 || { cat setup.log; exit 1; }
meson compile -C build >compile.log 2>&1 || { cat compile.log; exit 1; }
./build/consumer
./build/dropin
if readelf -d build/dropin | grep -q libcuda; then echo "the drop-in consumer needs libcuda"; exit 1; fi
# cushim's own tests were turned off from the parent.
if meson test -C build --list 2>/dev/null | grep -q 'loader_'; then
  echo "cushim's tests were built although the parent turned them off"; exit 1
fi
echo "subproject consumer: ok"
