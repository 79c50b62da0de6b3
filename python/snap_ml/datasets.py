"""Dataset files: svmlight/libsvm text (parsed in parallel by the C++ reader) and
snapml's binary chunked format (``.snap``, written by ``snap-convert`` too).

``load_svmlight_file`` and ``dump_svmlight_file`` take scikit-learn's arguments
and return what scikit-learn's functions return; ``load`` and ``dump`` read and
write the binary format.
"""

import bz2
import os
import shutil
import tempfile

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from . import _core
from ._data import check_sample_weight, to_core

__all__ = ["dump", "dump_svmlight_file", "load", "load_svmlight_file"]


def _zero_based_name(zero_based):
    if zero_based == "auto":
        return "auto"
    if zero_based is True:
        return "zero"
    if zero_based is False:
        return "one"
    raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")


def _to_scipy(arrays, dtype):
    indptr, indices, data, labels, weights, n_features = arrays
    X = sp.csr_matrix((data.astype(dtype, copy=False), indices, indptr),
                      shape=(len(labels), n_features))
    return X, labels, weights


def load_svmlight_file(f, *, n_features=None, dtype=np.float64, multilabel=False,
                       zero_based="auto", query_id=False, offset=0, length=-1, n_jobs=None):
    """Load a dataset in svmlight/libsvm format, as scikit-learn's function does.

    The file is parsed by snapml's parallel C++ reader; the result equals
    ``sklearn.datasets.load_svmlight_file``'s. Values are parsed as float32 (the
    precision the core trains in) and cast to ``dtype``, so with ``dtype=float64``
    a value that float32 cannot hold exactly (0.1) differs from scikit-learn's
    in the 8th significant digit.

    Parameters
    ----------
    f : str, os.PathLike or binary file object
        A path (``.gz`` and ``.bz2`` decompressed) or an open binary file.
    n_features : int, default=None
        The number of features; None infers it (largest index + 1). A test set
        read with the training set's count may use fewer features.
    dtype : numpy dtype, default=np.float64
        The dtype of the returned matrix.
    multilabel, query_id : bool, default=False
        Not supported (ValueError): use scikit-learn's loader for those files.
    zero_based : bool or "auto", default="auto"
        Whether column indices start at 0; "auto" takes one-based unless an index 0
        occurs (scikit-learn's rule).
    offset, length : int, default=0 and -1
        Not supported other than the defaults (ValueError).
    n_jobs : int, default=None
        Parser threads; None uses every CPU.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), float64
    """
    if multilabel or query_id or offset != 0 or length != -1:
        raise ValueError(
            "multilabel, query_id, offset and length are not supported by snapml's reader; "
            "use sklearn.datasets.load_svmlight_file for such files"
        )
    if n_features is not None and (int(n_features) != n_features or n_features < 1):
        raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}")
    options = dict(
        n_features=int(n_features or 0),
        zero_based=_zero_based_name(zero_based),
        threads=0 if n_jobs is None else int(n_jobs),
    )
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if path.endswith(".bz2"):
            with bz2.open(path, "rb") as stream:
                arrays = _core.parse_svmlight(stream.read(), path, **options)
        else:
            arrays = _core.read_svmlight(path, **options)
    elif hasattr(f, "read"):
        name = getattr(f, "name", "<file object>")
        arrays = _core.parse_svmlight(bytes(f.read()), str(name), **options)
    else:
        raise ValueError(f"f must be a path or a binary file object, got {type(f).__name__}")
    X, y, _ = _to_scipy(arrays, dtype)
    return X, y


def _checked(X, y, sample_weight=None):
    X = check_array(X, accept_sparse=("csr", "csc", "coo"), dtype=(np.float64, np.float32))
    y = column_or_1d(y, warn=True).astype(np.float64)
    check_consistent_length(X, y)
    if not np.all(np.isfinite(y)):
        raise ValueError("y has NaN or infinite labels; pass finite numeric labels")
    return to_core(X, y, check_sample_weight(sample_weight, X.shape[0]))


def dump_svmlight_file(X, y, f, *, zero_based=True, comment=None, query_id=None,
                       multilabel=False):
    """Write a dataset in svmlight/libsvm format, as scikit-learn's function does.

    Values are written with the shortest decimal form that reads back to the same
    float32. The file appears atomically (written aside, then renamed).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Numeric labels.
    f : str, os.PathLike or binary file object
    zero_based : bool, default=True
        Write zero-based column indices (scikit-learn's default); False writes
        one-based ones (LIBLINEAR's convention).
    comment, query_id, multilabel :
        Not supported (ValueError): use scikit-learn's writer for those.
    """
    if comment is not None or query_id is not None or multilabel:
        raise ValueError(
            "comment, query_id and multilabel are not supported by snapml's writer; "
            "use sklearn.datasets.dump_svmlight_file"
        )
    if zero_based not in (True, False):
        raise ValueError(f"zero_based must be True or False, got {zero_based!r}")
    data = _checked(X, y)
    if isinstance(f, (str, os.PathLike)):
        _core.write_svmlight(data, os.fspath(f), zero_based=bool(zero_based))
        return
    if not hasattr(f, "write"):
        raise ValueError(f"f must be a path or a binary file object, got {type(f).__name__}")
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "data.svm")
        _core.write_svmlight(data, path, zero_based=bool(zero_based))
        with open(path, "rb") as written:
            shutil.copyfileobj(written, f)


def load(path, *, dtype=np.float32, return_sample_weight=False):
    """Read a file in snapml's binary chunked format (``.snap``).

    Every chunk's checksum and structure is verified.

    Parameters
    ----------
    path : str or os.PathLike
    dtype : numpy dtype, default=np.float32
        The dtype of the returned matrix; float32 is the file's own precision.
    return_sample_weight : bool, default=False
        Also return the per-sample weights (ones when the file has none).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), float64
    sample_weight : ndarray of shape (n_samples,), float32
        Only when ``return_sample_weight`` is True.
    """
    X, y, weights = _to_scipy(_core.load_binary(os.fspath(path)), dtype)
    if not return_sample_weight:
        return X, y
    if weights is None:
        weights = np.ones(len(y), dtype=np.float32)
    return X, y, weights


def dump(X, y, path, *, sample_weight=None, chunk_rows=None):
    """Write a dataset in snapml's binary chunked format (``.snap``), atomically.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Stored as float32.
    y : array-like of shape (n_samples,)
        Numeric labels, stored as float64.
    path : str or os.PathLike
    sample_weight : array-like of shape (n_samples,), default=None
        Stored when given.
    chunk_rows : int, default=None
        Rows per chunk in the file (the unit of out-of-core streaming); None writes
        one chunk.
    """
    if chunk_rows is not None and (int(chunk_rows) != chunk_rows or chunk_rows < 1):
        raise ValueError(f"chunk_rows must be a positive integer or None, got {chunk_rows!r}")
    _core.write_binary(_checked(X, y, sample_weight), os.fspath(path),
                       chunk_rows=int(chunk_rows or 0))
