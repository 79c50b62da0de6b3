"""Validated input -> the core's data view (``_core.CsrData``).

The core reads CSR with int64 row offsets, int32 column indices and float32
values. A scipy CSR matrix that already has those dtypes is viewed in place (no
copy); anything else is converted once: other index or value dtypes array by
array, CSC/COO to CSR, dense arrays straight to CSR arrays without a dense float32
intermediate.
"""

import warnings

import numpy as np
import scipy.sparse as sp

from . import _core

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_float32_range(values, what="X"):
    """Raise ValueError when float64 values overflow float32 (they would become inf)."""
    if values.dtype == np.float32 or values.size == 0:
        return
    # The extremes, not np.abs(values): no temporary as large as X's values.
    largest = max(float(np.max(values)), -float(np.min(values)))
    if largest > _FLOAT32_MAX:
        raise ValueError(
            f"{what} has values up to {largest:.3g}, beyond float32's range "
            f"({_FLOAT32_MAX:.3g}) in which the core stores features; scale the features "
            "(for example with sklearn.preprocessing.MaxAbsScaler) before fitting"
        )


# A column is warned about when float32's rounding at its largest magnitude (half
# a step, about 2^-24 of it) exceeds this share of the column's spread (max - min).
_PRECISION_SHARE = 0.01


def _full_sparse_columns(X):
    """(columns, minima, maxima) of a sparse X's columns stored in every row, or None.

    Only those can blur in float32: a column with an implicit zero spreads at least
    as far as its largest magnitude, above float32's step there. A full column is
    in every row, so the columns of 32 rows spread through X narrow the candidates
    at no cost (none survive on one-hot or click-log rows), blocks of rows drop
    those some row lacks, and the full columns' entries are gathered in one pass (a
    count over every column instead took 0.5 s on 40M entries, on the 2-core
    development machine). A row names a column once here (csr_arrays sums
    duplicates first).
    """
    rows, indptr, indices = X.shape[0], X.indptr, X.indices
    if X.nnz < rows:
        return None
    candidates = None
    for row in np.unique(np.linspace(0, rows - 1, num=min(rows, 32)).astype(np.int64)):
        named = indices[indptr[row]:indptr[row + 1]]
        candidates = np.unique(named) if candidates is None else np.intersect1d(candidates, named)
        if not candidates.size:
            return None
    # Then the rows in blocks that double from 1,024, each dropping the candidates
    # some row of it lacks, until none is left: a text set's most frequent word is
    # in most rows but not all, and its gather over every entry took 39 ms of a
    # 0.6 s fit on 8M entries; only columns that are full cost a pass over X.
    start, block = 0, 1024
    while candidates.size and start < rows:
        end = min(rows, start + block)
        named = indices[indptr[start]:indptr[end]]
        rows_with = np.bincount(np.searchsorted(candidates, named[np.isin(named, candidates)]),
                                minlength=candidates.size)
        candidates = candidates[rows_with == end - start]
        start, block = end, 2 * block
    if not candidates.size:
        return None
    full = candidates
    table = np.zeros(X.shape[1], dtype=bool)
    table[full] = True
    mask = table[indices]
    named = indices[mask]
    values = X.data[mask]
    if X.has_sorted_indices:
        # Each row holds each full column once, in column order: a dense block.
        block = values.reshape(rows, full.size)
        return full, block.min(axis=0), block.max(axis=0)
    return (full, np.array([values[named == j].min() for j in full]),
            np.array([values[named == j].max() for j in full]))


def _warn_float32_precision(X):
    """Warn where rounding a float64 X to float32 blurs a column's variation.

    float32 keeps 24 bits: a column of Unix timestamps (1.7e9 plus a few seconds)
    rounds to steps of 128, and its signal was lost without a word (LinearRegression
    R^2 0.002 against scikit-learn's 0.99). Dense X: two passes (its columns'
    minima and maxima). Sparse X: its columns stored in every row
    (``_full_sparse_columns``), as a ColumnTransformer's one-hot encoding beside a
    timestamp column gives.
    """
    if X.dtype != np.float64 or X.size == 0:
        return
    if sp.issparse(X):
        found = _full_sparse_columns(X)
        if found is None:
            return
        columns, low, high = found
    else:
        columns = np.arange(X.shape[1])
        low, high = X.min(axis=0), X.max(axis=0)
    spread = high - low
    # float32's step at each column's largest magnitude; rounding errs by half of it.
    step = np.spacing(np.maximum(np.abs(low), np.abs(high)).astype(np.float32)).astype(np.float64)
    blurred = np.flatnonzero((spread > 0) & (step / 2 > _PRECISION_SHARE * spread))
    if blurred.size:
        j = int(blurred[0])
        warnings.warn(
            f"X's column {int(columns[j])} (values {low[j]:.10g} to {high[j]:.10g}) and {blurred.size - 1} other(s) "
            "lose their variation in float32, the precision in which the core stores features (steps of "
            f"{step[j]:.3g} there): center or scale them (for example with "
            "sklearn.preprocessing.StandardScaler) before fitting",
            UserWarning,
            stacklevel=4,
        )


