"""GPU sessions an estimator keeps across its fits (``_core.Session``).

A GPU fit uploads the rows to the devices. The session keeps the devices'
resources and the rows it uploaded (python/src/session.h, snapml/solver_factory.h),
so that the one-vs-rest classes of a fit, a ``warm_start`` refit on the same data
and the C values of a ``LogisticRegressionCV`` fold upload the rows once. The
rows are recognised by their contents, not by the array object: the same
contents, in the same array or a copy, reuse the upload; contents changed in
place, or another array, upload again, so a kept session never trains on rows
other than the ones given.

An estimator keeps one session per device list it last trained on, made on its
first GPU fit, in ``_gpu_sessions`` (``{tuple(device_ids): Session}``). It is
dropped when the estimator trains on other devices or on the CPU, when the
estimator is garbage-collected, and it is never copied: ``clone`` makes an
estimator without it and pickling leaves it out (``drop_from_state``).
"""

from . import _core

_ATTRIBUTE = "_gpu_sessions"


def session_for(estimator, use_gpu, device_ids, keep_others=False):
    """The estimator's session for ``device_ids`` when ``use_gpu``, made now if it
    has none; None on the CPU (its sessions dropped, the device memory freed).

    ``keep_others``: keep the estimator's sessions for other device lists too
    (``LogisticRegressionCV``: one per device and one for the refit's list);
    otherwise a new one replaces them.
    """
    if not use_gpu:
        estimator.__dict__.pop(_ATTRIBUTE, None)
        return None
    sessions = estimator.__dict__.get(_ATTRIBUTE) or {}
    key = tuple(int(device) for device in device_ids)
    session = sessions.get(key)
    if session is None:
        session = _core.Session(True, list(key))
        sessions = dict(sessions) if keep_others else {}
        sessions[key] = session
        estimator.__dict__[_ATTRIBUTE] = sessions
    return session


def keep_only(estimator, device_lists):
    """The estimator's sessions for each of ``device_lists`` (kept ones reused,
    the others made), dropping its sessions for any other list."""
    kept = estimator.__dict__.get(_ATTRIBUTE) or {}
    sessions = {}
    for devices in device_lists:
        key = tuple(int(device) for device in devices)
        sessions[key] = kept.get(key) or sessions.get(key) or _core.Session(True, list(key))
    estimator.__dict__[_ATTRIBUTE] = sessions
    return [sessions[tuple(int(device) for device in devices)] for devices in device_lists]


def share_sessions(source, target):
    """Let ``target`` (an inner estimator) train with ``source``'s sessions."""
    if _ATTRIBUTE in source.__dict__:
        target.__dict__[_ATTRIBUTE] = source.__dict__[_ATTRIBUTE]


def row_uploads(estimator):
    """How many times the estimator's kept sessions uploaded rows (the tests count them)."""
    return sum(session.row_uploads for session in estimator.__dict__.get(_ATTRIBUTE, {}).values())


def drop_from_state(state):
    """A pickled estimator's state without its sessions (device memory, not data)."""
    state = dict(state)
    state.pop(_ATTRIBUTE, None)
    return state
