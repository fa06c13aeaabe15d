#!/usr/bin/env bash
# A downstream project testing its own CUDA host code on cushim's installed mock driver. Builds
# a cushim of its own from this source tree with the mock (so the outer build's options do not
# matter), installs it into a staging dir (meson install --destdir), then builds
# tests/consumer/mock-project against that install with Meson (pkg-config) and with CMake
# (find_package), runs its tests through `meson test` and `ctest`, and prints their output; then
# the same for the projects the README's sections "Testing your host code on the mock" and
# "From CUDA C++ sources to a test on the mock" show.
#   run-mock-consumer.sh CUSHIM_SOURCE_DIR [CMAKE [NVCC]]
# With CUSHIM_CONSUMER_MOCK_BUILD=DIR, a build of this source tree configured with -Dmock=true
# and already built (CI passes its release build), that build is installed rather than a new one
# compiled: the same install, without minutes of compiling the mock's PTX interpreter again.
set -euo pipefail
src=$1
cmake=${2:-cmake}
nvcc=${3:-}
project=$src/tests/consumer/mock-project
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The project's test runners set these; nothing from the outer test may stand in for them.
unset CUSHIM_DRIVER CUSHIM_MOCK_KERNELS LD_LIBRARY_PATH
quiet() { # quiet LOG COMMAND...: runs COMMAND, shows its log only when it fails
  local log=$work/$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 60 "$log"; echo "failed: $*"; exit 1; }
}

cushim=${CUSHIM_CONSUMER_MOCK_BUILD:-}
if [[ -n $cushim ]]; then
  option() {
    meson introspect "$cushim" --buildoptions | python3 -c 'import json, sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]][0])' "$1"
  }
  [[ $(option mock) == True ]] ||
    { echo "CUSHIM_CONSUMER_MOCK_BUILD=$cushim is not configured with -Dmock=true"; exit 1; }
  built_from=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["directories"]["source"])' "$cushim/meson-info/meson-info.json")
  [[ $(realpath "$built_from") == $(realpath "$src") ]] ||
    { echo "CUSHIM_CONSUMER_MOCK_BUILD=$cushim is a build of $built_from, not of $src"; exit 1; }
  prefix=$(option prefix)
  libdir=$(option libdir)
  echo "cushim: the build in $cushim (CUSHIM_CONSUMER_MOCK_BUILD), prefix $prefix, libdir $libdir"
else
  prefix=/opt/cushim
  libdir=lib
  cushim=$work/cushim
  quiet cushim-setup.log meson setup "$cushim" "$src" --prefix="$prefix" --libdir="$libdir" \
    -Dmock=true -Dtests=disabled -Dexamples=false -Dtools=false
  quiet cushim-build.log meson compile -C "$cushim" -j 2
