#!/usr/bin/env python3
"""The multinomial L1 and elastic-net model (LogisticRegression(l1_ratio, solver=
"saga") on more than two classes) against scikit-learn's saga, in one run.

For each standardised set (iris, wine; digits with --digits, whose converged saga
run takes minutes) and each (l1_ratio, C): scikit-learn's saga run to tol 1e-9
(the reference, max_iter 1e6), its run at the defaults (tol 1e-4, max_iter 100),
and snap_ml's at the defaults (orthant-wise L-BFGS certified at tol / 1000). Each
model's largest probability difference from the reference on the training rows,
its non-zero count and seconds. With --news20 ROWS: the first ROWS rows of
news20.multiclass (raw values, a 70 % split), l1_ratio 1 and --news20-C, each
model's objective C sum_i CE_i + ||W||_1 (scikit-learn's saga at its defaults only,
and only with --news20-peer: it takes minutes).

Usage: multinomial_l1_bench.py [--digits] [--news20 ROWS --data-dir DIR [--news20-C 10] [--news20-peer]]
docs/benchmarks/primal.md has a run.
"""
import argparse
import os
import platform
import time
import warnings

import numpy as np
import sklearn
import sklearn.linear_model as skl
from sklearn.datasets import load_digits, load_iris, load_svmlight_file, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import snap_ml

GRID = [(1.0, 0.5), (0.5, 0.5), (0.5, 10.0), (1.0, 5.0)]


def timed(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - start


def small_sets(with_digits):
    sets = {"iris": load_iris, "wine": load_wine}
    if with_digits:
        sets["digits"] = load_digits
    print("| set | l1_ratio | C | saga default: max dP | ours: max dP | nnz ref / saga / ours | "
          "seconds ref / saga / ours | our iterations |")
    print("|---|---|---|---|---|---|---|---|")
    for name, load in sets.items():
        X, y = load(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        for l1_ratio, C in GRID:
            parameters = dict(l1_ratio=l1_ratio, solver="saga", C=C)
            reference = skl.LogisticRegression(tol=1e-9, max_iter=1_000_000, **parameters)
            default = skl.LogisticRegression(**parameters)
            ours = snap_ml.LogisticRegression(**parameters)
            seconds = [timed(m, X, y) for m in (reference, default, ours)]
            P = reference.predict_proba(X)
            differences = [np.abs(m.predict_proba(X) - P).max() for m in (default, ours)]
            nnz = [int((m.coef_ != 0).sum()) for m in (reference, default, ours)]
            print(f"| {name} | {l1_ratio} | {C} | {differences[0]:.2g} | {differences[1]:.2g} | "
                  f"{' / '.join(map(str, nnz))} | {' / '.join(f'{s:.2f}' for s in seconds)} | {ours.n_iter_[0]} |")


def news20(rows, data_dir, C, peer):
    X, y = load_svmlight_file(os.path.join(data_dir, "news20.multiclass"))
    X, y = X[:rows], y[:rows]
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.7, random_state=0)
    parameters = dict(l1_ratio=1.0, solver="saga", C=C)
    models = {"snap_ml": snap_ml.LogisticRegression(n_jobs=2, **parameters)}
    if peer:
        models["scikit-learn saga"] = skl.LogisticRegression(**parameters)
    print(f"\nnews20.multiclass, first {rows} rows, 70 % split, l1_ratio 1, C = {C}, defaults")
    print("| model | seconds | objective | test accuracy | non-zeros | iterations |")
    print("|---|---|---|---|---|---|")
    for name, model in models.items():
        seconds = timed(model, X_train, y_train)
        P = model.predict_proba(X_train)
        index = np.searchsorted(model.classes_, y_train)
        objective = C * -np.log(P[np.arange(len(y_train)), index]).sum() + np.abs(model.coef_).sum()
        print(f"| {name} | {seconds:.1f} | {objective:.6g} | {model.score(X_test, y_test):.4f} | "
              f"{int((model.coef_ != 0).sum())} | {np.max(model.n_iter_)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--digits", action="store_true")
    parser.add_argument("--news20", type=int, default=0)
    parser.add_argument("--news20-C", type=float, default=10.0)
    parser.add_argument("--news20-peer", action="store_true")
    parser.add_argument("--data-dir", default=os.environ.get("SNAPML_DATA_DIR", "../shared/datasets"))
    arguments = parser.parse_args()
    print(f"{platform.node()}, {os.cpu_count()} CPUs; scikit-learn {sklearn.__version__}, snap_ml from this tree")
    small_sets(arguments.digits)
    if arguments.news20:
        news20(arguments.news20, arguments.data_dir, arguments.news20_C, arguments.news20_peer)


if __name__ == "__main__":
    main()
