#!/usr/bin/env bash
# One call of the device tool on a lent H100/H200: build the CUDA backend, run the GPU
# tests, run the GPU benchmarks, and leave a report in $OUT (when set) and on stdout.
#
#   bench/gpu_check.sh --fetch-deps   here, once, on a machine that reaches the Debian
#                                     registry: downloads the .debs the build needs into
#                                     build-deps/debs (ignored by git, carried to the GPU)
#   bench/gpu_check.sh [tests|bench|cpu]  on the GPU machine (through the device tool,
#                                     with carry ["build-deps"]); see docs/gpu.md. `tests`
#                                     builds and runs ctest -L gpu only (a short call),
#                                     `bench` builds and runs the benchmarks only; no
#                                     argument does both, tests first. `cpu` measures the
#                                     CPU solver's threads on the lent machine's cores
#                                     (1 to 16, shared w or replicas, pinned or not) on the
#                                     generated click log: issue "faster than IBM Snap ML
#                                     on the CPU" asks for it whenever a machine is lent
#
# The GPU machines reach no package registry, and their image (KINDS.md) has nvcc,
# CMake and ninja but not the -dev packages this project builds against. So the build
# dependencies travel as .debs, unpacked into a private prefix (/tmp/snapml-deps), never
# into /. Where a dependency is already installed, or apt-get works, that is used.
#
# Environment: SNAPML_DEPS=carried forces the carried .debs (to test that path on any
# machine); SNAPML_GPU_TARGETS overrides the targets built; SNAPML_BUILD_DIR the build
# folder (default build-gpu, kept between calls on a warm machine).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEBS_DIR=$ROOT/build-deps/debs
PREFIX=/tmp/snapml-deps
BUILD=${SNAPML_BUILD_DIR:-$ROOT/build-gpu}
PACKAGES=(libeigen3-dev libgtest-dev libgmock-dev libxxhash-dev libxxhash0 libcli11-dev
          libfast-float-dev zlib1g-dev zlib1g pkgconf pkgconf-bin libpkgconf3)
# Test and benchmark executables of the CUDA backend; later GPU work adds its own here.
MODE=${1:-all}
TEST_TARGETS="test_gpu_probe test_gpu_hidden test_gpu_kernels test_sdca_gpu test_sdca_gpu_host test_stream_plan test_sdca_gpu_stream test_gpu_epoch_model test_operations_plan test_tron_gpu"
BENCH_TARGETS="gpu_spmv_bench gpu_sdca_bench gpu_stream_bench gpu_tron_bench"
CPU_TARGETS="snap-train snap-criteo-gen snap-convert"
case "$MODE" in
  tests) DEFAULT_TARGETS=$TEST_TARGETS ;;
  cpu) DEFAULT_TARGETS=$CPU_TARGETS ;;
  bench) DEFAULT_TARGETS=$BENCH_TARGETS ;;
  all) DEFAULT_TARGETS="$TEST_TARGETS $BENCH_TARGETS" ;;
  --fetch-deps) DEFAULT_TARGETS="" ;;
  *) echo "usage: bench/gpu_check.sh [--fetch-deps | tests | bench | cpu]" >&2; exit 2 ;;
esac
TARGETS=${SNAPML_GPU_TARGETS:-$DEFAULT_TARGETS}
# Two feature counts: w inside the 50 MB L2 (2^20 floats) and far outside it (2^26).
BENCH_RUNS=("--nnz 500000000 --features 1048576" "--nnz 500000000 --features 67108864")
# GPU SDCA: the epoch on 500M non-zeros against the floor, then GPU against CPU (16
# cores) on 20M non-zeros; w (2^20 doubles, 8 MB) stays in L2.
SDCA_BENCH_RUNS=("--nnz 500000000 --features 1048576 --cpu-nnz 20000000 --loss logistic")
# Out-of-core GPU training: 200M non-zeros (1.6 GB on the device) in chunks of 2^18
# rows (about 105 MB), streamed through two slots; the overlap of upload and kernels.
STREAM_BENCH_RUNS=("--nnz 200000000 --features 1048576 --chunk-rows 262144 --loss logistic")
# The primal Newton solver, GPU against CPU (all cores): a9a and news20 where the
# shared datasets are found (below), and a generated 100M non-zeros.
TRON_BENCH_RUNS=("--nnz 100000000 --features 1048576")
# The shared datasets (a9a, news20) for the GPU tests and gpu_tron_bench: carried
# shared/ first, then the folder beside the checkout; none found: those skip.
for dir in "${SNAPML_DATA_DIR:-}" "$ROOT/shared/datasets" "$ROOT/../shared/datasets"; do
  if [[ -n "$dir" && -f "$dir/a9a" ]]; then export SNAPML_DATA_DIR=$dir; break; fi
