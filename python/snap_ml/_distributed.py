"""Training under ``mpirun -n K python script.py``: each rank fits on its own rows.

With ``distributed=True`` (or ``"auto"`` under an MPI launcher in a build with
MPI) an estimator's ``fit`` runs as one CoCoA+ rank of ``MPI_COMM_WORLD``: the
ranks agree on the classes (the union of every rank's labels), the feature count
(the largest ``X.shape[1]``) and, through the core, the class counts; every rank
ends with the same model. MPI is initialised on first use, never at import, and
finalised at process exit, or, when the process exits with an error (an uncaught
exception, ``sys.exit(1)``), every rank is ended by MPI_Abort instead of the others
waiting for this one forever (python/src/mpi.cpp). Before training the ranks check
that they agree on the parameters and hold different rows (snapml/impl/rank_agreement.h).
docs/distributed.md, "Python", has the details.
"""

import contextlib
import hashlib
import os
import pickle

import numpy as np

from . import _core

# The process mpirun started, marked at the package's import: the processes it
# starts in turn (joblib's workers, multiprocessing) inherit the launcher's
# variables but are no ranks, and initialising MPI in them aborts.
_RANK_PID = "SNAPML_MPI_RANK_PID"
if _core.launched_by_mpi() and _RANK_PID not in os.environ:
    os.environ[_RANK_PID] = str(os.getpid())


def launched_by_mpi():
    """True in a process an MPI launcher started (not in its children)."""
    return _core.launched_by_mpi() and os.environ.get(_RANK_PID) == str(os.getpid())

_BAD = "distributed must be 'auto', True or False"


def check_distributed(distributed):
    """``"auto"``, True or False (numpy's bool too)."""
    if not (isinstance(distributed, str) and distributed == "auto") and not isinstance(distributed, (bool, np.bool_)):
        raise ValueError(f"{_BAD}, got {distributed!r}")


def resolve_distributed(distributed, penalty="l2"):
    """Whether ``fit`` trains as one rank of ``mpirun``; ValueError when it cannot.

    Parameters
    ----------
    distributed : {"auto", True, False}
        ``"auto"``: when the process was started by an MPI launcher and snap_ml was
        built with MPI. True: always, raising ValueError without MPI or launcher.
    penalty : str
        L1 trains in one process only.

    Returns
    -------
    bool
    """
    if isinstance(distributed, str):
        if distributed != "auto":
            raise ValueError(f"{_BAD}, got {distributed!r}")
        use = bool(_core.built_with_mpi) and launched_by_mpi()
    elif isinstance(distributed, (bool, np.bool_)):
        use = bool(distributed)
        if use and not _core.built_with_mpi:
            raise ValueError(
                "distributed=True needs snap_ml built with MPI, but this build has none; "
                "install OpenMPI (libopenmpi-dev) and reinstall snap_ml, or pass "
                "distributed=False"
            )
        if use and not launched_by_mpi():
            raise ValueError(
                "distributed=True needs the script to be started by an MPI launcher "
                "(mpirun -n K python script.py), but no launcher variables are set "
                "(OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, SLURM_NTASKS), or this process "
                "was started by a rank (a joblib or multiprocessing worker); pass "
                "distributed=False or 'auto' to train in this process"
            )
    else:
        raise ValueError(f"{_BAD}, got {distributed!r}")
    if use and penalty == "l1":
        refuse_l1()
    return use


def refuse_l1(what="penalty='l1'"):
    """The L1 solvers (newGLMNET, coordinate descent) train in one process: ValueError."""
    raise ValueError(
        f"{what} trains in one process only; pass distributed=False (each rank "
        "then fits its own rows) or penalty='l2'"
    )


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_BLOCK_ENTRIES = 1 << 22  # a dense X is hashed this many entries at a time


