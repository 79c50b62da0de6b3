#!/usr/bin/env python3
"""scikit-learn's default multinomial problem on a 70 % split of news20.multiclass:
snap_ml's LogisticRegression() against scikit-learn's LogisticRegression() (lbfgs),
each at its default tol, in one run, alternating, the median of --repeats fits each.

Both fit the same problem (penalty l2, C = 1, free intercepts, softmax over the 20
classes) on the same rows (train_test_split(train_size=0.7, random_state=0,
stratify=y)) with --threads threads (n_jobs for snap_ml, threadpoolctl for
scikit-learn). The objective C sum_i CE_i + 0.5 ||W||^2 of each model is given
relative to a reference optimum f*: snap_ml's certified fit at a relative duality
gap of 1e-11 (so f* is within 1e-11 of the optimum, from above), with the test
accuracy on the other 30 % and the share of test rows both predict alike.

Both at max_iter 100 (their default, which neither meets on this set's
tolerance) by default; --max-iter 10000 lets each stop on its own rule.

Usage: multinomial_default_bench.py --data-dir DIR [--repeats 3] [--threads 2] [--max-iter 100]
docs/benchmarks/primal.md has a run.
"""
import argparse
import os
import platform
import statistics
import time
import warnings

import numpy as np
import scipy.sparse as sp


def objective(X, y_index, coef, intercept, C=1.0):
    scores = X @ coef.T + intercept
    top = scores.max(axis=1, keepdims=True)
    log_normaliser = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    return C * (log_normaliser - scores[np.arange(len(y_index)), y_index]).sum() + 0.5 * (coef * coef).sum()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=100)
    args = parser.parse_args()
    from sklearn.datasets import load_svmlight_file
    from sklearn.linear_model import LogisticRegression as Theirs
    from sklearn.model_selection import train_test_split
    from threadpoolctl import threadpool_limits

    from snap_ml import _core
    from snap_ml._data import to_core
    from snap_ml.linear_model import LogisticRegression as Ours

    X, y = load_svmlight_file(os.path.join(args.data_dir, "news20.multiclass"))
    X = sp.csr_matrix(X, dtype=np.float64)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.7, random_state=0, stratify=y)
    X_train = sp.csr_matrix(X_train)
    X_train.indices = X_train.indices.astype(np.int32)
    X_train.indptr = X_train.indptr.astype(np.int32)
    classes = np.unique(y_train)
    y_index = np.searchsorted(classes, y_train)

    model, fits = _core.train(to_core(X_train, y_train), loss="multinomial", penalty="l2", C=1.0, tol=1e-11,
                              max_iter=100000, fit_intercept=True, intercept_scaling=1.0, class_weight={},
                              balanced_class_weight=False, epsilon=0.0, threads=args.threads, seed=0,
                              use_gpu=False, device_ids=[], warm_start=None, verbose=False, solver="primal",
                              penalise_intercept=False)
    optimum = objective(X_train, y_index, np.asarray(model.coef).reshape(len(classes), -1),
                        np.asarray(model.intercept))
    print(f"reference: {fits[0]['n_iter']} iterations, relative gap {fits[0]['gap'][-1] / fits[0]['primal'][-1]:.1e},"
          f" f* = {optimum:.10f}")

    times = {"ours": [], "theirs": []}
    fitted = {}
    warnings.simplefilter("ignore")  # ours warns at max_iter too
    for _ in range(args.repeats):
        ours = Ours(n_jobs=args.threads, max_iter=args.max_iter)
        start = time.perf_counter()
        ours.fit(X_train, y_train)
        times["ours"].append(time.perf_counter() - start)
        with threadpool_limits(args.threads), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter
            theirs = Theirs(max_iter=args.max_iter)
            start = time.perf_counter()
            theirs.fit(X_train, y_train)
            times["theirs"].append(time.perf_counter() - start)
        fitted = {"ours": ours, "theirs": theirs}
    print(f"{platform.node()}, {os.cpu_count()} cores, max_iter {args.max_iter}, load average {os.getloadavg()}")
    print("| library | seconds (median of %d) | iterations | f / f* - 1 | test accuracy |" % args.repeats)
    print("|---|---|---|---|---|")
    for name in ("ours", "theirs"):
        m = fitted[name]
        f = objective(X_train, y_index, np.asarray(m.coef_), np.asarray(m.intercept_))
        print(f"| {name} | {statistics.median(times[name]):.2f} ({', '.join(f'{t:.2f}' for t in times[name])}) | "
              f"{int(np.max(m.n_iter_))} | {(f - optimum) / optimum:.1e} | {m.score(X_test, y_test):.4f} |")
    agreement = np.mean(fitted["ours"].predict(X_test) == fitted["theirs"].predict(X_test))
    print(f"time ratio (theirs / ours): {statistics.median(times['theirs']) / statistics.median(times['ours']):.2f}; "
          f"same test prediction: {100 * agreement:.2f} %")


if __name__ == "__main__":
    main()
