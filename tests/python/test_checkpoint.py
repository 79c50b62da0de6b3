"""fit(checkpoint=...): a fit killed with SIGKILL resumes to the same optimum
(docs/python.md, "Checkpoints"; docs/reliability.md, "Interruption")."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from snap_ml import LinearSVC, LogisticRegression

TOL = 1e-8


def problem(rows=30000, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(rows, 60, density=0.2, random_state=seed, format="csr", dtype=np.float64)
    X.data = rng.standard_normal(X.data.size)
    scores = X @ rng.standard_normal((60, classes)) + 2 * rng.standard_normal((rows, classes))
    y = scores.argmax(axis=1) if classes > 2 else (scores[:, 0] > 0).astype(int)
    return X, y


def estimator():
    # SDCA on the squared hinge loss: hundreds of epochs to the tolerance.
    return LinearSVC(dual=True, tol=TOL, max_iter=100000, n_jobs=1)


# The same fit in a child process, killed once it has saved its state.
CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    from test_checkpoint import estimator, problem
    X, y = problem(rows={rows}, classes={classes}, seed={seed})
    estimator().fit(X, y, checkpoint={path!r}, checkpoint_interval=0)
""")


def kill_once_saved(path, rows=30000, classes=2, seed=0, run_for=0.2):
    """Starts the fit in a child and kills it run_for seconds after its first save."""
    code = CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), path=str(path), rows=rows,
                       classes=classes, seed=seed)
    child = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not os.path.exists(path) and child.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    time.sleep(run_for)
    assert child.poll() is None, "the fit ended before it could be killed: " + child.stderr.read().decode()
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert os.path.exists(path)


def primal(model, X, y, C=1.0):
    """LinearSVC's squared hinge objective with the intercept penalised (LIBLINEAR's)."""
    w = np.append(model.coef_.ravel(), model.intercept_[0] / model.intercept_scaling)
    margins = np.where(y == model.classes_[1], 1.0, -1.0) * model.decision_function(X)
    return 0.5 * w @ w + C * np.sum(np.maximum(0.0, 1.0 - margins) ** 2)


def test_a_killed_fit_resumes_to_the_same_optimum_in_fewer_epochs(tmp_path):
    X, y = problem()
    start = time.perf_counter()
    full = estimator().fit(X, y)
    seconds = time.perf_counter() - start
    path = tmp_path / "fit.ck"
    # Killed a third of the way through (by this process's pace): a kill right after
    # the first epoch leaves a resumed fit no shorter than a fresh one (a resumed
    # fit's epochs differ from an uninterrupted one's by a few).
    kill_once_saved(path, run_for=max(0.2, seconds / 3))
    resumed = estimator().fit(X, y, checkpoint=path, checkpoint_interval=0)
    assert not path.exists(), "the checkpoint was left after a successful fit"
    history = resumed.training_history_[0]
    assert history["epoch"][0] > 1, "the resumed fit did not start where it was killed"
    assert history["epoch"][-1] - history["epoch"][0] + 1 < full.n_iter_  # LinearSVC: one int
    # Both fits are certified within tol of the optimum.
    assert history["gap"][-1] <= TOL * history["primal"][-1]
    assert abs(primal(resumed, X, y) - primal(full, X, y)) <= 2 * TOL * primal(full, X, y)


def test_one_vs_rest_resumes_every_problem(tmp_path):
    X, y = problem(rows=12000, classes=3, seed=1)
    full = estimator().fit(X, y)
    path = tmp_path / "fit.ck"
    kill_once_saved(path, rows=12000, classes=3, seed=1)
    resumed = estimator().fit(X, y, checkpoint=path)
    np.testing.assert_allclose(resumed.coef_, full.coef_, atol=1e-3)
    assert (resumed.predict(X) == full.predict(X)).mean() > 0.999


def test_mismatch_and_damage_are_errors_naming_the_file(tmp_path):
    X, y = problem()
    path = tmp_path / "fit.ck"
    kill_once_saved(path)
    other = clone(estimator()).set_params(C=2.0)
    with pytest.raises(ValueError, match=r"fit\.ck.*C: the checkpoint has 1, this run has 2"):
        other.fit(X, y, checkpoint=path)
    with pytest.raises(ValueError, match=r"rows: the checkpoint has 30000, this run has 29999"):
        estimator().fit(X[:-1], y[:-1], checkpoint=path)
    damaged = tmp_path / "damaged.ck"
    damaged.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match=r"damaged\.ck.*checksum mismatch"):
        estimator().fit(X, y, checkpoint=damaged)
    assert path.exists() and damaged.exists()


def test_checkpoint_arguments_are_checked(tmp_path):
    X, y = problem(rows=100)
    with pytest.raises(ValueError, match="checkpoint_interval"):
        estimator().fit(X, y, checkpoint=tmp_path / "ck", checkpoint_interval=-1)
    with pytest.raises(ValueError, match="checkpoint must be None or a file path"):
        estimator().fit(X, y, checkpoint=3)
    with pytest.raises(ValueError, match="penalty l1 solvers"):
        LogisticRegression(penalty="l1", solver="liblinear").fit(X, y, checkpoint=tmp_path / "ck")
