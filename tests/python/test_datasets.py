"""snap_ml.datasets: the svmlight loader equals scikit-learn's on every shared
dataset; writers round-trip; the binary format round-trips with weights."""

import gzip
import io

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.datasets

from snap_ml import datasets

from conftest import DATASETS, dataset_path


def assert_same_csr(ours, theirs):
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype
    ours, theirs = ours.tocsr(), theirs.tocsr()
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)


@pytest.mark.parametrize("name", DATASETS)
def test_load_svmlight_file_equals_scikit_learn(name):
    path = dataset_path(name)
    X, y = datasets.load_svmlight_file(path, dtype=np.float32)
    X_ref, y_ref = sklearn.datasets.load_svmlight_file(str(path), dtype=np.float32)
    assert_same_csr(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)
    assert y.dtype == y_ref.dtype == np.float64


@pytest.mark.parametrize("name", ["heart_scale", "news20.multiclass"])
def test_float64_is_float32_rounded(name):
    # Values are parsed in the core's float32, so float64 output differs from
    # scikit-learn's in the last digits only where float32 cannot hold the value.
    path = dataset_path(name)
    X, _ = datasets.load_svmlight_file(path)
    X_ref, _ = sklearn.datasets.load_svmlight_file(str(path))
    assert X.dtype == np.float64 and X.shape == X_ref.shape
    np.testing.assert_allclose(X.data, X_ref.data, rtol=2**-24)


def test_options_match_scikit_learn():
    path = dataset_path("a9a.t")
    for kwargs in [dict(n_features=123), dict(zero_based=False), dict(zero_based=True)]:
        X, y = datasets.load_svmlight_file(path, dtype=np.float32, **kwargs)
        X_ref, y_ref = sklearn.datasets.load_svmlight_file(str(path), dtype=np.float32, **kwargs)
        assert_same_csr(X, X_ref)


def test_file_objects_and_gzip(tmp_path):
    path = dataset_path("heart_scale")
    X_ref, y_ref = sklearn.datasets.load_svmlight_file(str(path), dtype=np.float32)
    with open(path, "rb") as f:
        X, y = datasets.load_svmlight_file(f, dtype=np.float32)
    assert_same_csr(X, X_ref)
    compressed = tmp_path / "heart_scale.gz"
    compressed.write_bytes(gzip.compress(path.read_bytes()))
    X, y = datasets.load_svmlight_file(compressed, dtype=np.float32)
    assert_same_csr(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


def test_malformed_file_names_the_line():
    with pytest.raises(ValueError, match=":2:"):
        datasets.load_svmlight_file(io.BytesIO(b"1 1:0.5\n-1 3:x\n"))


def test_unsupported_options_are_refused():
    with pytest.raises(ValueError, match="sklearn.datasets.load_svmlight_file"):
        datasets.load_svmlight_file(io.BytesIO(b"1 1:1\n"), multilabel=True)


@pytest.mark.parametrize("zero_based", [True, False])
def test_dump_svmlight_file_round_trip(tmp_path, zero_based):
    rng = np.random.RandomState(0)
    X = sp.random(50, 30, density=0.2, format="csr", random_state=rng, dtype=np.float32)
    y = rng.randint(0, 3, 50).astype(np.float64)
    path = tmp_path / "out.svm"
    datasets.dump_svmlight_file(X, y, path, zero_based=zero_based)
    X_ref, y_ref = sklearn.datasets.load_svmlight_file(
        str(path), n_features=30, zero_based=zero_based, dtype=np.float32)
    assert_same_csr(X_ref, X)
    np.testing.assert_array_equal(y_ref, y)
    buffer = io.BytesIO()
    datasets.dump_svmlight_file(X, y, buffer, zero_based=zero_based)
    assert buffer.getvalue() == path.read_bytes()


def test_binary_round_trip_with_weights(tmp_path):
    rng = np.random.RandomState(1)
    X = sp.random(1000, 40, density=0.1, format="csr", random_state=rng, dtype=np.float32)
    y = rng.randn(1000)
    weights = rng.rand(1000).astype(np.float32)
    path = tmp_path / "data.snap"
    datasets.dump(X, y, path, sample_weight=weights, chunk_rows=128)
    X2, y2, w2 = datasets.load(path, return_sample_weight=True)
    assert_same_csr(X2, X)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(w2, weights)
    X3, y3 = datasets.load(path)
    assert X3.shape == X.shape


def test_binary_corruption_is_detected(tmp_path):
    X = sp.csr_matrix(np.eye(4, dtype=np.float32))
    path = tmp_path / "eye.snap"
    datasets.dump(X, np.arange(4.0), path)
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError):
        datasets.load(path)
