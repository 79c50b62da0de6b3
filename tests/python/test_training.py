"""Training behaviour: the history and its certificate, convergence warnings,
one-vs-rest, class and sample weights, warm starts, threads and interruption."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

from snap_ml import LogisticRegression, SupportVectorMachine


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=500, n_features=30, n_informative=10, random_state=2)


def test_history_reports_a_shrinking_gap(data):
    X, y = data
    # SDCA's certificate (solver "dual"; the default's free intercept has none).
    model = LogisticRegression(solver="dual", tol=1e-6, max_iter=1000, random_state=0).fit(X, y)
    (history,) = model.training_history_
    assert set(history) == {"epoch", "time", "primal", "dual", "gap"}
    # A certificate after the epochs the gap's rate calls for, the last after the
    # fit's last epoch (docs/algorithms.md, "When to certify").
    assert history["epoch"][:2].tolist() == [1, 2] and np.all(np.diff(history["epoch"]) > 0)
    assert history["epoch"][-1] == model.n_iter_[0]
    np.testing.assert_allclose(history["gap"], history["primal"] - history["dual"], rtol=1e-9, atol=1e-9)
    assert history["gap"][-1] <= 1e-6 * history["primal"][-1]
    assert np.all(np.diff(history["time"]) >= 0)


def test_max_iter_warns(data):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = LogisticRegression(tol=1e-12, max_iter=1).fit(X, y)
    assert model.n_iter_[0] == 1


def test_one_vs_rest_shapes_and_probabilities(data):
    X, _ = data
    y = np.arange(len(X)) % 4
    model = LogisticRegression(random_state=0, n_jobs=2, multi_class="ovr").fit(X, y)
    assert model.coef_.shape == (4, X.shape[1]) and model.intercept_.shape == (4,)
    assert len(model.training_history_) == 4 and model.n_iter_.shape == (4,)
    probabilities = model.predict_proba(X)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[probabilities.argmax(axis=1)], model.predict(X))


def test_one_thread_is_reproducible(data):
    X, y = data
    a = LogisticRegression(random_state=7, n_jobs=1).fit(X, y)
    b = LogisticRegression(random_state=7, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_threads_reach_the_same_optimum(data):
    X, y = data
    one = LogisticRegression(tol=1e-8, random_state=0, n_jobs=1).fit(X, y)
    two = LogisticRegression(tol=1e-8, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_allclose(one.coef_, two.coef_, rtol=1e-3, atol=1e-4)


def test_class_weight_shifts_the_boundary(data):
    X, y = data
    plain = SupportVectorMachine(random_state=0).fit(X, y)
    heavy = SupportVectorMachine(random_state=0, class_weight={1: 10.0}).fit(X, y)
    assert (heavy.predict(X) == 1).sum() > (plain.predict(X) == 1).sum()
    balanced = SupportVectorMachine(random_state=0, class_weight="balanced").fit(X, y)
    assert balanced.score(X, y) > 0.7


def test_integer_sample_weight_equals_repetition(data):
    X, y = data
    weights = np.arange(len(y)) % 3
    weighted = LogisticRegression(tol=1e-10, max_iter=5000, random_state=0).fit(X, y, sample_weight=weights)
    repeated = LogisticRegression(tol=1e-10, max_iter=5000, random_state=0).fit(
        np.repeat(X, weights, axis=0), np.repeat(y, weights))
    # The certificate bounds ||w - w*||^2 <= 2 * tol * P(w*) (P is 1-strongly convex).
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=0, atol=1e-4)
    np.testing.assert_allclose(weighted.training_history_[0]["primal"][-1],
                               repeated.training_history_[0]["primal"][-1], rtol=1e-9)


def test_warm_start_needs_fewer_epochs(data):
    X, y = data
    model = LogisticRegression(tol=1e-8, warm_start=True, random_state=0).fit(X, y)
    first = model.n_iter_[0]
    model.fit(X, y)
    assert model.n_iter_[0] < first


def test_ctrl_c_interrupts_a_long_fit(ctrl_c_handled):
    rng = np.random.RandomState(0)
    X = sp.random(20000, 2000, density=0.01, format="csr", random_state=rng, dtype=np.float32)
    y = rng.randint(0, 2, X.shape[0])  # random labels: far from converging
    timer = threading.Timer(0.5, os.kill, args=(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        LogisticRegression(solver="dual", C=100.0, tol=1e-15, max_iter=100000).fit(X, y)
    timer.cancel()
    assert time.monotonic() - start < 10.0


def test_verbose_prints_each_certificate(data, capsys):
    X, y = data
    # SDCA: one line per certificate, the last after the last epoch (the Newton
    # solver adds one for its starting point).
    model = LogisticRegression(solver="dual", verbose=1, random_state=0).fit(X, y)
    lines = [line for line in capsys.readouterr().out.splitlines() if "epoch" in line]
    assert len(lines) == len(model.training_history_[0]["epoch"])
    assert lines[-1].split()[3] == str(model.n_iter_[0])
