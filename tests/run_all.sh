#!/usr/bin/env bash
# The README's test command: install dependencies, build everything this machine
# can build (CUDA code compiles wherever nvcc is found; GPU tests skip without a
# GPU), then run the C++ tests (ctest) and the Python tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh

build=${SNAPML_BUILD_DIR:-build}
jobs=$(nproc)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${SNAPML_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

# MPI tests run several ranks on 2 cores; OpenMPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir "$build" --output-on-failure --timeout 900 -j 2

if [ -d python/snap_ml ] && [ -f pyproject.toml ]; then
  python3 -m pip install -q --no-build-isolation -v . > "$build/pip-install.log" 2>&1 \
    || { tail -50 "$build/pip-install.log"; exit 1; }
  python3 -m pytest -q tests/python
fi

# The C++ suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (docs/reliability.md, "Sanitizers"): every out-of-bounds access, use after free,
# leak and undefined behaviour a test provokes fails it. CPU code only (nvcc does
# not take the sanitizers). Left out: the MPI tests (LeakSanitizer reports
# OpenMPI's own allocations; they run above), the GPU epoch's host model (a
# 100-second simulation that checks convergence, not memory) and the out-of-core
# peak-memory test (the sanitizers' shadow memory is not the program's).
# SNAPML_SANITIZERS=0 skips this stage (about 8 minutes of build on 2 cores).
if [ "${SNAPML_SANITIZERS:-1}" != 0 ]; then
  sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  cmake -S . -B "$build-sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSNAPML_CUDA=OFF \
        "-DCMAKE_CXX_FLAGS=$sanitize" "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" \
        "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize" ${SNAPML_CMAKE_ARGS:-}
  cmake --build "$build-sanitize" -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$build-sanitize" --output-on-failure --timeout 900 -j 2 \
          -LE mpi -E "GpuEpochModel|cli.out_of_core.stream"
fi

# The input readers' libFuzzer harnesses (docs/reliability.md, "Fuzzers"), each
# for SNAPML_FUZZ_SECONDS (default 20) from the seed corpus in tests/fuzz/corpus,
# two at a time. SNAPML_FUZZ=0 skips this stage (about 1.5 minutes of build on 2
# cores, then 1 minute of fuzzing).
if [ "${SNAPML_FUZZ:-1}" != 0 ]; then
  SNAPML_FUZZ_BUILD_DIR="$build-fuzz" bash tests/fuzz/run_fuzzers.sh
fi
