#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the input readers (tests/fuzz, clang) and runs
# each for a bounded time from its seed corpus (docs/reliability.md, "Fuzzers").
# Fails when any of them crashes, leaks, hangs past the timeout, outgrows the
# memory limit or breaks a property its harness checks; the input that did it is
# kept under $build/fuzz-artifacts/ and its log printed.
#
#   tests/fuzz/run_fuzzers.sh                       # every fuzzer, 20 s each
#   SNAPML_FUZZ_SECONDS=600 tests/fuzz/run_fuzzers.sh fuzz_binary   # one, longer
#
# Environment: SNAPML_FUZZ_SECONDS (per fuzzer, default 20), SNAPML_FUZZ_JOBS
# (fuzzers at once, default nproc), SNAPML_FUZZ_BUILD_DIR (default build-fuzz).
# The seed corpus is copied to a temporary directory: the repository is not
# modified (copy a new input into tests/fuzz/corpus/ by hand to keep it).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${SNAPML_FUZZ_BUILD_DIR:-build-fuzz}
seconds=${SNAPML_FUZZ_SECONDS:-20}
jobs=${SNAPML_FUZZ_JOBS:-$(nproc)}

# fuzzer -> its seed corpus folder under tests/fuzz/corpus
declare -A corpus=(
  [fuzz_svmlight]=svmlight
  [fuzz_svmlight_arrays]=svmlight
  [fuzz_criteo]=criteo
  [fuzz_binary]=binary
  [fuzz_model_text]=model_text
  [fuzz_model_liblinear]=model_liblinear
  [fuzz_checkpoint]=checkpoint
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_svmlight fuzz_svmlight_arrays fuzz_criteo fuzz_binary fuzz_model_text fuzz_model_liblinear
                                     fuzz_checkpoint)
for t in "${targets[@]}"; do
  [ -n "${corpus[$t]:-}" ] || { echo "run_fuzzers: unknown fuzzer '$t' (known: ${!corpus[*]})" >&2; exit 1; }
done

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="${SNAPML_FUZZ_CXX:-clang++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSNAPML_FUZZ=ON -DSNAPML_CUDA=OFF -DSNAPML_MPI=OFF -DSNAPML_TESTS=OFF -DSNAPML_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts="$PWD/$build/fuzz-artifacts"
mkdir -p "$artifacts"
fuzz_dir="$PWD/tests/fuzz"

run_one() {
  local t=$1 seeds=${corpus[$1]} dict=()
  mkdir -p "$work/$t"
  cp -r "$fuzz_dir/corpus/$seeds/." "$work/$t/"
  [ -f "$fuzz_dir/$seeds.dict" ] && dict=(-dict="$fuzz_dir/$seeds.dict")
  # -timeout: one input that takes longer is a hang; -rss_limit_mb also limits
  # a single allocation (malloc_limit_mb defaults to it): a reader that sizes
  # memory from a field of the file before checking it is caught here.
  # OMP_WAIT_POLICY=passive: the readers' OpenMP threads must not spin on the
  # cores the other fuzzers use.
  OMP_WAIT_POLICY=passive "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 "${dict[@]}" -artifact_prefix="$artifacts/$t-" "$work/$t" \
    > "$work/$t.log" 2>&1
}

# The fuzzers run $jobs at a time; each one's status is collected at the end.
failed=()
declare -A pid_of=()
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
  pid_of[$t]=$!
done
for t in "${targets[@]}"; do
  if wait "${pid_of[$t]}"; then
    echo "run_fuzzers: $t ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$t.log" | awk '{print $2}') inputs in ${seconds} s)"
  else
    failed+=("$t")
    echo "run_fuzzers: $t FAILED; its log:"
    tail -60 "$work/$t.log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run_fuzzers: ${failed[*]} failed; the inputs are under $artifacts (rerun one: $build/tests/fuzz/FUZZER INPUT)"
  exit 1
fi
