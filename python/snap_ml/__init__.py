"""snap_ml: generalized linear models on large sparse data, trained by SDCA.

A scikit-learn drop-in: ``LogisticRegression``, ``SupportVectorMachine`` and
``LinearRegression`` take scikit-learn's parameter names and work in pipelines,
grid searches and cross-validation. ``snap_ml.datasets`` reads and writes svmlight
text and the binary chunked format. Under ``mpirun -n K python ...`` each rank
fits on its own rows and all get one model (``distributed``, ``mpi_world``).
See docs/python.md.
"""

from . import datasets
from ._distributed import mpi_world
from ._model_io import load_model
from .linear_model import LinearRegression, LogisticRegression, SupportVectorMachine

__version__ = "0.1.0"

__all__ = [
    "LinearRegression",
    "LogisticRegression",
    "SupportVectorMachine",
    "datasets",
    "load_model",
    "mpi_world",
    "__version__",
]
