"""Fitting from a .snap path: memory-mapped when it fits max_memory, streamed from
disk otherwise (docs/python.md, "Out-of-core training"), and what is refused."""

import os
import re
import pickle
import signal
import struct
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification

from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine, _core, datasets
from snap_ml._snap_file import memory_size

from conftest import load_dataset

_HEADER_BYTES = 64
_ENTRY = struct.Struct("<QqqqQ")  # offset, n_rows, nnz, first_row, checksum


def chunk_entry(path, index):
    """(offset, n_rows, nnz) of chunk ``index`` from the file's chunk table."""
    with open(path, "rb") as f:
        f.seek(_HEADER_BYTES + index * _ENTRY.size)
        offset, n_rows, nnz, _, _ = _ENTRY.unpack(f.read(_ENTRY.size))
    return offset, n_rows, nnz


def streaming_budget(path):
    """The solver's state (16 bytes a row, 8 a feature) plus a tenth of the file.

    The state must be resident whatever the budget: on a9a it alone is 1/8 of the
    file, so "a tenth of the file" is the budget for the data on top of it.
    """
    return _core.SnapFile(str(path), 0).state_bytes + os.path.getsize(path) // 10


def ring_budget(path):
    """The smallest budget that streams ``path``: the state and 2 of its largest chunks."""
    layout = _core.SnapFile(str(path), 0)
    return layout.state_bytes + 2 * layout.largest_chunk_bytes


@pytest.fixture(scope="module")
def a9a(tmp_path_factory):
    """a9a written as a .snap file of 33 chunks, the arrays read back from it, and a9a.t."""
    X, y = load_dataset("a9a")
    X_test, y_test = load_dataset("a9a.t", n_features=X.shape[1])
    path = tmp_path_factory.mktemp("ooc") / "a9a.snap"
    datasets.dump(X, y, path, chunk_rows=1000)
    X, y = datasets.load(path)
    return path, X, y, X_test, y_test


def four_classes(path, chunk_rows):
    """A 4-class problem of 1,200 rows and 50 features written to ``path``."""
    X, y = make_classification(n_samples=1200, n_features=50, n_informative=8, n_classes=4,
                               random_state=0)
    X = X.astype(np.float32)
    datasets.dump(X, y, path, chunk_rows=chunk_rows)
    return path, X, y.astype(np.float64)


@pytest.fixture
def small(tmp_path):
    """``four_classes`` in 12 chunks of 100 rows."""
    return four_classes(tmp_path / "small.snap", 100)


def test_streamed_fit_matches_the_arrays(a9a):
    path, X, y, X_test, y_test = a9a
    budget = streaming_budget(path)
    plan = _core.SnapFile(str(path), budget)
    assert plan.streamed and plan.resident_bytes <= os.path.getsize(path) // 10
    reference = LogisticRegression(C=0.1, tol=1e-6, random_state=0).fit(X, y)
    streamed = LogisticRegression(C=0.1, tol=1e-3, random_state=0, max_memory=budget).fit(path)
    assert streamed._data_source == "streamed"
    np.testing.assert_array_equal(streamed.classes_, reference.classes_)
    assert streamed.n_features_in_ == X.shape[1] and streamed.coef_.shape == reference.coef_.shape
    # The duality gap certifies P(w) - P(w*) <= tol * P(w), and P being 1-strongly
    # convex, ||w - w*||^2 <= 2 * tol * P(w).
    primal = streamed.training_history_[0]["primal"][-1]
    optimum = reference.training_history_[0]["primal"][-1]
    assert optimum <= primal * (1 + 1e-6) and primal - optimum <= 1e-3 * primal
    distance = np.linalg.norm(np.r_[streamed.coef_.ravel(), streamed.intercept_] -
                              np.r_[reference.coef_.ravel(), reference.intercept_])
    assert distance <= np.sqrt(2 * 1e-3 * primal)
    assert abs(streamed.score(X_test, y_test) - reference.score(X_test, y_test)) <= 0.001


