#!/usr/bin/env python3
"""Fit time of snap_ml against scikit-learn and IBM's snapml (when installed), on the
shared datasets and a generated set of >= 10M non-zeros; writes a Markdown table.

Every solver trains the same L2-regularised problem family at C = 1 on the same
threads (``--threads``; scikit-learn's liblinear and saga are single-threaded,
which the table says) with its own default tolerance, and is reported with its
test accuracy next to its time, so "as fast at the same accuracy" can be read
off one row. Ratios are the peer's time divided by snap_ml's.

    python3 bench/python_bench.py [--threads 2] [--out docs/benchmarks/python.md]
"""

import argparse
import datetime
import os
import pathlib
import platform
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

import snap_ml
from snap_ml.datasets import load_svmlight_file

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA_DIR = pathlib.Path(os.environ.get("SNAPML_DATA_DIR", REPO.parent / "shared" / "datasets"))

try:  # IBM Snap ML from PyPI (`pip install snapml`); imports as `snapml`
    import snapml as ibm_snapml
except ImportError:
    ibm_snapml = None


def int32_csr(X):
    """scikit-learn's liblinear wants int32 indices; float64 values for all peers."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def load(name):
    if name == "a9a":
        X, y = load_svmlight_file(DATA_DIR / "a9a")
        X_test, y_test = load_svmlight_file(DATA_DIR / "a9a.t", n_features=X.shape[1])
    elif name == "synthetic-10M":
        X, y = synthetic(n_rows=600_000, n_features=1 << 17, nnz_per_row=20, seed=0)
        X, X_test, y, y_test = train_test_split(X, y, test_size=1 / 6, random_state=0)
    else:
        X, y = load_svmlight_file(DATA_DIR / name)
        X, X_test, y, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    return int32_csr(X), y, int32_csr(X_test), y_test


def synthetic(n_rows, n_features, nnz_per_row, seed):
    """A sparse binary problem with a planted linear model (5% label noise)."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_features, size=(n_rows, nnz_per_row), dtype=np.int32)
    indices.sort(axis=1)
    data = rng.random((n_rows, nnz_per_row), dtype=np.float32)
    indptr = np.arange(0, n_rows * nnz_per_row + 1, nnz_per_row, dtype=np.int64)
    X = sp.csr_matrix((data.ravel(), indices.ravel(), indptr), shape=(n_rows, n_features))
    X.sum_duplicates()
    w = rng.standard_normal(n_features)
    y = np.where(X @ w + 0.5 * rng.standard_normal(n_rows) > 0, 1.0, -1.0)
    flip = rng.random(n_rows) < 0.05
    y[flip] = -y[flip]
    return X, y


C_ALL = 1.0  # every solver's C (IBM snapml: regularizer = 1 / C)


def solvers(threads, task):
    """(name, threads used, factory) for each solver of a task ("logistic" or "svm")."""
    C = C_ALL
    if task == "logistic":
        rows = [
            # IBM's problem (the intercept penalised) as a scikit-learn user asks for
            # it: solver="liblinear", dual=False (LIBLINEAR's -s 0), which trains by
            # the primal Newton solver (Cholesky steps where the weights are few).
            ("snap_ml", threads, lambda: snap_ml.LogisticRegression(C=C, solver="liblinear", n_jobs=threads)),
            # The same problem by SDCA (dual=True, LIBLINEAR's -s 7), IBM's algorithm.
            ("snap_ml SDCA", threads, lambda: snap_ml.LogisticRegression(
                C=C, solver="liblinear", dual=True, max_iter=1000, n_jobs=threads, random_state=0)),
            # liblinear no longer does one-vs-rest itself (scikit-learn 1.8+).
            ("sklearn liblinear", 1, lambda: OneVsRestClassifier(SkLogisticRegression(C=C, solver="liblinear"))),
            ("sklearn lbfgs", threads, lambda: SkLogisticRegression(C=C, solver="lbfgs", max_iter=1000)),
            ("sklearn saga", 1, lambda: SkLogisticRegression(C=C, solver="saga", max_iter=100)),
        ]
        if ibm_snapml is not None:
            rows.append(("IBM snapml", threads, lambda: ibm_snapml.LogisticRegression(
                regularizer=1.0 / C, n_jobs=threads, fit_intercept=True)))
    else:
        rows = [
            ("snap_ml", threads, lambda: snap_ml.SupportVectorMachine(
                loss="squared_hinge", C=C, n_jobs=threads, random_state=0)),
            ("sklearn LinearSVC", 1, lambda: LinearSVC(C=C, dual=True, max_iter=1000)),
        ]
        if ibm_snapml is not None:
            rows.append(("IBM snapml", threads, lambda: ibm_snapml.SupportVectorMachine(
                regularizer=1.0 / C, n_jobs=threads, fit_intercept=True)))
    return rows


