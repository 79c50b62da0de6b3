"""Which estimator class trains each core loss, for ``load_model``.

Each estimator class that a model file can name registers itself where it is
defined (``@register``), so that reading a model file imports no estimator
module: ``_model_io`` asks this list, and the package's ``__init__`` has
imported the estimators before anyone calls ``load_model``.
"""

_CLASSES = []


def register(cls):
    """Class decorator: ``cls._trains(loss)`` says which core losses it trains."""
    _CLASSES.append(cls)
    return cls


def estimator_class_of(loss):
    """The registered class that trains the core loss named ``loss`` (one of
    ``_core.loss_names()``); ValueError when none or several do."""
    matches = [cls for cls in _CLASSES if cls._trains(loss)]
    if len(matches) != 1:
        raise ValueError(f"no snap_ml estimator trains the {loss!r} loss")
    return matches[0]
