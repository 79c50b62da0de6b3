"""snapml 1.x's input transforms: ``normalize`` and ``kernel``, fitted on the
training rows and applied to every later input the same way.

``normalize=True`` is snapml 1.x's: each feature scaled (``StandardScaler`` for
dense arrays, ``MaxAbsScaler`` for sparse ones, which keeps them sparse), then each
row scaled to unit L2 norm (``sklearn.preprocessing.normalize``). snapml applies
exactly these two steps (its ``GeneralizedLinearModel.normalize_data``), so a
script's answers do not change with the import.
"""

import scipy.sparse as sp
from sklearn.preprocessing import MaxAbsScaler, StandardScaler, normalize


class RowTransform:
    """The fitted ``normalize`` and ``kernel`` steps of one estimator."""

    def __init__(self, normalize=False, kernel="linear", gamma=1.0, n_components=100,
                 random_state=None, n_jobs=1):
        if kernel != "linear":
            raise ValueError(
                f"kernel={kernel!r}: snap_ml trains linear models only so far (kernel='linear'); "
                "use sklearn.kernel_approximation.RBFSampler before the estimator for the RBF "
                "kernel's random features"
            )
        self.normalize = normalize
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.scaler = None

    def fit_transform(self, X):
        if self.normalize:
            self.scaler = MaxAbsScaler() if sp.issparse(X) else StandardScaler()
            self.scaler.fit(X)
        return self.transform(X)

    def transform(self, X):
        if self.normalize:
            X = normalize(self.scaler.transform(X))
        return X

    def refuse_file(self, path):
        """ValueError for a ``.snap`` path when a transform must see the rows."""
        if self.normalize or self.kernel != "linear":
            raise ValueError(
                f"normalize and kernel transform rows held in memory, and {path} is a file the core "
                "reads; load it (snap_ml.datasets.load) and pass the arrays, or leave normalize=False "
                "and kernel='linear'"
            )