fi
quiet cushim-install.log meson install -C "$cushim" --destdir "$work/stage" --no-rebuild
root=$work/stage$prefix
[[ $libdir == /* ]] && libdir=${libdir#"$prefix"/}

# The .pc files name the prefix; the staged copy lies under $root, hence --define-variable.
export PKG_CONFIG_PATH=$root/$libdir/pkgconfig
pc=(pkg-config --define-variable=prefix="$root")
driver=$("${pc[@]}" --variable=driver cushim-mock)
[[ $driver == "$root"/* && -f $driver ]] || { echo "cushim-mock's driver is $driver"; exit 1; }
echo "pkg-config cushim-mock: driver=$driver"

# The project's test links libcushim (the drop-in's cuda.h brought it) and neither it nor its
# kernel library needs libcuda.
check_needed() { # check_needed TEST KERNEL_LIBRARY
  local f needed
  for f in "$@"; do
    needed=$(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
    echo "$(basename "$f"): NEEDED ${needed:-nothing}"
    if grep -q 'libcuda' <<<"$needed"; then echo "$f needs libcuda"; exit 1; fi
  done
  grep -q 'libcushim.so.0' <<<"$(readelf -d "$1")" || { echo "$1 does not link libcushim"; exit 1; }
}
# The test's own output, from a runner's log (ctest -V puts "1: " before each line): its TAP
# lines, the mock it ran on, and all five tests passed.
tap() {
  local out
  out=$(grep -E '^([0-9]+: )?(ok|not ok|1\.\.|# )' "$1" | sed -E 's/^[0-9]+: //')
  echo "$out"
  grep -qxF "# mock driver: $driver" <<<"$out" || { echo "the test did not run on $driver"; exit 1; }
  [[ $(grep -cE '^ok [0-9]+ - ' <<<"$out") -eq 5 ]] || { echo "not every test passed"; exit 1; }
}

echo "== Meson $(meson --version), cushim-cuda and cushim-mock through pkg-config"
# Meson's pkg-config gets the same --define-variable through a native file.
printf '[binaries]\npkgconfig = [%s]\n' "$(printf "'%s', " "${pc[@]}")" >"$work/native.ini"
quiet meson-setup.log meson setup "$work/meson" "$project" --native-file "$work/native.ini"
quiet meson-build.log meson compile -C "$work/meson" -j 2
check_needed "$work/meson/test_vecscale" "$work/meson/libvecscale-mock-kernels.so"
meson test -C "$work/meson" --no-rebuild >"$work/meson-test.log" 2>&1 ||
  { cat "$work/meson-test.log" "$work/meson/meson-logs/testlog.txt"; exit 1; }
tap "$work/meson/meson-logs/testlog.txt"

echo "== $("$cmake" --version | head -n 1), find_package(cushim CONFIG REQUIRED COMPONENTS cuda mock)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
quiet cmake-setup.log "$cmake" -S "$project" -B "$work/cmake" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found=$(sed -n 's/^cushim_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
[[ $found == "$root"/* ]] || { echo "found cushim in $found, not in $root"; exit 1; }
quiet cmake-build.log "$cmake" --build "$work/cmake" -j 2
check_needed "$work/cmake/test_vecscale" "$work/cmake/libvecscale_mock_kernels.so"
ctest=$(dirname "$cmake")/ctest
[[ -x $ctest ]] || ctest=ctest
(cd "$work/cmake" && "$ctest" -V) >"$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; exit 1; }
tap "$work/ctest.log"

# The README's section "Testing your host code on the mock": its files, as the README shows them,
# built the three ways it gives. Each run prints "# device 0: PROFILE" and three passing tests.
echo "== the README's \"Testing your host code on the mock\""
readme=$work/readme
python3 "$src/tests/consumer/readme-project.py" "$src/README.md" \
  "Testing your host code on the mock" "$readme"
readme_tap() { # readme_tap LOG PROFILE...: one passing run per profile
  local out profile
  out=$(grep -E '^([0-9]+: )?(ok|not ok|1\.\.|# )' "$1" | sed -E 's/^[0-9]+: //')
  echo "$out"
  shift
  for profile in "$@"; do
    grep -qxF "# device 0: $profile" <<<"$out" || { echo "no run on $profile"; exit 1; }
  done
  if grep -q '^not ok' <<<"$out" || [[ $(grep -cE '^ok [0-9]+ - ' <<<"$out") -ne $((3 * $#)) ]]; then
    echo "not every test of the README's project passed"; exit 1
  fi
}
quiet readme-meson-setup.log meson setup "$work/readme-meson" "$readme" --native-file "$work/native.ini"
quiet readme-meson-build.log meson compile -C "$work/readme-meson" -j 2
meson test -C "$work/readme-meson" --no-rebuild >"$work/readme-meson-test.log" 2>&1 ||
  { cat "$work/readme-meson-test.log" "$work/readme-meson/meson-logs/testlog.txt"; exit 1; }
readme_tap "$work/readme-meson/meson-logs/testlog.txt" h200 ada
quiet readme-cmake-setup.log "$cmake" -S "$readme" -B "$work/readme-cmake" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
quiet readme-cmake-build.log "$cmake" --build "$work/readme-cmake" -j 2
(cd "$work/readme-cmake" && "$ctest" -V) >"$work/readme-ctest.log" 2>&1 ||
  { cat "$work/readme-ctest.log"; exit 1; }
readme_tap "$work/readme-ctest.log" h200 ada
# pkg-config as the README's commands call it, on the staged prefix; the prefix's library through
# LD_LIBRARY_PATH, as "Installing into a prefix" says.
mkdir -p "$work/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$(printf "'%s' " "$(command -v pkg-config)" "${pc[@]:1}")" \
  >"$work/bin/pkg-config"
chmod +x "$work/bin/pkg-config"
(cd "$readme" && PATH="$work/bin:$PATH" LD_LIBRARY_PATH="$root/$libdir" bash -e run-with-pkg-config.sh) \
  >"$work/readme-sh.log" 2>&1 || { cat "$work/readme-sh.log"; exit 1; }
readme_tap "$work/readme-sh.log" h200
# The README's section "From CUDA C++ sources to a test on the mock": nvcc makes a fatbin with
# PTX, and the test runs its kernels on the mock; with Meson (a custom_target) and with CMake
# (enable_language(CUDA) and the package's cushim_add_fatbin). nvcc is the one the outer build
# found (NVCC); without it this part fails, saying so, rather than vanish.
echo "== the README's \"From CUDA C++ sources to a test on the mock\""
[[ -n $nvcc && -x $nvcc ]] || { echo "no nvcc (got '$nvcc'): the .cu path cannot be built"; exit 1; }
cu=$work/cu
python3 "$src/tests/consumer/readme-project.py" "$src/README.md" \
  "From CUDA C++ sources to a test on the mock" "$cu"
cu_tap() { # cu_tap LOG: both kernels' checks passed
  local out
  out=$(grep -E '^([0-9]+: )?(ok|not ok|1\.\.)' "$1" | sed -E 's/^[0-9]+: //')
  echo "$out"
  grep -qx 'ok 1 - scale: 0 of 1000 elements wrong' <<<"$out" &&
    grep -qx 'ok 2 - block_sum: 0 of 4 blocks wrong' <<<"$out" ||
    { echo "the kernels did not pass on the mock"; exit 1; }
}
echo "-- Meson: custom_target running $nvcc"
PATH=$(dirname "$nvcc"):$PATH quiet cu-meson-setup.log meson setup "$work/cu-meson" "$cu" \
  --native-file "$work/native.ini"
quiet cu-meson-build.log meson compile -C "$work/cu-meson" -j 2
# What a failure on another machine needs to be read: the tools' versions and what the fatbin
# holds (cuobjdump lists its PTX and SASS, each with its architecture).
echo "nvcc: $("$nvcc" --version | tail -n 1); meson: $(meson --version)"
fatbin=$work/cu-meson/kernels.fatbin
[[ -f $fatbin ]] || { echo "no $fatbin: the custom_target's output went elsewhere"; ls -R "$work/cu-meson"; exit 1; }
echo "fatbin: $fatbin, $(stat -c %s "$fatbin") bytes"
cuobjdump=$(dirname "$nvcc")/cuobjdump
if [[ -x $cuobjdump ]]; then
  "$cuobjdump" --list-ptx --list-elf "$fatbin" 2>&1 | sed 's/^/  /' || true
else # the header at least: its magic, version and size, then the first entry's kind and arch
  echo "  (no cuobjdump beside nvcc) the fatbin's first 64 bytes:"
  od -A d -t x1 -N 64 "$fatbin" | sed 's/^/  /'
fi
CUSHIM_LOG=info meson test -C "$work/cu-meson" --no-rebuild >"$work/cu-meson-test.log" 2>&1 ||
  { cat "$work/cu-meson-test.log" "$work/cu-meson/meson-logs/testlog.txt"; exit 1; }
cu_tap "$work/cu-meson/meson-logs/testlog.txt"
echo "-- CMake: enable_language(CUDA), cushim_add_fatbin"
quiet cu-cmake-setup.log "$cmake" -S "$cu" -B "$work/cu-cmake" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_CUDA_COMPILER="$nvcc"
quiet cu-cmake-build.log "$cmake" --build "$work/cu-cmake" -j 2
(cd "$work/cu-cmake" && "$ctest" -V) >"$work/cu-ctest.log" 2>&1 || { cat "$work/cu-ctest.log"; exit 1; }
cu_tap "$work/cu-ctest.log"
echo "mock consumer: ok"