def _mix(z):
    """splitmix64's finaliser on a uint64 array (wrapping: numpy's uint64 arithmetic is mod 2^64)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _bits(values):
    """float64 values as their uint64 bit patterns (-0.0 as 0.0: the same row)."""
    return (np.ascontiguousarray(values, dtype=np.float64) + 0.0).view(np.uint64)


def _label_hashes(y):
    """A uint64 per label, equal labels alike, whatever their dtype (str labels too)."""
    y = np.asarray(y)
    if y.dtype.kind in "biuf":
        return _mix(_bits(y) ^ _GOLDEN)
    distinct, inverse = np.unique(y, return_inverse=True)
    hashed = np.array(
        [int.from_bytes(hashlib.blake2b(repr(v).encode(), digest_size=8).digest(), "little") for v in distinct],
        dtype=np.uint64,
    )
    return hashed[inverse.ravel()]


def _rows_digest(X, y, sample_weight):
    """A digest of the rows as a multiset: the same rows in any order, equal digests.

    Each row (its columns and values, label and weight) hashes to 64 bits, and the
    rows' hashes are summed mod 2^64, so a rank that shuffled its copy of the data
    (``sklearn.utils.shuffle`` without a seed) still holds "the same rows". A row's
    entries are summed too: the order of its columns does not count either.
    """
    with np.errstate(over="ignore"):
        n = X.shape[0]
        if hasattr(X, "indptr"):
            X = X.tocsr()
            columns = np.asarray(X.indices, dtype=np.uint64)
            entries = _mix(_mix(columns + _GOLDEN) ^ _bits(X.data))
            running = np.concatenate(([np.uint64(0)], np.cumsum(entries, dtype=np.uint64)))
            indptr = np.asarray(X.indptr, dtype=np.int64)
            rows = running[indptr[1:]] - running[indptr[:-1]]
        else:
            X = np.asarray(X)
            columns = _mix(np.arange(X.shape[1], dtype=np.uint64) + _GOLDEN)
            step = max(1, _BLOCK_ENTRIES // max(X.shape[1], 1))
            rows = np.concatenate(
                [np.zeros(0, dtype=np.uint64)]
                + [_mix(columns ^ _bits(X[b : b + step])).sum(axis=1, dtype=np.uint64) for b in range(0, n, step)]
            )
        rows = _mix(rows ^ _label_hashes(y))
        if sample_weight is not None:
            rows = _mix(rows ^ _bits(np.broadcast_to(np.asarray(sample_weight, dtype=np.float64), (n,))))
        return int(rows.sum(dtype=np.uint64))


def train_together(distributed, X, y, sample_weight):
    """Whether the ranks, which resolved to train distributed, train one model together.

    Under ``distributed="auto"`` an unmodified scikit-learn script in which every
    rank loads all the data holds the same rows on every rank, in its order or
    shuffled (compared as multisets, ``_rows_digest``): each rank then
    trains alone, on all of them, the model of one process (never K copies as one
    fit at C*K). Asked for explicitly (``distributed=True``), the ranks train
    together and the core refuses ranks holding the same rows with a message
    saying how to shard them (snapml/impl/rank_agreement.h). Collective: every rank
    calls it.
    """
    if distributed != "auto":
        return True
    try:
        mine = _rows_digest(X, y, sample_weight)
    except Exception:  # noqa: BLE001 - an input fit rejects later, on every rank alike
        mine = None
    digests = allgather((mine, X.shape[0]))
    return len(set(digests)) > 1 or digests[0][1] == 0


def allgather(value):
    """Every rank's ``value`` (picklable), in rank order, on every rank."""
    mine = pickle.dumps(value)
    me = _core.mpi_rank()
    return [
        pickle.loads(_core.mpi_broadcast_bytes(mine if root == me else b"", root))
        for root in range(_core.mpi_size())
    ]


def agree_max(value):
    """The largest integer ``value`` over all ranks."""
    return int(_core.mpi_allreduce_max(int(value)))


def agree_width(n_columns):
    """``X.shape[1]``, the same on every rank; ValueError on every rank otherwise.

    The ranks' rows are one matrix: a rank with fewer columns was zero-padded to
    the widest without a word, which is right for svmlight files read without
    ``n_features`` and wrong for anything else (issue 36).
    """
    widths = allgather(int(n_columns))
    if len(set(widths)) > 1:
        raise ValueError(
            f"the ranks' X have different numbers of columns ({', '.join(f'rank {r}: {w}' for r, w in enumerate(widths))}); "
            "under mpirun every rank's X holds the same features: pass X of one width on every rank "
            "(load_svmlight_file(..., n_features=N) for svmlight files)"
        )
    return widths[0]


