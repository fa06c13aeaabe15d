#!/usr/bin/env bash
# Installs the build into a staging dir (meson install --destdir) and builds a CMake project
# with nothing but find_package(cushim CONFIG REQUIRED) and CMAKE_PREFIX_PATH against that
# installed copy; then runs what it built and checks its version file. CMake picks the
# compilers as it does for any user (CC and CXX from the environment, else cc and c++).
#   run-cmake.sh BUILD_DIR CUSHIM_SOURCE_DIR [CMAKE]
set -euo pipefail
build=$1
src=$2
cmake=${3:-cmake}
project=$src/tests/consumer/cmake-project
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log"; exit 1; }
option() {
  meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"
}
root="$stage$(option prefix)"
version=$(meson introspect "$build" --projectinfo |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
config=$(find "$root" -path '*/cmake/cushim/cushimConfig.cmake' | head -n 1)
[[ -n $config ]] || { echo "cushimConfig.cmake was not installed"; exit 1; }
[[ -f $(dirname "$config")/cushimConfigVersion.cmake ]] ||
  { echo "cushimConfigVersion.cmake was not installed"; exit 1; }
if grep -q "$stage" "$config"; then echo "cushimConfig.cmake names the staging dir"; exit 1; fi

# What the install has decides what the config must offer: a missing target is a failure.
expect_dropin=OFF; expect_mock=OFF; expect_cudart=OFF
[[ -n $(find "$root" -path '*/cushim-cuda/cuda.h' | head -n 1) ]] && expect_dropin=ON
[[ -n $(find "$root" -name 'libcushim-mock.so' | head -n 1) ]] && expect_mock=ON
[[ -n $(find "$root" -path '*/cushim-cudart/libcudart.so.13' | head -n 1) ]] && expect_cudart=ON
echo "cmake: $($cmake --version | head -n 1); drop-in $expect_dropin, mock $expect_mock, runtime $expect_cudart"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$project" -B "$stage/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$root" \
  -DCUSHIM_EXPECT_DROPIN=$expect_dropin -DCUSHIM_EXPECT_MOCK=$expect_mock \
  -DCUSHIM_EXPECT_CUDART=$expect_cudart -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  >"$stage/configure.log" 2>&1 ||
  { cat "$stage/configure.log"; exit 1; }
grep 'cushim ' "$stage/configure.log"
# The package found must be the staged one, not a copy installed on this machine.
found=$(sed -n 's/^cushim_DIR:PATH=//p' "$stage/build/CMakeCache.txt")
[[ $found == "$root"/* ]] || { echo "found cushim in $found, not in $root"; exit 1; }
"$cmake" --build "$stage/build" -j 2 >"$stage/build.log" 2>&1 ||
  { tail -n 40 "$stage/build.log"; exit 1; }

# The programs run without LD_LIBRARY_PATH (meson test sets one to the build dir): the RPATH
# CMake gives the build tree must find the staged library.
unset LD_LIBRARY_PATH
check_links() {
  local dyn libs
  dyn=$(readelf -d "$1")
  libs=$(ldd "$1")
  grep -q 'libcushim.so.0' <<<"$dyn" || { echo "$1: not linked to libcushim.so.0"; exit 1; }
  if grep -q 'libcuda' <<<"$dyn"; then echo "$1: linked to libcuda"; exit 1; fi
  grep -q "libcushim.so.0 => $root/" <<<"$libs" ||
    { echo "$1: libcushim.so.0 is not the staged one:"; echo "$libs"; exit 1; }
}
for exe in consumer_c consumer_cxx; do
  check_links "$stage/build/$exe"
  CUSHIM_DRIVER=/nonexistent "$stage/build/$exe"
done
if [[ $expect_dropin == ON ]]; then
  for exe in consumer_dropin consumer_dropin_after; do
    check_links "$stage/build/$exe"
    # Every driver call went to cushim's trampolines: no bare cu* symbol is left to resolve.
    bare=$(nm -D --undefined-only "$stage/build/$exe" | awk '{print $NF}' | grep -E '^cu[A-Z]' || true)
    [[ -z $bare ]] || { echo "$exe needs bare driver symbols: $bare"; exit 1; }
    CUSHIM_DRIVER=/nonexistent "$stage/build/$exe"
  done
  check_links "$stage/build/consumer_nvrtc"
  CUSHIM_DRIVER=/nonexistent bash "$src/tests/consumer/check-nvrtc.sh" "$stage/build/consumer_nvrtc"
fi
if [[ $expect_mock == ON ]]; then
  mock=$(find "$root" -name 'libcushim-mock.so' | head -n 1)
  CUSHIM_DRIVER=$mock "$stage/build/consumer_mock"
fi

"$cmake" -S "$project/rules" -B "$stage/rules" -DCUSHIM_CONFIG_DIR="$(dirname "$config")" \
  -DCUSHIM_VERSION="$version" -DCUSHIM_EXPECT_DROPIN=$expect_dropin \
  -DCUSHIM_EXPECT_MOCK=$expect_mock -DCUSHIM_EXPECT_CUDART=$expect_cudart >"$stage/rules.log" 2>&1 ||
  { cat "$stage/rules.log"; exit 1; }
grep -- "-- find_package(cushim" "$stage/rules.log"
echo "CMake consumer: ok"
