#!/usr/bin/env python3
"""Multinomial (softmax) logistic regression on news20.multiclass: snapml's primal
solver (_core.train, loss="multinomial", free intercepts; L-BFGS, its method for
this loss) against scikit-learn's LogisticRegression (lbfgs, its default for
more than two classes), both fit() on data already read, in one run, with the
relative objective difference of snapml's model against scikit-learn's
(negative: snapml's lower) and the share of rows both predict the same class
for.

Usage: multinomial_bench.py --data-dir DIR [--rows N] [--threads 2] [--c 1]
                            [--tol 1e-5] [--sklearn-tol 1e-6] [--repeats 1]

The whole set by default (15,935 rows). scikit-learn runs with --sklearn-tol
(the gradient rule of its lbfgs, max |g| of its mean-scaled objective) and
max_iter large enough to converge; snapml with --tol (its rule ||g|| <= tol
||g(0)||). Both libraries get --threads threads (threadpoolctl for
scikit-learn; its sparse products are scipy's, single-threaded). snapml's data
passes are its products' passes over the rows (fits[0]["data_passes"]: two per
L-BFGS iteration); scikit-learn's are at least two per lbfgs iteration (a
function and gradient evaluation, more when its line search tries several).
There is no held-out news20 file: the predictions compared are on the
training rows. docs/benchmarks/primal.md has a run.
"""
import argparse
import os
import statistics
import time

import numpy as np


def objective(X, y_index, coef, intercept, C):
    scores = X @ coef.T + intercept
    top = scores.max(axis=1, keepdims=True)
    log_normaliser = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    return C * (log_normaliser - scores[np.arange(len(y_index)), y_index]).sum() + 0.5 * (coef * coef).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--rows", type=int, default=0, help="the first N rows only (0: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-5, help="snapml's gradient rule")
    parser.add_argument("--sklearn-tol", type=float, default=1e-6)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    from sklearn.datasets import load_svmlight_file
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from snap_ml import _core
    from snap_ml._data import to_core

    X, y = load_svmlight_file(os.path.join(args.data_dir, "news20.multiclass"))
    if args.rows:
        X, y = X[:args.rows], y[:args.rows]
    X = X.tocsr()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    classes = np.unique(y)
    y_index = np.searchsorted(classes, y)
    data = to_core(X, y)
    snap_times, sklearn_times = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        model, fits = _core.train(data, loss="multinomial", penalty="l2", C=args.c, tol=args.tol, max_iter=10000,
                                  fit_intercept=True, intercept_scaling=1.0, class_weight={}, balanced_class_weight=False,
                                  epsilon=0.0, threads=args.threads, seed=0, use_gpu=False, device_ids=[],
                                  warm_start=None, verbose=False, solver="primal", penalise_intercept=False)
        snap_times.append(time.perf_counter() - start)
        with threadpool_limits(args.threads):
            start = time.perf_counter()
            reference = LogisticRegression(C=args.c, tol=args.sklearn_tol, max_iter=100000).fit(X, y)
            sklearn_times.append(time.perf_counter() - start)
    coef = np.asarray(model.coef).reshape(len(classes), -1)
    intercept = np.asarray(model.intercept)
    ours = objective(X, y_index, coef, intercept, args.c)
    theirs = objective(X, y_index, reference.coef_, reference.intercept_, args.c)
    agreement = np.mean(classes[np.argmax(X @ coef.T + intercept, axis=1)] == reference.predict(X))
    snap, sklearn = statistics.median(snap_times), statistics.median(sklearn_times)
    print("| rows | C | snapml tol | snapml | sklearn tol | sklearn lbfgs | lbfgs / snapml | "
          "objective, snapml vs sklearn | same prediction |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {X.shape[0]} | {args.c:g} | {args.tol:g} | {snap:.2f} s, {fits[0]['n_iter']} it, "
          f"{fits[0]['data_passes']} passes | {args.sklearn_tol:g} | {sklearn:.2f} s, "
          f"{int(np.max(reference.n_iter_))} it | {sklearn / snap:.1f} | {(ours - theirs) / theirs:.1e} | "
          f"{100 * agreement:.2f} % |")


if __name__ == "__main__":
    main()
