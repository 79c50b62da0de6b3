#!/usr/bin/env python3
"""L1 and elastic-net logistic regression through the drop-in at the defaults:
snap_ml.LogisticRegression against scikit-learn's, each at its default tol, for
penalty l1 with solver liblinear (the intercept penalised, LIBLINEAR's -s 6), l1
with saga and the elastic net (l1_ratio 0.5) with saga (the intercept free).

Prints one line a problem: each fit's wall time, its objective's relative excess
over the best objective seen (ours at tol 1e-9 among them) and its iterations
(Newton steps for ours and liblinear, epochs for saga).

    python3 bench/l1_dropin_bench.py --data-dir ../shared/datasets \
        --sets heart_scale,mushrooms,a9a:5000,w8a:20000 --C 1,100
"""

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
import sklearn.linear_model
from sklearn.datasets import load_svmlight_file

import snap_ml


def load(data_dir, spec):
    name, _, rows = spec.partition(":")
    X, y = load_svmlight_file(f"{data_dir}/{name}")
    if rows:
        X, y = X[: int(rows)], y[: int(rows)]
    X = sp.csr_matrix(X)
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X, np.where(y == y.max(), 1, -1)


def objective(model, X, y, C, l1_ratio, penalised_intercept):
    """C sum_i log(1 + exp(-y_i (w.x_i + b))) + l1_ratio ||w||_1 + (1 - l1_ratio)/2 ||w||^2,
    the intercept b inside both norms when penalised (liblinear), else free (saga)."""
    w = model.coef_.ravel()
    b = model.intercept_[0]
    if penalised_intercept:
        w = np.append(w, b)
    return (C * np.logaddexp(0, -y * (X @ model.coef_.ravel() + b)).sum() + l1_ratio * np.abs(w).sum()
            + 0.5 * (1 - l1_ratio) * w @ w)


def timed_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--sets", default="heart_scale,mushrooms,a9a:5000,w8a:20000",
                        help="dataset names, NAME:ROWS for the first ROWS rows")
    parser.add_argument("--C", default="1,100")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    problems = [("liblinear", "l1", 1.0), ("saga", "l1", 1.0), ("saga", "elasticnet", 0.5)]
    for spec in args.sets.split(","):
        X, y = load(args.data_dir, spec)
        for C in map(float, args.C.split(",")):
            for solver, penalty, l1_ratio in problems:
                named = dict(penalty=penalty, l1_ratio=l1_ratio) if penalty == "elasticnet" else dict(penalty=penalty)
                penalised = solver == "liblinear"
                rows = []
                theirs = sklearn.linear_model.LogisticRegression(C=C, solver=solver, random_state=0, **named)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    seconds = timed_fit(theirs, X, y)
                rows.append(("scikit-learn", seconds, objective(theirs, X, y, C, l1_ratio, penalised),
                             theirs.n_iter_[0]))
                ours = snap_ml.LogisticRegression(C=C, solver=solver, n_jobs=args.threads, **named)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    seconds = timed_fit(ours, X, y)
                rows.append(("snap_ml", seconds, objective(ours, X, y, C, l1_ratio, penalised), ours.n_iter_[0]))
                tight = snap_ml.LogisticRegression(C=C, solver=solver, tol=1e-9, max_iter=3000, n_jobs=args.threads,
                                                   **named)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tight.fit(X, y)
                best = min([objective(tight, X, y, C, l1_ratio, penalised)] + [row[2] for row in rows])
                cells = "; ".join(f"{name} {s:.3f} s, {(value - best) / best:.1e} above, {it} it"
                                  for name, s, value, it in rows)
                print(f"{spec} C={C:g} {solver} {penalty}: {cells}", flush=True)


if __name__ == "__main__":
    main()
