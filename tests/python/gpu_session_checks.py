"""The GPU sessions estimators keep across fits (snap_ml/_sessions.py): uploads
counted through the session, rows reused where they are the same and uploaded
again where they are not, answers equal to a fresh session's.

Not collected by itself (no test_ prefix): test_gpu_session.py runs it in a child
process over the emulated CUDA runtime (SNAPML_GPU_BACKEND pointing at
libsnapml_gpu_emulated.so, tests/gpu/CMakeLists.txt), and on a device with the
real plugin. The GPU Newton solver's sums are deterministic (block trees added
in order, grids sized from the problem alone: docs/gpu.md), and every fit here
runs on one thread, so a fit over kept rows and one over fresh rows, or the same
fold on another device of the same kind, give the same bits: the comparisons are
exact. SNAPML_TEST_GPU_COUNT (set by the parent) says how many devices there
are: the emulation has two.
"""

import os

import numpy as np
import pytest
from sklearn.datasets import make_classification

import snap_ml
from snap_ml import _core, _sessions

pytestmark = pytest.mark.skipif(not _core.built_with_cuda, reason="snap_ml built without CUDA")
two_devices = pytest.mark.skipif(int(os.environ.get("SNAPML_TEST_GPU_COUNT", "1")) < 2,
                                 reason="needs two devices")


@pytest.fixture
def data():
    X, y = make_classification(n_samples=300, n_features=20, n_informative=8, n_classes=5, random_state=0)
    return X, y


def gpu(**parameters):
    return snap_ml.LogisticRegression(device_ids=[0], n_jobs=1, **parameters)


def test_a_five_class_one_vs_rest_fit_uploads_the_rows_once(data):
    X, y = data
    model = gpu().fit(X, y)
    assert model.solver_plan_["device"] == "gpu"
    assert model.coef_.shape == (5, 20)
    assert _sessions.row_uploads(model) == 1


def test_a_warm_start_refit_on_the_same_array_uploads_nothing(data):
    X, y = data
    model = gpu(warm_start=True).fit(X, y)
    model.fit(X, y)
    model.set_params(C=0.5).fit(X, y)
    assert _sessions.row_uploads(model) == 1
    # The same contents in another array (and as float32 CSR) are the same rows.
    import scipy.sparse as sp
    model.fit(sp.csr_matrix(X.astype(np.float32)), y)
    assert _sessions.row_uploads(model) == 1


def test_a_refit_over_kept_rows_gives_a_fresh_sessions_answer(data):
    X, y = data
    model = gpu().fit(X, y)
    first = model.coef_.copy()
    model.fit(X, y)
    assert _sessions.row_uploads(model) == 1
    np.testing.assert_array_equal(model.coef_, first)


@pytest.mark.parametrize("change", ["in place", "another array"])
def test_changed_rows_upload_again_and_train_the_new_problem(data, change):
    X, y = data
    model = gpu().fit(X, y)
    stale = model.coef_.copy()
    if change == "in place":
        X[:, 3] *= -2.0  # the same array object, the same address: new contents
        changed = X
    else:
        changed = X[::-1].copy()  # the rows in another order
        y = y[::-1].copy()
    model.fit(changed, y)
    assert _sessions.row_uploads(model) == 2
    fresh = gpu().fit(changed.copy(), y)
    np.testing.assert_array_equal(model.coef_, fresh.coef_)
    if change == "in place":
        assert np.abs(model.coef_ - stale).max() > 0.1  # the old rows' answer is far away


@pytest.mark.parametrize("change", ["labels", "sample_weight", "intercept_scaling"])
def test_what_is_not_the_rows_changes_without_an_upload_and_is_used(data, change):
    # The session keeps the rows only: each fit reads its labels and weights and
    # takes its intercept's scale afresh.
    X, y = data
    model = gpu().fit(X, y)
    stale = model.coef_.copy()
    fit = {}
    if change == "labels":
        y = np.roll(y, 1)
    elif change == "sample_weight":
        fit["sample_weight"] = np.linspace(0.2, 3.0, y.size)
    else:
        model.set_params(intercept_scaling=3.0)
    model.fit(X, y, **fit)
    assert _sessions.row_uploads(model) == 1
    fresh = gpu(**({"intercept_scaling": 3.0} if change == "intercept_scaling" else {})).fit(X.copy(), y, **fit)
    np.testing.assert_array_equal(model.coef_, fresh.coef_)
    np.testing.assert_array_equal(model.intercept_, fresh.intercept_)
    assert not np.array_equal(model.coef_, stale)


@two_devices
def test_the_cpu_drops_the_session_and_other_devices_make_their_own(data):
    X, y = data
    model = gpu().fit(X, y)
    model.set_params(device_ids=None, use_gpu=False).fit(X, y)
    assert not getattr(model, "_gpu_sessions", None)
    model.set_params(device_ids=[1]).fit(X, y)
    assert list(model._gpu_sessions) == [(1,)]
    assert _sessions.row_uploads(model) == 1


def test_a_pickled_or_cloned_model_keeps_no_session(data):
    import pickle

    from sklearn.base import clone

    X, y = data
    model = gpu().fit(X, y)
    copy = pickle.loads(pickle.dumps(model))
    assert not hasattr(copy, "_gpu_sessions") and hasattr(model, "_gpu_sessions")
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    assert not hasattr(clone(model), "_gpu_sessions")


def test_a_ten_value_cs_search_uploads_each_folds_rows_once(data):
    X, y = data
    search = snap_ml.LogisticRegressionCV(Cs=10, cv=3, device_ids=[0], n_jobs=1).fit(X, y == 1)
    # One session: each fold's rows once for its 10 C values, then the refit's.
    assert list(search._gpu_sessions) == [(0,)]
    assert _sessions.row_uploads(search) == 3 + 1


@two_devices
def test_folds_side_by_side_on_two_devices_give_the_one_device_answers(data):
    X, y = data
    one = snap_ml.LogisticRegressionCV(Cs=10, cv=3, device_ids=[0], n_jobs=1).fit(X, y)
    two = snap_ml.LogisticRegressionCV(Cs=10, cv=3, device_ids=[0, 1], n_jobs=2).fit(X, y)
    # Folds 0 and 2 on device 0, fold 1 on device 1, each fold's rows once; the
    # refit on both devices.
    assert {key: s.row_uploads for key, s in two._gpu_sessions.items()} == {(0,): 2, (1,): 1, (0, 1): 1}
    for key in one.scores_:
        np.testing.assert_array_equal(one.scores_[key], two.scores_[key])
    np.testing.assert_array_equal(one.C_, two.C_)
    # The refit is LogisticRegression's on the listed devices at the chosen C.
    refit = snap_ml.LogisticRegression(C=float(two.C_[0]), device_ids=[0, 1], n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.coef_, refit.coef_)
    np.testing.assert_array_equal(two.intercept_, refit.intercept_)


def test_a_session_made_for_other_devices_is_refused(data):
    from snap_ml._data import to_core

    X, y = data
    session = _core.Session(True, [0, 0])
    with pytest.raises(ValueError, match="other devices"):
        _core.train(to_core(X, (y == 1).astype(np.float64)), session=session, loss="logistic", use_gpu=True,
                    device_ids=[0])
