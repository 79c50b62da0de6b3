"""The elastic net and L1 logistic regression with scikit-learn's free intercept:
snap_ml's LogisticRegression(solver="saga") (newGLMNET) against scikit-learn's
saga on a9a, scikit-learn's at its defaults (tol 1e-4, at most 100 epochs), ours at its
default tol and at a tight one. Prints, per run, the
wall time of fit() and the objective's relative excess over the best one seen
(scikit-learn's objective, float64 features).

    python3 bench/enet_saga_bench.py --data-dir /work/shared/datasets --threads 2
"""

import argparse
import time
import warnings

import numpy as np
import sklearn.linear_model
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning

import snap_ml


def objective(model, X, y, C, l1_ratio):
    margins = np.where(y > 0, 1.0, -1.0) * (X @ model.coef_.ravel() + model.intercept_[0])
    coef = model.coef_
    return (C * np.sum(np.logaddexp(0, -margins)) + l1_ratio * np.abs(coef).sum()
            + 0.5 * (1 - l1_ratio) * np.sum(coef ** 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--saga-tols", default="1e-4")
    parser.add_argument("--saga-max-iter", type=int, default=100,
                        help="saga's epochs at most (scikit-learn's default 100; at tol 1e-4 a9a's elastic "
                             "net at C 1 has not converged after 14 minutes)")
    parser.add_argument("--ours-tols", default="1e-4,1e-10")
    args = parser.parse_args()
    X, y = load_svmlight_file(f"{args.data_dir}/a9a")
    X = X.tocsr()
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    for l1_ratio in (0.5, 1.0):
        penalty = dict(penalty="elasticnet", l1_ratio=l1_ratio) if l1_ratio < 1 else dict(penalty="l1")
        rows = []
        for tol in map(float, args.saga_tols.split(",")):
            model = sklearn.linear_model.LogisticRegression(**penalty, C=args.C, solver="saga", tol=tol,
                                                            max_iter=args.saga_max_iter, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", (ConvergenceWarning, FutureWarning, UserWarning))
                start = time.perf_counter()
                model.fit(X, y)
                seconds = time.perf_counter() - start
            rows.append((f"scikit-learn saga tol={tol:g}", seconds, f"{model.n_iter_[0]} epochs",
                         objective(model, X, y, args.C, l1_ratio)))
        for tol in map(float, args.ours_tols.split(",")):
            model = snap_ml.LogisticRegression(**penalty, C=args.C, solver="saga", tol=tol, max_iter=1000,
                                               n_jobs=args.threads)
            start = time.perf_counter()
            model.fit(X, y)
            seconds = time.perf_counter() - start
            rows.append((f"snap_ml saga tol={tol:g}", seconds, f"{model.n_iter_[0]} iterations",
                         objective(model, X, y, args.C, l1_ratio)))
        best = min(row[3] for row in rows)
        print(f"a9a C={args.C:g} l1_ratio={l1_ratio:g} (best objective {best:.10g})")
        for name, seconds, iterations, value in rows:
            print(f"  {name:32s} {seconds:9.3f} s  {iterations:18s} relative excess {(value - best) / best:.2e}")


if __name__ == "__main__":
    main()
