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


def assert_identical(ours, theirs):
    """scikit-learn's result bit for bit: types, shapes, dtypes and bytes."""
    assert type(ours) is type(theirs), (type(ours), type(theirs))
    if isinstance(ours, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_identical(a, b)
    elif sp.issparse(ours):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        for name in ("indptr", "indices", "data"):
            a, b = getattr(ours, name), getattr(theirs, name)
            assert a.dtype == b.dtype, (name, a.dtype, b.dtype)
            assert a.tobytes() == b.tobytes(), name
    elif isinstance(ours, np.ndarray):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert ours.tobytes() == theirs.tobytes()
    else:
        assert ours == theirs


@pytest.mark.parametrize("name", ["heart_scale", "a9a", "news20.multiclass"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bit_for_bit_with_scikit_learn(name, dtype):
    # Values are parsed directly as doubles (float32: rounded once), indices and
    # indptr are int64, X is a csr_matrix: scikit-learn's own result.
    path = dataset_path(name)
    assert_identical(datasets.load_svmlight_file(path, dtype=dtype),
                     sklearn.datasets.load_svmlight_file(str(path), dtype=dtype))


EDGE_CASES = (
    b"# a comment line\n"
    b"1.5e3 qid:3 1:1e-7 3:0.1234567890123456789 7:-2.5E+10 # a trailing comment\n"
    b"-1 qid:-2 2:0.3 9:123456789.123456789e-300\n"
    b" \t\n"
    b"2 qid:4\n"
    b"+0.1 qid:7 10:1.7976931348623157e38 11:4.9e-324 12:0.30000000000000004\n"
    b"3 1:1.00000000000000000000000000000000000001 2:-0.0 3:7\r\n"
)


@pytest.mark.parametrize("kwargs", [
    {}, dict(query_id=True), dict(zero_based=False), dict(zero_based=True),
    dict(dtype=np.float32, query_id=True), dict(dtype=np.float16), dict(n_features=30),
    dict(offset=20, length=40, n_features=30), dict(offset=95, n_features=30, query_id=True),
    dict(length=1, n_features=30), dict(offset=10**6, n_features=30),
])
def test_edge_cases_bit_for_bit(kwargs):
    with np.errstate(over="ignore"):  # float16 cannot hold 1.8e38: both give inf
        ours = datasets.load_svmlight_file(io.BytesIO(EDGE_CASES), **kwargs)
        theirs = sklearn.datasets.load_svmlight_file(io.BytesIO(EDGE_CASES), **kwargs)
    assert_identical(ours, theirs)


@pytest.mark.parametrize("text", [
    b"1,3,2 1:0.5 2:0.25\n 2:1\n2 3:4\n1:7 4:2\n",
    b"2.5 qid:1 1:1\n1:3\n0,0.5 qid:2\n",
])
@pytest.mark.parametrize("kwargs", [dict(), dict(zero_based=False), dict(query_id=True)])
def test_multilabel_bit_for_bit(text, kwargs):
    ours = datasets.load_svmlight_file(io.BytesIO(text), multilabel=True, **kwargs)
    theirs = sklearn.datasets.load_svmlight_file(io.BytesIO(text), multilabel=True, **kwargs)
    assert_identical(ours, theirs)


def test_segments_cover_the_file_as_scikit_learn_cuts_it():
    path = dataset_path("a9a")
    size = path.stat().st_size
    for length in (1, 4096, 100000):
        for offset in range(0, size, max(size // 7, length)):
            kwargs = dict(offset=offset, length=length, n_features=124)
            assert_identical(datasets.load_svmlight_file(path, **kwargs),
                             sklearn.datasets.load_svmlight_file(str(path), **kwargs))


@pytest.mark.parametrize("text", [b"", b"1\n-1\n", b"# only\n\n"])
def test_files_without_examples_or_indices(text):
    assert_identical(datasets.load_svmlight_file(io.BytesIO(text)),
                     sklearn.datasets.load_svmlight_file(io.BytesIO(text)))


def test_load_svmlight_files_share_n_features_and_base(tmp_path):
    files = [dataset_path("a9a"), dataset_path("a9a.t")]
    assert_identical(datasets.load_svmlight_files(files),
                     sklearn.datasets.load_svmlight_files([str(f) for f in files]))
    # one file zero-based decides the base of both ("auto" over all the files)
    zero = tmp_path / "zero.svm"
    zero.write_bytes(b"1 0:1 5:2\n")
    one = tmp_path / "one.svm"
    one.write_bytes(b"1 1:1 3:2\n")
    for kwargs in (dict(), dict(query_id=True), dict(n_features=9)):
        assert_identical(datasets.load_svmlight_files([zero, one], **kwargs),
                         sklearn.datasets.load_svmlight_files([str(zero), str(one)], **kwargs))
    with pytest.raises(ValueError, match="n_features was set to 3"):
        datasets.load_svmlight_files([zero, one], n_features=3)


def test_file_descriptor_and_bz2(tmp_path):
    import bz2
    path = dataset_path("heart_scale")
    expected = sklearn.datasets.load_svmlight_file(str(path))
    with open(path, "rb") as f:
        assert_identical(datasets.load_svmlight_file(f.fileno()), expected)
    compressed = tmp_path / "heart_scale.bz2"
    compressed.write_bytes(bz2.compress(path.read_bytes()))
    assert_identical(datasets.load_svmlight_file(compressed), expected)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        datasets.load_svmlight_file(tmp_path / "missing.svm")
    with pytest.raises(FileNotFoundError):
        datasets.load_svmlight_files([dataset_path("heart_scale"), tmp_path / "missing.svm"])


def test_offset_needs_n_features():
    with pytest.raises(ValueError, match="n_features is required"):
        datasets.load_svmlight_file(io.BytesIO(b"1 1:1\n"), offset=3)


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


def test_nan_values_are_refused_with_the_line():
    # The one difference from scikit-learn, which loads them: NaN and infinity
    # would reach training (docs/formats.md).
    with pytest.raises(ValueError, match=":2:.*NaN"):
        datasets.load_svmlight_file(io.BytesIO(b"1 1:0.5\n-1 3:nan\n"))


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


def test_generated_file_with_random_digits_and_exponents(tmp_path):
    # Doubles written with up to 17 significant digits, exponents from 1e-300 to
    # 1e300 and '+' signs: every value must be the correctly rounded double
    # (the float32 parse before differed in 1,378 values of heart_scale alone).
    rng = np.random.default_rng(7)
    lines = []
    for _ in range(2000):
        columns = np.sort(rng.choice(500, 12, replace=False)) + 1
        values = rng.standard_normal(12) * 10.0 ** rng.integers(-300, 300, 12)
        texts = [f"{v:.{rng.integers(1, 18)}e}" if k % 3 else repr(float(v)) for k, v in enumerate(values)]
        texts = [("+" + t if not t.startswith("-") and k % 5 == 0 else t) for k, t in enumerate(texts)]
        lines.append(f"{rng.integers(-1, 2)} " + " ".join(f"{c}:{t}" for c, t in zip(columns, texts)))
    path = tmp_path / "generated.svm"
    path.write_text("\n".join(lines) + "\n")
    for dtype in (np.float64, np.float32):
        with np.errstate(over="ignore"):
            if dtype == np.float32:  # only values that float32 can hold: we refuse overflow
                path.write_text("\n".join(lines).replace("e+", "e-") + "\n")
            assert_identical(datasets.load_svmlight_file(path, dtype=dtype),
                             sklearn.datasets.load_svmlight_file(str(path), dtype=dtype))