done

if [[ "${1:-}" == "--fetch-deps" ]]; then
  mkdir -p "$DEBS_DIR" && cd "$DEBS_DIR" && apt-get download "${PACKAGES[@]}" || exit 1
  du -sh "$DEBS_DIR"
  exit 0
fi

OUT_DIR=${OUT:-$ROOT/build-gpu-report}
mkdir -p "$OUT_DIR"
REPORT=$OUT_DIR/gpu_check.md
JOBS=$(nproc)
status=0
log() { echo "== $*" >&2; }

# ---- what is missing ---------------------------------------------------------
have_file() { [[ -e "$1" ]]; }
missing_deps() {
  local m=()
  have_file /usr/include/eigen3/Eigen/Core || m+=(eigen)
  have_file /usr/include/gtest/gtest.h || m+=(gtest)
  have_file /usr/include/gmock/gmock.h || m+=(gmock)
  compgen -G "/usr/lib/*/cmake/GTest/GTestConfig.cmake" >/dev/null ||
    compgen -G "/usr/lib/cmake/GTest/GTestConfig.cmake" >/dev/null || m+=(gtest-cmake)
  have_file /usr/include/xxhash.h || m+=(xxhash)
  have_file /usr/include/CLI/CLI.hpp || m+=(cli11)
  have_file /usr/include/fast_float/fast_float.h || m+=(fast_float)
  have_file /usr/include/zlib.h || m+=(zlib)
  command -v pkg-config >/dev/null || m+=(pkg-config)
  echo "${m[@]}"
}

