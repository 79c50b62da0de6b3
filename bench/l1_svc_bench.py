#!/usr/bin/env python3
"""L1-regularised linear SVMs through the drop-in at the defaults:
snap_ml.LinearSVC(penalty="l1", dual=False) (coordinate descent, LIBLINEAR's -s 5)
against scikit-learn's, each at its default tol and max_iter.

Prints one line a problem: each fit's wall time (the median of --repeat fits), its
objective's relative excess over the best objective seen (ours at tol 1e-9 among
them) and its epochs.

    python3 bench/l1_svc_bench.py --data-dir ../shared/datasets \
        --sets heart_scale,mushrooms,a9a:5000,w8a:20000 --C 0.1,1,10
"""

import argparse
import statistics
import time
import warnings

import numpy as np
import sklearn.svm

import snap_ml
from l1_dropin_bench import load  # the same rows and labels (+1 / -1)


def objective(model, X, y, C):
    """||(w, b)||_1 + C sum_i max(0, 1 - y_i (w.x_i + b))^2: the intercept penalised,
    as LIBLINEAR's -s 5 (intercept_scaling 1)."""
    w = model.coef_.ravel()
    b = model.intercept_[0]
    slack = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return np.abs(w).sum() + abs(b) + C * slack @ slack


def timed_fits(make, X, y, repeat):
    seconds = []
    for _ in range(repeat):
        model = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            model.fit(X, y)
            seconds.append(time.perf_counter() - start)
    return model, statistics.median(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--sets", default="heart_scale,mushrooms,a9a:5000,w8a:20000",
                        help="dataset names, NAME:ROWS for the first ROWS rows")
    parser.add_argument("--C", default="0.1,1,10")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for spec in args.sets.split(","):
        X, y = load(args.data_dir, spec)
        for C in map(float, args.C.split(",")):
            rows = []
            for name, make in (
                ("scikit-learn", lambda: sklearn.svm.LinearSVC(penalty="l1", dual=False, C=C, random_state=0)),
                ("snap_ml", lambda: snap_ml.LinearSVC(penalty="l1", dual=False, C=C)),
            ):
                model, seconds = timed_fits(make, X, y, args.repeat)
                rows.append((name, seconds, objective(model, X, y, C), int(np.max(model.n_iter_))))
            tight = snap_ml.LinearSVC(penalty="l1", dual=False, C=C, tol=1e-9, max_iter=20000)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tight.fit(X, y)
            best = min([objective(tight, X, y, C)] + [row[2] for row in rows])
            cells = "; ".join(f"{name} {s:.3f} s, {(value - best) / best:.1e} above, {it} it"
                              for name, s, value, it in rows)
            print(f"{spec} C={C:g}: {cells}; snap_ml / scikit-learn time {rows[1][1] / rows[0][1]:.2f}", flush=True)


if __name__ == "__main__":
    main()
