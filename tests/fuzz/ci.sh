#!/usr/bin/env bash
# The API fuzzer in CI: builds it with clang, AddressSanitizer and UBSan (in build-fuzz, or
# $FUZZ_BUILD_DIR), replays the seed corpus, then fuzzes for $FUZZ_SECONDS seconds (60 by
# default) from a scratch copy of the seeds, so that nothing it finds is written into the
# repository. Prints "fuzz: N executions in S s, 0 failures", or the failure and the input that
# caused it (kept in the build directory's fuzz-artifacts/), and exits nonzero on any crash,
# broken invariant, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
# libFuzzer reads -max_total_time=0 as no limit at all.
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "fuzz: FUZZ_SECONDS must be a whole number of seconds, at least 1 (it is '$seconds')" >&2
  exit 2
fi
options=(-Dfuzz=enabled "-Db_sanitize=address,undefined" -Db_lundef=false -Dwerror=true
         -Dexamples=false -Dnvcc=disabled)

if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" "${options[@]}" >/dev/null
else
  CC=clang meson setup "$build" "${options[@]}" >/dev/null
fi
ninja -C "$build" fuzz tests/fuzz/fuzz_replay >/dev/null
build=$(cd "$build" && pwd) # absolute from here on, whether it was given so or not

# A sanitizer report is fatal, and names its stack; leaks are checked after each input.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export CUSHIM_DRIVER="$build/mock/libcushim-mock.so"
fuzzer="$build/tests/fuzz/fuzz_api"

echo "fuzz: replaying tests/fuzz/corpus"
meson test -C "$build" --no-rebuild --print-errorlogs fuzz_corpus_replay

scratch=$(mktemp -d)
ptx_pid=
trap '[ -z "$ptx_pid" ] || kill "$ptx_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
mkdir "$scratch/corpus"
cp tests/fuzz/corpus/* "$scratch/corpus/"
artifacts="$build/fuzz-artifacts"
rm -rf "$artifacts"
mkdir -p "$artifacts"
log="$build/fuzz.log"

# The PTX interpreter's parser and checker: malformed PTX is refused with a sentence, never a
# crash (its seeds, PTX of every instruction family, replay in every build as well). Its fuzzer
# runs beside the API's (each is one process), its inputs named ptx-* among the artifacts.
ptx_seconds=${FUZZ_PTX_SECONDS:-30}
mkdir "$scratch/ptx-corpus"
cp tests/fuzz/ptx-corpus/* "$scratch/ptx-corpus/"
ptx_log="$build/fuzz-ptx.log"
echo "fuzz: the PTX parser for $ptx_seconds s, beside the API (log: $ptx_log)"
"$build/tests/fuzz/fuzz_ptx" -max_total_time="$ptx_seconds" -timeout=30 -print_final_stats=1 \
  -artifact_prefix="$artifacts/ptx-" "$scratch/ptx-corpus" >"$ptx_log" 2>&1 &
ptx_pid=$!

echo "fuzz: fuzzing for $seconds s (log: $log)"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$scratch/corpus" >"$log" 2>&1 || status=$?

done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
# Belt and braces beside the exit status: any sanitizer, invariant or mock report in the log.
reports=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log" ||
          true)
reports=$((reports + $(grep -cE 'cushim fuzz: invariant|cushim mock: ' "$log" || true)))
found=$(find "$artifacts" -type f ! -name 'ptx-*' | wc -l)

if [ "$status" -ne 0 ] || [ -z "$done_line" ] || [ "$reports" -ne 0 ] || [ "$found" -ne 0 ]; then
  echo "fuzz: FAILED (exit status $status); the end of $log:"
  tail -n 60 "$log"
  for f in "$artifacts"/*; do
    [ -f "$f" ] && [[ $(basename "$f") != ptx-* ]] || continue
    echo "fuzz: input $f, replay with: $fuzzer $f  (CUSHIM_FUZZ_TRACE=1 lists its calls)"
    base64 -w 0 "$f"
    echo
  done
  exit 1
fi

runs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1/' <<<"$done_line")
secs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2/' <<<"$done_line")
echo "fuzz: $runs executions in $secs s, 0 failures"

status=0
wait "$ptx_pid" || status=$?
ptx_pid=
done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$ptx_log" | tail -n 1 || true)
found=$(find "$artifacts" -type f -name 'ptx-*' | wc -l)
if [ "$status" -ne 0 ] || [ -z "$done_line" ] || [ "$found" -ne 0 ]; then
  echo "fuzz: the PTX fuzzer FAILED (exit status $status); the end of $ptx_log:"
  tail -n 60 "$ptx_log"
  exit 1
fi
echo "fuzz: PTX: $(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1 executions in \2 s/' <<<"$done_line"), 0 failures"
