#!/usr/bin/env bash
# NVIDIA's runtime samples on cushim's runtime and the mock driver, without a GPU: builds the
# samples of the `rt` class with the toolkit's nvcc (shared/clients/rt/build.sh, beside the
# repository and read-only: the binaries go to a temporary folder), runs them with
# shared/clients/rt/run.sh on BUILD_DIR's libcudart.so.13 and mock at --size small, prints the
# table, and fails when a sample named in expected-pass.txt (next to this script) did not pass.
# A sample that passes and is not named is reported, so that the list can grow.
#
#   run-on-mock.sh BUILD_DIR [SHARED_DIR]
#   run-on-mock.sh --build-only OUT [SHARED_DIR]   (only the nvcc builds, into OUT, for
#                                                   RT_SAMPLES_BUILT; no cushim build needed)
#
# The samples of not-passing.txt are neither built nor run unless asked (RT_SAMPLES_ALL=1, or
# named in RT_SAMPLES_ONLY): the report names them with the reason it gives. A sample that does
# not pass is printed with its time and why; the samples of slow.txt run one at a time beside
# the others, with the longer timeout it gives (RT_SAMPLES_SLOW_TIMEOUT). SHARED_DIR defaults
# to ../shared beside the repository. Environment: RT_SAMPLES_JOBS (nvcc builds and samples at
# a time, default 2), RT_SAMPLES_TIMEOUT (seconds per sample, default 60), RT_SAMPLES_ONLY (a
# comma-separated subset to build and run), RT_SAMPLES_BUILT (a folder where build.sh or
# --build-only already built the samples: reused, not rebuilt), RT_SAMPLES_CACHE (a folder that
# keeps the binaries between runs, one subfolder per nvcc version, build.sh and selection: a
# run that finds its subfolder complete skips the nvcc builds).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[[ $# -ge 1 ]] || { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build_only=""
if [[ $1 == --build-only ]]; then
  [[ $# -ge 2 ]] || { echo "--build-only needs the folder to build into"; exit 2; }
  mkdir -p "$2"
  build_only=$(cd "$2" && pwd)
  shift
else
  build=$(cd "$1" && pwd)
fi
shared=${2:-$repo/../shared}
rt=$shared/clients/rt
jobs=${RT_SAMPLES_JOBS:-2}
timeout=${RT_SAMPLES_TIMEOUT:-60}
only=${RT_SAMPLES_ONLY:-}
expected=$here/expected-pass.txt

for f in "$rt/build.sh" "$rt/run.sh"; do
  [[ -f $f ]] || { echo "no $f: the samples' scripts must lie in $shared/clients/rt"; exit 1; }
done
if [[ -z $build_only ]]; then
  cudart=$build/runtime/cudart
  mock=$build/mock/libcushim-mock.so
  [[ -f $cudart/libcudart.so.13 ]] ||
    { echo "no $cudart/libcudart.so.13: build cushim's runtime first (ninja -C $build)"; exit 1; }
  [[ -f $mock ]] || { echo "no $mock: build cushim with its tests or -Dmock=true"; exit 1; }
fi

# What is built and run: RT_SAMPLES_ONLY's names; else every sample of class rt but those of
# not-passing.txt (they cannot pass: building and running them spends minutes of CI for a
# known answer), unless RT_SAMPLES_ALL=1.
listed=$(sed 's/#.*//' "$here/not-passing.txt" | awk 'NF { print $1 }' | sort -u)
rt_all=$(bash "$rt/build.sh" --list | awk 'NR > 1 && $2 == "rt" { print $1 }' | sort)
skipped=""
if [[ -n $only ]]; then
  selected=$only
elif [[ ${RT_SAMPLES_ALL:-} == 1 ]]; then
  selected=$(paste -sd, <<<"$rt_all")
else
  selected=$(comm -23 <(printf '%s\n' "$rt_all") <(printf '%s\n' "$listed") | paste -sd, -)
  skipped=$(comm -12 <(printf '%s\n' "$rt_all") <(printf '%s\n' "$listed"))
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${RT_SAMPLES_BUILT:-${build_only:-$work/samples}}
if [[ -z ${RT_SAMPLES_BUILT:-} && -z $build_only && -n ${RT_SAMPLES_CACHE:-} && -z $only ]]; then
  nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
  key=$( ("$nvcc" --version; cat "$rt/build.sh"; echo "$selected") | sha256sum | cut -c1-16)
  out=$RT_SAMPLES_CACHE/$key
  if [[ -f $out/.complete ]]; then
    echo "nvcc builds: reused from $out"
    RT_SAMPLES_BUILT=$out
  fi
fi
if [[ -z ${RT_SAMPLES_BUILT:-} ]]; then
  start=$(date +%s)
  # A sample that fails to build is not fatal here: it did not pass, which the list decides.
  bash "$rt/build.sh" "$out" -j "$jobs" --class rt --only "$selected" >"$work/build.log" 2>&1 ||
    true
  grep -E '^built [0-9]+ of' "$work/build.log" || { tail -n 20 "$work/build.log"; exit 1; }
  grep -E '^[A-Za-z_0-9]+ +rt +failed' "$work/build.log" || true
  echo "nvcc builds: $(($(date +%s) - start)) s with -j $jobs"
  [[ -n ${RT_SAMPLES_CACHE:-} && -z $only && -z $build_only ]] && touch "$out/.complete"
fi
if [[ -n $build_only ]]; then
  [[ -z $skipped ]] || echo "not built (tests/rt-samples/not-passing.txt):" $skipped
  exit 0
fi

tsv=$work/results.tsv
start=$(date +%s)
# The samples of slow.txt (no size option: their default problem takes the interpreter longer
# than the usual timeout) run apart from the others, with their own, longer timeout.
all=$(for d in "$out"/*/; do
  n=$(basename "$d")
  [[ -x $d/$n && $(cat "$d/CLASS" 2>/dev/null) == rt ]] || continue
  [[ ,$selected, == *",$n,"* ]] && echo "$n"
done | sort)
slow_all=$(sed 's/#.*//' "$here/slow.txt" | awk 'NF { print $1 }' | sort -u)
slow=$(comm -12 <(printf '%s\n' "$all") <(printf '%s\n' "$slow_all") | paste -sd, -)
fast=$(comm -23 <(printf '%s\n' "$all") <(printf '%s\n' "$slow_all") | paste -sd, -)
slow_timeout=${RT_SAMPLES_SLOW_TIMEOUT:-$(sed 's/#.*//' "$here/slow.txt" | awk 'NF && $2 > m { m = $2 }
  END { print m + 0 }')}
# run.sh exits non-zero when a sample fails; the list below is the verdict.
: >"$tsv"
run_batch() { # run_batch fast|slow JOBS
  local names=${!1} tmo=$timeout
  [[ $1 == slow ]] && tmo=$((slow_timeout > timeout ? slow_timeout : timeout))
  bash "$rt/run.sh" "$out" --class rt --cudart "$cudart" --env "CUSHIM_DRIVER=$mock" \
    --size small --timeout "$tmo" -j "$2" --only "$names" --tsv "$work/$1.tsv" || true
}
if [[ -n $fast && -n $slow && $jobs -ge 2 ]]; then
  # Side by side, as many samples at a time as before: the slow ones one at a time, the others
  # on the rest, so that no core idles while histogram runs on alone at the end. The slow
  # batch's table is printed after the other's.
  run_batch slow 1 >"$work/slow.out" 2>&1 &
  slow_pid=$!
  run_batch fast $((jobs - 1))
  wait "$slow_pid" || true
  cat "$work/slow.out"
else
  [[ -z $fast ]] || run_batch fast "$jobs"
  [[ -z $slow ]] || run_batch slow "$jobs"
fi
cat "$work/fast.tsv" "$work/slow.tsv" >>"$tsv" 2>/dev/null || true
echo "runs: $(($(date +%s) - start)) s"
[[ -s $tsv ]] || { echo "run.sh wrote no results"; exit 1; }

# The verdict: every name of expected-pass.txt (one a line, # comments) passed (exit 0).
passed=$(awk -F'\t' '$4 == 0 { print $1 }' "$tsv" | sort)
want=$(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$expected" | sort -u)
if [[ -n $only ]]; then  # a subset: only its names are expected
  want=$(comm -12 <(printf '%s\n' "$want") <(tr ',' '\n' <<<"$only" | sort -u))
fi
missing=$(comm -23 <(printf '%s\n' "$want" | sed '/^$/d') <(printf '%s\n' "$passed" | sed '/^$/d'))
extra=$(comm -13 <(printf '%s\n' "$want" | sed '/^$/d') <(printf '%s\n' "$passed" | sed '/^$/d'))
echo "passed $(printf '%s' "$passed" | grep -c . || true) of $(wc -l <"$tsv"); expected to pass:" \
  "$(printf '%s' "$want" | grep -c . || true) (tests/rt-samples/expected-pass.txt)"
# Each sample that did not pass, with its time and why: the sentence of not-passing.txt (or
# slow.txt) where the sample is listed there, and its own last line; a timeout or a signal says
# so plainly.
echo "not passing (exit, seconds, why):"
awk -F'\t' '
  FNR == NR { if ($0 !~ /^#/ && NF) { n = $0; sub(/ .*/, "", n); r = $0; sub(/^[^ ]+ +/, "", r)
                                      why[n] = r }
              next }
  $4 != 0 {
    how = $4 == 124 || $4 == 137 ? "timed out" : $4 > 128 ? "killed by signal " ($4 - 128) \
                                                           : "exit " $4
    printf "  %s: %s, %.0f s: %s\n", $1, how, $5 / 1000,
           ($1 in why) ? why[$1] : "not listed in tests/rt-samples/not-passing.txt"
    printf "      its last line: %s\n", $7
    if ($4 == 124 || $4 > 128) rough = rough " " $1
  }
  END { if (rough != "") print "  timed out or killed (no sentence of their own):" rough }
' <(sed 's/#.*//' "$here/not-passing.txt"
     sed 's/#.*//' "$here/slow.txt" | awk 'NF { n = $1; t = $2; sub(/^[^ ]+ +[^ ]+ +/, "")
       print n " too slow for the PTX interpreter (no size option; " $0 "; slow.txt gives it " t " s)" }') \
  "$tsv"
if [[ -n $skipped ]]; then
  echo "not run (tests/rt-samples/not-passing.txt; RT_SAMPLES_ALL=1 builds and runs them):"
  for n in $skipped; do
    sed 's/#.*//' "$here/not-passing.txt" |
      awk -v n="$n" '$1 == n { sub(/^[^ ]+ +/, ""); print "  " n ": " $0 }'
  done
fi
cured=$(comm -12 <(printf '%s\n' "$listed") <(printf '%s\n' "$passed" | sed '/^$/d'))
[[ -z $cured ]] || echo "passing, and still in not-passing.txt: $(tr "\n" " " <<<"$cured")"
if [[ -n $extra ]]; then
  echo "passing, and not yet in expected-pass.txt: $(tr "\n" " " <<<"$extra")"
fi
if [[ -n $missing ]]; then
  echo "FAILED: expected to pass, and did not:"
  for n in $missing; do
    awk -F'\t' -v n="$n" '$1 == n { printf "  %s: exit %s, %s\n", n, $4, $7; f = 1 }
      END { if (!f) printf "  %s: not built or not run\n", n }' "$tsv"
  done
  exit 1
fi
echo "rt samples on the mock: ok"
