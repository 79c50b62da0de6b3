"""The dataset object of Snap ML's MPI API: this rank's part of one file.

``Loaders`` return it and ``fit``, ``predict``, ``predict_proba`` and ``Metrics``
take it in place of ``(X, y)``: under ``mpirun -n K`` each rank holds its own part
of the rows (svmlight text: a K-th of the file's bytes, cut at line ends; a
``.snap`` file: a K-th of its chunks, read by the core when the model trains or
predicts), and the metrics add up over the ranks.
"""

import numpy as np

from snap_ml import _core, _distributed
from snap_ml._snap_file import check_snap_path


class Dataset:
    """Rows of one file held by this rank (Snap ML's data partition).

    Attributes
    ----------
    path : str
        The file.
    rank, ranks : int
        This process's rank and the number of ranks (0, 1 without ``mpirun``).
    X : scipy.sparse.csr_matrix or None
        This rank's rows (svmlight text); None for a ``.snap`` file, which the core
        reads share by share.
    y : ndarray
        This rank's labels, in file order.
    n_features : int
        The features every rank's rows have (agreed over the ranks).
    """

    def __init__(self, path, X, y, n_features, rank, ranks):
        self.path = path
        self.X = X
        self._y = None if y is None else np.asarray(y, dtype=np.float64)
        self.n_features = int(n_features)
        self.rank = rank
        self.ranks = ranks

    @property
    def y(self):
        if self._y is None:  # a .snap share's labels, read once when first needed
            _, self._y, _ = _core.decision_function_file(_zero_model(self.n_features), self.snap_file(), threads=1)
        return self._y

    @property
    def is_snap(self):
        return self.X is None

    def snap_file(self, max_memory=0):
        """This rank's share of the ``.snap`` file, opened by the core."""
        return _core.SnapFile(self.path, max_memory, self.rank, self.ranks)

    def __repr__(self):
        kind = ".snap chunks" if self.is_snap else "svmlight rows"
        return (f"Dataset({self.path!r}: {kind} on rank {self.rank} of {self.ranks}, "
                f"{self.n_features} features)")


def _zero_model(n_features):
    """A model whose scores nobody reads: ``decision_function_file`` returns the
    labels of the rows it scores, the one reader of a share's labels."""
    model = _core.Model()
    model.loss = "squared"
    model.n_features = int(n_features)
    model.coef = np.zeros(int(n_features))
    model.intercept = np.zeros(1)
    model.intercept_scaling = 0.0
    model.check()
    return model


def snap_dataset(path):
    """The dataset of a ``.snap`` file: this rank's share of its chunks."""
    path = check_snap_path(path)
    rank, ranks = _distributed.mpi_world()
    n_features = _core.SnapFile(path, 0, rank, ranks).n_features
    return Dataset(path, None, None, n_features, rank, ranks)


def check_dataset(data, what):
    if not isinstance(data, Dataset):
        raise ValueError(
            f"{what} takes the dataset a snap_ml_mpi.Loaders function returns "
            f"(load_from_libsvm_format(path), ...), got {type(data).__name__}"
        )
    return data
