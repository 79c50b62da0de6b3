#!/usr/bin/env python3
"""The drop-in's default against scikit-learn's on a9a at several C (issue "Primal
Newton solvers": the default estimator reaches scikit-learn lbfgs's objective within
1e-6 relative and is faster than both lbfgs and liblinear at every C, 2 threads).

snap_ml.LogisticRegression(C=C, n_jobs=2) as a user writes it (free intercept, its
solver="auto") against scikit-learn's LogisticRegression(C=C) (lbfgs, its defaults
but max_iter=10000 so that it converges) and solver="liblinear" (its defaults; a
penalised intercept, so another problem: its time only). fit() on a9a already read;
best of --repeats fits; the objective is scikit-learn's, 0.5 ||w||^2 + C sum_i
log(1 + exp(-y_i (w.x_i + b))), relative to lbfgs's (negative: below it). Prints a
Markdown table.

    python3 bench/dropin_speed_bench.py [--repeats 3]
"""

import argparse
import os
import pathlib

import numpy as np
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

import snap_ml
from python_bench import best_fit  # bench/, beside this script
from snap_ml.datasets import load_svmlight_file

DATA = pathlib.Path(os.environ.get("SNAPML_DATA_DIR", pathlib.Path(__file__).resolve().parents[2] / "shared" /
                                   "datasets"))


def objective(model, X, y, C):
    w, b = model.coef_.ravel(), float(model.intercept_[0])
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    return 0.5 * w @ w + C * float(np.logaddexp(0.0, -signs * (X @ w + b)).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--c", type=float, nargs="+", default=[1.0, 10.0, 100.0, 1e6])
    args = parser.parse_args()
    X, y = load_svmlight_file(DATA / "a9a")
    X = X.astype(np.float64)
    print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
    print("| C | snap_ml (s) | sklearn lbfgs (s) | sklearn liblinear (s) | lbfgs / snap_ml | liblinear / snap_ml "
          "| snap_ml objective vs lbfgs's |")
    print("|---|---|---|---|---|---|---|")
    for C in args.c:
        ours_s, ours = best_fit(lambda: snap_ml.LogisticRegression(C=C, n_jobs=2), X, y, args.repeats)
        lbfgs_s, lbfgs = best_fit(lambda: SkLogisticRegression(C=C, max_iter=10000), X, y, args.repeats)
        liblinear_s, _ = best_fit(lambda: SkLogisticRegression(C=C, solver="liblinear"), X, y, args.repeats)
        reference = objective(lbfgs, X, y, C)
        relative = (objective(ours, X, y, C) - reference) / reference
        print(f"| {C:g} | {ours_s:.3f} | {lbfgs_s:.3f} | {liblinear_s:.3f} | {lbfgs_s / ours_s:.2f} | "
              f"{liblinear_s / ours_s:.2f} | {relative:.1e} |", flush=True)
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
