"""Snap ML's MPI API: ``from snap_ml_mpi import LogisticRegression``.

Scripts written for Snap ML's distributed package run unchanged under
``mpirun -n K python script.py``::

    from snap_ml_mpi import LogisticRegression
    from snap_ml_mpi.Loaders import load_from_libsvm_format
    from snap_ml_mpi.Metrics import log_loss

    train_data = load_from_libsvm_format("a9a")      # this rank's part of the file
    lr = LogisticRegression(max_iter=200, dual=True, num_threads=4)
    lr.fit(train_data)                                # one model, trained by all ranks
    test_data = load_from_libsvm_format("a9a.t")
    proba = lr.predict_proba(test_data)               # this rank's rows
    print(log_loss(test_data, proba))                 # over all ranks' rows

The estimators are snapml 1.x's (``snap_ml.ibm``: ``regularizer``, ``dual=True``,
``fit_intercept=False``, ``tol=0.001``) with ``num_threads``, the old name of
``n_jobs``; without ``mpirun`` they train in the one process. docs/python.md,
"Coming from IBM Snap ML".
"""

from snap_ml._distributed import mpi_world

from . import Loaders, Metrics
from ._estimators import LinearRegression, LogisticRegression, SupportVectorMachine

__all__ = ["LinearRegression", "Loaders", "LogisticRegression", "Metrics", "SupportVectorMachine", "mpi_world"]