def agree_file(path):
    """ValueError on every rank unless every rank passed the same file's bytes.

    Each rank reads its share of the file: ranks given different files each read
    a share of their own and trained one mixed model (issue 36, case 6). Compared
    by size and a checksum of the ends (``_core.file_identity``), not by path.
    """
    mine = _core.file_identity(os.fspath(path))
    seen = allgather((os.fspath(path), mine))
    if len({identity for _, identity in seen}) > 1:
        raise ValueError(
            "the ranks passed different training files ("
            + "; ".join(f"rank {r}: {name} ({identity})" for r, (name, identity) in enumerate(seen))
            + "): under mpirun every rank passes the same .snap file and reads its share of it"
        )


def refuse_checkpoint(checkpoint):
    """ValueError, on every rank alike, for a checkpoint under mpirun (not built yet).

    Raised before training: from inside the fit it ended every rank with MPI_Abort.
    """
    if checkpoint and checkpoint.get("checkpoint"):
        raise ValueError(
            f"checkpoint is not yet available under mpirun ({_core.mpi_size()} ranks): fit without a "
            "checkpoint, or in one process (distributed=False)"
        )


def _label_kind(classes):
    """"string" or "number" (bool, integer or float labels), or "mixed"."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "US":
        return "string"
    if classes.dtype.kind != "O":
        return "number"
    kinds = {"string" if isinstance(v, (str, bytes)) else "number" for v in classes.ravel()}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def agree_classes(local_classes):
    """The sorted union of every rank's distinct labels.

    ValueError on every rank where some rank's labels are strings and another's
    numbers, as scikit-learn refuses such labels in one process: numpy's union
    would turn the numbers into strings ("1.0" beside "1"), a model of more
    classes than the data has.
    """
    gathered = [np.asarray(c) for c in allgather(local_classes)]
    kinds = [_label_kind(c) for c in gathered if c.size > 0]
    if len(set(kinds)) > 1:
        raise ValueError(
            "Mix of label input types (string and number) over the ranks ("
            + ", ".join(f"rank {r}: {_label_kind(c)} labels" for r, c in enumerate(gathered) if c.size > 0)
            + "): pass labels of one type on every rank"
        )
    return np.unique(np.concatenate(gathered))


@contextlib.contextmanager
def agreed_checks():
    """Input checks that fail on every rank together.

    An error inside the block is re-raised on its rank after telling the others,
    which raise ValueError instead of waiting in a collective the failed rank never
    reaches.
    """
    try:
        yield
    except Exception:
        agree_max(1)
        raise
    if agree_max(0):
        raise ValueError(
            f"fit failed on another rank (this is rank {_core.mpi_rank()}); see that "
            f"rank's error for the cause"
        )


def train(**arguments):
    """``_core.train`` as one rank of MPI_COMM_WORLD.

    An error once training has started (the ranks are then inside collectives)
    prints ``snap_ml: rank R: message`` and ends every rank with MPI_Abort, as
    ``snap-train`` does under mpirun; but ranks that disagree (parameters, files,
    the same rows) raise ``RanksDisagreeError``, a ValueError, on every rank alike.
    """
    try:
        return _core.train(distributed=True, **arguments)
    except _core.RanksDisagreeError:
        raise  # raised on every rank alike, before any rank trains: none is left waiting
    except Exception as error:  # noqa: BLE001 - every error must end every rank
        _core.mpi_abort(f"snap_ml: rank {_core.mpi_rank()}: {type(error).__name__}: {error}")


def mpi_world():
    """``(rank, size)`` of this process under ``mpirun``; ``(0, 1)`` otherwise.

    Under an MPI launcher in a build with MPI this initialises MPI (as the first
    distributed ``fit`` would), so a script can pick its share of the rows before
    fitting; without a launcher or without MPI it touches nothing.
    """
    if not (_core.built_with_mpi and launched_by_mpi()):
        return 0, 1
    return _core.mpi_rank(), _core.mpi_size()
