"""The GPU sessions of the Python estimators (gpu_session_checks.py), run in a
child process: over the emulated CUDA runtime everywhere (so CI, which has no
GPU, counts the uploads and checks the rows reused and replaced), and with the
real plugin where a device is visible.

The emulated plugin is tests/gpu's libsnapml_gpu_emulated.so, built with the C++
suite: SNAPML_GPU_EMULATED_PLUGIN, else a build*/ folder of the checkout. It
carries its build's build id, so it loads only into a snap_ml built from the
same sources (the loader says so otherwise, and the child's test fails with it).
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, skip_or_fail
from snap_ml import _core

CHECKS = pathlib.Path(__file__).with_name("gpu_session_checks.py")
needs_cuda = pytest.mark.skipif(not _core.built_with_cuda, reason="snap_ml built without CUDA")


def emulated_plugin():
    given = os.environ.get("SNAPML_GPU_EMULATED_PLUGIN")
    if given:
        return given
    found = sorted(REPO.glob("build*/tests/gpu/libsnapml_gpu_emulated.so"), key=lambda p: p.stat().st_mtime)
    if not found:
        skip_or_fail("libsnapml_gpu_emulated.so not built (cmake --build build --target snapml_gpu_emulated; "
                     "or set SNAPML_GPU_EMULATED_PLUGIN)")
    return str(found[-1])


def device_count():
    if shutil.which("nvidia-smi") is None:
        return 0
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(line.startswith("GPU ") for line in listed.stdout.splitlines()) if listed.returncode == 0 else 0


def run_checks(environment):
    env = {name: value for name, value in os.environ.items() if name != "SNAPML_GPU_BACKEND"}
    env.update(environment)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CHECKS)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_rows_are_identified_by_their_contents_not_their_array():
    # Runs in every build (a CPU session keys rows alike): what a GPU session's
    # kept rows are found by.
    import numpy as np
    import scipy.sparse as sp

    from snap_ml._data import to_core

    X = sp.random(500, 40, density=0.2, format="csr", random_state=0, dtype=np.float64)
    session = _core.Session(False, [])
    first = session.rows_identity(to_core(X))
    assert session.rows_identity(to_core(X.copy()), 2) == first  # a copy, another thread count
    assert session.rows_identity(to_core(X.toarray())) == first  # dense, converted anew
    X.data[-1] *= 2.0  # in place: the same array objects
    changed = session.rows_identity(to_core(X))
    assert changed != first
    X.data[-1] /= 2.0  # back: the rows the first identity named
    assert session.rows_identity(to_core(X)) == first
    assert _core.Session(False, []).rows_identity(to_core(X)) != first  # another session's own


@needs_cuda
def test_sessions_over_the_emulated_runtime():
    run_checks({"SNAPML_GPU_BACKEND": emulated_plugin(), "SNAPML_TEST_GPU_COUNT": "2"})


@needs_cuda
def test_sessions_on_a_device():
    count = device_count()
    if count == 0:
        pytest.skip("no CUDA device visible")
    run_checks({"SNAPML_TEST_GPU_COUNT": str(count)})
