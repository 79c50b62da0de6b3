"""Linear support vector machines, where scikit-learn keeps them (``sklearn.svm``):
scikit-learn's ``LinearSVC`` and Snap ML's ``SupportVectorMachine``."""

from ._classes import LinearSVC, SupportVectorMachine

__all__ = ["LinearSVC", "SupportVectorMachine"]
