"""Snap ML's MPI loaders: each rank reads its own part of one file.

``load_from_svmlight_format(path)`` (also ``load_from_libsvm_format``): under
``mpirun -n K`` rank r parses the lines that start in bytes
``[r * size / K, (r + 1) * size / K)`` of the file (``snap_ml.datasets``'s parallel
parser, scikit-learn's offset/length convention: every line is read by exactly one
rank), and the ranks agree on the feature count and on whether indices are
zero-based (one-based, LIBSVM's, unless some rank saw an index 0).
``load_from_snap_format(path)`` keeps the path: the core reads rank r's share of
the chunks when the model trains or predicts (docs/distributed.md, "Python").
"""

import contextlib
import os

import numpy as np
import scipy.sparse as sp

from snap_ml import _distributed, datasets

from ._dataset import Dataset, snap_dataset

# Wide enough for any index the parser accepts: the agreed width replaces it.
_ANY_WIDTH = 2**31 - 2


def read_share(path, rank, ranks):
    """Rank ``rank``'s rows of the svmlight file (of ``ranks``), indices as written."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    size = os.path.getsize(path)
    offset = rank * size // ranks
    length = (rank + 1) * size // ranks - offset
    if length <= 0:  # a file of fewer bytes than ranks: this rank's share is empty
        return sp.csr_matrix((0, _ANY_WIDTH)), np.zeros(0)
    X, y = datasets.load_svmlight_file(path, n_features=_ANY_WIDTH, zero_based=True,
                                       offset=offset, length=length)
    return X.tocsr(), y


def agreed_columns(path, X, lowest, highest, num_ft):
    """``X`` with the columns every rank agreed on: indices shifted down by one
    unless some rank saw an index 0 (scikit-learn's ``zero_based="auto"`` over the
    whole file), ``num_ft`` wide or as wide as the largest index."""
    shift = 1 if lowest >= 1 else 0
    width = highest - shift
    if num_ft is not None:
        if int(num_ft) < width:
            raise ValueError(f"{path}: num_ft={num_ft}, but the file has feature index {width - 1 + shift}")
        width = int(num_ft)
    return sp.csr_matrix((X.data, X.indices - shift, X.indptr), shape=(X.shape[0], width)), width


def load_from_svmlight_format(filename, num_ft=None, num_chunks=None):
    """This rank's rows of an svmlight/libsvm text file.

    Parameters
    ----------
    filename : str or os.PathLike
    num_ft : int, default=None
        The number of features; None: the largest index found by any rank. A test
        file converted on its own may have fewer (``fit``'s are used when
        predicting: missing ones are zero, extra ones ignored).
    num_chunks : int, default=None
        Accepted for Snap ML's signature; the parser splits the rank's bytes itself.

    Returns
    -------
    Dataset
    """
    path = os.fspath(filename)
    rank, ranks = _distributed.mpi_world()
    with _distributed.agreed_checks() if ranks > 1 else contextlib.nullcontext():
        X, y = read_share(path, rank, ranks)
    lowest = int(X.indices.min()) if X.nnz else _ANY_WIDTH
    highest = int(X.indices.max()) + 1 if X.nnz else 0
    if ranks > 1:
        shares = _distributed.allgather((lowest, highest))
        lowest, highest = min(s[0] for s in shares), max(s[1] for s in shares)
    X, width = agreed_columns(path, X, lowest, highest, num_ft)
    return Dataset(path, X, y, width, rank, ranks)


def load_from_libsvm_format(filename, num_ft=None, num_chunks=None):
    """``load_from_svmlight_format`` (LIBSVM's name for the same text format)."""
    return load_from_svmlight_format(filename, num_ft, num_chunks)


def load_from_snap_format(filename, num_chunks=None):
    """This rank's share of the chunks of a ``.snap`` file (``snap_ml.datasets.dump``,
    ``snap-convert``), read by the core when the model trains or predicts.

    Parameters
    ----------
    filename : str or os.PathLike
    num_chunks : int, default=None
        Accepted for Snap ML's signature; the file's own chunks are shared.

    Returns
    -------
    Dataset
    """
    return snap_dataset(filename)


__all__ = ["load_from_libsvm_format", "load_from_snap_format", "load_from_svmlight_format"]
