#!/usr/bin/env bash
# Installs the build into a staging dir (meson install --destdir) and compiles a program with
# nothing but `pkg-config --cflags --libs cushim` against that installed copy.
#   run-pkgconfig.sh BUILD_DIR CUSHIM_SOURCE_DIR
set -euo pipefail
build=$1
src=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log"; exit 1; }
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$stage$prefix"
pc=$(dirname "$(find "$root" -name cushim.pc | head -n 1)")
[[ -n $pc ]] || { echo "cushim.pc was not installed"; exit 1; }
for f in include/cushim.h include/cushim_table.h include/cushim-cuda/cuda.h \
         include/cushim-cuda/nvrtc.h include/cushim-cuda/nvJitLink.h bin/cushim-info; do
  [[ -e $root/$f ]] || { echo "not installed: $f"; exit 1; }
done
ls "$pc"/../libcushim.so.0 "$pc"/../libcushim.a >/dev/null
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$root" --cflags --libs cushim)
echo "pkg-config: $flags"
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/main.c" $flags \
  -o "$stage/consumer"
LD_LIBRARY_PATH="$(dirname "$pc")" "$stage/consumer"
readelf -d "$stage/consumer" | grep -q 'libcushim.so.0' || { echo "not linked to libcushim.so.0"; exit 1; }
if readelf -d "$stage/consumer" | grep -q 'libcuda'; then echo "linked to libcuda"; exit 1; fi
# A prefix outside the loader's path: the .pc file's rpath variable makes the program start with
# no LD_LIBRARY_PATH (the README, "Installing into a prefix").
rpath=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$root" --variable=rpath cushim)
echo "pkg-config --variable=rpath cushim: $rpath"
[[ $rpath == "-Wl,-rpath,$root/"* ]] || { echo "the rpath variable is '$rpath'"; exit 1; }
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/main.c" $flags $rpath \
  -o "$stage/consumer-rpath"
(unset LD_LIBRARY_PATH; "$stage/consumer-rpath")
# The static library needs no path at run time at all.
static_flags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$root" --static \
  --cflags --libs cushim)
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/main.c" \
  $(sed 's/-lcushim/-l:libcushim.a/' <<<"$static_flags") -o "$stage/consumer-static"
if readelf -d "$stage/consumer-static" | grep -q 'libcushim'; then echo "static: needs libcushim.so"; exit 1; fi
(unset LD_LIBRARY_PATH; "$stage/consumer-static")
# The drop-in: the same program source a libcuda user has, with cushim-cuda's flags for -lcuda.
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$root" --cflags --libs cushim-cuda)
echo "pkg-config cushim-cuda: $flags"
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/dropin.c" $flags \
  -o "$stage/dropin"
LD_LIBRARY_PATH="$(dirname "$pc")" "$stage/dropin"
if readelf -d "$stage/dropin" | grep -q 'libcuda'; then echo "drop-in linked to libcuda"; exit 1; fi
# A leftover -I of the toolkit's include directory before cushim-cuda's flags: <cuda.h> is the
# toolkit's, and the link must fail saying so (the README, "Troubleshooting"), not only with
# "undefined reference to cuInit".
toolkit=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$root" --cflags-only-I cushim |
  tr ' ' '\n' | grep '^-I' | grep -v "^-I$root" | tail -n 1)
printf '#include <cuda.h>\nint main(void) { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }\n' \
  >"$stage/bypassed.c"
if cc -std=c11 "$toolkit" "$stage/bypassed.c" $flags -o "$stage/bypassed" >"$stage/bypassed.log" 2>&1; then
  echo "a program compiled with the toolkit's cuda.h ($toolkit first) linked"; exit 1
fi
cat "$stage/bypassed.log"
grep -qE "cuda_h_was_the_toolkits_not_cushims_dropin|not cushim's drop-in" "$stage/bypassed.log" ||
  { cat "$stage/bypassed.log"; echo "the failed link does not say that the drop-in was bypassed"; exit 1; }
c++ -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ "$src/tests/consumer/project/dropin.c" \
  $flags -o "$stage/dropin-cxx"
LD_LIBRARY_PATH="$(dirname "$pc")" "$stage/dropin-cxx"
# Run-time compilation: the same flags in place of -lnvrtc -lnvJitLink -lcuda, in C and C++.
cc -std=c11 -Wall -Wextra -pedantic -Werror "$src/tests/consumer/project/nvrtc.c" $flags \
  -o "$stage/nvrtc"
c++ -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ "$src/tests/consumer/project/nvrtc.c" \
  $flags -o "$stage/nvrtc-cxx"
for exe in "$stage/nvrtc" "$stage/nvrtc-cxx"; do
  LD_LIBRARY_PATH="$(dirname "$pc")" bash "$src/tests/consumer/check-nvrtc.sh" "$exe"
done
echo "pkg-config consumer: ok"
