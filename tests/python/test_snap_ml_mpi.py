"""snap_ml_mpi, Snap ML's MPI API: its distributed example under `mpirun -n 2`
with the one-process answer, each rank's part of a file, the metrics; num_threads
(in snap_ml_mpi and snap_ml's estimators) and dual=True, Snap ML's names.

The mpirun tests skip when mpirun is missing or snap_ml was built without MPI, and
fail instead under CI=true (as test_mpi_python.py's).
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import log_loss as sklearn_log_loss

import snap_ml
import snap_ml_mpi
from conftest import REPO, dataset_path, load_dataset, mpirun_env
from snap_ml import LogisticRegression as SnapLogisticRegression
from snap_ml import _core, datasets
from snap_ml._params import estimator_threads, resolve_threads
from snap_ml_mpi import Loaders, Metrics
from snap_ml_mpi.Loaders import agreed_columns, read_share
from test_mpi_python import mpirun_of_an_mpi_build

SEED = REPO / "examples" / "snap_ml_mpi_seed.py"


def _example_gpus_visible():
    """Whether the example's four devices (device_ids=[0, 1, 2, 3]) train here."""
    if not _core.built_with_cuda:
        return False
    try:
        SnapLogisticRegression(device_ids=[0, 1, 2, 3]).fit(np.eye(2), [0, 1])
    except ValueError:
        return False
    return True


def _seed_script(tmp_path):
    """The example as written, less ``device_ids=[0, 1, 2, 3]`` where those four GPUs
    are not visible (there it is a ValueError saying so, never a silent CPU fit)."""
    text = SEED.read_text()
    if not _example_gpus_visible():
        assert "device_ids=[0, 1, 2, 3], " in text
        text = text.replace("device_ids=[0, 1, 2, 3], ", "")
    script = tmp_path / "my_app.py"
    script.write_text(text)
    return script