def _dense_to_csr_arrays(X):
    """CSR arrays (indptr int64, indices int32, data float32) of a dense 2-D array."""
    nonzero = X != 0
    counts = np.count_nonzero(nonzero, axis=1)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    rows, columns = np.nonzero(nonzero)
    del rows  # np.nonzero walks rows in order, so columns are already CSR-ordered
    return indptr, columns.astype(np.int32), X[nonzero].astype(np.float32)


def csr_arrays(X, sorted_rows=True):
    """The (indptr, indices, data) arrays of a validated 2-D array or sparse matrix.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix/array of shape (n_samples, n_features)
        Already validated (finite, numeric, 2-D).
    sorted_rows : bool, default=True
        Whether each row's columns must ascend (files written from X need it). A
        fit does not: with False an unsorted matrix without duplicate columns is
        used as it is, neither copied nor sorted (on a 9.5M-non-zero matrix that
        ``sp.diags(d) @ X`` left unsorted, the copy and sort took 0.15 s of a 1.4 s
        fit).

    Returns
    -------
    indptr, indices, data : ndarray
        The CSR arrays; shared with ``X`` when ``X`` is CSR with the core's dtypes
        (the C++ side converts the others, once).
    """
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
        if not X.has_canonical_format and (
                sorted_rows or _core.rows_have_duplicate_columns(X.indptr, X.indices, X.shape[1])):
            # A column twice in a row would be two features to the core (data.h).
            X = X.copy()
            X.sum_duplicates()
        data = X.data
        if data.dtype != np.float32:
            # Converted here, where CsrData would convert it anyway: X is finite
            # (validated), so an inf in the copy is float32's overflow, and the
            # copy's one check replaces two passes over the float64 values (their
            # extremes: 23 ms of a 0.5 s fit on 8M entries).
            with np.errstate(over="ignore"):
                data = data.astype(np.float32)
            if not np.isfinite(data).all():
                _check_float32_range(X.data)
        _warn_float32_precision(X)
        return X.indptr, X.indices, data
    X = np.asarray(X)
    _check_float32_range(X)
    _warn_float32_precision(X)
    return _dense_to_csr_arrays(X)


def to_core(X, labels=None, sample_weight=None, sorted_rows=True):
    """Wrap validated input as a ``_core.CsrData`` (labels float64, weights float32).

    Parameters
    ----------
    X : ndarray or scipy sparse matrix of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,), default=None
        Regression targets, or class indices 0..K-1 for classification.
    sample_weight : ndarray of shape (n_samples,), default=None
    sorted_rows : bool, default=True
        See ``csr_arrays``: False for a fit, whose sums do not depend on a row's order.

    Returns
    -------
    _core.CsrData
    """
    indptr, indices, data = csr_arrays(X, sorted_rows)
    if labels is not None:
        labels = np.ascontiguousarray(labels, dtype=np.float64)
    if sample_weight is not None:
        _check_float32_range(np.asarray(sample_weight), "sample_weight")
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float32)
    return _core.CsrData(indptr, indices, data, X.shape[1], labels, sample_weight)


def check_sample_weight(sample_weight, n_samples):
    """Validate ``sample_weight``: None, a scalar, or one finite weight >= 0 per sample.

    Returns
    -------
    ndarray of shape (n_samples,), float64, or None
    """
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        return np.full(n_samples, float(sample_weight))
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must have shape ({n_samples},), one weight per sample; "
            f"got shape {weights.shape}"
        )
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight has NaN or infinite entries; pass finite weights")
    if np.any(weights < 0):
        raise ValueError("sample_weight has negative entries; weights must be >= 0")
    if n_samples and not np.any(weights):
        raise ValueError("sample_weight is all zero; give at least one sample a non-zero weight")
    # The core keeps the weights in float32: a positive weight below its smallest
    # (about 1.4e-45) would become 0 and drop its row without a word (uniform
    # weights of 1e-46 left Ridge's intercept 0 where scikit-learn's is y's mean).
    underflow = (weights > 0) & (weights.astype(np.float32) == 0)
    if np.any(underflow):
        raise ValueError(
            f"sample_weight has {int(np.count_nonzero(underflow))} positive entries below float32's smallest "
            f"value ({float(np.finfo(np.float32).smallest_subnormal):.2g}), in which the core keeps the weights; "
            "scale the weights up (a common factor does not change an unpenalised fit; with a penalty, divide "
            "alpha or multiply C by it)"
        )
    return weights
