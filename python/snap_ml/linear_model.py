"""The estimators: scikit-learn's names (``LogisticRegression``, ``LinearSVC``,
``LinearRegression``, ``Ridge``) and Snap ML's (``SupportVectorMachine``)."""

from ._linear_regression import LinearRegression, Ridge
from ._logistic import LogisticRegression
from ._logistic_cv import LogisticRegressionCV
from ._svm import LinearSVC, SupportVectorMachine

__all__ = ["LinearRegression", "LinearSVC", "LogisticRegression", "LogisticRegressionCV", "Ridge", "SupportVectorMachine"]
