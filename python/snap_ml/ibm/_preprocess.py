"""snapml 1.x's input transforms: ``normalize`` and ``kernel``, fitted on the
training rows and applied to every later input the same way.

``normalize=True`` is snapml 1.x's: each feature scaled (``StandardScaler`` for
dense arrays, ``MaxAbsScaler`` for sparse ones, which keeps them sparse), then each
row scaled to unit L2 norm (``sklearn.preprocessing.normalize``). snapml applies
exactly these two steps (its ``GeneralizedLinearModel.normalize_data``), so a
script's answers do not change with the import. ``kernel="rbf"`` then maps the rows
to random Fourier features in the core (``snap_ml._kernel``), as snapml does after
normalising.
"""

import scipy.sparse as sp
from sklearn.preprocessing import MaxAbsScaler, StandardScaler, normalize

from .._kernel import RbfFeatures, check_kernel


class RowTransform:
    """The fitted ``normalize`` and ``kernel`` steps of one estimator."""

    def __init__(self, normalize=False, kernel="linear", gamma=1.0, n_components=100,
                 random_state=None, n_jobs=1, device=None):
        check_kernel(kernel, gamma, n_components)
        self.normalize = normalize
        self.kernel = kernel
        self.scaler = None
        self.features = RbfFeatures(gamma, n_components, random_state, n_jobs, device) if kernel == "rbf" else None

    def fit_transform(self, X):
        if self.normalize:
            self.scaler = MaxAbsScaler() if sp.issparse(X) else StandardScaler()
            self.scaler.fit(X)
        if self.features is not None:
            self.features.fit(X)
        return self.transform(X)

    def transform(self, X):
        if self.normalize:
            X = normalize(self.scaler.transform(X))
        if self.features is not None:
            X = self.features.transform(X)  # snapml's order: normalised, then the kernel's features
        return X

    def refuse_file(self, path):
        """ValueError for a ``.snap`` path when a transform must see the rows."""
        if self.normalize or self.kernel != "linear":
            raise ValueError(
                f"normalize and kernel transform rows held in memory, and {path} is a file the core "
                "reads; load it (snap_ml.datasets.load) and pass the arrays, or leave normalize=False "
                "and kernel='linear'"
            )
