#!/usr/bin/env python3
"""Multinomial (softmax) logistic regression on news20.multiclass: snapml's primal
Newton solver (_core.train, loss="multinomial", free intercepts) against
scikit-learn's LogisticRegression (lbfgs, its default for more than two classes),
both fit() on data already read, in one run, with the relative objective
difference of snapml's model against scikit-learn's (negative: snapml's lower).

Usage: multinomial_bench.py --data-dir DIR [--rows N] [--threads 2] [--c 1]
                            [--tol 1e-6] [--repeats 1]

scikit-learn runs with tol=1e-6 (gradient norm rule of lbfgs) and max_iter large
enough to converge; OMP_NUM_THREADS / the threads argument set both libraries' threads.
docs/benchmarks/primal.md has a run.
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
    parser.add_argument("--tol", type=float, default=1e-6, help="snapml's gradient rule")
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
        model, fits = _core.train(data, loss="multinomial", penalty="l2", C=args.c, tol=args.tol, max_iter=1000,
                                  fit_intercept=True, intercept_scaling=1.0, class_weight={}, balanced=False,
                                  epsilon=0.0, threads=args.threads, seed=0, use_gpu=False, device_ids=[],
                                  warm_start=None, verbose=False, solver="primal", penalise_intercept=False)
        snap_times.append(time.perf_counter() - start)
        with threadpool_limits(args.threads):
            start = time.perf_counter()
            reference = LogisticRegression(C=args.c, tol=1e-6, max_iter=100000).fit(X, y)
            sklearn_times.append(time.perf_counter() - start)
    coef = np.asarray(model.coef).reshape(len(classes), -1)
    ours = objective(X, y_index, coef, np.asarray(model.intercept), args.c)
    theirs = objective(X, y_index, reference.coef_, reference.intercept_, args.c)
    snap, sklearn = statistics.median(snap_times), statistics.median(sklearn_times)
    print("| rows | C | snapml multinomial | sklearn lbfgs | lbfgs / snapml | objective, snapml vs sklearn |")
    print("|---|---|---|---|---|---|")
    print(f"| {X.shape[0]} | {args.c:g} | {snap:.2f} s, {fits[0]['n_iter']} it | {sklearn:.2f} s, "
          f"{int(np.max(reference.n_iter_))} it | {sklearn / snap:.1f} | {(ours - theirs) / theirs:.1e} |")


if __name__ == "__main__":
    main()
