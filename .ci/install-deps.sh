#!/usr/bin/env bash
# Installs what snapml needs to build and test, from Debian packages and PyPI.
# Idempotent: installs only what is missing, so a second run costs seconds.
set -euo pipefail

debian_packages=(
  cmake g++ make pkg-config python3-dev
  zlib1g-dev libxxhash-dev libfast-float-dev libcli11-dev   # parsing, checksums, CLI
  libeigen3-dev libgtest-dev                                 # the Cholesky step, references, tests
  libopenmpi-dev openmpi-bin                                 # distributed driver
  liblinear-tools                                            # reference peer in tests
  clang libclang-rt-dev libomp-dev                           # fuzzers (tests/fuzz): libFuzzer, OpenMP for clang
)
python_packages=(numpy scipy scikit-learn pytest pybind11 scikit-build-core pandas)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "install-deps: apt-get install ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
missing_py=()
for p in "${python_packages[@]}"; do
  module=${p//-/_}
  [ "$p" = scikit-learn ] && module=sklearn
  "$python" -c "import $module" >/dev/null 2>&1 || missing_py+=("$p")
done
if [ ${#missing_py[@]} -gt 0 ]; then
  echo "install-deps: pip install ${missing_py[*]}"
  "$python" -m pip install -q "${missing_py[@]}"
fi
# pybind11 2.12 is the first that reads NumPy 2's arrays right (python/CMakeLists.txt).
if ! "$python" -c "import pybind11, sys; sys.exit(tuple(map(int, pybind11.__version__.split('.')[:2])) < (2, 12))"; then
  echo "install-deps: pip install 'pybind11>=2.12'"
  "$python" -m pip install -q "pybind11>=2.12"
fi

# IBM's snapml, the peer tests/python/test_ibm_snapml.py runs a snapml 1.x script
# with: PyPI has wheels for some Pythons and platforms only, so a failed install
# leaves that comparison skipped (with its reason) instead of failing here.
# Asked from / : in the repository's root `import snapml` finds the C++ sources'
# snapml/ folder (a namespace package) and says it is there when it is not.
if ! (cd / && "$python" -c "from snapml import LogisticRegression") >/dev/null 2>&1; then
  echo "install-deps: pip install snapml (optional)"
  "$python" -m pip install -q snapml \
    || echo "install-deps: no snapml wheel for $("$python" --version 2>&1); test_ibm_snapml.py's comparison will skip"
fi