def coefficient_rows(model):
    """[(w, b)] of a fitted linear model: one pair for a binary model, one per class
    for a one-vs-rest one (IBM snapml's and snap_ml's coef_, or the estimators of a
    OneVsRestClassifier); None without coef_."""
    if isinstance(model, OneVsRestClassifier):
        rows = [coefficient_rows(estimator) for estimator in model.estimators_]
        return None if any(r is None for r in rows) else [pair for r in rows for pair in r]
    coef = np.asarray(getattr(model, "coef_", None), dtype=np.float64)
    if coef.ndim == 0 or coef.size == 0:
        return None
    coef = np.atleast_2d(coef)
    intercept = np.ravel(np.asarray(getattr(model, "intercept_", 0.0), dtype=np.float64))
    intercept = np.broadcast_to(intercept if intercept.size else np.zeros(1), (coef.shape[0],))
    return [(coef[k], float(intercept[k])) for k in range(coef.shape[0])]


# Solvers that fit one multinomial model where the data has more than two classes:
# their weights are not one-vs-rest problems, so they get no objective there.
MULTINOMIAL_ON_MULTICLASS = ("sklearn lbfgs", "sklearn saga")


def primal_objective(model, X, y, C, task):
    """The training objective every peer is compared on, LIBLINEAR's with the
    intercept as a feature of value 1 in the penalty: 0.5 (||w||^2 + b^2) + C sum_i
    loss(y_i (w.x_i + b)); logistic loss, or the squared hinge for "svm" (IBM
    snapml's hinge model is evaluated on it too, so its row is not its own
    objective). With more than two classes, the sum of the one-vs-rest problems'
    objectives (class k against the rest, k in sorted order). NaN where the model's
    weights are not of that form."""
    coefficients = coefficient_rows(model)
    classes = np.unique(y)
    problems = [classes[1]] if len(classes) == 2 else list(classes)
    if coefficients is None or len(coefficients) != len(problems):
        return float("nan")
    total = 0.0
    for (w, b), positive in zip(coefficients, problems):
        signs = np.where(y == positive, 1.0, -1.0)
        margins = signs * (X @ w + b)
        if task == "logistic":
            losses = np.logaddexp(0.0, -margins)
        else:
            losses = np.maximum(0.0, 1.0 - margins) ** 2
        total += 0.5 * (w @ w + b * b) + C * float(losses.sum())
    return total


def best_fit(factory, X, y, repeats):
    """The best time of `repeats` fits of fresh models, and the last model."""
    best = float("inf")
    for _ in range(repeats):
        model = factory()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


def time_fit(factory, X, y, X_test, y_test, repeats, task):
    best, model = best_fit(factory, X, y, repeats)
    accuracy = float(np.mean(model.predict(X_test) == y_test))
    return best, accuracy, primal_objective(model, X, y, C_ALL, task)


# tol, loosest first, of the logistic fits that look for IBM snapml's objective.
TOL_LADDER = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5)


def time_to_objective(make, target, X, y, repeats):
    """The first fit of a ladder of tolerances (TOL_LADDER, loosest first; the
    certified relative duality gap) whose training objective is at most `target`:
    (tol, best time of `repeats` fits, objective); the tightest rung's when none
    reaches it."""
    for tol in TOL_LADDER:
        seconds, model = best_fit(lambda: make(tol), X, y, repeats)
        objective = primal_objective(model, X, y, C_ALL, "logistic")
        if objective <= target or tol == TOL_LADDER[-1]:
            return tol, seconds, objective


