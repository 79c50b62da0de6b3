"""fit under `mpirun -n K python ...` (distributed="auto"/True) and its checks.

The mpirun test launches examples/mpi_logreg.py on 2 ranks in a subprocess and
compares its model with a one-process fit on all rows. It skips when mpirun is
missing or snap_ml was built without MPI, and fails instead under CI=true.
"""

import subprocess
import sys

import numpy as np
import pytest

from conftest import LAUNCHER_VARIABLES, REPO, dataset_path, mpirun_command, mpirun_env, skip_or_fail
from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine, _core, mpi_world

@pytest.fixture
def no_launcher(monkeypatch):
    for name in LAUNCHER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("estimator", [LogisticRegression, SupportVectorMachine, LinearRegression])
def test_distributed_true_without_mpirun_says_what_to_do(no_launcher, estimator):
    X, y = _small()
    match = "started by an MPI launcher" if _core.built_with_mpi else "built with MPI"
    with pytest.raises(ValueError, match=f"distributed=True needs .*{match}"):
        estimator(distributed=True).fit(X, y)


def test_distributed_auto_and_false_train_in_one_process(no_launcher):
    X, y = _small()
    assert mpi_world() == (0, 1)
    auto = LogisticRegression(random_state=0).fit(X, y)
    alone = LogisticRegression(random_state=0, distributed=False).fit(X, y)
    np.testing.assert_array_equal(auto.coef_, alone.coef_)
    assert auto.get_params()["distributed"] == "auto"


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_bad_distributed_value(value):
    X, y = _small()
    with pytest.raises(ValueError, match="distributed must be 'auto', True or False"):
        LogisticRegression(distributed=value).fit(X, y)


def mpirun_of_an_mpi_build():
    """mpirun_command(), for a snap_ml built with MPI (skips, or fails under CI=true)."""
    command = mpirun_command()
    if not _core.built_with_mpi:
        skip_or_fail("snap_ml was built without MPI (reinstall where libopenmpi-dev is installed)")
    return command


def test_mpirun_two_ranks_match_one_process(tmp_path):
    mpirun = mpirun_of_an_mpi_build()
    dataset_path("a9a")
    dataset_path("a9a.t")
    env = mpirun_env()
    example = str(REPO / "examples" / "mpi_logreg.py")
    common = ["--tol", "1e-4", "--max-iter", "5000"]
    runs = {}
    for name, launcher in (("one", []), ("two", [*mpirun, "-n", "2"])):
        out = tmp_path / f"{name}.npz"
        done = subprocess.run(launcher + [sys.executable, example, *common, "--out", str(out)],
                              env=env, capture_output=True, text=True, timeout=400)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "a9a.t accuracy" in done.stdout
        runs[name] = np.load(out)
    one, two = runs["one"], runs["two"]
    assert int(one["ranks"]) == 1 and int(two["ranks"]) == 2
    # Both primals are within tol * P of the optimum (the duality gap certifies it).
    assert abs(float(two["primal"]) - float(one["primal"])) <= 1e-4 * abs(float(one["primal"]))
    assert abs(float(two["accuracy"]) - float(one["accuracy"])) <= 0.1
    assert np.mean(two["predictions"] == one["predictions"]) >= 0.995
    assert two["coef"].shape == one["coef"].shape


def test_mpirun_ranks_fit_their_share_of_a_snap_file(tmp_path):
    """Every rank fits the same .snap path under a budget of 600 KB: too small to
    stream the whole file (which needs 776 KB: two 254 KB chunk buffers and 16 bytes
    for each of its 32,561 rows), enough for a rank's half. So each rank plans and
    streams only its share, and the model is the one-process fit's."""
    mpirun = mpirun_of_an_mpi_build()
    from snap_ml import datasets
    X, y = datasets.load_svmlight_file(dataset_path("a9a"), n_features=123)
    dataset_path("a9a.t")
    snap = tmp_path / "a9a.snap"
    datasets.dump(X, y, snap, chunk_rows=1000)  # 33 chunks, 4 MB
    env = mpirun_env()
    example = str(REPO / "examples" / "mpi_logreg.py")
    common = ["--tol", "1e-4", "--max-iter", "5000", "--snap", str(snap)]
    runs = {}
    for name, launcher, budget in (("one", [], []),
                                   ("two", [*mpirun, "-n", "2"], ["--max-memory", "600k"])):
        out = tmp_path / f"{name}.npz"
        done = subprocess.run(launcher + [sys.executable, example, *common, *budget, "--out", str(out)],
                              env=env, capture_output=True, text=True, timeout=400)
        assert done.returncode == 0, done.stdout + done.stderr
        runs[name] = np.load(out)
    one, two = runs["one"], runs["two"]
    assert int(two["ranks"]) == 2
    assert abs(float(two["primal"]) - float(one["primal"])) <= 1e-4 * abs(float(one["primal"]))
    assert abs(float(two["accuracy"]) - float(one["accuracy"])) <= 0.1