def _run(launcher, script, env):
    """The metrics every process printed. Under mpirun each rank's lines are tagged
    (--tag-output), which keeps them whole: untagged, two ranks' writes could meet
    inside a line ('0.844accuracy: ...')."""
    if launcher:
        launcher = [launcher[0], "--tag-output", *launcher[1:]]
    done = subprocess.run(launcher + [sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    values = {}
    # Not anchored at a line's end: print() writes the text and its newline apart, and
    # another rank's tagged line can come between them.
    for name, value in re.findall(r"(log loss|accuracy): ([0-9]+\.[0-9]+)", done.stdout):
        values.setdefault(name, []).append(float(value))
    return values


@pytest.mark.parametrize("kind", ["libsvm", "snap", "rbf"])
def test_seed_example_under_mpirun_gives_the_one_process_answer(tmp_path, kind):
    mpirun = mpirun_of_an_mpi_build()
    env = mpirun_env()
    script = _seed_script(tmp_path)
    if kind == "snap":
        # The same script on .snap files (Loaders.load_from_snap_format): each rank
        # reads its share of the chunks. The files keep a9a's names.
        data = tmp_path / "data"
        data.mkdir()
        for name in ("a9a", "a9a.t"):
            X, y = datasets.load_svmlight_file(dataset_path(name), n_features=123)
            datasets.dump(X, y, data / name, chunk_rows=2000)
        env["SNAPML_DATA_DIR"] = str(data)
        script.write_text(script.read_text().replace("load_from_libsvm_format", "load_from_snap_format"))
    else:
        dataset_path("a9a")
        dataset_path("a9a.t")
    if kind == "rbf":
        # kernel="rbf": every rank draws the same random matrix (from the agreed
        # width and random_state) and maps its own rows.
        text = script.read_text()
        assert "num_threads=128)" in text
        script.write_text(text.replace("num_threads=128)", "num_threads=128, kernel='rbf', gamma=0.05, "
                                                           "n_components=200, random_state=1)"))
    one = _run([], script, env)
    two = _run([*mpirun, "-n", "2"], script, env)
    assert len(two["log loss"]) == 2 and len(set(two["log loss"])) == 1  # every rank: all rows' metric
    # Both fits certify their objective within tol = 1e-3 of the optimum (the
    # duality gap): their test metrics agree to about that.
    assert two["log loss"][0] == pytest.approx(one["log loss"][0], rel=2e-3)
    assert abs(two["accuracy"][0] - one["accuracy"][0]) <= 0.003
    assert 0.84 <= one["accuracy"][0] <= 0.86  # a9a.t, C = 1


@pytest.mark.parametrize("ranks", [1, 2, 3, 7])
def test_every_line_is_read_by_exactly_one_rank(ranks):
    path = str(dataset_path("heart_scale"))
    X_all, y_all = load_dataset("heart_scale")
    shares = [read_share(path, rank, ranks) for rank in range(ranks)]
    lowest = min(int(X.indices.min()) for X, _ in shares if X.nnz)
    highest = max(int(X.indices.max()) + 1 for X, _ in shares if X.nnz)
    parts = [agreed_columns(path, X, lowest, highest, None)[0] for X, _ in shares]
    np.testing.assert_array_equal(np.concatenate([y for _, y in shares]), y_all)
    assert (sp.vstack(parts) != X_all).nnz == 0


def test_one_process_dataset_equals_the_arrays():
    X, y = load_dataset("a9a", n_features=123)
    train = Loaders.load_from_libsvm_format(str(dataset_path("a9a")))
    test = Loaders.load_from_svmlight_format(str(dataset_path("a9a.t")))
    assert train.n_features == 123 and test.n_features == 122  # a9a.t's largest index is 122
    lr = snap_ml_mpi.LogisticRegression(dual=True, num_threads=1).fit(train)
    arrays = snap_ml_mpi.LogisticRegression(dual=True).fit(X, y)
    np.testing.assert_array_equal(lr.coef_, arrays.coef_)
    X_test, y_test = load_dataset("a9a.t", n_features=123)
    proba = lr.predict_proba(test)
    assert proba.shape == (X_test.shape[0],)  # the positive class's, as Snap ML's MPI API
    np.testing.assert_allclose(proba, arrays.predict_proba(X_test)[:, 1], rtol=1e-12)
    assert Metrics.log_loss(test, proba) == pytest.approx(sklearn_log_loss(y_test, proba), rel=1e-12)
    assert Metrics.accuracy_score(test, lr.predict(test)) == pytest.approx(np.mean(arrays.predict(X_test) == y_test))
    assert Metrics.accuracy is Metrics.accuracy_score


def test_snap_dataset_predicts_its_rows(tmp_path):
    X, y = load_dataset("heart_scale")
    path = tmp_path / "heart.snap"
    datasets.dump(X, y, path, chunk_rows=50)
    data = Loaders.load_from_snap_format(str(path))
    np.testing.assert_array_equal(data.y, y)
    lr = snap_ml_mpi.LogisticRegression(regularizer=0.1).fit(data)
    arrays = snap_ml_mpi.LogisticRegression(regularizer=0.1).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(lr.coef_, arrays.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(lr.predict(data), arrays.predict(X))


def test_num_threads_is_the_old_name_of_n_jobs():
    lr = snap_ml_mpi.LogisticRegression(num_threads=3)
    assert lr.get_params()["num_threads"] == 3 and clone(lr).num_threads == 3
    assert lr._n_jobs() == 3
    X, y = load_dataset("heart_scale")
    assert lr.fit(X, y).estimator_.n_jobs == 3
    with pytest.raises(ValueError, match="num_threads is the old name of n_jobs"):
        snap_ml_mpi.LogisticRegression(num_threads=3, n_jobs=2).fit(X, y)


def test_negative_n_jobs_counts_this_ranks_share_of_the_machine(monkeypatch):
    # -1 is every CPU this process may use; under mpirun the rank's share, as
    # snap-train's --threads 0 (snapml/threads.h, threads_per_rank): K ranks each
    # running every CPU would oversubscribe the cores K times.
    for name in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"):
        monkeypatch.delenv(name, raising=False)
    cpus = len(os.sched_getaffinity(0))
    assert resolve_threads(-1) == cpus
    assert resolve_threads(-2) == max(1, cpus - 1)
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2")
    share = max(1, min(cpus, (os.cpu_count() or 1) // 2))
    assert resolve_threads(-1) == share
    assert estimator_threads(SnapLogisticRegression(num_threads=-1)) == share
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_SIZE", str(10 * (os.cpu_count() or 1)))
    assert resolve_threads(-1) == 1  # more ranks than CPUs: one thread each


def test_metrics_need_a_dataset():
    with pytest.raises(ValueError, match="takes the dataset a snap_ml_mpi.Loaders function returns"):
        Metrics.log_loss(np.array([1.0, 0.0]), np.array([0.5, 0.5]))


def test_dual_true_without_a_solver_is_snap_mls_dual_solver():
    X, y = load_dataset("heart_scale")
    snap = SnapLogisticRegression(dual=True, random_state=0).fit(X, y)
    named = SnapLogisticRegression(solver="dual", random_state=0).fit(X, y)
    np.testing.assert_array_equal(snap.coef_, named.coef_)
    with pytest.raises(ValueError, match="dual=True is scikit-learn's liblinear dual formulation"):
        SnapLogisticRegression(dual=True, solver="lbfgs").fit(X, y)


@pytest.mark.parametrize("estimator", [snap_ml.LogisticRegression, snap_ml.LinearSVC, snap_ml.SupportVectorMachine,
                                       snap_ml.LinearRegression, snap_ml.Ridge, snap_ml.LogisticRegressionCV])
def test_snap_mls_estimators_take_num_threads_for_n_jobs(estimator):
    X, y = load_dataset("heart_scale")
    by_old_name = estimator(num_threads=2)
    assert by_old_name.get_params()["num_threads"] == 2 and clone(by_old_name).num_threads == 2
    assert estimator_threads(by_old_name) == 2 == estimator_threads(estimator(n_jobs=2, num_threads=2))
    assert estimator_threads(estimator()) == 1
    with pytest.raises(ValueError, match="num_threads is Snap ML's old name of n_jobs"):
        estimator(num_threads=2, n_jobs=3).fit(X, y)
    if estimator is snap_ml.LogisticRegression:  # the Newton solver: the same bits for the same threads
        np.testing.assert_array_equal(by_old_name.fit(X, y).coef_, estimator(n_jobs=2).fit(X, y).coef_)