# Unpacks every carried .deb into $PREFIX and points the tools at it.
use_carried_debs() {
  compgen -G "$DEBS_DIR/*.deb" >/dev/null || return 1
  rm -rf "$PREFIX" && mkdir -p "$PREFIX"
  for deb in "$DEBS_DIR"/*.deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$PREFIX"
    else
      (cd "$PREFIX" && ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" | tar -xf - ) || return 1
    fi
  done
  # Absolute symlinks (libz.so -> /lib/...) would leave the prefix: point them inside.
  while IFS= read -r link; do
    target=$(readlink "$link")
    [[ "$target" == /* && -e "$PREFIX$target" ]] && ln -sfn "$PREFIX$target" "$link"
  done < <(find "$PREFIX" -type l)
  sed -i "s|^prefix=/usr\$|prefix=$PREFIX/usr|" "$PREFIX"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc \
    "$PREFIX"/usr/share/pkgconfig/*.pc 2>/dev/null
  # Only the shared libraries the image lacks go on the loader path (pkgconf's own, and
  # xxhash for programs that link it); the image's libz and others stay in charge.
  mkdir -p "$PREFIX/runtime"
  for lib in "$PREFIX"/usr/lib/x86_64-linux-gnu/libpkgconf.so.3* "$PREFIX"/usr/lib/x86_64-linux-gnu/libxxhash.so.0*; do
    ln -sfn "$lib" "$PREFIX/runtime/"
  done
  export PATH=$PREFIX/usr/bin:$PATH
  export LD_LIBRARY_PATH=$PREFIX/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PKG_CONFIG_PATH=$PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$PREFIX/usr/share/pkgconfig
  export CPATH=$PREFIX/usr/include:$PREFIX/usr/include/eigen3${CPATH:+:$CPATH}
  export CMAKE_PREFIX_PATH=$PREFIX/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  return 0
}

log "dependencies"
missing=$(missing_deps)
deps_source="installed"
if [[ "${SNAPML_DEPS:-}" == "carried" ]]; then
  if ! use_carried_debs; then log "no .debs in $DEBS_DIR"; exit 1; fi
  deps_source="carried .debs (forced)"
elif [[ -n "$missing" ]]; then
  log "missing: $missing"
  if use_carried_debs; then
    deps_source="carried .debs in $PREFIX (missing: $missing)"
  elif command -v apt-get >/dev/null && timeout 60 apt-get update -qq &&
       DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq "${PACKAGES[@]}"; then
    deps_source="apt-get (missing: $missing)"
  else
    log "cannot get: $missing. Run 'bench/gpu_check.sh --fetch-deps' where a registry is reachable and carry build-deps."
    exit 1
  fi
fi
log "dependencies from: $deps_source"

# ---- toolchain ----------------------------------------------------------------
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[[ -f "$BUILD/CMakeCache.txt" ]] && generator=()  # keep the generator a warm build used

# ---- report header ------------------------------------------------------------
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "nvidia-smi failed")
{
  echo "# snapml GPU check"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- device (nvidia-smi: name, driver, memory): $gpu"
  echo "- nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo missing)"
  echo "- commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown) (working tree as sent)"
  echo "- dependencies: $deps_source"
  echo "- host: $(nproc) cores"
} > "$REPORT"

# ---- configure and build --------------------------------------------------------
log "configure"
if ! cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DSNAPML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DSNAPML_MPI=OFF -DSNAPML_PYTHON=OFF \
     > "$OUT_DIR/configure.log" 2>&1; then
  tail -40 "$OUT_DIR/configure.log"
  echo -e "\n**configure failed**: see configure.log" >> "$REPORT"
  cat "$REPORT"
  exit 1
fi
log "build ($JOBS jobs): $TARGETS"
start=$(date +%s)
# shellcheck disable=SC2086
if ! cmake --build "$BUILD" -j "$JOBS" --target $TARGETS > "$OUT_DIR/build.log" 2>&1; then
  tail -60 "$OUT_DIR/build.log"
  echo -e "\n**build failed**: see build.log" >> "$REPORT"
  cat "$REPORT"
  exit 1
fi
echo "- build: $(( $(date +%s) - start )) s for $TARGETS" >> "$REPORT"

# ---- tests ----------------------------------------------------------------------
if [[ "$MODE" != "bench" && "$MODE" != "cpu" ]]; then
log "ctest -L gpu"
(cd "$BUILD" && ctest -L gpu --output-on-failure --timeout 300) > "$OUT_DIR/ctest.log" 2>&1
ctest_rc=$?
[[ $ctest_rc -ne 0 ]] && status=1
{
  echo
  echo "## ctest -L gpu (exit $ctest_rc)"
  echo
  echo '```'
  grep -E "tests passed|tests failed|Skipped|\(Failed\)|\*\*\*" "$OUT_DIR/ctest.log" | head -40
  echo '```'
} >> "$REPORT"
fi

# ---- benchmarks -------------------------------------------------------------------
# ---- CPU threads -------------------------------------------------------------------
# Logistic SDCA (-s 7 -c 0.1) to a relative gap of 1e-4 on the generated click log
# (docs/benchmarks/threads.md, "Shared or replicas"): epochs, the fit's seconds
# (the solver's clock) and seconds per epoch, for each thread count, each way of
# sharing w, unpinned and pinned to cores (OMP_PROC_BIND=close, OMP_PLACES=cores).
# SNAPML_CPU_THREADS and SNAPML_CPU_ROWS shrink it for a trial on a small machine.
if [[ "$MODE" == "cpu" ]]; then
  rows=${SNAPML_CPU_ROWS:-900000}
  data=$BUILD/clicklog-$rows.snap
  if [[ ! -f "$data" ]]; then
    log "generate the click log ($rows rows)"
    "$BUILD/datasets/snap-criteo-gen" --rows "$rows" --seed 1 --threads "$JOBS" --output "$BUILD/clicklog.tsv" &&
      "$BUILD/snapml/cli/snap-convert" --from criteo --hash-bits 20 --threads "$JOBS" "$BUILD/clicklog.tsv" "$data" \
        > /dev/null || { echo -e "\n**click log generation failed**" >> "$REPORT"; cat "$REPORT"; exit 1; }
    rm -f "$BUILD/clicklog.tsv"
  fi
  {
    echo
    echo "## CPU threads: generated click log, $rows rows, snap-train -s 7 -c 0.1 -e 1e-4"
    echo
    echo "| threads | w | pinned | epochs | fit (s) | s / epoch |"
    echo "|---|---|---|---|---|---|"
  } >> "$REPORT"
  for n in ${SNAPML_CPU_THREADS:-1 2 4 8 16}; do
    for how in shared replicas; do
      [[ $n == 1 && $how == replicas ]] && continue
      for pinned in no yes; do
        log "snap-train -n $n --thread-updates $how (pinned: $pinned)"
        pin=()
        [[ $pinned == yes ]] && pin=(OMP_PROC_BIND=close OMP_PLACES=cores)
        if ! env "${pin[@]}" "$BUILD/snapml/cli/snap-train" -q -s 7 -c 0.1 -e 1e-4 -n "$n" --thread-updates "$how" \
             --history "$OUT_DIR/cpu_history.csv" "$data" "$OUT_DIR/cpu_model" 2> "$OUT_DIR/cpu.err"; then
          status=1
          echo "| $n | $how | $pinned | failed: $(head -c 200 "$OUT_DIR/cpu.err") | | |" >> "$REPORT"
          continue
        fi
        # The first record carries the one-off passes: seconds per epoch from there on.
        awk -F, -v n="$n" -v how="$how" -v pinned="$pinned" \
          'NR == 2 { e0 = $3; t0 = $4 } NR > 1 { e = $3; t = $4 }
           END { printf "| %s | %s | %s | %d | %.3f | %.4f |\n", n, how, pinned, e, t, (e > e0 ? (t - t0) / (e - e0) : t) }' \
          "$OUT_DIR/cpu_history.csv" >> "$REPORT"
      done
    done
  done
  rm -f "$OUT_DIR/cpu_history.csv" "$OUT_DIR/cpu_model" "$OUT_DIR/cpu.err"
fi

if [[ "$MODE" != "tests" && "$MODE" != "cpu" ]]; then
echo -e "\n## Benchmarks" >> "$REPORT"
# Runs $BUILD/bench/$1 once per further argument (its flags), into the report;
# nothing when the program was not built (not among SNAPML_GPU_TARGETS).
run_bench() {
  local program=$1 args rc
  shift
  for args in "$@"; do
    [[ -x "$BUILD/bench/$program" ]] || return 0
    log "$program $args"
    # shellcheck disable=SC2086
    "$BUILD/bench/$program" $args > "$OUT_DIR/bench.tmp" 2>&1
    rc=$?
    [[ $rc -ne 0 ]] && status=1
    { echo; echo "$program $args (exit $rc)"; cat "$OUT_DIR/bench.tmp"; } >> "$REPORT"
  done
}
run_bench gpu_spmv_bench "${BENCH_RUNS[@]}"
run_bench gpu_sdca_bench "${SDCA_BENCH_RUNS[@]}"
run_bench gpu_stream_bench "${STREAM_BENCH_RUNS[@]}"
log "datasets for gpu_tron_bench: ${SNAPML_DATA_DIR:-none found}"
run_bench gpu_tron_bench "${TRON_BENCH_RUNS[@]}"
rm -f "$OUT_DIR/bench.tmp"
fi

cat "$REPORT"
exit $status
