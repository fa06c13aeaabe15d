#!/usr/bin/env bash
# Builds tests/consumer/project with this source tree as its subprojects/cushim and runs it.
# With --configure-only, only configures it, with the SETUP_ARGS that follow (a parent's own
# choices, such as --fatal-meson-warnings), and shows what Meson printed. With
# --optimised-interpreter, configures it as a debug parent with cushim's mock and checks that the
# PTX interpreter is built optimised all the same.
#   run-subproject.sh CUSHIM_SOURCE_DIR [--configure-only SETUP_ARGS... | --optimised-interpreter]
set -euo pipefail
src=$1
shift
configure_only=false
optimised=false
if [[ ${1:-} == --configure-only ]]; then
  configure_only=true
  shift
elif [[ ${1:-} == --optimised-interpreter ]]; then
  optimised=true
  shift
  set -- --buildtype=debug -Dcushim:mock=true
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/tests/consumer/project/." "$work/"
mkdir -p "$work/subprojects"
ln -s "$src" "$work/subprojects/cushim"
cd "$work"
meson setup build "$@" >setup.log 2>&1 || { cat setup.log; exit 1; }
if $optimised; then
  python3 "$src/tests/consumer/check-optimised-interpreter.py" build/compile_commands.json
  echo "optimised interpreter in a debug parent: ok"
  exit 0
fi
if $configure_only; then
  grep -i 'warning' setup.log || echo "no warning in the parent's configure ($*)"
  echo "subproject configure: ok"
  exit 0
fi
meson compile -C build >compile.log 2>&1 || { cat compile.log; exit 1; }
./build/consumer
./build/dropin
if readelf -d build/dropin | grep -q libcuda; then echo "the drop-in consumer needs libcuda"; exit 1; fi
bash "$src/tests/consumer/check-nvrtc.sh" build/nvrtc
# A plain subproject brings the library and nothing else: the parent's own tests are all that
# `meson test` lists, and its install holds no tool, test, example or mock of cushim's.
tests=$(meson test -C build --list --no-rebuild 2>/dev/null)
echo "the parent's meson test lists $(grep -c . <<<"$tests") tests: $(tr '\n' ' ' <<<"$tests")"
if grep -v -E '^(cushim-consumer *[:/] *)?(consumer|dropin)$' <<<"$tests" | grep -q .; then
  echo "cushim's own tests are in the parent's meson test"; exit 1
fi
meson install -C build --destdir "$work/stage" >install.log 2>&1 || { cat install.log; exit 1; }
extra=$(cd "$work/stage" && find . -type f | grep -E 'cushim-info|cushim-bench|cushim-mock|/test_|examples' || true)
[[ -z $extra ]] || { echo "the parent's install has cushim's tools or tests: $extra"; exit 1; }
# Absolute paths are source files that regenerate the build, and name no target of it.
targets=$(ninja -C build -t targets all | grep -v '^/' | grep -cE 'cushim-info|cushim-bench|test_|hello|mock' || true)
[[ $targets -eq 0 ]] || { echo "the parent builds $targets of cushim's tool, test or mock targets"; exit 1; }
echo "subproject consumer: ok"
