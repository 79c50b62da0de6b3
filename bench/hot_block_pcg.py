#!/usr/bin/env python3
"""How many CG steps the Newton system at the logistic optimum takes under the
trust region's preconditioners (snapml/src/primal/hot_block.h): the diagonal mixed
with the identity (a = 0.01, LIBLINEAR's), the whole diagonal, and the exact block
of H on the heaviest weights of diag(H) beside the whole diagonal.

H = I + X^T D X at the optimum of L2 logistic regression (the intercept a column
of value 1, penalised; found by snap_ml's LogisticRegression, which must be
importable), a right-hand side X^T (sqrt(D) z) for a fixed normal z, scipy's CG to
a relative residual 1e-6. Beside each block: its weights' share of diag(H) and
the pairs of entries a pass forming it visits, per entry of the data (the
Hessian-vector product visits each entry twice).

    python3 bench/hot_block_pcg.py --C 0.1 --blocks 64,256,1024 click.svm

docs/benchmarks/primal.md ("A block for the hot columns") has a run.
"""
import argparse

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.datasets import load_svmlight_file

from dual_parallel_eso import optimal_logistic_alpha, with_intercept


def cg_steps(H, b, M):
    steps = [0]
    cg(H, b, rtol=1e-6, maxiter=20000, M=M, callback=lambda _: steps.__setitem__(0, steps[0] + 1))
    return steps[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--blocks", default="64,256,1024")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        X, y = load_svmlight_file(path)
        X = with_intercept(X.tocsr(), 1.0).tocsr()
        y = np.where(y > 0, 1.0, -1.0)
        n, d = X.shape
        p = optimal_logistic_alpha(X, y, args.C) / args.C
        D = args.C * p * (1.0 - p)
        H = LinearOperator((d, d), matvec=lambda v: v + X.T @ (D * (X @ v)))
        b = X.T @ (np.random.default_rng(0).standard_normal(n) * np.sqrt(D))
        diagonal = 1.0 + X.multiply(X).T @ D
        cells = []
        for mix in (0.01, 1.0):
            m = (1.0 - mix) + mix * diagonal
            cells.append(f"diagonal a={mix}: {cg_steps(H, b, LinearOperator((d, d), matvec=lambda v, m=m: v / m))}")
        order = np.argsort(-diagonal, kind="stable")
        present = (X != 0).astype(np.float64).tocsr()
        for size in (int(s) for s in args.blocks.split(",")):
            hot = np.sort(order[:size])
            share = (diagonal[hot] - 1.0).sum() / (diagonal - 1.0).sum()
            per_row = np.asarray(present[:, hot].sum(axis=1)).ravel()
            pairs = (per_row * (per_row + 1) / 2).sum() / X.nnz
            Xh = X[:, hot]
            factor = sla.cho_factor(np.eye(size) + (Xh.T @ sp.diags(D) @ Xh).toarray())

            def solve(v, hot=hot, factor=factor):
                z = v / diagonal
                z[hot] = sla.cho_solve(factor, v[hot])
                return z

            steps = cg_steps(H, b, LinearOperator((d, d), matvec=solve))
            cells.append(f"block {size} (share {share:.2f}, pairs {pairs:.1f}): {steps}")
        print(f"{path} C={args.C} {n}x{d}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
