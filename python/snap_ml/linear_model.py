"""The estimators: ``LogisticRegression``, ``SupportVectorMachine``, ``LinearRegression``."""

from ._linear_regression import LinearRegression
from ._logistic import LogisticRegression
from ._svm import SupportVectorMachine

__all__ = ["LinearRegression", "LogisticRegression", "SupportVectorMachine"]
