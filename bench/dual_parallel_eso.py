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

    python3 bench/dual_parallel_eso.py ../shared/datasets/a9a ../shared/datasets/w8a
    python3 bench/dual_parallel_eso.py --threads 2,4,8,16,64 data.svm

Inputs: svmlight files (scikit-learn's reader). Prints lambda_max / n and beta(T)
for each T, one row a file.
"""
import argparse

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds
from sklearn.datasets import load_svmlight_file


def unit_rows(X, intercept_scaling):
    if intercept_scaling != 0.0:
        X = sp.hstack([X, np.full((X.shape[0], 1), intercept_scaling)], format="csr")
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="svmlight files")
    parser.add_argument("--intercept-scaling", type=float, default=1.0, help="the intercept column's value (-B)")
    parser.add_argument("--threads", default="4,16", help="the T to print, comma-separated")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    print("| data | rows | lambda_max / n | " + " | ".join(f"beta({t})" for t in threads) + " |")
    print("|---|---|---|" + "---|" * len(threads))
    for path in args.files:
        X, _ = load_svmlight_file(path)
        Xn = unit_rows(X.tocsr(), args.intercept_scaling)
        n = Xn.shape[0]
        lam = largest_gram_eigenvalue(Xn)
        betas = [eso_factor(lam, n, t) for t in threads]
        print(f"| {path} | {n} | {lam / n:.3f} | " + " | ".join(f"{b:.2f}" for b in betas) + " |")


if __name__ == "__main__":
    main()
