#!/usr/bin/env bash
# The device check: one prepared call of the device tool on a lent H100/H200.
#
#   bash bench/gpu_check.sh pack          here (2 cores, nvcc, no GPU): builds build-gpu
#                                          for sm_90 (CUDA on, MPI off, the Python module
#                                          for the device's Python 3.12), and fills .gpu/
#                                          (ignored by git): bin/ (tests, benchmarks, tools,
#                                          the plugin), py/snap_ml (the package with its
#                                          _core), lib/ (libraries the device image lacks),
#                                          whl/ (IBM snapml, the peer), data/ (the shared
#                                          datasets). Nothing is built on the device: a
#                                          lease is 15 minutes, start-up included.
#   bash bench/gpu_check.sh run [STEPS]   on the device (carry [".gpu"]): runs the STEPS
#                                          (comma list, default all: env,tests,python,side,
#                                          bench,cpu), each time-boxed so that the whole
#                                          call ends within DEADLINE seconds (default 420),
#                                          and writes $OUT/report.md (and the logs) and
#                                          $OUT/gpu-run.md, the section docs/benchmarks/
#                                          gpu.md takes. TESTS (binaries), BENCH_ONLY (a
#                                          regex on bench/gpu/benchmarks.txt's lines),
#                                          SIDE_ROWS and SIDE_PEERS narrow the steps.
#                                          The cpu step (bench/gpu/cpu_scaling.py, ~150 s,
#                                          CPU_S; CPU_ARGS its options) also writes
#                                          $OUT/threads-run.md, docs/benchmarks/threads.md's.
#   bash bench/gpu_check.sh record DIR    here: adds DIR/gpu-run.md (what a run sent
#                                          back) to docs/benchmarks/gpu.md, and
#                                          DIR/threads-run.md to threads.md, newest first.
#
# docs/gpu.md, "Running on a lent GPU", says what each step measures and why.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
G=$ROOT/.gpu
MODE=${1:-}
shift || true

