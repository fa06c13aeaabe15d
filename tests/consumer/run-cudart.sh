#!/usr/bin/env bash
# cushim's CUDA runtime as a user reaches it, against an installed copy (meson install --destdir):
#   1. linked: nvcc -cudart none ... $(pkg-config --libs cushim-cudart): no NVIDIA library
#      NEEDED; runs on the mock; with no driver it fails as NVIDIA's runtime does;
#   2. swapped: a program built with nvcc -cudart shared, run by the installed cushim-run and
#      by the .pc file's cudartdir on LD_LIBRARY_PATH;
#   3. Meson: cudart-project (project(..., 'cuda'), dependency('cushim-cudart')), meson test;
#   4. CMake: cudart-project (enable_language(CUDA), CMAKE_CUDA_RUNTIME_LIBRARY Shared,
#      cushim::cudart) built with the toolkit's nvcc and run by ctest on the mock.
# The mock comes from the build tree (an install has it only with -Dmock=true).
#   run-cudart.sh BUILD_DIR CUSHIM_SOURCE_DIR NVCC MOCK [CMAKE]
set -euo pipefail
build=$1
src=$2
nvcc=$3
mock=$4
cmake=${5:-}
project=$src/tests/consumer/cudart-project
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
unset CUSHIM_DRIVER LD_LIBRARY_PATH
quiet() { # quiet LOG COMMAND...: runs COMMAND, shows its log only when it fails
  local log=$stage/$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log"; echo "failed: $*"; exit 1; }
}
quiet install.log meson install -C "$build" --destdir "$stage/root" --no-rebuild
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root=$stage/root$prefix
pc=$(find "$root" -name cushim-cudart.pc | head -n 1)
[[ -n $pc ]] || { echo "cushim-cudart.pc was not installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
pkg=(env PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --define-variable=prefix="$root")
# The folder of libcudart.so.13, as the .pc file names it for LD_LIBRARY_PATH.
cudartdir=$("${pkg[@]}" --variable=cudartdir cushim-cudart)
[[ $cudartdir == "$libdir/cushim-cudart" ]] || { echo "cudartdir is '$cudartdir'"; exit 1; }
for f in "$cudartdir/libcudart.so.13" "$root/bin/cushim-run"; do
  [[ -e $f ]] || { echo "not installed: $f"; exit 1; }
done
flags=$("${pkg[@]}" --cflags --libs cushim-cudart)
echo "pkg-config --cflags --libs cushim-cudart: $flags"
gen=(-gencode arch=compute_90,code=compute_90)
nvidia='lib(cuda|cudart|nvrtc|nvJitLink|nvvm|cublas|cublasLt|cufft|curand|cusparse|cusolver|npp[a-z]*)\.so'
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | paste -sd ' '; }
run_expect() { # run_expect WANT_EXIT PATTERN... -- COMMAND...: the exit code, each PATTERN in the
  # output, which is left in $out
  local want=$1 patterns=() rc p
  shift
  while [[ $1 != -- ]]; do patterns+=("$1"); shift; done
  shift
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  printf '%s\n' "$out" | sed 's/^/  | /'
  [[ $rc == "$want" ]] || { echo "exit $rc, not $want: $*"; exit 1; }
  for p in "${patterns[@]}"; do
    grep -qE -- "$p" <<<"$out" || { echo "no '$p' in the output of: $*"; exit 1; }
  done
}

echo "== linked: nvcc -cudart none"
quiet nvcc-linked.log "$nvcc" -cudart none "${gen[@]}" "$project/probe.cu" $flags -o "$stage/linked"
echo "NEEDED: $(needed "$stage/linked")"
if needed "$stage/linked" | grep -qE "$nvidia"; then echo "the linked program needs an NVIDIA library"; exit 1; fi
needed "$stage/linked" | grep -q 'libcushim-cudart\.so\.0' || { echo "not linked to libcushim-cudart.so.0"; exit 1; }
if LD_LIBRARY_PATH=$libdir ldd "$stage/linked" | grep -E 'not found|/cuda'; then
  echo "the linked program resolves a library from the toolkit, or misses one"; exit 1
fi
echo "on the mock:"
run_expect 0 "^libcudart: $libdir/libcushim-cudart\.so[.0-9]*$" '^kernel: ok' -- \
  env LD_LIBRARY_PATH="$libdir" CUSHIM_DRIVER="$mock" "$stage/linked"
# NVIDIA's libcudart 13.0 on a machine with the toolkit and no driver (no libcuda.so.1) answers
# cudaGetDeviceCount with error 35, cudaErrorInsufficientDriver, "CUDA driver version is
# insufficient for CUDA runtime version" (and leaves the count alone). The code and the name
# must be the same here; the message is compared and a difference said (the runtime's strings
# are the runtime suite's to check).
echo "with no driver:"
nvidia_message='CUDA driver version is insufficient for CUDA runtime version'
run_expect 1 '^cudaGetDeviceCount: cudaErrorInsufficientDriver \(' -- \
  env LD_LIBRARY_PATH="$libdir" CUSHIM_DRIVER=/nonexistent "$stage/linked"
