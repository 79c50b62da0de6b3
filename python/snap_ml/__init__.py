"""snap_ml: generalized linear models on large sparse data, trained by SDCA.

A scikit-learn drop-in: ``LogisticRegression``, ``LinearSVC``, ``LinearRegression``
and ``Ridge`` (also where scikit-learn keeps them: ``snap_ml.linear_model``,
``snap_ml.svm``) take scikit-learn's names, parameters and defaults and give its
answers (docs/python.md has the table); ``SupportVectorMachine``, ``regularizer``,
``use_gpu`` and ``device_ids`` are IBM Snap ML's names. ``snap_ml.datasets`` reads and writes svmlight
text and the binary chunked format. Under ``mpirun -n K python ...`` each rank
fits on its own rows and all get one model (``distributed``, ``mpi_world``).
See docs/python.md.
"""

from ._openmp_wait import load_core

load_core()  # before any module imports _core: its OpenMP threads' spin count
from . import datasets, linear_model, svm  # noqa: E402
from ._core import FitDivergedError, RanksDisagreeError  # noqa: E402
from ._distributed import mpi_world  # noqa: E402
from ._estimator_checks import expected_failed_checks  # noqa: E402
from ._model_io import load_model  # noqa: E402
from .linear_model import LinearRegression, LogisticRegression, LogisticRegressionCV, Ridge  # noqa: E402
from .svm import LinearSVC, SupportVectorMachine  # noqa: E402

# The modules' names before linear_model/ and svm/ held them (tests patch them).
from .linear_model import _linear_regression, _logistic, _logistic_cv  # noqa: E402, F401
from .svm import _classes as _svm  # noqa: E402, F401

__version__ = "0.1.0"

__all__ = [
    "FitDivergedError",
    "RanksDisagreeError",
    "LinearRegression",
    "LinearSVC",
    "LogisticRegression",
    "LogisticRegressionCV",
    "Ridge",
    "SupportVectorMachine",
    "datasets",
    "linear_model",
    "svm",
    "expected_failed_checks",
    "load_model",
    "mpi_world",
    "__version__",
]
