"""Parameter and attribute descriptions shared by the estimators' docstrings."""

COMMON_PARAMETERS = """\
penalty : {"l2", "l1"}, default="l2"
        The regulariser: ``"l2"`` is 0.5 * ||w||^2, trained by SDCA (CPU threads or
        GPU); ``"l1"`` is ||w||_1, trained by primal coordinate descent on one CPU
        thread (LIBLINEAR's -s 5/6 and lasso), where ``tol`` is LIBLINEAR's relative
        sub-gradient rule. The hinge loss has no L1 variant.
    tol : float, default=1e-3
        Stop when the duality gap P(w) - D(alpha) falls below ``tol * P(w)``; the gap
        bounds the sub-optimality, so P(w) - P(w*) <= tol * P(w) on return. This is
        a certificate, not scikit-learn's solver-specific gradient or step-size test,
        so the same number means a different thing: 1e-3 already puts the objective
        within 0.1% of the optimum.
    C : float, default=1.0
        Inverse of the regularisation strength; each sample's loss is multiplied by
        ``C * class_weight[y_i] * sample_weight_i`` (scikit-learn's and LIBLINEAR's C).
    regularizer : float, default=None
        Snap ML's name for the regularisation strength, ``1 / C``. When given it
        replaces ``C`` (leave ``C`` at its default).
    fit_intercept : bool, default=True
        Fit an intercept as a constant feature of value ``intercept_scaling``
        (LIBLINEAR's ``-B``); its weight is regularised like the others.
    intercept_scaling : float, default=1.0
        The value of the constant feature; ``intercept_ = intercept_scaling * w_bias``.
        A larger value regularises the intercept less.
    max_iter : int, default=1000
        The most epochs (passes over the data) per binary problem; a
        ConvergenceWarning says when it stopped training.
    n_jobs : int, default=None
        CPU threads: None means 1, -1 every CPU, -2 all but one. With one thread and a
        fixed ``random_state`` training is bit-for-bit reproducible.
    num_threads : int, default=None
        Snap ML's old name of ``n_jobs``: either, or both with the same value.
    random_state : int, RandomState instance or None, default=None
        Seeds the random order in which SDCA visits the samples.
    verbose : int, default=0
        Print one line per duality-gap certificate (SDCA: after the epochs the gap's
        rate calls for, and the last): primal and dual objective, gap, time.
    warm_start : bool, default=False
        Start from the previous fit's coefficients (same classes and features).
    use_gpu : bool, default=False
        Train on a CUDA GPU. A build or machine without one raises ValueError rather
        than training on the CPU.
    device_ids : list of int, default=None
        CUDA devices to train on (needs ``use_gpu=True``); None means device 0.
    max_memory : int or str, default=None
        Host memory budget for the data and the solver's state when ``fit`` is
        given the path of a ``.snap`` file: bytes, or a size such as "512MB",
        "4GB", "1.5G" (powers of 1024, as ``snap-train --max-memory``). A file
        that fits is memory-mapped whole; a larger one is streamed from disk
        through 2-3 buffers of its largest chunk (docs/out-of-core.md). None: no
        budget (mapped whole). With arrays, which are already in memory, any value
        raises ValueError. ``predict`` and ``score`` on a path read it the same way.
    max_gpu_memory : int or str, default=None
        GPU memory budget per device for the data and the solver's state (bytes or
        a size string, as ``snap-train --max-gpu-memory``); needs ``use_gpu=True``,
        else ValueError. Data beyond it streams to the GPU chunk by chunk
        (docs/out-of-core.md).
    distributed : {"auto", True, False}, default="auto"
        Train as one rank of ``mpirun -n K python script.py`` on the rows this rank
        holds; every rank ends with the same model, that of one fit on all rows.
        ``"auto"``: when started by an MPI launcher and snap_ml was built with MPI
        (``snap_ml._core.built_with_mpi``), else in this process alone. True without
        MPI or without a launcher raises ValueError. L2 penalty only."""

CLASS_WEIGHT = """\
class_weight : dict or "balanced", default=None
        Multiplies C for the samples of a class: ``{label: weight}``, or "balanced" for
        ``n_samples / (n_classes * count(label))``. In one-vs-rest a class's weight
        applies to its own positive samples and the rest weigh 1 (LIBLINEAR's -wi)."""

COMMON_ATTRIBUTES = """\
n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, when X has string column names.
    training_history_ : list of dict
        One dict per binary problem (one for binary classification and regression,
        one per class in one-vs-rest) of equal-length arrays over the duality-gap
        certificates (SDCA: after the epochs the gap's rate calls for, and after the
        last; ``"epoch"`` says which):
        ``"epoch"``, ``"time"`` (seconds since the fit began), ``"primal"``,
        ``"dual"`` and ``"gap"`` (the duality gap, primal - dual)."""

CLASSIFIER_ATTRIBUTES = """\
classes_ : ndarray of shape (n_classes,)
        The distinct labels, sorted; any type scikit-learn accepts (numbers, strings).
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights; one row for two classes (scoring ``classes_[1]``), one row per class
        in one-vs-rest.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        ``intercept_scaling`` times the constant feature's weight; 0 without intercept.
    n_iter_ : ndarray of shape (1,) or (n_classes,)
        Epochs run for each binary problem."""


def fill(docstring):
    """The docstring with {common}, {class_weight}, {attributes} filled in."""
    return docstring.format(
        common=COMMON_PARAMETERS,
        class_weight=CLASS_WEIGHT,
        common_attributes=COMMON_ATTRIBUTES,
        classifier_attributes=CLASSIFIER_ATTRIBUTES,
    )
