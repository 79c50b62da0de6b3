"""LogisticRegressionCV(n_jobs > 1) trains its folds side by side, to the same
answers as one after another."""
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification

import snap_ml
from snap_ml import _logistic_cv


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=400, n_features=20, n_informative=8, n_classes=3, random_state=0)


def test_folds_side_by_side_give_the_one_after_another_answers(data):
    X, y = data
    # Each fold fits on one thread either way (n_jobs=2 over 3 folds: two at a
    # time, 2 // 2 threads each), so the path's models are the same bits.
    one = snap_ml.LogisticRegressionCV(Cs=5, cv=3, n_jobs=1).fit(X, y)
    two = snap_ml.LogisticRegressionCV(Cs=5, cv=3, n_jobs=2).fit(X, y)
    for key in one.scores_:
        np.testing.assert_array_equal(one.scores_[key], two.scores_[key])
    np.testing.assert_array_equal(one.C_, two.C_)
    np.testing.assert_allclose(one.coef_, two.coef_, rtol=1e-4, atol=1e-6)  # the refit: 2 threads
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


class _Counting(snap_ml.LogisticRegression):
    """A LogisticRegression whose fits record how many run at once."""
    lock = threading.Lock()
    running = 0
    most = 0
    jobs = set()

    def fit(self, X, y, sample_weight=None):
        with _Counting.lock:
            _Counting.running += 1
            _Counting.most = max(_Counting.most, _Counting.running)
            _Counting.jobs.add(self.n_jobs)
        try:
            time.sleep(0.05)  # long enough for a fit beside it to start
            return super().fit(X, y, sample_weight=sample_weight)
        finally:
            with _Counting.lock:
                _Counting.running -= 1


@pytest.mark.parametrize("n_jobs, most, fold_jobs", [(None, 1, {1}), (1, 1, {1}), (2, 2, {1}), (4, 3, {1}),
                                                     (6, 3, {2})])
def test_n_jobs_sets_the_folds_at_once_and_their_threads(data, monkeypatch, n_jobs, most, fold_jobs):
    X, y = data
    if n_jobs and n_jobs > snap_ml._core.thread_limit():
        pytest.skip("more threads than the core allows here")
    monkeypatch.setattr(_logistic_cv, "LogisticRegression", _Counting)
    _Counting.running, _Counting.most, _Counting.jobs = 0, 0, set()
    snap_ml.LogisticRegressionCV(Cs=2, cv=3, n_jobs=n_jobs).fit(X, y)
    assert _Counting.most == most
    # The folds' fits, then the refit on every thread.
    assert _Counting.jobs == fold_jobs | {n_jobs}
