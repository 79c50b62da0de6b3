"""snap_ml: generalized linear models on large sparse data, trained by SDCA.

A scikit-learn drop-in: ``LogisticRegression``, ``LinearSVC``, ``LinearRegression``
and ``Ridge`` take scikit-learn's names, parameters and defaults and give its
answers (docs/python.md has the table); ``SupportVectorMachine``, ``regularizer``,
``use_gpu`` and ``device_ids`` are IBM Snap ML's names. ``snap_ml.datasets`` reads and writes svmlight
text and the binary chunked format. Under ``mpirun -n K python ...`` each rank
fits on its own rows and all get one model (``distributed``, ``mpi_world``).
See docs/python.md.
"""

from . import datasets
from ._distributed import mpi_world
from ._estimator_checks import expected_failed_checks
from ._model_io import load_model
from .linear_model import (
    LinearRegression,
    LinearSVC,
    LogisticRegression,
    LogisticRegressionCV,
    Ridge,
    SupportVectorMachine,
)

__version__ = "0.1.0"

__all__ = [
    "LinearRegression",
    "LinearSVC",
    "LogisticRegression",
    "LogisticRegressionCV",
    "Ridge",
    "SupportVectorMachine",
    "datasets",
    "expected_failed_checks",
    "load_model",
    "mpi_world",
    "__version__",
]
