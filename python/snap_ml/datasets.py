"""Dataset files: svmlight/libsvm text (parsed in parallel by the C++ reader) and
snapml's binary chunked format (``.snap``, written by ``snap-convert`` too).

``load_svmlight_file`` and ``dump_svmlight_file`` take scikit-learn's arguments
and return what scikit-learn's functions return; ``load`` and ``dump`` read and
write the binary format.
"""

import bz2
import numbers
import os
import shutil
import tempfile

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from . import _core
from ._data import check_sample_weight, to_core

__all__ = ["dump", "dump_svmlight_file", "load", "load_svmlight_file", "load_svmlight_files"]


def _to_scipy(arrays, dtype):
    indptr, indices, data, labels, weights, n_features = arrays
    X = sp.csr_matrix((data.astype(dtype, copy=False), indices, indptr),
                      shape=(len(labels), n_features))
    return X, labels, weights


def _source(f, offset):
    """What the C++ reader takes for `f`: (bytes or None, name). A path is read by
    the reader itself (gzip recognised by its magic bytes); .bz2 and open files
    are read here."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        os.stat(path)  # FileNotFoundError / PermissionError, as open() raises them
        if path.endswith(".bz2"):
            with bz2.open(path, "rb") as stream:
                return stream.read(), path
        return None, path
    if isinstance(f, numbers.Integral) and not isinstance(f, bool):
        with open(f, "rb", closefd=False) as stream:
            return _source(stream, offset)
    if hasattr(f, "read"):
        if offset > 0:
            f.seek(0)  # scikit-learn seeks to the absolute offset
        return bytes(f.read()), str(getattr(f, "name", "<file object>"))
    raise TypeError(f"expected {{str, int, path-like, file-like}}, got {type(f).__name__}")


def _check_options(n_features, zero_based, offset, length, n_jobs):
    if n_features is not None and (not isinstance(n_features, numbers.Integral)
                                   or isinstance(n_features, bool) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if not isinstance(offset, numbers.Integral) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
    if not isinstance(length, numbers.Integral):
        raise ValueError(f"length must be an integer, got {length!r}")
    if n_jobs is not None and (not isinstance(n_jobs, numbers.Integral) or n_jobs < 1):
        raise ValueError(f"n_jobs must be a positive integer or None, got {n_jobs!r}")


def load_svmlight_files(files, *, n_features=None, dtype=np.float64, multilabel=False,
                        zero_based="auto", query_id=False, offset=0, length=-1, n_jobs=None):
    """Load several svmlight/libsvm files with a shared number of features, as
    ``sklearn.datasets.load_svmlight_files`` does.

    Returns what scikit-learn's function returns, bit for bit (see
    ``load_svmlight_file``): ``[X1, y1, ..., Xn, yn]``, or ``[X1, y1, q1, ...]``
    with ``query_id=True``. ``zero_based="auto"`` decides the base over all the
    files together, and ``n_features`` (inferred: the largest column + 1 over all
    files) is the width of every X.
    """
    if isinstance(files, (str, os.PathLike, numbers.Integral)) or hasattr(files, "read"):
        files = [files]
    _check_options(n_features, zero_based, offset, length, n_jobs)
    if (offset != 0 or length > 0) and zero_based == "auto":
        # scikit-learn's rule: a segment cannot tell the base of the whole file
        zero_based = True
    if (offset != 0 or length > 0) and n_features is None:
        raise ValueError("n_features is required when offset or length is specified.")
    dtype = np.dtype(dtype)
    float32 = dtype == np.float32
    parsed = []
    for f in files:
        text, name = _source(f, offset)
        parsed.append(_core.svmlight_arrays(
            text, name, float32=float32, multilabel=bool(multilabel), query_id=bool(query_id),
            allow_index_zero=zero_based is not False, offset=int(offset), length=int(length),
            threads=0 if n_jobs is None else int(n_jobs)))
    # scikit-learn's zero_based="auto": one-based when every file has an index and
    # none is 0.
    shift = zero_based is False or (
        zero_based == "auto" and all(len(p[1]) and not p[6] for p in parsed))
    largest = max((p[7] - shift if len(p[1]) else 0) for p in parsed) + 1
    if n_features is None:
        n_features = largest
    elif n_features < largest:
        raise ValueError(
            f"n_features was set to {n_features}, but input file contains {largest} features")
    result = []
    for indptr, indices, data, labels, label_offsets, query_ids, _, _ in parsed:
        if shift:
            indices -= 1
        X = sp.csr_array((data.astype(dtype, copy=False), indices, indptr),
                         shape=(len(indptr) - 1, n_features))
        result += [_sparse_interface(X), _labels(labels, label_offsets)]
        if query_id:
            result.append(query_ids)
    return result


def _labels(labels, label_offsets):
    if label_offsets is None:
        return labels
    values = labels.tolist()  # Python floats in tuples, as scikit-learn's
    bounds = label_offsets.tolist()
    return [tuple(values[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def _sparse_interface(X):
    """A csr_matrix, or a csr_array where scikit-learn is configured for arrays."""
    if sklearn.get_config().get("sparse_interface", "spmatrix") == "sparray":
        return X
    return sp.csr_matrix(X)


def load_svmlight_file(f, *, n_features=None, dtype=np.float64, multilabel=False,
                       zero_based="auto", query_id=False, offset=0, length=-1, n_jobs=None):
    """Load a dataset in svmlight/libsvm format, as scikit-learn's function does.

    The file is parsed by snapml's parallel C++ reader; the result is
    ``sklearn.datasets.load_svmlight_file``'s bit for bit, for every parameter:
    values parsed directly as doubles (or rounded once to float32 with
    ``dtype=np.float32``), int64 indices and indptr, a float64 ``y``. The one
    difference: NaN and infinite labels and values are refused (ValueError naming
    file, line and column), where scikit-learn loads them.

    Parameters
    ----------
    f : str, os.PathLike, int (a file descriptor) or binary file object
        A path (``.gz`` and ``.bz2`` decompressed) or an open binary file.
    n_features : int, default=None
        The number of features; None infers it (largest index + 1). A test set
        read with the training set's count may use fewer features.
    dtype : numpy dtype, default=np.float64
        The dtype of X (y is float64).
    multilabel : bool, default=False
        Lines hold comma-separated label sets; y is a list of tuples.
    zero_based : bool or "auto", default="auto"
        Whether column indices start at 0; "auto" takes one-based unless an index 0
        occurs or a row-less file has no index (scikit-learn's rule); with
        ``offset``/``length`` "auto" means True.
    query_id : bool, default=False
        Also return the ``qid:`` values (one per line that has one).
    offset, length : int, default=0 and -1
        Read the lines of bytes [offset, offset + length) only, as scikit-learn
        does (a line crossing a boundary belongs to the earlier segment);
        ``n_features`` is then required.
    n_jobs : int, default=None
        Parser threads; None uses every CPU.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), float64, or a list of tuples (multilabel)
    query_id : ndarray of shape (n_samples,), int64
        Only with ``query_id=True``.
    """
    return tuple(load_svmlight_files(
        [f], n_features=n_features, dtype=dtype, multilabel=multilabel, zero_based=zero_based,
        query_id=query_id, offset=offset, length=length, n_jobs=n_jobs))


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
