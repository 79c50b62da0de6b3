"""Hostile parameters and input from Python (docs/reliability.md): a thread count
far above the machine's, a feature count whose state does not fit the memory."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from snap_ml import LogisticRegression, _core
from snap_ml._params import resolve_threads


def test_a_huge_n_jobs_is_lowered_to_the_core_limit():
    assert resolve_threads(100000) == _core.thread_limit() >= 64
    assert resolve_threads(10**12) == _core.thread_limit()
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    model = LogisticRegression(n_jobs=100000, max_iter=20).fit(X, y)
    assert model.score(X, y) > 0.7


def test_a_feature_count_the_memory_cannot_hold_is_refused():
    # 2^31 - 2 columns (the most a matrix may have: the intercept takes index
    # n_features) in 300 one-vs-rest problems: terabytes of weights.
    n = 300
    X = sp.csr_matrix((np.ones(n), (np.arange(n), np.full(n, 2**31 - 3))), shape=(n, 2**31 - 2))
    with pytest.raises(ValueError, match="features .* need .* of per-feature state"):
        LogisticRegression(n_jobs=1).fit(X, np.arange(n))
