"""A ``.snap`` path as estimator input: recognising it, the memory budgets, and
opening it under ``max_memory``.

``fit``, ``predict`` and the other methods accept the path of a file in snapml's
binary chunked format (``snap_ml.datasets.dump``, ``snap-convert``). The core
memory-maps it whole when it fits the budget (or without one) and streams it
from disk chunk by chunk otherwise, with the same plan as ``snap-train
--max-memory`` (docs/out-of-core.md).
"""

import numbers
import os

from . import _core

_MAGIC = b"SNAPBIN\0"


def is_path(X):
    """Whether ``X`` names a file (str or os.PathLike) rather than holding data."""
    return isinstance(X, (str, os.PathLike))


def memory_size(name, value):
    """Bytes of a budget given as an int or a size string ("512MB", "4GB", "1.5G").

    Size strings are read as ``snap-train --max-memory`` reads them: units are
    powers of 1024, case-insensitive, ``B``/``iB`` optional.

    Returns
    -------
    int
        The budget in bytes; 0 for None (no budget).
    """
    if value is None:
        return 0
    if isinstance(value, str):
        try:
            return int(_core.parse_memory_size(value.strip()))
        except ValueError as error:
            raise ValueError(f"{name}={value!r}: {error}") from None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
        return int(value)
    raise ValueError(
        f"{name} must be a number of bytes >= 1 or a size string such as '512MB', '4GB' or "
        f"'1.5G', got {value!r}"
    )


def check_snap_path(X):
    """The path ``X`` names, as str, after checking that it is a ``.snap`` file.

    Raises FileNotFoundError (or another OSError) when the file cannot be read, and
    ValueError when it is not in the binary format (an svmlight text file, say).
    """
    path = os.fsdecode(os.fspath(X))
    with open(path, "rb") as f:
        magic = f.read(len(_MAGIC))
    if magic != _MAGIC:
        raise ValueError(
            f"{path} is not a .snap file (snapml's binary format starts with 'SNAPBIN'); "
            "fit and predict read that format only. For svmlight/libsvm text, load the "
            "arrays with snap_ml.datasets.load_svmlight_file(path) and pass them, or convert "
            f"the file once (snap-convert {path} data.snap, or snap_ml.datasets.dump(X, y, "
            "'data.snap')) and pass the .snap path"
        )
    return path


def open_snap(X, max_memory, y=None, sample_weight=None, rank=0, ranks=1):
    """``X`` opened as a ``_core.SnapFile`` under the ``max_memory`` budget.

    Parameters
    ----------
    X : str or os.PathLike
        A ``.snap`` file.
    max_memory : int, str or None
        The estimator's host memory budget for the data and the solver's state.
    y, sample_weight : object, default=None
        What the caller passed as ``y`` and ``sample_weight``: both must be None,
        since the file holds the labels and (when written with them) the weights.
    rank, ranks : int, default=0, 1
        A distributed fit: this rank's share of the chunks, planned under the
        budget alone (docs/distributed.md, "Python").

    Returns
    -------
    _core.SnapFile
        Memory-mapped when file + state fit the budget, streamed otherwise
        (``.streamed``, ``.buffers``).
    """
    if y is not None:
        raise ValueError(
            "y must be None when X is the path of a .snap file: the labels are read from the "
            "file; pass fit(path) alone, or load the arrays (snap_ml.datasets.load(path)) and "
            "pass fit(X, y)"
        )
    if sample_weight is not None:
        raise ValueError(
            "sample_weight must be None when X is the path of a .snap file: the file's own "
            "weights are used (write them with snap_ml.datasets.dump(X, y, path, "
            "sample_weight=...))"
        )
    budget = memory_size("max_memory", max_memory)
    return _core.SnapFile(check_snap_path(X), budget, rank, ranks)


def streaming_message(file):
    """The line ``verbose`` prints when the file streams (as snap-train's)."""
    return (
        f"snap_ml: {file.path} ({file.data_bytes} bytes) exceeds max_memory="
        f"{file.max_memory}; streaming it through {file.buffers} buffers of "
        f"{file.largest_chunk_bytes} bytes"
    )
