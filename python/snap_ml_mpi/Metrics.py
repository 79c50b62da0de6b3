"""Snap ML's MPI metrics: the labels from the dataset object, the sums over the ranks.

Each rank passes its own part of the test set (``Loaders``) and its predictions
for those rows; every rank gets the metric of all rows together (one process
without ``mpirun``). Binary labels: the positive class is the larger label
(LIBSVM's +1, or 1 of 0/1), as in Snap ML.
"""

import numpy as np

from snap_ml import _distributed

from ._dataset import check_dataset


def _total(*values):
    """Each value summed over the ranks (itself in one process)."""
    rank, ranks = _distributed.mpi_world()
    if ranks == 1:
        return values
    return tuple(np.sum(column) for column in zip(*_distributed.allgather(tuple(float(v) for v in values))))


def _labels(data, predictions, what):
    data = check_dataset(data, what)
    predictions = np.asarray(predictions, dtype=np.float64)
    if predictions.shape[0] != data.y.shape[0]:
        raise ValueError(
            f"{what}: {predictions.shape[0]} predictions for {data.y.shape[0]} rows of {data.path} on "
            f"rank {data.rank}; pass the predictions of the same dataset object"
        )
    return data.y, predictions


def _positive(y):
    """Whether each label is the positive class: the largest label over all ranks."""
    rank, ranks = _distributed.mpi_world()
    local = float(np.max(y)) if y.size else -np.inf
    top = max(_distributed.allgather(local)) if ranks > 1 else local
    return y == top


def log_loss(data, proba):
    """The mean cross-entropy of the positive-class probabilities over all ranks' rows.

    Parameters
    ----------
    data : Dataset
    proba : array-like of shape (n_rows,) or (n_rows, 2)
        ``predict_proba(data)`` (the positive class's; of two columns the second).

    Returns
    -------
    float
    """
    y, proba = _labels(data, proba, "log_loss")
    if proba.ndim == 2:
        proba = proba[:, -1]
    eps = np.finfo(np.float64).eps  # scikit-learn's clip
    proba = np.clip(proba, eps, 1 - eps)
    losses = -np.where(_positive(y), np.log(proba), np.log1p(-proba))
    total, count = _total(losses.sum(), y.size)
    return float(total / count)


def accuracy_score(data, pred):
    """The fraction of all ranks' rows whose ``pred`` equals the label."""
    y, pred = _labels(data, pred, "accuracy_score")
    right, count = _total(np.sum(pred == y), y.size)
    return float(right / count)


def mean_squared_error(data, pred):
    """The mean of ``(pred - y)^2`` over all ranks' rows."""
    y, pred = _labels(data, pred, "mean_squared_error")
    total, count = _total(np.sum((pred - y) ** 2), y.size)
    return float(total / count)


def hinge_loss(data, pred_decision):
    """The mean of ``max(0, 1 - s * score)`` (``s`` = +1 for the positive class,
    -1 otherwise) over all ranks' rows."""
    y, score = _labels(data, pred_decision, "hinge_loss")
    sign = np.where(_positive(y), 1.0, -1.0)
    total, count = _total(np.sum(np.maximum(0.0, 1.0 - sign * score)), y.size)
    return float(total / count)


accuracy = accuracy_score  # the shorter name of Snap ML's MPI examples