def time_to_accuracy(make, target, X, y, X_test, y_test, repeats):
    """The first fit of a ladder of epoch budgets (max_iter 1, 2, 3, 4, 6, 9, ...;
    the solver's own tol still stops it) whose test accuracy reaches `target`:
    (budget, best time of `repeats` fits, accuracy, epochs done); the default fit's
    when it converges first without reaching it."""
    budget = 1
    while True:
        seconds, model = best_fit(lambda: make(budget), X, y, repeats)
        accuracy = float(np.mean(model.predict(X_test) == y_test))
        epochs = int(np.max(model.n_iter_))
        if accuracy >= target or epochs < budget or budget >= 1000:
            return budget, seconds, accuracy, epochs
        budget = budget + 1 if budget < 4 else budget + budget // 2


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu}, {os.cpu_count()} CPUs, load average {load:.1f} at start"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--datasets", nargs="+",
                        default=["a9a", "w8a", "mushrooms", "news20.multiclass", "synthetic-10M"])
    parser.add_argument("--tasks", nargs="+", default=["logistic", "svm"])
    parser.add_argument("--out", default=str(REPO / "docs" / "benchmarks" / "python.md"))
    args = parser.parse_args()

    header = machine()
    results = []
    hinge = []  # hinge SVM: time to IBM snapml's test accuracy
    matched = []  # logistic: time to IBM snapml's training objective
    for name in args.datasets:
        X, y, X_test, y_test = load(name)
        repeats = 3 if X.nnz < 1_000_000 else 1
        for task in args.tasks:
            if task == "svm" and name == "news20.multiclass":
                continue  # one multiclass row (logistic) keeps the run short
            reference = None
            rows = []
            for solver, threads, factory in solvers(args.threads, task):
                seconds, accuracy, objective = time_fit(factory, X, y, X_test, y_test, repeats, task)
                if len(np.unique(y)) > 2 and solver in MULTINOMIAL_ON_MULTICLASS:
                    objective = float("nan")
                reference = reference or seconds
                rows.append([name, X.shape, X.nnz, task, solver, threads, seconds, accuracy,
                             seconds / reference, objective])
                print(f"{name:18s} {task:8s} {solver:18s} {seconds:8.3f}s  acc {100 * accuracy:6.2f}%  "
                      f"x{seconds / reference:.2f}  P {objective:.8g}", flush=True)
                write_report(args, header, results + suboptimality(rows), hinge, matched)  # a partial run still reports
            results += suboptimality(rows)
            ibm = [r for r in rows if r[4] == "IBM snapml"]
            if task == "logistic" and ibm and np.isfinite(ibm[0][9]):
                # The same objective as IBM snapml's, or a smaller one: snap_ml's default
                # solver at the loosest tolerance of the ladder that reaches it.
                target, ibm_seconds = ibm[0][9], ibm[0][6]
                tol, seconds, objective = time_to_objective(
                    lambda tol: snap_ml.LogisticRegression(C=C_ALL, solver="liblinear", n_jobs=args.threads, tol=tol),
                    target, X, y, repeats)
                matched.append([name, target, ibm_seconds, tol, seconds, objective])
                print(f"{name:18s} logistic to IBM's P {target:.8g}: tol {tol:g} {seconds:.3f}s P {objective:.8g}  "
                      f"IBM/ours {ibm_seconds / seconds:.2f}", flush=True)
                write_report(args, header, results, hinge, matched)
            if task == "svm" and ibm:
                # The hinge loss, IBM snapml's SVM: the time snap_ml takes to IBM's test accuracy.
                target, ibm_seconds = ibm[0][7], ibm[0][6]
                budget, seconds, accuracy, epochs = time_to_accuracy(
                    lambda k: snap_ml.SupportVectorMachine(loss="hinge", C=C_ALL, n_jobs=args.threads,
                                                           random_state=0, max_iter=k),
                    target, X, y, X_test, y_test, repeats)
                hinge.append([name, target, ibm_seconds, budget, epochs, seconds, accuracy])
                print(f"{name:18s} hinge to IBM's {100 * target:.2f}%: max_iter {budget} ({epochs} epochs) "
                      f"{seconds:.3f}s acc {100 * accuracy:.2f}%  IBM/ours {ibm_seconds / seconds:.2f}", flush=True)
                write_report(args, header, results, hinge, matched)


def suboptimality(rows):
    """Each row's objective as P / P_best - 1 over the rows of its data set and task
    (the best any solver reached stands in for the optimum)."""
    finite = [r[9] for r in rows if np.isfinite(r[9])]
    best = min(finite) if finite else float("nan")
    return [r[:9] + [r[9] / best - 1.0 if np.isfinite(r[9]) else float("nan")] for r in rows]


