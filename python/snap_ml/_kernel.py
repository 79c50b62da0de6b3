"""Kernel approximation: ``kernel="rbf"`` trains the linear model on random Fourier
features of the rows (Rahimi & Recht, "Random Features for Large-Scale Kernel
Machines", NIPS 2007), computed by the core (snapml/random_features.h).

``z(x) = sqrt(2 / n_components) cos(x W + b)`` with ``W ~ N(0, 2 gamma)`` of shape
(n_features, n_components) and ``b ~ U[0, 2 pi)``: the features scikit-learn's
``RBFSampler`` gives, from the same random matrix, which is drawn here exactly as
``RBFSampler(gamma, n_components, random_state).fit`` draws it (random_state None
is the fixed seed 0: identical fits give identical models). With ``use_gpu`` or
``device_ids`` the features are computed on the (first) device by the GPU
backend's kernel, the same sums as the CPU's. The linear model on
``z(x)`` approximates the RBF kernel machine ``exp(-gamma ||x - y||^2)``.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.kernel_approximation import RBFSampler
from sklearn.utils import check_array

from . import _core
from ._data import to_core
from ._params import resolve_seed, resolve_threads

KERNELS = ("linear", "rbf")


def check_kernel(kernel, gamma, n_components):
    """ValueError unless ``kernel`` is "linear" or "rbf" with ``gamma`` > 0 and
    ``n_components`` >= 1."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be 'linear' or 'rbf', got {kernel!r}")
    if kernel == "linear":
        return
    if not isinstance(gamma, numbers.Real) or isinstance(gamma, bool) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be a finite number > 0 (the RBF kernel's exp(-gamma ||x - y||^2)), got {gamma!r}")
    if not isinstance(n_components, numbers.Integral) or isinstance(n_components, bool) or n_components < 1:
        raise ValueError(f"n_components must be an integer >= 1 (the random features), got {n_components!r}")


class RbfFeatures:
    """The random Fourier map of one fit: drawn from the training rows' width,
    applied by the core to those rows and every later input."""

    def __init__(self, gamma, n_components, random_state, n_jobs, device=None):
        check_kernel("rbf", gamma, n_components)
        self.gamma = float(gamma)
        self.n_components = int(n_components)
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.device = device  # a CUDA device (the GPU backend's kernel), or None: the CPU

    def fit(self, X):
        seed = resolve_seed(None) if self.random_state is None else self.random_state
        sampler = RBFSampler(gamma=self.gamma, n_components=self.n_components, random_state=seed)
        sampler.fit(sp.csr_matrix((1, X.shape[1])))  # the draw reads X's width only
        self.weights_ = np.ascontiguousarray(sampler.random_weights_, dtype=np.float64)
        self.offsets_ = np.ascontiguousarray(sampler.random_offset_, dtype=np.float64)
        return self

    def transform(self, X):
        """``z(X)`` as a CSR matrix (float32, every entry stored), the core's input."""
        X = check_array(X, accept_sparse=("csr", "csc", "coo"), dtype=(np.float64, np.float32))
        if X.shape[1] != self.weights_.shape[0]:
            raise ValueError(f"X has {X.shape[1]} features, but the kernel map was drawn for {self.weights_.shape[0]}")
        z = _core.random_fourier_features(to_core(X), self.weights_, self.offsets_,
                                          threads=resolve_threads(self.n_jobs),
                                          device=-1 if self.device is None else int(self.device))
        n, d = z.shape
        indptr = np.arange(0, n * d + 1, d, dtype=np.int64)
        indices = np.tile(np.arange(d, dtype=np.int32), n)
        return sp.csr_matrix((z.ravel(), indices, indptr), shape=(n, d))
