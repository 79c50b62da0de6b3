"""Linear models, where scikit-learn keeps them (``sklearn.linear_model``):
``LogisticRegression``, ``LogisticRegressionCV``, ``LinearRegression`` and
``Ridge``. ``LinearSVC`` and ``SupportVectorMachine`` live in ``snap_ml.svm``, as
scikit-learn's ``LinearSVC`` does; they are importable from here too, where
they were first."""

from ..svm import LinearSVC, SupportVectorMachine
from ._linear_regression import LinearRegression, Ridge
from ._logistic import LogisticRegression
from ._logistic_cv import LogisticRegressionCV

__all__ = ["LinearRegression", "LinearSVC", "LogisticRegression", "LogisticRegressionCV", "Ridge", "SupportVectorMachine"]