if ! grep -qF "cudaErrorInsufficientDriver ($nvidia_message)" <<<"$out"; then
  echo "NOTE: the message differs from NVIDIA's runtime's, which is \"$nvidia_message\""
fi

echo "== swapped: nvcc -cudart shared, run by the installed cushim-run"
quiet nvcc-shared.log "$nvcc" -cudart shared "${gen[@]}" "$project/probe.cu" -o "$stage/shared" \
  -Xlinker --enable-new-dtags -Xlinker "-rpath=$(dirname "$nvcc")/../lib64"
echo "NEEDED: $(needed "$stage/shared")"
swap=$(cd "$cudartdir" && pwd -P)
run_expect 0 "can run on cushim's runtime in $swap" -- "$root/bin/cushim-run" --check "$stage/shared"
run_expect 0 "^libcudart: $swap/libcudart\.so\.13$" '^kernel: ok' -- \
  env CUSHIM_DRIVER="$mock" "$root/bin/cushim-run" "$stage/shared"
# By hand, as the README gives it: the .pc file's cudartdir first on LD_LIBRARY_PATH.
run_expect 0 "^libcudart: $cudartdir/libcudart\.so\.13$" '^kernel: ok' -- \
  env LD_LIBRARY_PATH="$cudartdir" CUSHIM_DRIVER="$mock" "$stage/shared"
if [[ -f $libdir/libcushim-mock.so ]]; then
  run_expect 0 '^kernel: ok' -- "$root/bin/cushim-run" --mock "$stage/shared"
else
  run_expect 125 'mock driver is not installed' -- "$root/bin/cushim-run" --mock "$stage/shared"
fi

echo "== Meson $(meson --version): project(..., 'cuda'), dependency('cushim-cudart')"
# Meson's pkg-config gets the staged prefix through a native file, and nvcc from the caller.
printf "[binaries]\npkgconfig = ['pkg-config', '--define-variable=prefix=%s']\ncuda = '%s'\n" \
  "$root" "$nvcc" >"$stage/native.ini"
quiet meson-setup.log env PKG_CONFIG_PATH="$(dirname "$pc")" meson setup "$stage/meson" "$project" \
  --native-file "$stage/native.ini"
quiet meson-build.log meson compile -C "$stage/meson" -j 2
echo "probe_linked: NEEDED $(needed "$stage/meson/probe_linked")"
if needed "$stage/meson/probe_linked" | grep -qE "$nvidia"; then
  echo "the Meson program needs an NVIDIA library"; exit 1
fi
# Meson's rpath to the staged libdir finds libcushim-cudart.so.0: no LD_LIBRARY_PATH.
quiet meson-test.log env CUSHIM_DRIVER="$mock" meson test -C "$stage/meson" --no-rebuild --verbose
grep -E '(libcudart|kernel): ' "$stage/meson-test.log"
grep -qE "libcudart: $libdir/libcushim-cudart\.so[.0-9]*$" "$stage/meson-test.log" ||
  { echo "the Meson program did not run on the staged libcushim-cudart"; exit 1; }

if [[ -z $cmake ]]; then
  echo "cmake is not installed: the CMake project cannot be built"; exit 1
fi
echo "== $("$cmake" --version | head -n 1): enable_language(CUDA), cushim::cudart"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
quiet cmake-setup.log "$cmake" -S "$project" -B "$stage/cmake" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90
grep -E '^-- (The CUDA compiler|cushim )' "$stage/cmake-setup.log"
quiet cmake-build.log "$cmake" --build "$stage/cmake" -j 2 --verbose
# The mock runs PTX: CMAKE_CUDA_ARCHITECTURES=90 must put compute_90 in the fatbin (the runs on
# the mock below show it is there; this names the cause when it is not).
grep -qE 'code=\[?compute_90' "$stage/cmake-build.log" ||
  { grep -m1 -E 'nvcc.*probe\.cu' "$stage/cmake-build.log"; echo "no PTX for compute_90"; exit 1; }
for exe in probe_swap probe_linked; do
  echo "$exe: NEEDED $(needed "$stage/cmake/$exe")"
done
needed "$stage/cmake/probe_swap" | grep -q 'libcudart\.so\.13' ||
  { echo "probe_swap (CMAKE_CUDA_RUNTIME_LIBRARY Shared) does not NEED libcudart.so.13"; exit 1; }
if needed "$stage/cmake/probe_linked" | grep -qE "$nvidia"; then
  echo "probe_linked (cushim::cudart) needs an NVIDIA library"; exit 1
fi
ctest=$(dirname "$cmake")/ctest
[[ -x $ctest ]] || ctest=ctest
(cd "$stage/cmake" && CUSHIM_DRIVER=$mock "$ctest" -V) >"$stage/ctest.log" 2>&1 ||
  { cat "$stage/ctest.log"; exit 1; }
grep -E '^[0-9]+: (libcudart|kernel)|tests passed' "$stage/ctest.log"
echo "cudart consumer: ok"
