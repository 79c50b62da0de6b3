"""snapml 1.x's linear models under their names: ``import snap_ml.ibm as snapml``.

A script written for IBM's ``snapml`` 1.x (``snapml.LogisticRegression``,
``SupportVectorMachine``, ``LinearRegression``) runs with this one import changed:
the same parameters and defaults (``regularizer=1.0``, ``fit_intercept=False``,
``tol=0.001``, ``max_iter=1000``, ``dual=True``, ``n_jobs=1``, ``device_ids=[]``,
``normalize``, ``generate_training_history``), the same fitted attributes, and the
same problem (docs/python.md, "Coming from IBM Snap ML", has the table).
"""

from ._glm import LinearRegression, LogisticRegression, SupportVectorMachine

__all__ = ["LinearRegression", "LogisticRegression", "SupportVectorMachine"]