# ---- pack (here) ------------------------------------------------------------------
pack() {
  set -e
  local build=${SNAPML_GPU_BUILD_DIR:-$ROOT/build-gpu}
  # The device's Python is 3.12: the module is built for it (a pyenv install here).
  local python=${SNAPML_DEVICE_PYTHON:-}
  if [[ -z "$python" ]]; then
    for candidate in python3.12 /root/.pyenv/versions/3.12*/bin/python3.12; do
      "$candidate" -c pass 2>/dev/null && { python=$candidate; break; }
    done
  fi
  [[ -n "$python" ]] || { echo "pack: no working Python 3.12 (the device's); set SNAPML_DEVICE_PYTHON" >&2; exit 1; }
  "$python" -c "import pybind11" 2>/dev/null || "$python" -m pip install -q pybind11
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSNAPML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DSNAPML_MPI=OFF -DSNAPML_PYTHON=ON -DPython_EXECUTABLE="$python" \
        -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)" "${launcher[@]}" > /tmp/snapml-gpu-configure.log
  cmake --build "$build" -j "$(nproc)"
  rm -rf "$G" && mkdir -p "$G"/{bin,lib,py/snap_ml,whl,data}
  find "$build/tests/gpu" "$build/bench" -maxdepth 1 -type f -perm -u+x -name '*_*' ! -name parse_throughput \
       ! -name '*_emulated' -exec cp {} "$G/bin/" \;
  cp "$build"/snapml/cli/snap-{train,predict,convert} "$build"/datasets/snap-criteo-gen "$G/bin/"
  # The whole package, its subpackages (linear_model, svm, ibm) included.
  cp -r "$ROOT"/python/snap_ml/. "$G/py/snap_ml/" && find "$G/py" -name __pycache__ -prune -exec rm -rf {} +
  # One copy of the plugin (beside _core, where pip puts it): the tools and the
  # benchmarks find it through SNAPML_GPU_BACKEND (run); two would pass 64 MiB.
  cp "$build"/python/_core*.so "$build"/cuda/libsnapml_gpu.so "$G/py/snap_ml/"
  # What travels is at most 64 MiB with the tree: symbols stay here.
  strip --strip-unneeded "$G"/bin/* "$G"/py/snap_ml/*.so
  # Shared libraries the programs link that the device image may lack (its CUDA
  # libraries are found there: /usr/local/cuda, else the image's Python wheels).
  for lib in libxxhash.so.0 libgomp.so.1; do
    cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" "$G/lib/"
  done
  "$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d "$G/whl" "snapml==1.17.2"
  # pytest for tests/python/gpu_session_checks.py (the device image may lack it).
  "$python" -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d "$G/whl" pytest
  local data=${SNAPML_DATA_DIR:-$ROOT/../shared/datasets}
  cp "$data"/heart_scale "$G/data/"
  # The project's svmlight reader tells gzip by its magic (python_seed.py too): the
  # sets travel compressed under their own names.
  for set in a9a a9a.t mushrooms w8a news20.multiclass; do gzip -9 -c "$data/$set" > "$G/data/$set"; done
  local dirty=""
  git -C "$ROOT" diff --quiet HEAD || dirty="+uncommitted"
  echo "$(git -C "$ROOT" rev-parse --short HEAD)$dirty" > "$G/commit"
  grep -qx '/.gpu/' "$ROOT/.git/info/exclude" 2>/dev/null || echo '/.gpu/' >> "$(git -C "$ROOT" rev-parse --git-common-dir)/info/exclude"
  du -sh "$G"
}

# ---- run (on the device) ------------------------------------------------------------
run() {
  # The order is the priority under DEADLINE: the tests, the seed's example (with the
  # multinomial check), the benchmarks (issue 33's criteria first), then the peers.
  local steps=${1:-env,tests,python,bench,side,cpu}
  has() { [[ ",$steps," == *",$1,"* ]]; }
  local O=${OUT:-/tmp/gpu-check-out}
  mkdir -p "$O"
  local REP=$O/report.md T0
  T0=$(date +%s)
  local DEADLINE=${DEADLINE:-420}
  el() { echo "$(( $(date +%s) - T0 ))s"; }
  # Seconds a step may take: at most $1, and never past the deadline.
  left() { local l=$(( DEADLINE - ($(date +%s) - T0) - 5 )); (( l > $1 )) && l=$1; (( l < 1 )) && l=1; echo $l; }
  [[ -x $G/bin/snap-train ]] || { echo "run: no $G/bin: run 'bash bench/gpu_check.sh pack' here and carry .gpu" | tee "$REP"; return 1; }
  export LD_LIBRARY_PATH=$G/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export SNAPML_GPU_BACKEND=$G/py/snap_ml/libsnapml_gpu.so SNAPML_DATA_DIR=$G/data PYTHONUNBUFFERED=1
  if ldd "$SNAPML_GPU_BACKEND" | grep -q "not found"; then  # the image's CUDA wheels
    for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib; do LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d; done
  fi
  local device driver
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  {
    echo "# device check $(date -u '+%F %T') UTC"
    echo "- device: ${device:-none visible}; driver ${driver:-?}; $(nproc) cores; $(free -g | awk '/Mem/{print $2}') GiB"
    echo "- commit: $(cat "$G/commit" 2>/dev/null || echo unknown)"
    echo "- command: bash bench/gpu_check.sh run $steps (DEADLINE=$DEADLINE)"
  } > "$REP"
  { echo "## ldd (missing)"; for f in "$G"/bin/* "$G"/py/snap_ml/*.so; do ldd "$f" 2>/dev/null | grep "not found" | sed "s|^|$(basename "$f"): |"; done; } >> "$REP"

  if has tests; then
    echo "== tests $(el)"
    echo "## GPU tests (each binary time-boxed)" >> "$REP"
    local passed=0 failed=0 skipped=0 t rc s ok bad skip
    # Every GPU test binary pack carried (tests/gpu's, the emulated ones left here).
    for t in ${TESTS:-$(cd "$G/bin" && ls test_* 2>/dev/null)}; do
      [[ -x $G/bin/$t ]] || { echo "- $t: not carried" >> "$REP"; continue; }
      s=$(date +%s)
      timeout "$(left "${TEST_S:-60}")" "$G/bin/$t" > "$O/$t.log" 2>&1
      rc=$?
      ok=$(grep -cE '^\[       OK \]' "$O/$t.log"); bad=$(grep -cE '^\[  FAILED  \] [A-Za-z].*\(' "$O/$t.log")
      skip=$(grep -cE '^\[  SKIPPED \] [A-Za-z].*\(' "$O/$t.log")
      passed=$(( passed + ok )); failed=$(( failed + bad )); skipped=$(( skipped + skip ))
      (( rc == 124 )) && failed=$(( failed + 1 ))
      echo "- $t: exit $rc in $(( $(date +%s) - s )) s; $ok passed, $bad failed, $skip skipped$( (( rc == 124 )) && echo ', TIMED OUT')" >> "$REP"
      grep -E '^\[  FAILED  \] [A-Za-z].*\(' "$O/$t.log" | sort -u | head -12 | sed 's/^/    /' >> "$REP"
    done
    echo "TESTS: $passed passed, $failed failed, $skipped skipped" >> "$REP"
    cat "$O"/test_*.log > "$O/tests.log" 2>/dev/null; rm -f "$O"/test_*.log
  fi

  if has python || has side || has cpu; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$G"/whl/*.whl \
      > "$O/pip.log" 2>&1 || echo "(IBM snapml wheel did not install: $O/pip.log)" >> "$REP"
  fi
  if has python; then
    echo "== python $(el)"
    { echo; echo "## Python: the seed's example on a9a -> a9a.t (snap_ml with device_ids, IBM snapml, scikit-learn)"; } >> "$REP"
    (cd /tmp && PYTHONPATH=$G/py:/tmp/site timeout "$(left 120)" python3 "$ROOT/bench/gpu/python_seed.py" "$G/data") >> "$REP" 2>&1
    echo "(exit $?)" >> "$REP"
    # The estimators' kept sessions on the device (the same checks CI runs over the
    # emulated runtime): uploads counted, rows reused and replaced, exact answers.
    { echo; echo "## Python: GPU sessions (tests/python/gpu_session_checks.py)"; } >> "$REP"
    (set -o pipefail; cd /tmp && PYTHONPATH=$G/py:/tmp/site SNAPML_TEST_GPU_COUNT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') \
      timeout "$(left 120)" python3 -m pytest -q -p no:cacheprovider "$ROOT/tests/python/gpu_session_checks.py" 2>&1 \
      | tail -25) >> "$REP" 2>&1
    echo "(exit $?)" >> "$REP"
    # The random Fourier features' GPU kernel against the CPU's (heart_scale from
    # SNAPML_DATA_DIR), and -C's search on the GPU (every C, the CPU's best C).
    { echo; echo "## Python: test_kernel.py -k gpu; snap-train -s 0 -C --gpu on heart_scale"; } >> "$REP"
    (set -o pipefail; cd /tmp && PYTHONPATH=$G/py:/tmp/site timeout "$(left 60)" python3 -m pytest -q -rs -p no:cacheprovider \
      -k gpu "$ROOT/tests/python/test_kernel.py" 2>&1 | tail -5) >> "$REP" 2>&1
    echo "(exit $?)" >> "$REP"
    (set -o pipefail; timeout "$(left 60)" "$G/bin/snap-train" -s 0 -C --gpu -n 1 "$G/data/heart_scale" 2>&1 | tail -3) >> "$REP" 2>&1
    echo "(exit $?)" >> "$REP"
  fi

  if has side; then
    echo "== side $(el)"
    local W=/tmp/side rows
    mkdir -p $W
    for rows in ${SIDE_ROWS:-2000000 10000000}; do  # SIDE_PEERS: side_by_side.py's peers
      local bits=20; (( rows > 4000000 )) && bits=22
      local test_rows=$(( rows / 10 )); (( test_rows > 500000 )) && test_rows=500000
      { "$G/bin/snap-criteo-gen" --rows "$rows" --first-row 0 --seed 11 --threads "$(nproc)" --output $W/train.tsv &&
        "$G/bin/snap-criteo-gen" --rows "$test_rows" --first-row "$rows" --seed 11 --threads "$(nproc)" --output $W/test.tsv &&
        "$G/bin/snap-convert" --from criteo --hash-bits $bits --threads "$(nproc)" $W/train.tsv $W/train-$rows.snap &&
        "$G/bin/snap-convert" --from criteo --hash-bits $bits --threads "$(nproc)" $W/test.tsv $W/test-$rows.snap; } \
        > "$O/side_prep_$rows.log" 2>&1 || { echo "side: data for $rows rows failed ($O/side_prep_$rows.log)" >> "$REP"; continue; }
      rm -f $W/train.tsv $W/test.tsv
      { echo; echo "## Side by side: Criteo-like $rows train / $test_rows test rows (hash 2^$bits), logistic C = 0.1 ($(el))"; } >> "$REP"
      PYTHONPATH=/tmp/site timeout "$(left "${SIDE_S:-170}")" python3 "$ROOT/bench/gpu/side_by_side.py" \
        "$G/bin" $W/train-$rows.snap $W/test-$rows.snap "$(nproc)" "$O/side.jsonl" ${SIDE_PEERS:-} > "$O/side_$rows.log" 2>&1
      echo "(exit $?)" >> "$REP"
      sed -n '/^| peer/,$p' "$O/side_$rows.log" >> "$REP"
      rm -f $W/train-$rows.snap $W/test-$rows.snap
    done
  fi

  if has bench; then
    local spec name args
    # name timeout args; the helpers' benchmarks print their own tables.
    while IFS='|' read -r name to args; do
      [[ -z "$name" || "$name" == \#* ]] && continue
      [[ -n "${BENCH_ONLY:-}" && ! "$name|$to|$args" =~ $BENCH_ONLY ]] && continue
      [[ -x $G/bin/$name ]] || continue
      echo "== $name $(el)"
      { echo; echo "## $name $args"; } >> "$REP"
      # shellcheck disable=SC2086
      timeout "$(left "$to")" "$G/bin/$name" $args >> "$REP" 2>&1
      echo "(exit $?)" >> "$REP"
    done < "$ROOT/bench/gpu/benchmarks.txt"
  fi

  if has cpu; then
    # bench/gpu/cpu_scaling.py: the thread table, the side by side with IBM snapml at
    # the largest thread count (the wheel installed above), the Newton solver, the
    # 10M-row log when time is left; CPU_ARGS passes it options (small rows to try
    # the step without a device). Its section for docs/benchmarks/threads.md is
    # $O/threads-run.md (`record` puts it in).
    echo "== cpu threads $(el)"
    local budget commit
    budget=$(left "${CPU_S:-150}")
    commit=$(cat "$G/commit" 2>/dev/null || echo unknown)
    {
      echo "### Device run of $(date -u '+%F %H:%M') UTC: $(nproc) CPUs, ${device:-no GPU visible}"
      echo
      echo "Commit $commit; command \`bash bench/gpu_check.sh run $steps\` (its cpu step: \`python3"
      echo "bench/gpu/cpu_scaling.py TOOLS --deadline $budget ${CPU_ARGS:-}\`, the binaries of \`gpu_check.sh pack\`)."
    } > "$O/threads-run.md"
    # shellcheck disable=SC2086
    PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} timeout "$(( budget + 10 ))" python3 "$ROOT/bench/gpu/cpu_scaling.py" \
      "$G/bin" --work /tmp/cpu_scaling --deadline "$budget" ${CPU_ARGS:-} > "$O/cpu_scaling.log" 2>&1
    echo "(exit $?)" >> "$O/cpu_scaling.log"
    # Its headings one level down: the section's own is ###.
    sed -e '/^## CPU threads/d' -e 's/^### /#### /' "$O/cpu_scaling.log" >> "$O/threads-run.md"
    { echo; echo "## CPU threads ($(el))"; sed -e '/^## CPU threads/d' "$O/cpu_scaling.log"; } >> "$REP"
  fi
  echo "== done $(el)"
  echo "total $(el)" >> "$REP"
  python3 "$ROOT/bench/gpu/run_section.py" "$REP" > "$O/gpu-run.md" 2>> "$REP"
  cat "$REP"
}

# ---- record (here) ------------------------------------------------------------------
record() {
  local dir=${1:?usage: bench/gpu_check.sh record DIR, the folder the files of a run came back in}
  [[ -f $dir/gpu-run.md ]] && python3 "$ROOT/bench/gpu/run_section.py" --insert "$dir/gpu-run.md" "$ROOT/docs/benchmarks/gpu.md"
  # The cpu step's section (a run with the step).
  [[ -f $dir/threads-run.md ]] && python3 "$ROOT/bench/gpu/run_section.py" --insert "$dir/threads-run.md" \
    "$ROOT/docs/benchmarks/threads.md" "<!-- 16-core runs: newest first -->"
  return 0
}

case "$MODE" in
  pack) pack ;;
  run) run "${1:-}" ;;
  record) record "${1:-}" ;;
  *) sed -n '2,25p' "$0" >&2; exit 2 ;;
esac