def write_report(args, header, results, hinge, matched):
    command = "python3 bench/python_bench.py " + " ".join(sys.argv[1:])
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "?"
    lines = [
        "# Python benchmark: snap_ml against scikit-learn and IBM snapml",
        "",
        f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}",
        f"- machine: {header}",
        f"- command: `{command}` (commit {commit}, uncommitted changes included)",
        f"- Python {platform.python_version()}, scikit-learn {__import__('sklearn').__version__}, "
        f"numpy {np.__version__}, IBM snapml: "
        f"{'installed (pip install snapml)' if ibm_snapml else 'not installed'}",
        "- every solver: C = 1 (IBM snapml: regularizer = 1/C), its own default tolerance; "
        "time is the best of 3 fits (1 fit for news20 and the 10M set); ratio = time / snap_ml's time "
        "(above 1: snap_ml is faster)",
        "- logistic: snap_ml LogisticRegression(solver=\"liblinear\") (the primal Newton solver; "
        "\"snap_ml SDCA\": dual=True) vs scikit-learn LogisticRegression (liblinear "
        "(wrapped in OneVsRestClassifier), "
        "lbfgs, saga with max_iter=100) and IBM snapml; svm: squared hinge, snap_ml "
        "SupportVectorMachine vs LinearSVC(dual=True) and IBM snapml (hinge)",
        "- lbfgs and saga leave the intercept unregularised (a slightly different problem); "
        "news20.multiclass: 20 classes one-vs-rest (lbfgs/saga: multinomial)",
        "- P - P*: each fitted model's training objective, 0.5 (||w||^2 + b^2) + C sum_i loss_i (LIBLINEAR's, the "
        "intercept in the penalty; the squared hinge for svm, IBM snapml's hinge model included), relative to the "
        "best any solver of the row's data set and task reached; the free-intercept solvers (lbfgs, saga) are "
        "evaluated on it too; news20.multiclass: the sum of the 20 one-vs-rest problems' objectives (– for the "
        "multinomial lbfgs and saga)",
        "",
        "| dataset | rows x features | nnz | task | solver | threads | fit time (s) | test accuracy | ratio | "
        "P - P* (relative) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, shape, nnz, task, solver, threads, seconds, accuracy, ratio, gap in results:
        gap_text = "–" if not np.isfinite(gap) else f"{gap:.1e}"
        lines.append(f"| {name} | {shape[0]:,} x {shape[1]:,} | {nnz:,} | {task} | {solver} | {threads} | "
                     f"{seconds:.3f} | {100 * accuracy:.2f} % | {ratio:.2f} | {gap_text} |")
    if matched:
        lines += [
            "",
            "## Logistic regression: time to IBM snapml's objective",
            "",
            "Each solver above stops at its own default tolerance, so the rows compare fits of different "
            "precision (P - P*). Here snap_ml's default solver (the `snap_ml` rows) runs with `tol` "
            + ", ".join(f"{t:g}" for t in TOL_LADDER) + " (the certified relative duality gap), loosest first, "
            "and the first whose training objective is at most IBM snapml's (its row above) is timed (best of "
            "the same repeats); ratio = IBM's time / ours (above 1: snap_ml reaches it sooner).",
            "",
            "| dataset | IBM P | IBM time (s) | snap_ml tol | snap_ml time (s) | snap_ml P | ratio |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, target, ibm_seconds, tol, seconds, objective in matched:
            lines.append(f"| {name} | {target:.8g} | {ibm_seconds:.3f} | {tol:g} | {seconds:.3f} | {objective:.8g} | "
                         f"{ibm_seconds / seconds:.2f} |")
    if hinge:
        lines += [
            "",
            "## Hinge SVM: time to IBM snapml's test accuracy",
            "",
            "snap_ml `SupportVectorMachine(loss=\"hinge\")` (IBM snapml's loss) with `max_iter` 1, 2, 3, 4, 6, 9, "
            "... (its default tol still stops it): the first budget whose test accuracy reaches IBM snapml's "
            "(the svm rows above), and that fit's time (best of the same repeats); ratio = IBM's time / ours "
            "(above 1: snap_ml reaches it sooner).",
            "",
            "| dataset | IBM accuracy | IBM time (s) | snap_ml max_iter | epochs | snap_ml time (s) | snap_ml accuracy "
            "| ratio |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, target, ibm_seconds, budget, epochs, seconds, accuracy in hinge:
            lines.append(f"| {name} | {100 * target:.2f} % | {ibm_seconds:.3f} | {budget} | {epochs} | {seconds:.3f} | "
                         f"{100 * accuracy:.2f} % | {ibm_seconds / seconds:.2f} |")
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