def test_mapped_fit_equals_the_arrays(a9a):
    path, X, y, X_test, y_test = a9a
    budget = os.path.getsize(path) * 2
    assert not _core.SnapFile(str(path), budget).streamed
    arrays = LogisticRegression(random_state=0).fit(X, y)
    for max_memory in (budget, None, "1G"):
        mapped = LogisticRegression(random_state=0, max_memory=max_memory).fit(path)
        assert mapped._data_source == "mapped"
        np.testing.assert_array_equal(mapped.classes_, arrays.classes_)
        np.testing.assert_allclose(mapped.coef_, arrays.coef_, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(mapped.training_history_[0]["primal"],
                                   arrays.training_history_[0]["primal"], rtol=1e-9)
        assert mapped.n_iter_[0] == arrays.n_iter_[0]
        assert mapped.score(X_test, y_test) == pytest.approx(arrays.score(X_test, y_test), abs=1e-4)


@pytest.mark.parametrize("estimator", [LogisticRegression(C=0.01, multi_class="ovr"),
                                       SupportVectorMachine(C=0.01, loss="squared_hinge")])
def test_one_vs_rest_streams(tmp_path, estimator):
    # Streaming visits the chunks in file order, which converges slowly when a
    # chunk nearly determines the weights (docs/out-of-core.md, "Convergence"):
    # strong regularisation and 4 chunks of 300 rows keep this test short.
    path, X, y = four_classes(tmp_path / "four.snap", 300)
    budget = ring_budget(path)
    assert _core.SnapFile(str(path), budget).streamed
    reference = clone(estimator).set_params(tol=1e-6, random_state=0).fit(X, y)
    streamed = clone(estimator).set_params(tol=1e-4, max_iter=5000, random_state=0,
                                           max_memory=budget).fit(path)
    np.testing.assert_array_equal(streamed.classes_, [0.0, 1.0, 2.0, 3.0])
    assert streamed.coef_.shape == (4, X.shape[1]) and len(streamed.training_history_) == 4
    for fitted, optimal in zip(streamed.training_history_, reference.training_history_):
        assert fitted["primal"][-1] - optimal["primal"][-1] <= 1e-4 * fitted["primal"][-1]
    assert abs(streamed.score(X, y) - reference.score(X, y)) <= 0.01


def test_regression_and_file_weights(tmp_path):
    rng = np.random.RandomState(3)
    X = sp.random(600, 40, density=0.2, format="csr", dtype=np.float32, random_state=rng)
    y = X @ rng.randn(40) + 0.1 * rng.randn(600)
    weights = rng.randint(0, 3, 600).astype(np.float32)
    path = tmp_path / "weighted.snap"
    datasets.dump(X, y, path, sample_weight=weights, chunk_rows=50)
    arrays = LinearRegression(random_state=0).fit(X, y, sample_weight=weights)
    mapped = LinearRegression(random_state=0).fit(path)
    np.testing.assert_allclose(mapped.coef_, arrays.coef_, rtol=1e-6, atol=1e-9)
    assert mapped.intercept_ == pytest.approx(arrays.intercept_, rel=1e-6, abs=1e-9)
    streamed = LinearRegression(tol=1e-6, max_iter=5000, random_state=0,
                                max_memory=ring_budget(path)).fit(path)
    assert streamed._data_source == "streamed"
    np.testing.assert_allclose(streamed.coef_, arrays.coef_, atol=0.05)
    # score() on a path weighs by the file's weights, as fit does.
    assert mapped.score(path) == pytest.approx(mapped.score(X, y, sample_weight=weights))


def test_predictions_from_a_path(small):
    path, X, y = small
    model = LogisticRegression(random_state=0).fit(X, y)
    # The file's float32 values, predicted in float64 as the core predicts a file:
    # the float32 X itself predicts in float32 (coef_ is float32, as scikit-learn's).
    X = X.astype(np.float64)
    for max_memory in (None, ring_budget(path)):
        model.set_params(max_memory=max_memory)
        np.testing.assert_allclose(model.decision_function(path), model.decision_function(X),
                                   rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(model.predict(path), model.predict(X))
        np.testing.assert_allclose(model.predict_proba(path), model.predict_proba(X), rtol=1e-9)
        assert model.score(path) == model.score(X, y)
    regression = LinearRegression().fit(X, y)
    np.testing.assert_allclose(regression.predict(path), regression.predict(X),
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="y must be None"):
        model.score(path, y)


def test_corrupted_chunk_names_the_file_and_chunk(small):
    path, X, y = small
    model = LogisticRegression().fit(X, y)
    offset, n_rows, nnz = chunk_entry(path, 5)
    with open(path, "r+b") as f:
        f.seek(offset + 8 * (n_rows + 1) + 8 * n_rows + 4 * nnz)  # a column index
        value = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([value[0] ^ 0x5A]))
    message = rf"{path.name}: chunk 5 checksum mismatch"
    with pytest.raises(ValueError, match=message):
        LogisticRegression().fit(path)
    with pytest.raises(ValueError, match=message):
        LogisticRegression(max_memory=ring_budget(path)).fit(path)
    with pytest.raises(ValueError, match=message):
        model.predict(path)


def test_truncated_file_is_refused(small):
    path, _, _ = small
    budget = ring_budget(path)
    os.truncate(path, os.path.getsize(path) - 100)
    with pytest.raises(ValueError, match=rf"{path.name}: truncated"):
        LogisticRegression().fit(path)
    with pytest.raises(ValueError, match=rf"{path.name}: truncated"):
        LogisticRegression(max_memory=budget).fit(path)


def test_file_cut_while_streaming_names_the_chunk(small, monkeypatch):
    path, _, _ = small
    offset, _, _ = chunk_entry(path, 6)

    class CutAfterFirstEpoch:
        """stdout for the verbose lines: cuts the file when epoch 1 is reported."""

        done = False

        def write(self, text):
            if "epoch" in text and not self.done:
                self.done = True
                os.truncate(path, offset)

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", CutAfterFirstEpoch())
    with pytest.raises(ValueError, match=rf"{path.name}: chunk (\d+) truncated") as failure:
        LogisticRegression(verbose=1, tol=1e-12, max_iter=50,
                           max_memory=ring_budget(path)).fit(path)
    # Epochs take the chunks in a shuffled order: the first one read after the
    # cut may be any of chunks 6 onwards, and it is the one named.
    chunk = int(re.search(r"chunk (\d+) truncated", str(failure.value)).group(1))
    assert chunk >= 6


def test_ctrl_c_interrupts_a_streamed_fit(tmp_path, ctrl_c_handled):
    rng = np.random.RandomState(0)
    X = sp.random(20000, 2000, density=0.01, format="csr", random_state=rng, dtype=np.float32)
    y = rng.randint(0, 2, X.shape[0])  # random labels: far from converging
    path = tmp_path / "random.snap"
    datasets.dump(X, y, path, chunk_rows=2000)
    model = LogisticRegression(C=100.0, tol=1e-15, max_iter=100000,
                               max_memory=ring_budget(path))
    timer = threading.Timer(0.5, os.kill, args=(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        model.fit(path)
    timer.cancel()
    assert time.monotonic() - start < 10.0


def test_verbose_says_when_it_streams(small, capsys):
    path, _, _ = small
    LogisticRegression(C=0.01, verbose=1, max_memory=ring_budget(path)).fit(path)
    assert "exceeds max_memory" in capsys.readouterr().out
    LogisticRegression(C=0.01, verbose=1).fit(path)
    assert "exceeds max_memory" not in capsys.readouterr().out


def test_verbose_line_reports_the_file_size_not_the_ring(small, capsys):
    # data_bytes was bound twice, the second (the ring's bytes) hiding the first.
    path, _, _ = small
    whole = _core.SnapFile(str(path))
    streamed = _core.SnapFile(str(path), ring_budget(path))
    assert streamed.streamed and streamed.resident_bytes < streamed.data_bytes == whole.data_bytes
    assert whole.resident_bytes == whole.data_bytes
    LogisticRegression(C=0.01, verbose=1, max_memory=ring_budget(path)).fit(path)
    assert f"({whole.data_bytes} bytes) exceeds max_memory" in capsys.readouterr().out


def test_warm_start_from_a_path(small):
    path, X, _ = small
    model = LogisticRegression(tol=1e-8, warm_start=True, random_state=0).fit(path)
    first = model.n_iter_
    model.fit(path)
    assert np.all(model.n_iter_ < first)
    # Other classes: a cold start, as with arrays.
    model.fit(X, np.arange(len(X)) % 2)
    model.fit(path)
    np.testing.assert_array_equal(model.n_iter_, first)


def test_class_weight_by_file_label(small):
    path, X, y = small
    arrays = SupportVectorMachine(C=0.1, class_weight={2: 5.0}, random_state=0).fit(X, y)
    mapped = SupportVectorMachine(C=0.1, class_weight={2: 5.0}, random_state=0).fit(path)
    np.testing.assert_allclose(mapped.coef_, arrays.coef_, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="class_weight names label 7"):
        SupportVectorMachine(class_weight={7: 2.0}).fit(path)
    with pytest.raises(ValueError, match="labels of a .snap file are numbers"):
        SupportVectorMachine(class_weight={"a": 2.0}).fit(path)


def test_fitted_from_a_path_pickles(small):
    path, X, _ = small
    model = LogisticRegression(random_state=0, max_memory="64MB").fit(path)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    assert clone(model).get_params()["max_memory"] == "64MB"


# ---- what is refused ----------------------------------------------------------------


def test_y_or_sample_weight_with_a_path(small):
    path, _, y = small
    with pytest.raises(ValueError, match="y must be None when X is the path of a .snap file"):
        LogisticRegression().fit(path, y)
    with pytest.raises(ValueError, match="sample_weight must be None"):
        LogisticRegression().fit(path, sample_weight=np.ones(len(y)))


def test_arrays_without_y():
    X, _ = make_classification(random_state=0)
    with pytest.raises(ValueError, match="requires y to be passed"):
        LogisticRegression().fit(X)
    with pytest.raises(ValueError, match="requires y to be passed"):
        LinearRegression().fit(X)


def test_max_memory_with_arrays_says_how_to_stream():
    X, y = make_classification(random_state=0)
    with pytest.raises(ValueError, match=r"max_memory.*\.snap.*snap_ml\.datasets\.dump"):
        LogisticRegression(max_memory="1GB").fit(X, y)


def test_svmlight_path_is_refused():
    from conftest import dataset_path

    with pytest.raises(ValueError, match="not a .snap file.*load_svmlight_file.*snap-convert"):
        LogisticRegression().fit(dataset_path("heart_scale"))


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        LogisticRegression().fit("/nonexistent/data.snap")


@pytest.mark.parametrize("text, expected", [
    ("512MB", 512 << 20), ("4GB", 4 << 30), ("1.5G", 3 << 29), ("100k", 102400),
    ("2GiB", 2 << 30), ("123456", 123456), (4096, 4096), (np.int64(10), 10), (None, 0),
])
def test_memory_sizes(text, expected):
    assert memory_size("max_memory", text) == expected


@pytest.mark.parametrize("value", ["", "12XB", "abc", "0", "-5", "1.5.2G", 0, -5, 1.5e9, True])
def test_bad_memory_sizes(small, value):
    path, _, _ = small
    with pytest.raises(ValueError, match="max_memory"):
        LogisticRegression(max_memory=value).fit(path)


def test_budget_too_small_to_stream(small):
    path, _, _ = small
    with pytest.raises(ValueError, match="too small to stream.*smaller chunks"):
        LogisticRegression(max_memory=1000).fit(path)


def test_l1_does_not_stream(small):
    path, X, y = small
    with pytest.raises(ValueError, match="penalty='l1'.*column-major copy"):
        LogisticRegression(penalty="l1", max_memory=ring_budget(path)).fit(path)
    mapped = LogisticRegression(penalty="l1", random_state=0).fit(path)
    arrays = LogisticRegression(penalty="l1", random_state=0).fit(X, y)
    np.testing.assert_allclose(mapped.coef_, arrays.coef_, rtol=1e-6, atol=1e-9)


def test_max_gpu_memory_needs_use_gpu(small):
    path, X, y = small
    with pytest.raises(ValueError, match="max_gpu_memory.*needs use_gpu=True"):
        LogisticRegression(max_gpu_memory="1GB").fit(X, y)
    with pytest.raises(ValueError, match="max_gpu_memory.*needs use_gpu=True"):
        LogisticRegression(max_gpu_memory=2**30).fit(path)
    with pytest.raises(ValueError, match="max_gpu_memory"):
        LogisticRegression(use_gpu=True, max_gpu_memory="lots").fit(X, y)
    if not _core.built_with_cuda:
        with pytest.raises(ValueError, match="(?i)cuda|gpu"):
            LogisticRegression(use_gpu=True, max_gpu_memory="1GB").fit(X, y)
