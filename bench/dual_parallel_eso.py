#!/usr/bin/env python3
"""How much T concurrent dual steps must be shortened on a data set: the data's
expected separable overapproximation (ESO) factor for T rows stepped at once.

For T rows drawn at random and stepped together from the same w (mini-batch
SDCA, Takac, Bijral, Richtarik & Srebro 2013, "Mini-batch primal and dual methods
for SVMs", ICML; the tau-nice sampling of Richtarik & Takac 2016, Math. Prog. 156),
every step is safe at 1 / beta(T) of its length with

    beta(T) = 1 + (T - 1) (lambda_max - 1) / (n - 1),

lambda_max the largest eigenvalue of the Gram matrix of the rows scaled to unit
norm (between 1, orthogonal rows, and n, identical ones). Serial SDCA is T = 1.
CoCoA+'s merge (the CPU's replicas, snapml/impl/cocoa.h) bounds the same overlap
by its measured sigma', so beta(T) predicts how many more epochs T workers take
than one (docs/benchmarks/threads.md, "What 16 workers' epochs cost, by the
data"); asynchronous exact steps on a shared w (PASSCoDe) skip the shortening and
converge or stall by how the stale steps align.

The intercept is a column of value --intercept-scaling (snap-train's -B; 0: none).

--at-optimum C (logistic regression, penalty C, the labels' largest value the
positive class) adds what decides the shared w's unshortened steps: T rows stepped
at once by their exact steps from the same w are a Jacobi sweep on their block of
the dual, which converges when 2 D_B - G_B is positive definite (G_B the rows' Gram
matrix, D_B the diagonal of the steps' curvatures ||x_i||^2 + C / (a_i (C - a_i)),
a_i the optimal dual variables; the solvers' dual_curvature, cuda/src/dual/row_work.h), so when the
largest eigenvalue of D_B^-1/2 G_B D_B^-1/2 is below 2. It prints that eigenvalue's
mean over random blocks of T rows at the optimum (found by snap_ml's
LogisticRegression, which must be importable). Rows at the optimum's bounds (a
well-classified row's a_i near 0) have a large curvature and barely move, which
beta(T) does not see.

    python3 bench/dual_parallel_eso.py ../shared/datasets/a9a ../shared/datasets/w8a
    python3 bench/dual_parallel_eso.py --threads 2,4,8,16,64 data.svm
    python3 bench/dual_parallel_eso.py --threads 4,16,64 --at-optimum 1 ../shared/datasets/w8a

Inputs: svmlight files (scikit-learn's reader). Prints lambda_max / n and beta(T)
for each T, one row a file.
"""
import argparse

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds
from scipy.special import expit
from sklearn.datasets import load_svmlight_file


def with_intercept(X, intercept_scaling):
    """X with the intercept as a last column of `intercept_scaling` (0: X as it is)."""
    if intercept_scaling == 0.0:
        return X
    return sp.hstack([X, np.full((X.shape[0], 1), intercept_scaling)], format="csr")


def unit_rows(X):
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    norms[norms == 0.0] = 1.0  # an empty row is orthogonal to every other
    return sp.diags(1.0 / norms) @ X


def largest_gram_eigenvalue(Xn):
    # The Gram matrix's largest eigenvalue is the largest singular value squared.
    if min(Xn.shape) <= 2:
        return float(np.linalg.norm(Xn.toarray(), 2) ** 2)
    s = svds(Xn, k=1, return_singular_vectors=False, random_state=0)
    return float(s[0] ** 2)


def eso_factor(lam, n, threads):
    """beta(T) for the Gram matrix's largest eigenvalue lam over n unit rows."""
    return 1.0 + (threads - 1) * (lam - 1.0) / max(n - 1, 1)


def optimal_logistic_alpha(X, y, C):
    """The dual variables at the optimum of L2 logistic regression over the rows of X
    (the intercept, if any, already a column): a_i = C / (1 + exp(y_i w*.x_i))."""
    import snap_ml

    w = snap_ml.LogisticRegression(C=C, fit_intercept=False, tol=1e-8, n_jobs=1).fit(X, y).coef_.ravel()
    return C * expit(-y * (X @ w))


def jacobi_factor(X, y, alpha, C, threads, blocks=600, seed=0):
    """The mean over `blocks` random blocks of `threads` rows of the largest eigenvalue
    of D_B^-1/2 (Y X X^T Y)_B D_B^-1/2, D_ii = ||x_i||^2 + C / (a_i (C - a_i))."""
    a = np.clip(alpha, np.finfo(float).tiny, C * (1.0 - 1e-16))
    curvature = np.asarray(X.multiply(X).sum(axis=1)).ravel() + C / (a * (C - a))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(blocks):
        rows = rng.choice(X.shape[0], threads, replace=False)
        gram = (X[rows] @ X[rows].T).toarray() * np.outer(y[rows], y[rows])
        scale = 1.0 / np.sqrt(curvature[rows])
        values.append(np.linalg.eigvalsh(gram * np.outer(scale, scale))[-1])
    return float(np.mean(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="svmlight files")
    parser.add_argument("--intercept-scaling", type=float, default=1.0, help="the intercept column's value (-B)")
    parser.add_argument("--threads", default="4,16", help="the T to print, comma-separated")
    parser.add_argument("--at-optimum", type=float, default=None, metavar="C",
                        help="also the Jacobi factor of T exact steps at the logistic optimum for penalty C")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    jacobi = args.at_optimum is not None
    print("| data | rows | lambda_max / n | " + " | ".join(f"beta({t})" for t in threads) +
          "".join(f" | Jacobi({t})" for t in threads if jacobi) + " |")
    print("|---|---|---|" + "---|" * len(threads) * (2 if jacobi else 1))
    for path in args.files:
        X, labels = load_svmlight_file(path)
        X = with_intercept(X.tocsr(), args.intercept_scaling)
        Xn = unit_rows(X)
        n = Xn.shape[0]
        lam = largest_gram_eigenvalue(Xn)
        cells = [f"{eso_factor(lam, n, t):.2f}" for t in threads]
        if jacobi:
            y = np.where(labels == labels.max(), 1.0, -1.0)
            alpha = optimal_logistic_alpha(X, y, args.at_optimum)
            cells += [f"{jacobi_factor(X, y, alpha, args.at_optimum, t):.2f}" for t in threads]
        print(f"| {path} | {n} | {lam / n:.3f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
