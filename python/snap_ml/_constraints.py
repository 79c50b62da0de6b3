"""scikit-learn's parameter validation (``_parameter_constraints``, checked by
``sklearn.base._fit_context`` before ``fit`` runs) with this project's messages.

A ``Checked`` constraint is one of the checks in ``_params`` (or an estimator's
own): satisfied when the check passes, and when no constraint of a parameter is
satisfied the check raises its own message ("C must be a finite number > 0 ...,
got 'one'"), which names the value and what to pass, where scikit-learn's would
list the constraints. A parameter whose constraints are scikit-learn's own
(``None``, ``"boolean"``, types) gets scikit-learn's message. Checks across
parameters (``C`` with ``regularizer``, ``dual`` with ``solver``) run after, in
the estimator's ``_resolve``.
"""

from sklearn.utils._param_validation import (
    InvalidParameterError,
    _Constraint,
    make_constraint,
    validate_parameter_constraints,
)


class Checked(_Constraint):
    """The values ``check`` accepts (it raises ValueError or TypeError otherwise)."""

    def __init__(self, check, description):
        super().__init__()
        self.check = check
        self.description = description

    def is_satisfied_by(self, val):
        try:
            self.check(val)
        except (ValueError, TypeError):
            return False
        return True

    def __str__(self):
        return self.description


def validate_parameters(estimator):
    """Check ``estimator.get_params()`` against its ``_parameter_constraints``:
    InvalidParameterError (a ValueError and a TypeError) with the first failing
    check's message."""
    parameters = estimator.get_params(deep=False)
    for name, constraints in estimator._parameter_constraints.items():
        if constraints == "no_validation" or name not in parameters:
            continue
        value = parameters[name]
        made = [c if isinstance(c, Checked) else make_constraint(c) for c in constraints]
        if any(c.is_satisfied_by(value) for c in made):
            continue
        for constraint in made:
            if isinstance(constraint, Checked):
                try:
                    constraint.check(value)
                except (ValueError, TypeError) as error:
                    raise InvalidParameterError(str(error)) from None
        validate_parameter_constraints({name: [c for c in constraints if not isinstance(c, Checked)]},
                                       {name: value}, caller_name=type(estimator).__name__)
