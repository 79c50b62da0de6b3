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
